package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spelunkhq/spelunk/engine/memcache"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
)

// memoryClient is the memory cache of a long-lived client (the TUI, spelunk mcp)
// of the project at root, over its already open core: nil when no cache is
// configured (the same rule as the CLI's: cacheFile). Before it returns, the
// difference with the core is pulled (within refreshTimeout); then the cache is
// kept in step in the background until stop, which also closes the file. With
// --offline the core is never asked: reads are local and writes stay queued.
func memoryClient(ctx context.Context, g *globals, root string, db *pg.DB, repoID int64, emb memory.Embedder,
	notes io.Writer) (*memcache.Client, func(), error) {
	path, err := cacheFile(g, root)
	if err != nil {
		return nil, nil, err
	}
	if path == "" {
		if g.offline {
			return nil, nil, usagef("--offline needs a cache: give --cache FILE, or a --db URL (the embedded cluster has none)")
		}
		return nil, func() {}, nil
	}
	c, err := memcache.Open(ctx, memcache.Options{Path: path, Embedder: emb})
	if err != nil {
		return nil, nil, err
	}
	if note := c.Recovery(); note != "" {
		fmt.Fprintf(notes, "note: %s\n", note)
	}
	var core *memcache.Core
	if !g.offline {
		core = &memcache.Core{DB: db, Store: memory.New(db, repoID, g.memOptions(emb))}
	}
	cl := memcache.NewClient(c, core)
	stopLoop := cl.Start(ctx, refreshTimeout, memcache.DefaultTick)
	if r, err := c.Status(ctx); err == nil && r.LastError != "" {
		fmt.Fprintf(notes, "note: memory served from the local cache %s; the core is unreachable: %s\n", path, pg.RedactText(r.LastError))
	}
	return cl, func() { stopLoop(); c.Close() }, nil
}
