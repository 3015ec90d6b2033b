package mcpserver

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/spelunkhq/spelunk/engine/fresh"
	"github.com/spelunkhq/spelunk/engine/search"
)

// Repo is one repository of the server's allowlist.
type Repo struct {
	ID   int64  // registered in the tenant's database
	Root string // absolute, symlinks resolved
	// Name is how tools and results name it; "" = the root's base name (made
	// unique among the allowlist by prefixing parent directories).
	Name string
	// Memory serves this repository's memory tools; nil = the core's memory
	// store of the repository. spelunk mcp gives each repository's local edge
	// cache here (engine/memcache.Client, one per project) when one is configured.
	Memory MemoryStore
}

// binding is one allowed repository with the engine handles that serve it.
type binding struct {
	Repo
	search *search.Searcher
	mem    MemoryStore
	fresh  *fresh.Checker // marks results whose files changed since indexed

	indexMu sync.Mutex  // one working-tree index run at a time
	indexed atomic.Bool // an index run has finished: a call need not ask before it answers
}

// RepoArg is the argument every tool takes: which served repository to use. Its
// description is search_code's only (and the server instructions'): said once,
// not on every tool.
type RepoArg struct {
	Repository string `json:"repository,omitempty"`
}

func (r RepoArg) repoArg() string { return r.Repository }

// repoArger is an input with a repository argument (every tool's).
type repoArger interface{ repoArg() string }

type bindingKey struct{}

// repo is the repository a tool call works on: the one its repository argument
// named (checked against the allowlist by addTool), else the first.
func (s *Server) repo(ctx context.Context) *binding {
	if b, ok := ctx.Value(bindingKey{}).(*binding); ok {
		return b
	}
	return s.repos[0]
}

// named says whether the call named its repository (search_code then searches
// that one only instead of all of them).
func named(ctx context.Context) bool {
	_, ok := ctx.Value(bindingKey{}).(*binding)
	return ok
}

// withRepo resolves a call's repository argument: ctx carries the binding it
// names; "" leaves the default. Anything not on the allowlist is refused with the
// list, so an agent can correct itself; nothing here can reach another repository
// because only bindings made at start are ever returned.
func (s *Server) withRepo(ctx context.Context, arg string) (context.Context, error) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return ctx, nil
	}
	if b := s.lookupRepo(arg); b != nil {
		return context.WithValue(ctx, bindingKey{}, b), nil
	}
	if len(arg) > 200 {
		arg = arg[:200] + "..."
	}
	return ctx, argError("repository %q is not served here; use one of: %s", arg, s.repoList())
}

// lookupRepo finds an allowed repository by id, name, or a path at or under its root.
func (s *Server) lookupRepo(arg string) *binding {
	if id, err := strconv.ParseInt(arg, 10, 64); err == nil {
		for _, b := range s.repos {
			if b.ID == id {
				return b
			}
		}
		return nil
	}
	for _, b := range s.repos {
		if b.Name == arg {
			return b
		}
	}
	if !filepath.IsAbs(arg) {
		return nil
	}
	p := filepath.Clean(arg)
	for _, b := range s.repos {
		if rel, err := filepath.Rel(b.Root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return b
		}
	}
	return nil
}

// repoList names the allowlist for an error: name (root, id).
func (s *Server) repoList() string {
	parts := make([]string, len(s.repos))
	for i, b := range s.repos {
		parts[i] = fmt.Sprintf("%s (%s, id %d)", b.Name, b.Root, b.ID)
	}
	return strings.Join(parts, ", ")
}

// repoName is what a result says its repository is: empty when the server serves
// one (the field would repeat on every result for nothing).
func (s *Server) repoName(b *binding) string {
	if len(s.repos) < 2 {
		return ""
	}
	return b.Name
}

// uniqueNames gives every repository a distinct name: its base name, with parent
// directories prefixed while two collide (a/app and b/app become a/app, b/app).
func uniqueNames(repos []Repo) []Repo {
	out := append([]Repo(nil), repos...)
	for depth := 1; depth < 64; depth++ {
		seen := map[string]int{}
		for i := range out {
			if repos[i].Name == "" {
				out[i].Name = lastParts(out[i].Root, depth)
			}
			seen[out[i].Name]++
		}
		clash := false
		for _, n := range seen {
			clash = clash || n > 1
		}
		if !clash {
			return out
		}
	}
	for i := range out {
		out[i].Name = out[i].Root
	}
	return out
}

// lastParts is the last n elements of a slash path.
func lastParts(root string, n int) string {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(root)), "/")
	if n > len(parts) {
		n = len(parts)
	}
	return strings.Trim(strings.Join(parts[len(parts)-n:], "/"), "/")
}
