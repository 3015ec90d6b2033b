package index

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// relinkGoImplementations is linkGoImplementations for a run that wrote or
// deleted Go files in the directories dirs only, in O(change): an edge type ->
// interface depends on the type's method set, which only files of the type's
// directory declare, and on the interface's, which only the directories in
// its deps declare (goIface.deps). So the edges from the types of dirs and
// those into the interfaces that depend on dirs are decided again (and those
// into interfaces the run deleted dropped); every other edge stays as it is,
// which is what the whole pass would write again. The candidates for an
// interface are found by its method names (an indexed lookup), not by
// reading every method of the repository.
//
// Callers fall back to the whole pass when import targets moved (an
// interface's pkg.Iface embed may then name another directory).
func (w *writer) relinkGoImplementations(ctx context.Context, dirs []string) error {
	ifaces, err := w.goInterfaces(ctx)
	if err != nil {
		return fmt.Errorf("go implementations: %w", err)
	}
	inDirs := map[string]bool{}
	for _, d := range dirs {
		inDirs[d] = true
	}
	var affected []*goIface
	var affectedIDs []int64
	for _, in := range ifaces {
		for d := range in.deps {
			if inDirs[d] || d == "*" {
				affected = append(affected, in)
				affectedIDs = append(affectedIDs, in.id)
				break
			}
		}
	}
	done := map[[2]int64]bool{}
	var edgeRows [][]any
	// The types of dirs, against every interface.
	methods, types, err := w.goMethodSetsIn(ctx, dirs)
	if err != nil {
		return fmt.Errorf("go implementations: %w", err)
	}
	for _, t := range types {
		edgeRows = w.implementations(edgeRows, t, methods[t.dir+"\x00"+t.name], ifaces, done)
	}
	// Every type, against the interfaces whose method sets may have changed.
	methods, types, err = w.goCandidates(ctx, affected)
	if err != nil {
		return fmt.Errorf("go implementations: %w", err)
	}
	for _, t := range types {
		edgeRows = w.implementations(edgeRows, t, methods[t.dir+"\x00"+t.name], affected, done)
	}
	w.mu.Lock()
	gone := slices.Clone(w.gone)
	w.mu.Unlock()
	var deleted int64
	err = pgx.BeginFunc(ctx, w.db.Pool, func(tx pgx.Tx) error {
		if err := relaxCommit(ctx, tx); err != nil {
			return err
		}
		if err := holdWork(ctx, tx, w.repoID); err != nil {
			return err
		}
		// Two statements: one condition on the file's directory, one on the
		// target, each through its own index.
		tag, err := tx.Exec(ctx, `DELETE FROM edges e USING files f
			WHERE f.repository_id = $1 AND f.dir = ANY ($2) AND f.language = 'go'
			  AND e.repository_id = $1 AND e.file_id = f.id AND e.kind = 'implements'`, w.repoID, dirs)
		if err != nil {
			return fmt.Errorf("go implementations: %w", err)
		}
		deleted = tag.RowsAffected()
		if tag, err = tx.Exec(ctx, `DELETE FROM edges e USING files f
			WHERE e.repository_id = $1 AND e.target_id = ANY ($2) AND e.kind = 'implements'
			  AND f.repository_id = $1 AND f.id = e.file_id AND f.language = 'go'`,
			w.repoID, append(affectedIDs, gone...)); err != nil {
			return fmt.Errorf("go implementations: %w", err)
		}
		deleted += tag.RowsAffected()
		return copyRows(ctx, tx, w.db, "edges", edgeColumns, edgeRows)
	})
	if err == nil {
		w.addEdges(len(edgeRows) - int(deleted))
	}
	return err
}

// goMethodSetsIn is goMethodSets for the types and methods of dirs: one
// lookup through the files of those directories.
func (w *writer) goMethodSetsIn(ctx context.Context, dirs []string) (map[string]map[string]string, []goType, error) {
	rows, err := w.db.Pool.Query(ctx, `SELECT s.id, s.file_id, s.name, f.dir, s.start_line, s.kind,
			regexp_replace(coalesce(s.receiver, ''), '^\*|\[.*$', '', 'g'), coalesce(s.signature, '')
		FROM files f JOIN symbols s ON s.repository_id = f.repository_id AND s.file_id = f.id
		WHERE f.repository_id = $1 AND f.dir = ANY ($2) AND f.language = 'go'
		  AND s.kind IN ('struct', 'type', 'method')
		ORDER BY s.path, s.start_line, s.qualified_name`, w.repoID, dirs)
	if err != nil {
		return nil, nil, err
	}
	methods := map[string]map[string]string{}
	var all []goType
	var t goType
	var kind, recv, sig string
	_, err = pgx.ForEachRow(rows, []any{&t.id, &t.fileID, &t.name, &t.dir, &t.line, &kind, &recv, &sig}, func() error {
		if kind == "method" {
			addMethod(methods, t.dir, recv, t.name, sig)
		} else {
			all = append(all, t)
		}
		return nil
	})
	return methods, withMethods(all, methods), err
}

// goCandidates returns the method sets, restricted to the methods of ifaces,
// of the types that have every method of one of them by name, and those
// types, in the order of goMethodSets.
func (w *writer) goCandidates(ctx context.Context, ifaces []*goIface) (map[string]map[string]string, []goType, error) {
	var names []string
	for _, in := range ifaces {
		if in.broken {
			continue
		}
		for m := range in.methods {
			names = append(names, m)
		}
	}
	if len(names) == 0 {
		return nil, nil, nil
	}
	rows, err := w.db.Pool.Query(ctx, `SELECT f.dir, regexp_replace(coalesce(s.receiver, ''), '^\*|\[.*$', '', 'g'), s.name, s.signature
		FROM symbols s JOIN files f ON f.repository_id = s.repository_id AND f.id = s.file_id
		WHERE s.repository_id = $1 AND s.name = ANY ($2) AND s.kind = 'method' AND f.language = 'go'
		ORDER BY s.path, s.start_line, s.qualified_name`, w.repoID, names)
	if err != nil {
		return nil, nil, err
	}
	methods := map[string]map[string]string{}
	var dir, recv, name, sig string
	if _, err := pgx.ForEachRow(rows, []any{&dir, &recv, &name, &sig}, func() error {
		addMethod(methods, dir, recv, name, sig)
		return nil
	}); err != nil {
		return nil, nil, err
	}
	// The receivers that satisfy one of the interfaces: only their types are read.
	want := map[string]bool{}
	var recvs []string
	for k, have := range methods {
		for _, in := range ifaces {
			if !in.broken && len(in.methods) > 0 && satisfies(have, in.methods) {
				want[k] = true
				_, r, _ := strings.Cut(k, "\x00")
				recvs = append(recvs, r)
				break
			}
		}
	}
	if len(recvs) == 0 {
		return nil, nil, nil
	}
	rows, err = w.db.Pool.Query(ctx, `SELECT s.id, s.file_id, s.name, f.dir, s.start_line FROM symbols s
		JOIN files f ON f.repository_id = s.repository_id AND f.id = s.file_id
		WHERE s.repository_id = $1 AND s.name = ANY ($2) AND f.language = 'go' AND s.kind IN ('struct', 'type')
		ORDER BY s.path, s.start_line, s.qualified_name`, w.repoID, recvs)
	if err != nil {
		return nil, nil, err
	}
	var types []goType
	var t goType
	_, err = pgx.ForEachRow(rows, []any{&t.id, &t.fileID, &t.name, &t.dir, &t.line}, func() error {
		if want[t.dir+"\x00"+t.name] {
			types = append(types, t)
		}
		return nil
	})
	return methods, types, err
}

// addMethod records method name of receiver recv in dir, as goMethodSets does.
// Two declarations of one receiver name in one directory (build-tagged
// variants, testdata programs) merge, the later by path winning a method both
// have: every caller reads the rows in path order, so each run decides alike.
func addMethod(methods map[string]map[string]string, dir, recv, name, sig string) {
	k := dir + "\x00" + recv
	if methods[k] == nil {
		methods[k] = map[string]string{}
	}
	methods[k][name] = methodSignature(sig)
}

// withMethods keeps the types that have methods.
func withMethods(types []goType, methods map[string]map[string]string) []goType {
	out := types[:0]
	for _, t := range types {
		if len(methods[t.dir+"\x00"+t.name]) > 0 {
			out = append(out, t)
		}
	}
	return out
}
