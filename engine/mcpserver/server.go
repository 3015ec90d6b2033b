// Package mcpserver serves the engine to coding agents over the Model Context
// Protocol: narrow tools with JSON schemas and small structured results, bound at
// start to one repository and one tenant. Nothing an agent passes in a tool call can
// name another repository or tenant: every engine call takes the bound repository id,
// the database connection carries the bound tenant (row-level security), and paths
// are checked to stay inside the repository root.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
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

// Config binds a server to an allowlist of repositories of one tenant.
type Config struct {
	DB     *pg.DB // opened for the tenant: row-level security scopes every query
	Root   string // the repository root, absolute with symlinks resolved
	RepoID int64  // the repository registered for Root in DB's tenant
	// Repos are further repositories of the allowlist, after Root (or the whole
	// allowlist when Root is empty); tools take a repository argument naming one.
	Repos  []Repo
	Tenant string // reported to clients; the scope itself is DB's
	// Groups are the tool groups served (GroupCode, GroupMemory, GroupAdmin);
	// nil = all.
	Groups []string
	// Embedder is the model the repository was indexed with; nil disables the dense
	// channel and memory conflict detection.
	Embedder Embedder
	// Judge decides memory contradictions; nil = the built-in judge.
	Judge memory.Judge
	// AllowResolve lets agents resolve memory conflicts; by default only a person can
	// (in the TUI or with `spelunk conflicts resolve`).
	AllowResolve bool
	// Version is reported in the initialize handshake.
	Version string
	// Timeout bounds one tool call; 0 = 30 s.
	Timeout time.Duration
	// Logger receives recovered panics and server activity; nil = discard.
	Logger *slog.Logger
	// Memory serves the memory tools of the first repository (RepoID, else
	// Repos[0]) unless its Repo.Memory is set; nil = the core's memory store.
	// Each of Repos has its own Repo.Memory.
	Memory MemoryStore
	// Unreachable is why DB is nil when the server was started without its
	// database: the memory tools are then served by each Repo.Memory (the
	// local caches) and every other tool answers with this reason.
	Unreachable error
	// Notes are what the server's start did about its state that an agent
	// should know (a damaged memory cache set aside and rebuilt, say): they are
	// added to the instructions.
	Notes []string
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

// Server is the MCP server of an allowlist of repositories.
type Server struct {
	cfg   Config
	srv   *mcp.Server
	repos []*binding // the allowlist, the default first; never empty
	tools []*mcp.Tool
	// memoryTools are the tools served from a repository's memory alone, which
	// answer from the local cache when the database is unreachable.
	memoryTools map[string]bool
}

// New returns a server with the tools of cfg.Groups registered. A Config with no
// database still lists the tools (for --print-tool-hashes); calling them then fails.
// Check cfg.Groups with CheckGroups first: an unknown group here serves nothing.
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
	instr := instructions
	if cfg.Unreachable != nil {
		instr += ` The database was unreachable when this server started: only the memory tools are served, from the local cache, ` +
			`their writes queued; restart spelunk mcp once the database is back for the code tools.`
	}
	for _, n := range cfg.Notes {
		instr += " Note: " + n
	}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "spelunk", Title: "spelunk code search and agent memory", Version: cfg.Version},
		&mcp.ServerOptions{Instructions: instr, Logger: cfg.Logger})
	repos := append([]Repo(nil), cfg.Repos...)
	if cfg.Root != "" || len(repos) == 0 {
		repos = append([]Repo{{ID: cfg.RepoID, Root: cfg.Root}}, repos...)
	}
	if repos[0].Memory == nil {
		repos[0].Memory = cfg.Memory
	}
	for _, r := range uniqueNames(repos) {
		s.repos = append(s.repos, s.bind(r))
	}
	s.register(cfg.Groups)
	return s
}

// bind makes the engine handles of one allowed repository.
func (s *Server) bind(r Repo) *binding {
	b := &binding{Repo: r}
	if s.cfg.DB == nil {
		b.mem = r.Memory // the local cache, or nil: nothing to serve
		return b
	}
	var emb search.Embedder
	if s.cfg.Embedder != nil {
		emb = s.cfg.Embedder
	}
	b.search = search.New(s.cfg.DB, r.ID, emb)
	b.mem = r.Memory
	if b.mem == nil {
		b.mem = s.memoryStore(r.ID)
	}
	b.fresh = fresh.New(s.cfg.DB, r.ID, r.Root, fresh.Options{})
	return b
}

// memoryStore is the core's memory store of one repository.
func (s *Server) memoryStore(repoID int64) MemoryStore {
	var memEmb memory.Embedder
	if s.cfg.Embedder != nil {
		memEmb = s.cfg.Embedder
	}
	return memory.New(s.cfg.DB, repoID, memory.Options{Embedder: memEmb, Judge: s.cfg.Judge})
}

const instructions = `spelunk answers questions about indexed repositories and keeps the shared, conflict-aware memory of the agents working on them. ` +
	`Start with briefing; find code with search_code or search_symbols, read it with read_symbol, follow find_callers/find_callees/find_imports, ` +
	`and use retrieve_context for prompt-ready source under a token budget. Paths are relative to the repository root. ` +
	`Every tool takes an optional repository (name, path or id) among those served; without one, search_code searches all of them and the others use the first. ` +
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

// bound fails a call the server cannot serve without its database: any tool
// but the memory tools of a repository with a local cache, which answer from it.
func (s *Server) bound(ctx context.Context, tool string) error {
	if s.cfg.DB != nil {
		return nil
	}
	if s.memoryTools[tool] && s.repo(ctx).mem != nil {
		return nil
	}
	if s.cfg.Unreachable != nil {
		return fmt.Errorf("%s: the database was unreachable when spelunk mcp started (%v), and this tool needs it; "+
			"memory is served from the local cache, its writes queued: restart spelunk mcp once the database is back", tool, s.cfg.Unreachable)
	}
	return errUnbound
}

// addTool registers a typed tool with an explicit input schema (so the
// definitions can be hashed), a timeout and a recover: a panic in a handler
// becomes a tool error and the server keeps serving.
//
// No output schema is declared (the SDK would derive one from Out): full output
// schemas were most of the catalogue a client pays for on every turn, and clients
// give models the description and input schema only; the descriptions say what
// comes back. The result is Out as JSON in one text block, without the
// structuredContent copy the SDK would add: that copy doubled every result an
// agent pays for, and clients that read structured content fall back to the text.
func addTool[In, Out any](s *Server, def tool, h func(context.Context, *mcp.CallToolRequest, In) (Out, error)) {
	name := def.name
	hints := def.hints
	t := &mcp.Tool{Name: name, Description: def.desc, InputSchema: withEnums(schemaFor[In](), def.enums), Annotations: &hints}
	s.tools = append(s.tools, t)
	mcp.AddTool(s.srv, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out any, err error) {
		defer func() {
			if r := recover(); r != nil {
				s.cfg.Logger.Error("tool panicked", "tool", name, "panic", r, "stack", string(debug.Stack()))
				res, out, err = nil, nil, fmt.Errorf("%s: internal error (%v); the server is still running", name, r)
			}
		}()
		ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
		defer cancel()
		if ra, ok := any(in).(repoArger); ok {
			if ctx, err = s.withRepo(ctx, ra.repoArg()); err != nil {
				return nil, nil, err
			}
		}
		if err := s.bound(ctx, name); err != nil {
			return nil, nil, err
		}
		var warning string
		o, err := h(context.WithValue(ctx, warningKey{}, &warning), req, in)
		if err != nil {
			return nil, nil, s.explain(ctx, name, err)
		}
		return textResult(o, warning)
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
	if s.cfg.DB == nil {
		return err // served from the cache: there is no database to ask
	}
	if down := s.unavailable(ctx); down != nil {
		return fmt.Errorf("%s: %w", name, down)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: timed out after %s", name, s.cfg.Timeout)
	}
	return err
}

// textResult is a tool's output as one text block of JSON (no HTML escaping:
// source code is full of < and >).
func textResult(v any, warning string) (*mcp.CallToolResult, any, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, nil, fmt.Errorf("encode the result: %w", err)
	}
	text := strings.TrimSuffix(b.String(), "\n")
	if warning != "" && strings.HasPrefix(text, "{") {
		// First, so an agent reading the start of a long answer sees it.
		w, _ := json.Marshal(warning)
		sep := ","
		if text == "{}" {
			sep = ""
		}
		text = `{"index_incomplete":` + string(w) + sep + text[1:]
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
}

// schemaFor is T's input schema. A list argument is an array, not also null:
// an agent leaves it out rather than sending null, and the catalogue is smaller.
// encodedLen is the length of v as textResult encodes it: what the client
// receives and a budget is measured on.
func encodedLen(v any) (int, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return 0, fmt.Errorf("encode the result: %w", err)
	}
	return b.Len() - 1, nil
}

func schemaFor[T any]() *jsonschema.Schema {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("schema for %T: %v", *new(T), err))
	}
	for _, p := range sc.Properties {
		if len(p.Types) == 2 && p.Types[0] == "null" && p.Types[1] == "array" {
			p.Types, p.Type = nil, "array"
		}
	}
	return sc
}
