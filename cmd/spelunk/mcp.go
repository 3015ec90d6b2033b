package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/mcpserver"
	"github.com/spelunkhq/spelunk/engine/memory"
)

// mcpMaxMessage bounds one JSON-RPC message from a client (stdio line or HTTP
// body): tool arguments are small, and a huge one is refused before it is parsed.
const mcpMaxMessage = 4 << 20

// newMCPCmd is `spelunk mcp`: the engine as MCP tools for coding agents, bound to
// one repository (--repo / $SPELUNK_REPO) and tenant (--tenant / $SPELUNK_TENANT).
func newMCPCmd(g *globals) *cobra.Command {
	var httpAddr string
	var allowResolve, printHashes, noWatch bool
	cmd := &cobra.Command{
		Use:   "mcp [--http 127.0.0.1:PORT] [--allow-resolve] [--print-tool-hashes]",
		Short: "Serve the repository and its agents' memory as MCP tools (stdio, or streamable HTTP on loopback)",
		Long: "Serve spelunk over the Model Context Protocol: code search, symbols, the code graph, indexing and\n" +
			"agent memory as tools. The server is bound to one repository (--repo, $SPELUNK_REPO, else the git top\n" +
			"level of the current directory) and one tenant (--tenant, $SPELUNK_TENANT); no tool argument reaches\n" +
			"another. It speaks stdio by default; --http serves streamable HTTP on a loopback address only.\n" +
			"Memory conflicts are resolved by a person unless --allow-resolve is given.\n" +
			"The index follows the working tree and HEAD as with spelunk watch (log lines on stderr) unless --no-watch.\n" +
			"--print-tool-hashes prints the SHA-256 of every tool definition, for clients that pin them.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if printHashes {
				hs, err := mcpserver.ToolHashes()
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
			return serveMCP(cmd.Context(), g, httpAddr, allowResolve, !noWatch)
		},
	}
	f := cmd.Flags()
	f.StringVar(&httpAddr, "http", "", "serve streamable HTTP on this loopback address (127.0.0.1:PORT or [::1]:PORT) instead of stdio")
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

func serveMCP(ctx context.Context, g *globals, httpAddr string, allowResolve, watching bool) error {
	if g.repo == "" {
		g.repo = os.Getenv("SPELUNK_REPO")
	}
	root, err := repoRoot(ctx, g)
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
		return err
	}
	defer db.Close()
	repo, err := db.EnsureRepository(ctx, root)
	if err != nil {
		return err
	}
	switch {
	case repo.LastIndexedAt == nil && watching:
		fmt.Fprintf(os.Stderr, "spelunk mcp: %s is not indexed yet: the watcher indexes it now; code tools answer \"not indexed\" until it is done\n", root)
	case repo.LastIndexedAt == nil:
		fmt.Fprintf(os.Stderr, "spelunk mcp: %s is not indexed yet: code tools answer \"not indexed\" until `spelunk index` runs (or index_file is called)\n", root)
	}
	// Memories stored while the embedder was down are checked now, as the CLI does.
	if _, err := memory.New(db, repo.ID, memory.Options{Embedder: emb}).EmbedPending(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "spelunk mcp: pending memories not embedded:", err)
	}
	if watching {
		defer watchInBackground(ctx, db, emb, root, "spelunk mcp: watch: ")() // stopped before the pool closes
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg := mcpserver.Config{DB: db, Root: root, RepoID: repo.ID, Tenant: g.tenant, Embedder: emb,
		AllowResolve: allowResolve, Version: mcpVersion(), Logger: logger}
	// The memory tools are served from the local cache when one is configured,
	// pulled up to date before the first call.
	cl, stopCache, err := memoryClient(ctx, g, root, db, repo.ID, emb, os.Stderr)
	if err != nil {
		return err
	}
	defer stopCache() // before the pool closes
	if cl != nil {
		cfg.Memory = cl
	}
	srv := mcpserver.New(cfg)
	if httpAddr == "" {
		// Not mcp.StdioTransport: it ends the session on the first malformed line.
		err := srv.Run(ctx, mcpserver.Stdio(os.Stdin, os.Stdout, mcpMaxMessage))
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	return serveMCPHTTP(ctx, srv, httpAddr, root, g.tenant, logger)
}

func serveMCPHTTP(ctx context.Context, srv *mcpserver.Server, addr, root, tenant string, logger *slog.Logger) error {
	if host, port, _ := net.SplitHostPort(addr); host == "localhost" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, &mcp.StreamableHTTPOptions{Logger: logger})
	hs := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Body = http.MaxBytesReader(w, r.Body, mcpMaxMessage)
			h.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	fmt.Fprintf(os.Stderr, "spelunk mcp: serving http://%s/ (repository %s, tenant %s)\n", ln.Addr(), root, tenant)
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

// mcpVersion is the module version the binary was built from, "dev" in a checkout.
func mcpVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
