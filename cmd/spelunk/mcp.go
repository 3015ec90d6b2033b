package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/mcpserver"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
)

// mcpMaxMessage bounds one JSON-RPC message from a client (stdio line or HTTP
// body): tool arguments are small, and a huge one is refused before it is parsed.
const mcpMaxMessage = 4 << 20

// newMCPCmd is `spelunk mcp`: the engine as MCP tools for coding agents, bound to
// one repository (--repo / $SPELUNK_REPO) and tenant (--tenant / $SPELUNK_TENANT).
func newMCPCmd(g *globals) *cobra.Command {
	var httpAddr, tools, reposFrom string
	var allowResolve, printHashes, noWatch bool
	var allowOrigins []string
	var sessionIdle time.Duration
	cmd := &cobra.Command{
		Use:   "mcp [--repo DIR ...] [--tools code,memory,admin] [--http 127.0.0.1:PORT [--allow-origin URL ...]] [--allow-resolve] [--print-tool-hashes]",
		Short: "Serve the repository and its agents' memory as MCP tools (stdio, or streamable HTTP on loopback)",
		Long: "Serve spelunk over the Model Context Protocol: code search, symbols, the code graph, indexing and\n" +
			"agent memory as tools. The server is bound to an allowlist of repositories (every --repo, the lines of\n" +
			"--repos-from FILE; else $SPELUNK_REPO or the git top level of the current directory) and one tenant\n" +
			"(--tenant, $SPELUNK_TENANT); no tool argument reaches another. Every tool takes an optional repository\n" +
			"(name, path or id); search_code without one searches them all, the others use the first.\n" +
			"--tools serves only some groups: code (search_code, search_symbols, read_symbol, find_callers,\n" +
			"find_callees, find_imports, retrieve_context), memory (briefing, recall, remember, supersede_memory,\n" +
			"invalidate_memory, set_nugget, list_conflicts), admin (index_file, resolve_conflict); default all.\n" +
			"It speaks stdio by default; --http serves streamable HTTP on a loopback address only, at the one path\n" +
			"http://ADDR/mcp (any other path is 404). A request whose Origin header is not loopback (localhost,\n" +
			"127.0.0.0/8, [::1]) or given with --allow-origin is refused (403): a web page cannot drive the server;\n" +
			"clients that send no Origin are served. A session idle for --session-idle is closed, and at most 64\n" +
			"live at once (a new one past that closes the oldest).\n" +
			"Memory conflicts are resolved by a person unless --allow-resolve is given.\n" +
			"The index follows the working tree and HEAD as with spelunk watch (log lines on stderr) unless --no-watch.\n" +
			"--print-tool-hashes prints the SHA-256 of every tool definition served (with --tools and --allow-resolve, of those), for clients that pin them.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			groups, err := toolGroups(tools)
			if err != nil {
				return err
			}
			if printHashes {
				hs, err := mcpserver.Hashes(mcpserver.New(mcpserver.Config{Groups: groups, AllowResolve: allowResolve}).Tools())
				if err != nil {
					return err
				}
				fmt.Fprint(cmd.OutOrStdout(), mcpserver.FormatHashes(hs))
				return nil
			}
			if httpAddr != "" {
				if err := loopbackAddr(httpAddr); err != nil {
					return usageError{err}
				}
			}
			for _, o := range allowOrigins {
				if u, err := url.Parse(o); err != nil || u.Scheme == "" || u.Host == "" || strings.Trim(u.Path, "/") != "" {
					return usagef("--allow-origin %q: want an origin, scheme://host[:port] (https://app.example)", o)
				}
			}
			return serveMCP(cmd.Context(), g, mcpOptions{httpAddr: httpAddr, reposFrom: reposFrom, groups: groups,
				allowResolve: allowResolve, watching: !noWatch,
				http: mcpserver.HTTPOptions{AllowedOrigins: allowOrigins, SessionIdle: sessionIdle, MaxBody: mcpMaxMessage}})
		},
	}
	f := cmd.Flags()
	f.StringVar(&tools, "tools", "", "serve only these tool groups, comma-separated: code, memory, admin (default all)")
	f.StringVar(&reposFrom, "repos-from", "", "serve the repositories listed in FILE too (one directory a line, # comments)")
	f.StringVar(&httpAddr, "http", "", "serve streamable HTTP on this loopback address (127.0.0.1:PORT or [::1]:PORT) instead of stdio")
	f.StringSliceVar(&allowOrigins, "allow-origin", nil, "with --http, also accept requests from this browser origin (scheme://host[:port]; repeatable)")
	f.DurationVar(&sessionIdle, "session-idle", mcpserver.DefaultSessionIdle, "with --http, close a session idle this long")
	f.BoolVar(&allowResolve, "allow-resolve", false, "let agents resolve memory conflicts (default: only a person can, in the TUI or with spelunk conflicts resolve)")
	f.BoolVar(&printHashes, "print-tool-hashes", false, "print the SHA-256 of each tool definition and exit")
	f.BoolVar(&noWatch, "no-watch", false, "do not follow the working tree (spelunk watch) while serving")
	return cmd
}

// loopbackAddr accepts host:port where host is a loopback IP or "localhost"; a
// server reachable from the network would hand the repository to anyone on it.
func loopbackAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: want 127.0.0.1:PORT (%v)", addr, err)
	}
	if port == "" {
		return fmt.Errorf("--http %q: the port is missing (127.0.0.1:PORT)", addr)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--http %q: spelunk mcp serves loopback addresses only (127.0.0.1:PORT or [::1]:PORT); %q is not one", addr, host)
	}
	return nil
}

// mcpOptions are spelunk mcp's flags.
type mcpOptions struct {
	httpAddr, reposFrom string
	groups              []string
	allowResolve        bool
	watching            bool
	http                mcpserver.HTTPOptions
}

// toolGroups reads --tools: nil (every group) when empty.
func toolGroups(v string) ([]string, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	var groups []string
	for _, g := range strings.Split(v, ",") {
		groups = append(groups, strings.TrimSpace(g))
	}
	if err := mcpserver.CheckGroups(groups); err != nil {
		return nil, usageError{fmt.Errorf("--tools: %w", err)}
	}
	return groups, nil
}

func serveMCP(ctx context.Context, g *globals, o mcpOptions) error {
	if g.repo == "" {
		g.repo = os.Getenv("SPELUNK_REPO")
	}
	roots, err := repoRoots(ctx, g, o.reposFrom)
	if err != nil {
		return err
	}
	// stdout is the protocol: every note goes to stderr.
	emb, note, err := g.embed.embedder()
	if err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintln(os.Stderr, "spelunk mcp:", note)
	}
	db, err := openDB(ctx, g)
	if err != nil {
		if srv, stop, cerr := cacheOnlyMCPServer(ctx, g, emb, roots, o, err); cerr == nil {
			defer stop()
			return runMCP(ctx, g, srv, o, roots)
		}
		return err
	}
	defer db.Close()
	var repos []mcpserver.Repo
	for _, root := range roots {
		repo, err := db.EnsureRepository(ctx, root)
		if err != nil {
			return err
		}
		repos = append(repos, mcpserver.Repo{ID: repo.ID, Root: root})
		switch {
		case repo.LastIndexedAt == nil && o.watching:
			fmt.Fprintf(os.Stderr, "spelunk mcp: %s is not indexed yet: the watcher indexes it now; code tools answer \"not indexed\" until it is done\n", root)
		case repo.LastIndexedAt == nil:
			fmt.Fprintf(os.Stderr, "spelunk mcp: %s is not indexed yet: code tools answer \"not indexed\" until `spelunk index` runs (or index_file is called)\n", root)
		}
		// Memories stored while the embedder was down are checked now, as the CLI does.
		if _, err := memory.New(db, repo.ID, g.memOptions(emb)).EmbedPending(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "spelunk mcp: pending memories not embedded:", err)
		}
		if o.watching {
			defer watchInBackground(ctx, db, emb, root, "spelunk mcp: watch: ")() // stopped before the pool closes
		}
	}
	srv, stopCache, err := newMCPServer(ctx, g, db, emb, repos, o, nil)
	if err != nil {
		return err
	}
	defer stopCache() // before the pool closes
	return runMCP(ctx, g, srv, o, roots)
}

// runMCP serves srv on stdio, or on o.httpAddr, until the client or ctx ends.
func runMCP(ctx context.Context, g *globals, srv *mcpserver.Server, o mcpOptions, roots []string) error {
	if o.httpAddr == "" {
		// Not mcp.StdioTransport: it ends the session on the first malformed line.
		err := srv.Run(ctx, mcpserver.Stdio(os.Stdin, os.Stdout, mcpMaxMessage))
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	o.http.Logger = mcpLogger()
	return serveMCPHTTP(ctx, srv, o.httpAddr, strings.Join(roots, ", "), g.tenant, o.http)
}

// mcpLogger logs warnings and errors on stderr (stdout is the protocol).
func mcpLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// cacheOnlyMCPServer is the server of a start without the database (a laptop
// offline, the shared server down): when every repository has a local memory
// cache, the memory tools answer from it and queue their writes, which the
// next start with the database reachable pushes; the other tools say why they
// cannot answer. It fails (and the start with it) when a repository has no
// cache: there would be nothing to serve.
func cacheOnlyMCPServer(ctx context.Context, g *globals, emb embed.Embedder, roots []string, o mcpOptions,
	unreachable error) (*mcpserver.Server, func(), error) {
	offline := *g
	offline.offline = true // the core is not asked; memoryClient refuses a repository without a cache
	repos := make([]mcpserver.Repo, len(roots))
	for i, root := range roots {
		repos[i] = mcpserver.Repo{Root: root}
	}
	srv, stop, err := newMCPServer(ctx, &offline, nil, emb, repos, o, unreachable)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(os.Stderr, "spelunk mcp: the database is unreachable (%s): memory is served from the local cache, "+
		"its writes queued until a start with the database up; the code tools cannot answer\n", pg.RedactText(unreachable.Error()))
	return srv, stop, nil
}

func serveMCPHTTP(ctx context.Context, srv *mcpserver.Server, addr, root, tenant string, o mcpserver.HTTPOptions) error {
	if host, port, _ := net.SplitHostPort(addr); host == "localhost" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv.HTTPHandler(o), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(os.Stderr, "spelunk mcp: serving http://%s%s (repository %s, tenant %s)\n", ln.Addr(), mcpserver.EndpointPath, root, tenant)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

// newMCPServer builds the server over the repositories. Each one's memory tools
// are served from its project's local cache when one is configured (one file per
// database and project: cacheFile), pulled up to date before the first call;
// without a cache, from the core. With db nil (unreachable says why) only the
// caches serve, and g must be offline.
func newMCPServer(ctx context.Context, g *globals, db *pg.DB, emb embed.Embedder, repos []mcpserver.Repo, o mcpOptions,
	unreachable error) (*mcpserver.Server, func(), error) {
	if g.cache != "" && g.cache != "off" && len(repos) > 1 {
		// A cache file belongs to one project (memcache refuses another's): a
		// shared one would mix the repositories' memories.
		return nil, nil, usagef("--cache %s is one project's memory cache, and %d repositories are served: leave --cache out "+
			"(each repository then has its own file under the user cache directory) or give --cache off", g.cache, len(repos))
	}
	repos = slices.Clone(repos)
	var stops []func()
	stopAll := func() {
		for _, stop := range slices.Backward(stops) {
			stop()
		}
	}
	var notes []string
	for i, r := range repos {
		cl, stop, err := memoryClient(ctx, g, r.Root, db, r.ID, emb, os.Stderr)
		var usage usageError
		if errors.As(err, &usage) {
			stopAll()
			return nil, nil, err
		}
		if err != nil {
			// A cache that cannot be opened (its directory unwritable, say) must not
			// take the code tools down: memory is served by the core instead.
			served := "memory is served by the core, without a local copy"
			if db == nil {
				served = "its memory tools are not served"
			}
			note := fmt.Sprintf("the memory cache of %s could not be opened (%v): %s; check the file and its directory, "+
				"then restart spelunk mcp", r.Root, err, served)
			fmt.Fprintf(os.Stderr, "note: %s\n", note)
			notes = append(notes, note)
			continue
		}
		stops = append(stops, stop)
		if cl != nil {
			repos[i].Memory = cl
			if note := cl.Cache().Recovery(); note != "" {
				notes = append(notes, note)
			}
		}
	}
	cfg := mcpserver.Config{DB: db, Repos: repos, Tenant: g.tenant, Embedder: emb, Judge: g.judge.judge, Groups: o.groups,
		AllowResolve: o.allowResolve, Version: mcpVersion(), Logger: mcpLogger(), Unreachable: unreachable, Notes: notes}
	return mcpserver.New(cfg), stopAll, nil
}

// mcpVersion is the module version the binary was built from, "dev" in a checkout.
func mcpVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
