package mcpserver

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/spelunkhq/spelunk/engine/search"
)

// Limits on tool arguments: an agent that sends more gets a tool error saying so.
const (
	maxQueryBytes = 1000 // memory queries (recall, briefing)
	// maxCodeQueryBytes bounds search_code's and retrieve_context's query: the
	// CLI's long-input limit, so a pasted issue, trace or log is read by the same
	// long-input parsing (engine/search) as spelunk search reads it.
	maxCodeQueryBytes = search.MaxQueryBytes
	maxNameBytes      = 512      // symbol names, keys, authors
	maxPathBytes      = 1024     // repository-relative paths
	maxReadBytes      = 32 << 10 // source returned by read_symbol
	maxReadLines      = 2000     // a requested line range
	maxLimit          = 100      // result counts
	maxBudget         = 32000    // retrieve_context tokens
	maxOmitted        = 20       // pruned candidates reported
)

// argError is a bad tool argument: the agent's to fix, so no outage check is
// made for it.
func argError(format string, args ...any) error {
	return badArg{fmt.Errorf("invalid argument: "+format, args...)}
}

type badArg struct{ error }

func (e badArg) Unwrap() error { return e.error }

// text checks a free-text argument: valid UTF-8, no NUL, at most limit bytes.
func text(field, v string, limit int, required bool) (string, error) {
	if required && strings.TrimSpace(v) == "" {
		return "", argError("%s is required and must not be empty", field)
	}
	if len(v) > limit {
		return "", argError("%s is %d bytes; the limit is %d", field, len(v), limit)
	}
	if !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
		return "", argError("%s must be UTF-8 text without NUL bytes", field)
	}
	return v, nil
}

// limitArg applies a default to a result count and checks its range.
func limitArg(field string, v, def, hi int) (int, error) {
	if v == 0 {
		return def, nil
	}
	if v < 1 || v > hi {
		return 0, argError("%s must be between 1 and %d (got %d)", field, hi, v)
	}
	return v, nil
}

// relPath turns a path argument into a clean path relative to the repository root.
// Relative paths are taken from the root; an absolute path must lie inside it. Any
// ".." segment is refused outright rather than resolved, so no argument climbs
// out of the repository however it is spelled.
func (s *Server) relPath(ctx context.Context, field, p string) (string, error) {
	root := s.repo(ctx).Root
	if _, err := text(field, p, maxPathBytes, true); err != nil {
		return "", err
	}
	p = filepath.ToSlash(p)
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(root, filepath.Clean(p))
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return "", argError("%s %q is outside the repository %s; give a path relative to its root", field, p, root)
		}
		p = filepath.ToSlash(rel)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return "", argError("%s %q uses ../ traversal; give a path relative to the repository root without ..", field, p)
		}
	}
	c := path.Clean(p)
	if c == "." || c == "/" {
		return "", argError("%s %q names the repository root; give a file or directory inside it", field, p)
	}
	return strings.TrimPrefix(c, "./"), nil
}
