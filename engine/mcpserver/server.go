// Package mcpserver serves the engine to coding agents over the Model Context
// Protocol: narrow tools with JSON schemas and small structured results, bound at
// start to one repository and one tenant. Nothing an agent passes in a tool call can
// name another repository or tenant: every engine call takes the bound repository id,
// the database connection carries the bound tenant (row-level security), and paths
// are checked to stay inside the repository root.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/fresh"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/search"
)

// Embedder is the one embedding contract (engine/embed).
type Embedder = embed.Embedder

// Config binds a server to one repository of one tenant.
type Config struct {
	DB     *pg.DB // opened for the tenant: row-level security scopes every query
	Root   string // the repository root, absolute with symlinks resolved
	RepoID int64  // the repository registered for Root in DB's tenant
	Tenant string // reported to clients; the scope itself is DB's
	// Embedder is the model the repository was indexed with; nil disables the dense
	// channel and memory conflict detection.
	Embedder Embedder
	// AllowResolve lets agents resolve memory conflicts; by default only a person can
	// (in the TUI or with `spelunk conflicts resolve`).
	AllowResolve bool
	// Version is reported in the initialize handshake.
	Version string
	// Timeout bounds one tool call; 0 = 30 s.
	Timeout time.Duration
	// Logger receives recovered panics and server activity; nil = discard.
	Logger *slog.Logger
	// Memory serves the memory tools; nil = the core's memory store of RepoID.
	// spelunk mcp gives the local edge cache here (engine/memcache.Client) when
	// one is configured.
	Memory MemoryStore
}

// MemoryStore is what the memory tools use: memory.Store's methods, served by the
// core or by the local cache.
type MemoryStore interface {
	Add(ctx context.Context, in memory.NewMemory) (memory.Added, error)
	Search(ctx context.Context, query string, limit int) (memory.SearchResult, error)
	Briefing(ctx context.Context, opts memory.BriefingOptions) (memory.Briefing, error)
	Supersede(ctx context.Context, oldRef, newRef, actor, reason string) (memory.Memory, error)
	Invalidate(ctx context.Context, ref, actor, reason string) (memory.Memory, error)
	SetNugget(ctx context.Context, w memory.NuggetWrite) (memory.NuggetSet, error)
	Conflicts(ctx context.Context, status memory.ConflictStatus) ([]memory.Conflict, error)
	Conflict(ctx context.Context, ref string) (memory.ConflictDetail, error)
	Resolve(ctx context.Context, ref string, r memory.Resolution) (memory.Resolved, error)
}

// Server is the MCP server of one repository.
type Server struct {
	cfg    Config
	srv    *mcp.Server
	search *search.Searcher
	mem    MemoryStore
	fresh  *fresh.Checker // marks results whose files changed since indexed
	tools  []*mcp.Tool

	indexMu sync.Mutex  // one working-tree index run at a time
	indexed atomic.Bool // an index run has finished: requireIndexed need not ask again
}

// New returns a server with every tool registered. A Config with no database still
// lists the tools (for --print-tool-hashes); calling them then fails.
func New(cfg Config) *Server {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	s := &Server{cfg: cfg}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "spelunk", Title: "spelunk code search and agent memory", Version: cfg.Version},
		&mcp.ServerOptions{Instructions: instructions, Logger: cfg.Logger})
	if cfg.DB != nil {
		var emb search.Embedder
		var memEmb memory.Embedder
		if cfg.Embedder != nil {
			emb, memEmb = cfg.Embedder, cfg.Embedder
		}
		s.search = search.New(cfg.DB, cfg.RepoID, emb)
		s.mem = cfg.Memory
		if s.mem == nil {
			s.mem = memory.New(cfg.DB, cfg.RepoID, memory.Options{Embedder: memEmb})
		}
		s.fresh = fresh.New(cfg.DB, cfg.RepoID, cfg.Root, fresh.Options{})
	}
	s.registerCode()
	s.registerMemory()
	return s
}

const instructions = `spelunk answers questions about one indexed repository and keeps the shared, conflict-aware memory of the agents working on it. ` +
	`Start with briefing; find code with search_code or search_symbols, read it with read_symbol, follow find_callers/find_callees/find_imports, ` +
	`and use retrieve_context for prompt-ready source under a token budget. Paths are relative to the repository root. ` +
	`Results say the revision they were indexed at; one marked stale comes from a file changed on disk since: index_file it before trusting its lines. ` +
	`A memory that contradicts another is DISPUTED: a person resolves the conflict.`

// MCP is the SDK server, to run on a transport.
func (s *Server) MCP() *mcp.Server { return s.srv }

// Run serves one client over the transport until it disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error { return s.srv.Run(ctx, t) }

// Tools are the tool definitions in registration order.
func (s *Server) Tools() []*mcp.Tool { return s.tools }

// errUnbound is returned by a tool called on a server built without a database.
var errUnbound = errors.New("server not bound to a database")

// addTool registers a typed tool with explicit input and output schemas (so the
// definitions can be hashed), a timeout and a recover: a panic in a handler
// becomes a tool error and the server keeps serving.
func addTool[In, Out any](s *Server, name, desc string, h func(context.Context, *mcp.CallToolRequest, In) (Out, error)) {
	t := &mcp.Tool{Name: name, Description: desc, InputSchema: schemaFor[In](), OutputSchema: schemaFor[Out]()}
	s.tools = append(s.tools, t)
	mcp.AddTool(s.srv, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out Out, err error) {
		defer func() {
			if r := recover(); r != nil {
				s.cfg.Logger.Error("tool panicked", "tool", name, "panic", r, "stack", string(debug.Stack()))
				var zero Out
				res, out, err = nil, zero, fmt.Errorf("%s: internal error (%v); the server is still running", name, r)
			}
		}()
		if s.cfg.DB == nil {
			return nil, out, errUnbound
		}
		ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
		defer cancel()
		out, err = h(ctx, req, in)
		if err != nil {
			return nil, out, s.explain(ctx, name, err)
		}
		return nil, out, nil
	})
}

// explain turns a tool's failure into what the agent can act on: a database
// outage is named as one (a query error alone can read as a bug), a timeout says
// how long it waited.
func (s *Server) explain(ctx context.Context, name string, err error) error {
	var ba badArg
	var ni notIndexedError
	if errors.As(err, &ba) || errors.As(err, &ni) {
		return err
	}
	if down := s.unavailable(ctx); down != nil {
		return fmt.Errorf("%s: %w", name, down)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: timed out after %s", name, s.cfg.Timeout)
	}
	return err
}

func schemaFor[T any]() *jsonschema.Schema {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("schema for %T: %v", *new(T), err))
	}
	return sc
}
