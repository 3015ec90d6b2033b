package memory

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// AnchorState says whether an anchored definition is still what the memory was
// written (or last confirmed) against.
type AnchorState string

// The states of an anchor.
const (
	AnchorCurrent AnchorState = "current"
	AnchorChanged AnchorState = "changed"
	AnchorRemoved AnchorState = "removed"
	AnchorRenamed AnchorState = "renamed" // git reported the file's rename; Path is the new path
)

// AnchorKindFile is the kind of an anchor on a whole file.
const AnchorKindFile = "file"

// Anchor ties a memory to an indexed definition (Name, a qualified name) or a
// whole file (Name ""), pinned by its content hash.
type Anchor struct {
	Path    string      `json:"path"`
	Name    string      `json:"name,omitempty"`
	Kind    string      `json:"kind"`
	State   AnchorState `json:"state"`
	OldPath string      `json:"old_path,omitempty"`
}

// MaxAnchors bounds the anchors of one memory (given and found in its text).
const MaxAnchors = 32

// maxPinnedContent bounds the definition text kept for a review's diff.
const maxPinnedContent = 256 << 10

// anchorRef is one name a memory mentions, before it is resolved.
type anchorRef struct {
	token    string // as written (for errors)
	path     string // a file path, with line when it was path:line
	line     int
	name     string // a (possibly qualified) identifier
	explicit bool
}

var (
	backtickRE = regexp.MustCompile("`([^`\n]{1,200})`")
	// A path has a directory or an extension; ":40" picks the definition at a line.
	pathRE = regexp.MustCompile(`(?:^|[\s(\[<"'])((?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7})\b(?::(\d+))?`)
	// A qualified identifier: Engine.ServeHTTP, billing.IssueRefund, Foo::bar, Foo#bar.
	qualifiedRE = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::|#)[A-Za-z_][A-Za-z0-9_]*)+\b`)
	// A lone identifier counts in prose only when it cannot be an English word:
	// camelCase or PascalCase compounds, snake_case, or a call "name(".
	identRE    = regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_]*)(\()?`)
	compoundRE = regexp.MustCompile(`[a-z0-9][A-Z]|[A-Za-z0-9]_[A-Za-z0-9]`)
)

// mentionedAnchors lists the names text mentions that could be code: paths,
// qualified names, identifiers in backticks and identifier-shaped words. Only
// those that resolve in the index become anchors (resolveAnchors), so prose
// words that look like code never anchor anything.
func mentionedAnchors(text string) []anchorRef {
	var refs []anchorRef
	seen := map[string]bool{}
	add := func(r anchorRef) {
		key := r.path + "\x00" + strconv.Itoa(r.line) + "\x00" + r.name
		if !seen[key] && len(refs) < 4*MaxAnchors {
			seen[key] = true
			refs = append(refs, r)
		}
	}
	for _, m := range backtickRE.FindAllStringSubmatch(text, -1) {
		if r, ok := parseAnchorRef(strings.TrimSpace(m[1])); ok {
			add(r)
		}
	}
	for _, m := range pathRE.FindAllStringSubmatch(text, -1) {
		line, _ := strconv.Atoi(m[2])
		add(anchorRef{token: m[1], path: strings.TrimPrefix(m[1], "./"), line: line})
	}
	for _, q := range qualifiedRE.FindAllString(text, -1) {
		add(anchorRef{token: q, name: normQualified(q)})
	}
	for _, m := range identRE.FindAllStringSubmatch(text, -1) {
		if m[2] != "" || compoundRE.MatchString(m[1]) {
			add(anchorRef{token: m[1], name: m[1]})
		}
	}
	return refs
}

// parseAnchorRef reads one anchor as given (--anchor, or a backticked span):
// "path", "path:line", a qualified name or an identifier, with a trailing "()"
// allowed.
func parseAnchorRef(s string) (anchorRef, bool) {
	s = strings.TrimSuffix(strings.TrimSpace(s), "()")
	r := anchorRef{token: s}
	if s == "" || strings.ContainsAny(s, " \t") {
		return r, false
	}
	if i := strings.LastIndexByte(s, ':'); i > 0 && !strings.Contains(s, "::") {
		if n, err := strconv.Atoi(s[i+1:]); err == nil && n > 0 {
			r.path, r.line = strings.TrimPrefix(s[:i], "./"), n
			return r, true
		}
	}
	if strings.Contains(s, "/") || pathRE.MatchString(s) && !qualifiedRE.MatchString(s) {
		r.path = strings.TrimPrefix(s, "./")
		return r, true
	}
	if qualifiedRE.FindString(s) == s || identRE.FindString(s) == s {
		r.name = normQualified(s)
		// "router.js" is both a path and a qualified name: try it as both.
		if pathRE.MatchString(" " + s) {
			r.path = s
		}
		return r, true
	}
	return r, false
}

// normQualified writes the separators of other languages as the index's dot.
func normQualified(q string) string {
	return strings.NewReplacer("::", ".", "#", ".").Replace(q)
}

// pinAnchors records the anchors of a new memory (in the caller's transaction):
// what its text names and what was given. A given anchor that resolves to
// nothing, or to more than one definition, fails the write with the candidates;
// a name found in the text that does not resolve uniquely is not an anchor.
func (s *Store) pinAnchors(ctx context.Context, q querier, id string, in NewMemory) ([]Anchor, error) {
	refs, err := anchorRefs(in)
	if err != nil || len(refs) == 0 {
		return nil, err
	}
	pins, err := s.resolveAnchors(ctx, q, refs)
	if err != nil {
		return nil, err
	}
	return s.recordAnchors(ctx, q, id, pins)
}

// anchorRefs lists what a new memory names (mentionedAnchors) and the anchors it
// was given; a text that names nothing code-like needs no lookup at all.
func anchorRefs(in NewMemory) ([]anchorRef, error) {
	refs := mentionedAnchors(in.Text)
	for _, a := range in.Anchors {
		r, ok := parseAnchorRef(a)
		if !ok {
			return nil, fmt.Errorf("anchor %q is not a path, path:line or definition name: %w", a, ErrInvalid)
		}
		r.explicit = true
		refs = append(refs, r)
	}
	return refs, nil
}

// recordAnchors stores the resolved anchors of memory id.
func (s *Store) recordAnchors(ctx context.Context, q querier, id string, pins []pin) ([]Anchor, error) {
	if len(pins) > MaxAnchors {
		return nil, fmt.Errorf("the memory names %d definitions; the limit is %d: %w", len(pins), MaxAnchors, ErrTooLarge)
	}
	if err := s.insertAnchors(ctx, q, id, pins); err != nil {
		return nil, err
	}
	return anchorsOf(pins), nil
}

// pin is a resolved anchor with what it is pinned to.
type pin struct {
	Anchor
	hash     string
	content  string
	explicit bool
}

func (s *Store) insertAnchors(ctx context.Context, q querier, id string, pins []pin) error {
	if len(pins) == 0 {
		return nil
	}
	if _, err := q.Exec(ctx, insertAnchorsSQL, s.anchorArgs(id, pins)...); err != nil {
		return fmt.Errorf("anchors of memory %s: %w", id, err)
	}
	return nil
}

// insertAnchorsSQL stores the anchors of one memory.
//
//	$1 project  $2 memory id  $3.. paths, names, kinds, hashes, contents, explicit
const insertAnchorsSQL = `INSERT INTO memory_anchors (repository_id, memory_id, path, name, kind, content_hash, content, explicit)
		SELECT $1, $2::uuid, a.path, a.name, a.kind, a.hash, a.content, a.explicit
		FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bool[]) AS a(path, name, kind, hash, content, explicit)
		ON CONFLICT DO NOTHING`

func (s *Store) anchorArgs(id string, pins []pin) []any {
	var paths, names, kinds, hashes, contents []string
	var explicit []bool
	for _, p := range pins {
		paths, names, kinds = append(paths, p.Path), append(names, p.Name), append(kinds, p.Kind)
		hashes, contents, explicit = append(hashes, p.hash), append(contents, p.content), append(explicit, p.explicit)
	}
	return []any{s.project, id, paths, names, kinds, hashes, contents, explicit}
}

func anchorsOf(pins []pin) []Anchor {
	if len(pins) == 0 {
		return nil
	}
	out := make([]Anchor, len(pins))
	for i, p := range pins {
		out[i] = p.Anchor
	}
	return out
}

// pinRun pins the anchors of a run of memories AddMany inserted together.
func (s *Store) pinRun(ctx context.Context, q querier, ms []Memory, ins []NewMemory) error {
	for i := range ms {
		var err error
		if ms[i].Anchors, err = s.pinAnchors(ctx, q, ms[i].ID, ins[i]); err != nil {
			return fmt.Errorf("memory %d of the run: %w", i+1, err)
		}
	}
	return nil
}
