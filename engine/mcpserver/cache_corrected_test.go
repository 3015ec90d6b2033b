package mcpserver_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/mcpserver"
	"github.com/spelunkhq/spelunk/engine/memory"
)

// TestRememberFromCacheReportsCorrections: remember served through the edge
// cache answers as the core does. With the core up, a correction of a parent
// comes back with the core's corrected list; with the core down, the answer
// says the write is queued and lists the cached parents the local check finds
// corrected, which the core supersedes once the queue drains.
func TestRememberFromCacheReportsCorrections(t *testing.T) {
	ctx := context.Background()
	env := serveFromCache(t, nil)
	c, core, cache, cs := env.cluster, env.core, env.cache, env.cs

	// Core up: the answer is the core's.
	p1 := call[mcpserver.RememberOut](t, cs, "remember", map[string]any{"text": "The API server listens on port 8080."})
	r1 := call[mcpserver.RememberOut](t, cs, "remember", map[string]any{"text": "The API server listens on port 9090.", "parents": []string{p1.ID}})
	if r1.Queued || !slices.Equal(r1.Corrected, []string{p1.ID}) {
		t.Fatalf("remember a correction with the core up = %+v; want corrected [%s], not queued", r1, p1.ID)
	}
	if m, err := core.Store.Get(ctx, p1.ID); err != nil || m.Status != memory.StatusSuperseded {
		t.Fatalf("core parent = %s, %v; want SUPERSEDED", m.Status, err)
	}
	// An agreeing child corrects nothing.
	if r := call[mcpserver.RememberOut](t, cs, "remember", map[string]any{"text": "The API server listens on port 9090 behind nginx.", "parents": []string{r1.ID}}); len(r.Corrected) != 0 || r.Queued {
		t.Fatalf("remember a refinement = %+v; want nothing corrected", r)
	}

	// Core down: queued, with the local check's corrections and a note saying so.
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	r2 := call[mcpserver.RememberOut](t, cs, "remember", map[string]any{"text": "The API server listens on port 7070.", "parents": []string{r1.ID[:8]}})
	if !r2.Queued || !slices.Equal(r2.Corrected, []string{r1.ID}) || !strings.Contains(r2.Note, "QUEUED") || !strings.Contains(r2.Note, "superseded when it syncs") {
		t.Fatalf("remember a correction with the core down = %+v; want queued, corrected [%s], a note saying the check runs at sync", r2, r1.ID)
	}

	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	waitDrained(t, cache)
	if m, err := core.Store.Get(ctx, r1.ID); err != nil || m.Status != memory.StatusSuperseded || m.SupersededBy != r2.ID {
		t.Fatalf("core parent after sync = %+v, %v; want SUPERSEDED by %s, as the queued answer said", m, err, r2.ID)
	}
}
