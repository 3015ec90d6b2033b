package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spelunkhq/spelunk/engine/index"
)

// index_file answers with a summary: counts and what changed. The file's whole
// symbol list (53 symbols, 16,846 characters for one file of flask) is what
// search_symbols with path is for.

// IndexFileIn is the input of index_file.
type IndexFileIn struct {
	RepoArg
	Path string `json:"path"`
}

// SymbolBrief is a definition index_file added or changed.
type SymbolBrief struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"` // qualified
	Kind  string `json:"kind"`
	Lines string `json:"lines"` // start-end
}

// IndexFileOut is the output of index_file.
type IndexFileOut struct {
	Path         string `json:"path"`
	Revision     string `json:"revision"`
	FilesIndexed int    `json:"files_indexed"` // files re-read in this run (every changed file of the working tree)
	// Unchanged: the file was stored as it is; nothing below changed.
	Unchanged bool          `json:"unchanged,omitempty"`
	Symbols   int           `json:"symbols"` // definitions stored for the file now
	Added     []SymbolBrief `json:"added,omitempty"`
	Changed   []SymbolBrief `json:"changed,omitempty"`
	Removed   []string      `json:"removed,omitempty"` // qualified names
	Moved     int           `json:"moved,omitempty"`   // same source at other lines
	Truncated bool          `json:"truncated,omitempty"`
	Note      string        `json:"note,omitempty"`
}

// maxChanges bounds each list of an index_file summary.
const maxChanges = 20

func (s *Server) indexFile(ctx context.Context, _ *mcp.CallToolRequest, in IndexFileIn) (IndexFileOut, error) {
	var out IndexFileOut
	b := s.repo(ctx)
	p, err := s.indexablePath(ctx, in.Path)
	if err != nil {
		return out, err
	}
	b.indexMu.Lock()
	defer b.indexMu.Unlock()
	before, err := s.fileDefs(ctx, p)
	if err != nil {
		return out, err
	}
	// NoWait: an agent is better told "busy, try again" than held for the minutes
	// another process's full index can take.
	sum, err := index.New(s.cfg.DB, s.cfg.Embedder).Index(ctx, b.Root, index.Options{Paths: []string{p}, NoWait: true})
	if errors.Is(err, index.ErrBusy) {
		// The CLI's advice (--no-wait) means nothing to an agent.
		return out, fmt.Errorf("index_file %s: another index of the repository is running (the watcher's or another process's); call index_file again when it has finished", p)
	}
	if err != nil {
		return out, fmt.Errorf("index_file %s: %w", p, err)
	}
	after, err := s.fileDefs(ctx, p)
	if err != nil {
		return out, err
	}
	out.Path, out.Revision, out.FilesIndexed, out.Symbols = p, shortRev(sum.Revision), sum.FilesIndexed, len(after)
	if len(after) > 0 {
		out.Revision = shortRev(after[0].rev)
	}
	diffDefs(&out, before, after)
	out.Unchanged = len(out.Added)+len(out.Changed)+len(out.Removed) == 0 && out.Moved == 0 && !out.Truncated
	switch {
	case len(after) == 0:
		out.Note = "no symbols stored for this file: it is skipped (binary, generated, vendored, too large or ignored) or empty"
	case out.Truncated:
		out.Note = fmt.Sprintf("more than %d changes in a list; search_symbols with path lists the file's definitions", maxChanges)
	}
	return out, nil
}

// indexablePath checks an index_file path: a regular file inside the
// repository (a link may not lead out of it), not in .git.
func (s *Server) indexablePath(ctx context.Context, arg string) (string, error) {
	root := s.repo(ctx).Root
	p, err := s.relPath(ctx, "path", arg)
	if err != nil {
		return "", err
	}
	if p == ".git" || strings.HasPrefix(p, ".git/") {
		return "", argError("path %q is inside .git; give a source file", p)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(p)))
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("no such file %s in the repository", p)
	}
	if err != nil {
		return "", fmt.Errorf("index_file %s: %w", p, err)
	}
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", argError("path %q is a link to %s, outside the repository", p, real)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("index_file %s: %w", p, err)
	}
	if !fi.Mode().IsRegular() {
		return "", argError("path %q is not a regular file", p)
	}
	return p, nil
}

// def is a stored definition as index_file compares them.
type def struct {
	id                 int64
	kind, name, hash   string
	startLine, endLine int
	rev                string
}

func (d def) key() string { return d.kind + "\x00" + d.name }

func (d def) brief() SymbolBrief {
	return SymbolBrief{ID: d.id, Name: d.name, Kind: d.kind, Lines: fmt.Sprintf("%d-%d", d.startLine, d.endLine)}
}

// fileDefs are the definitions stored for a file (fields are not: they are
// graph nodes), in line order.
func (s *Server) fileDefs(ctx context.Context, path string) ([]def, error) {
	rows, err := s.cfg.DB.Pool.Query(ctx, `SELECT s.id, s.kind, s.qualified_name, s.content_hash, s.start_line, s.end_line, f.revision
		FROM symbols s JOIN files f ON f.repository_id = s.repository_id AND f.id = s.file_id
		WHERE s.repository_id = $1 AND s.path = $2 AND s.kind <> 'field' ORDER BY s.start_line, s.id`, s.repo(ctx).ID, path)
	if err != nil {
		return nil, fmt.Errorf("list the symbols of %s: %w", path, err)
	}
	defs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (def, error) {
		var d def
		err := r.Scan(&d.id, &d.kind, &d.name, &d.hash, &d.startLine, &d.endLine, &d.rev)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("list the symbols of %s: %w", path, err)
	}
	return defs, nil
}

// diffDefs fills out's added, changed, removed and moved: definitions are
// matched by kind and qualified name, the n-th of a name with the n-th.
func diffDefs(out *IndexFileOut, before, after []def) {
	old := map[string][]def{}
	for _, d := range before {
		old[d.key()] = append(old[d.key()], d)
	}
	add := func(list []SymbolBrief, d def) []SymbolBrief {
		if len(list) == maxChanges {
			out.Truncated = true
			return list
		}
		return append(list, d.brief())
	}
	for _, d := range after {
		prev, ok := old[d.key()]
		switch {
		case !ok || len(prev) == 0:
			out.Added = add(out.Added, d)
			continue
		case prev[0].hash != d.hash:
			out.Changed = add(out.Changed, d)
		case prev[0].startLine != d.startLine || prev[0].endLine != d.endLine:
			out.Moved++
		}
		old[d.key()] = prev[1:]
	}
	for _, d := range before {
		if rest := old[d.key()]; len(rest) > 0 && rest[0].id == d.id {
			old[d.key()] = rest[1:]
			if len(out.Removed) == maxChanges {
				out.Truncated = true
				continue
			}
			out.Removed = append(out.Removed, d.name)
		}
	}
}
