package memory

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/jackc/pgx/v5"
)

// definitionKinds leaves out what is not a definition a memory can be about:
// file headers (module), parts of oversized definitions, top-level blocks and
// fields (anchored through their owner).
const definitionKinds = `kind NOT IN ('module', 'part', 'block', 'field')`

// maxNameCandidates bounds the definitions one resolution reads.
const maxNameCandidates = 500

// defRow is a definition a name may resolve to.
type defRow struct {
	Path      string `db:"path"`
	Name      string `db:"name"`
	Qualified string `db:"qualified_name"`
	Kind      string `db:"kind"`
	Hash      string `db:"content_hash"`
	Content   string `db:"content"`
}

func (d defRow) pin(explicit bool) pin {
	c := d.Content
	if len(c) > maxPinnedContent {
		c = c[:maxPinnedContent]
	}
	return pin{Anchor: Anchor{Path: d.Path, Name: d.Qualified, Kind: d.Kind, State: AnchorCurrent}, hash: d.Hash, content: c, explicit: explicit}
}

// anchorLookup is the index lookups one memory's anchors need, queued on a
// batch with the memory's other statements (one round trip for all its names):
// the definitions named, the files named, and the definition at each path:line.
type anchorLookup struct {
	refs  []anchorRef
	names []string // last segments of the names, for definitionsSQL
	paths []string
	lines []int // indices in refs of the path:line refs, in queue order
}

// queueAnchorLookups queues on b the lookups that resolving refs takes (none
// when refs names nothing); read their results with anchorLookup.read, in
// order, right after the statements queued on b before them.
func (s *Store) queueAnchorLookups(b *pgx.Batch, refs []anchorRef) anchorLookup {
	l := anchorLookup{refs: refs}
	for i, r := range refs {
		if r.name != "" && r.line == 0 {
			l.names = append(l.names, r.name[strings.LastIndexByte(r.name, '.')+1:])
		}
		if r.path != "" {
			l.paths = append(l.paths, r.path)
			if r.line > 0 {
				l.lines = append(l.lines, i)
			}
		}
	}
	if len(l.names) > 0 {
		b.Queue(`SELECT path, name, qualified_name, kind, content_hash, content FROM symbols
		WHERE repository_id = $1 AND name = ANY($2) AND `+definitionKinds+`
		ORDER BY path, start_line LIMIT $3`, s.project, l.names, maxNameCandidates)
	}
	if len(l.paths) > 0 {
		b.Queue(`SELECT path, coalesce(content_hash, blob_sha, '') FROM files WHERE repository_id = $1 AND path = ANY($2)`,
			s.project, l.paths)
	}
	for _, i := range l.lines {
		b.Queue(`SELECT path, name, qualified_name, kind, content_hash, content FROM symbols
			WHERE repository_id = $1 AND path = $2 AND start_line <= $3 AND end_line >= $3 AND `+definitionKinds+`
			ORDER BY end_line - start_line, start_line LIMIT 1`, s.project, refs[i].path, refs[i].line)
	}
	return l
}

// anchorIndex is what the lookups found.
type anchorIndex struct {
	defs  []defRow
	files map[string]string // path -> content hash
	at    map[int]defRow    // ref index -> the innermost definition at its line
}

// read reads the results of the queued lookups from br and resolves the refs.
func (l anchorLookup) read(br pgx.BatchResults) ([]pin, error) {
	idx := anchorIndex{files: map[string]string{}, at: map[int]defRow{}}
	if len(l.names) > 0 {
		rows, err := br.Query()
		if err == nil {
			idx.defs, err = pgx.CollectRows(rows, pgx.RowToStructByName[defRow])
		}
		if err != nil {
			return nil, fmt.Errorf("resolve anchors: %w", err)
		}
	}
	if len(l.paths) > 0 {
		rows, err := br.Query()
		if err != nil {
			return nil, fmt.Errorf("resolve anchors: %w", err)
		}
		var path, hash string
		if _, err := pgx.ForEachRow(rows, []any{&path, &hash}, func() error { idx.files[path] = hash; return nil }); err != nil {
			return nil, fmt.Errorf("resolve anchors: %w", err)
		}
	}
	for _, i := range l.lines {
		rows, err := br.Query()
		if err != nil {
			return nil, fmt.Errorf("resolve anchor %s: %w", l.refs[i].token, err)
		}
		d, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[defRow])
		switch {
		case err == nil:
			idx.at[i] = d
		case !errors.Is(err, pgx.ErrNoRows):
			return nil, fmt.Errorf("resolve anchor %s: %w", l.refs[i].token, err)
		}
	}
	return resolvePins(l.refs, idx)
}

// resolveAnchors turns mentioned names into anchors on the project's index (the
// lookups in one round trip of their own).
func (s *Store) resolveAnchors(ctx context.Context, q querier, refs []anchorRef) ([]pin, error) {
	b := &pgx.Batch{}
	l := s.queueAnchorLookups(b, refs)
	if b.Len() == 0 {
		return resolvePins(refs, anchorIndex{})
	}
	br := q.SendBatch(ctx, b)
	pins, err := l.read(br)
	if cerr := br.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("resolve anchors: %w", cerr)
	}
	return pins, err
}

// resolvePins resolves refs on what the lookups found, in the order mentioned.
// Definitions come first; a path names its file only when no anchored definition
// of the memory is in it (a memory about "IssueRefund in billing/refund.go" is
// about the function, and an unrelated edit elsewhere in the file must not send it
// to review).
func resolvePins(refs []anchorRef, idx anchorIndex) ([]pin, error) {
	var paths []string
	for _, r := range refs {
		if r.path != "" {
			paths = append(paths, r.path)
		}
	}
	var out []pin
	have := map[string]bool{}
	inFile := map[string]bool{}
	keep := func(p pin) {
		k := p.Path + "\x00" + p.Name
		if !have[k] {
			have[k] = true
			out = append(out, p)
			if p.Name != "" {
				inFile[p.Path] = true
			}
		}
	}
	resolved := make([]bool, len(refs))
	for i, r := range refs {
		if r.name == "" || r.line > 0 {
			continue
		}
		match := matchDefinitions(idx.defs, r.name, paths)
		switch {
		case len(match) == 1:
			keep(match[0].pin(r.explicit))
			resolved[i] = true
		case r.explicit && len(match) > 1:
			return nil, fmt.Errorf("anchor %q names %d definitions (%s): add the path (path:line) to pick one: %w",
				r.token, len(match), describeDefs(match), ErrInvalid)
		}
	}
	for i, r := range refs {
		if r.path == "" || resolved[i] {
			continue
		}
		p, ok := resolvePath(r, idx, i)
		resolved[i] = ok
		if ok && (p.Name != "" || r.explicit || !inFile[p.Path]) {
			keep(p)
		}
	}
	return out, unresolvedExplicit(refs, resolved)
}

// unresolvedExplicit fails on the first given anchor that resolved to nothing.
func unresolvedExplicit(refs []anchorRef, resolved []bool) error {
	for i, r := range refs {
		switch {
		case !r.explicit || resolved[i]:
		case r.name != "":
			return fmt.Errorf("anchor %q: no definition of that name in the index of this project (is the repository indexed?): %w", r.token, ErrInvalid)
		default:
			return fmt.Errorf("anchor %q: no such file in the index of this project (paths are relative to the repository root): %w", r.token, ErrInvalid)
		}
	}
	return nil
}

// matchDefinitions picks the definitions name denotes: its qualified name, a
// qualified name ending in it, or a package-qualified name (billing.IssueRefund:
// IssueRefund in a directory billing). Several matches are narrowed to those in
// a path the memory also mentions.
func matchDefinitions(defs []defRow, name string, paths []string) []defRow {
	var match []defRow
	for _, d := range defs {
		if nameMatches(d.Qualified, d.Path, name) {
			match = append(match, d)
		}
	}
	if len(match) < 2 {
		return match
	}
	var narrowed []defRow
	for _, d := range match {
		for _, p := range paths {
			if d.Path == p || strings.HasSuffix(d.Path, "/"+p) {
				narrowed = append(narrowed, d)
				break
			}
		}
	}
	if len(narrowed) > 0 {
		return narrowed
	}
	return match
}

func nameMatches(qualified, file, name string) bool {
	if qualified == name || strings.HasSuffix(qualified, "."+name) {
		return true
	}
	pkg, rest, ok := strings.Cut(name, ".")
	return ok && qualified == rest && path.Base(path.Dir(file)) == pkg
}

func describeDefs(defs []defRow) string {
	var parts []string
	for i, d := range defs {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(defs)-5))
			break
		}
		parts = append(parts, d.Qualified+" in "+d.Path)
	}
	return strings.Join(parts, ", ")
}

// resolvePath resolves the path ref refs[i] against the indexed files: the
// innermost definition at its line, or the file itself.
func resolvePath(r anchorRef, idx anchorIndex, i int) (pin, bool) {
	hash, ok := idx.files[r.path]
	if !ok {
		return pin{}, false
	}
	if d, ok := idx.at[i]; ok && r.line > 0 {
		return d.pin(r.explicit), true
	}
	return pin{Anchor: Anchor{Path: r.path, Kind: AnchorKindFile, State: AnchorCurrent}, hash: hash, explicit: r.explicit}, true
}
