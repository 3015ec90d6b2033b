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

// resolveAnchors turns mentioned names into anchors on the project's index, in
// the order mentioned. Definitions come first; a path names its file only when no
// anchored definition of the memory is in it (a memory about "IssueRefund in
// billing/refund.go" is about the function, and an unrelated edit elsewhere in
// the file must not send it to review).
func (s *Store) resolveAnchors(ctx context.Context, q querier, refs []anchorRef) ([]pin, error) {
	defs, err := s.definitionsNamed(ctx, q, refs)
	if err != nil {
		return nil, err
	}
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
		match := matchDefinitions(defs, r.name, paths)
		switch {
		case len(match) == 1:
			keep(match[0].pin(r.explicit))
			resolved[i] = true
		case r.explicit && len(match) > 1:
			return nil, fmt.Errorf("anchor %q names %d definitions (%s): add the path (path:line) to pick one: %w",
				r.token, len(match), describeDefs(match), ErrInvalid)
		}
	}
	files, err := s.filesNamed(ctx, q, refs)
	if err != nil {
		return nil, err
	}
	for i, r := range refs {
		if r.path == "" || resolved[i] {
			continue
		}
		p, ok, err := s.resolvePath(ctx, q, r, files)
		if err != nil {
			return nil, err
		}
		resolved[i] = ok
		if ok && (p.Name != "" || r.explicit || !inFile[p.Path]) {
			keep(p)
		}
	}
	for i, r := range refs {
		switch {
		case !r.explicit || resolved[i]:
		case r.name != "":
			return nil, fmt.Errorf("anchor %q: no definition of that name in the index of this project (is the repository indexed?): %w", r.token, ErrInvalid)
		default:
			return nil, fmt.Errorf("anchor %q: no such file in the index of this project (paths are relative to the repository root): %w", r.token, ErrInvalid)
		}
	}
	return out, nil
}

// definitionsNamed loads the definitions whose simple name is the last segment
// of a mentioned name, in one indexed query.
func (s *Store) definitionsNamed(ctx context.Context, q querier, refs []anchorRef) ([]defRow, error) {
	var last []string
	for _, r := range refs {
		if r.name != "" && r.line == 0 {
			seg := r.name[strings.LastIndexByte(r.name, '.')+1:]
			last = append(last, seg)
		}
	}
	if len(last) == 0 {
		return nil, nil
	}
	rows, err := q.Query(ctx, `SELECT path, name, qualified_name, kind, content_hash, content FROM symbols
		WHERE repository_id = $1 AND name = ANY($2) AND `+definitionKinds+`
		ORDER BY path, start_line LIMIT $3`, s.project, last, maxNameCandidates)
	if err != nil {
		return nil, fmt.Errorf("resolve anchors: %w", err)
	}
	defs, err := pgx.CollectRows(rows, pgx.RowToStructByName[defRow])
	if err != nil {
		return nil, fmt.Errorf("resolve anchors: %w", err)
	}
	return defs, nil
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

// filesNamed loads the content hashes of the mentioned paths that are indexed
// files, in one query.
func (s *Store) filesNamed(ctx context.Context, q querier, refs []anchorRef) (map[string]string, error) {
	var paths []string
	for _, r := range refs {
		if r.path != "" {
			paths = append(paths, r.path)
		}
	}
	out := map[string]string{}
	if len(paths) == 0 {
		return out, nil
	}
	rows, err := q.Query(ctx, `SELECT path, coalesce(content_hash, blob_sha, '') FROM files WHERE repository_id = $1 AND path = ANY($2)`,
		s.project, paths)
	if err != nil {
		return nil, fmt.Errorf("resolve anchors: %w", err)
	}
	var path, hash string
	if _, err := pgx.ForEachRow(rows, []any{&path, &hash}, func() error { out[path] = hash; return nil }); err != nil {
		return nil, fmt.Errorf("resolve anchors: %w", err)
	}
	return out, nil
}

// resolvePath resolves a path ref against the indexed files: the innermost
// definition at its line, or the file itself.
func (s *Store) resolvePath(ctx context.Context, q querier, r anchorRef, files map[string]string) (pin, bool, error) {
	hash, ok := files[r.path]
	if !ok {
		return pin{}, false, nil
	}
	if r.line > 0 {
		rows, err := q.Query(ctx, `SELECT path, name, qualified_name, kind, content_hash, content FROM symbols
			WHERE repository_id = $1 AND path = $2 AND start_line <= $3 AND end_line >= $3 AND `+definitionKinds+`
			ORDER BY end_line - start_line, start_line LIMIT 1`, s.project, r.path, r.line)
		if err != nil {
			return pin{}, false, fmt.Errorf("resolve anchor %s: %w", r.token, err)
		}
		d, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[defRow])
		if err == nil {
			return d.pin(r.explicit), true, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return pin{}, false, fmt.Errorf("resolve anchor %s: %w", r.token, err)
		}
	}
	return pin{Anchor: Anchor{Path: r.path, Kind: AnchorKindFile, State: AnchorCurrent}, hash: hash, explicit: r.explicit}, true, nil
}
