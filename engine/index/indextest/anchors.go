package indextest

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// Memory anchors in the differential comparison. An anchor's state after any
// sequence of runs must be what the same anchor would have against a clean
// index of the tree: removed when its definition (or file) is gone, changed
// when its content hash differs from the one it was pinned to, current when
// it is the same; a rename git reported stays renamed while the definition
// is there (memory.CheckAnchors). An incremental run that misses a path it
// changed, or a hash that depends on how the row was written, shows here.

// AnchorHashes are the content hashes an anchor reads in the index of
// repoID: of every definition by "path|name|kind" (several for overloads)
// and of every file by "path||file".
func AnchorHashes(t testing.TB, db *pg.DB, repoID int64) map[string][]string {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(), `
		SELECT path || '|' || qualified_name || '|' || kind, content_hash
		FROM symbols WHERE repository_id = $1 ORDER BY path, qualified_name, kind, start_line`, repoID)
	if err != nil {
		t.Fatalf("anchor hashes: %v", err)
	}
	out := map[string][]string{}
	var k, h string
	if _, err := pgx.ForEachRow(rows, []any{&k, &h}, func() error { out[k] = append(out[k], h); return nil }); err != nil {
		t.Fatalf("anchor hashes: %v", err)
	}
	rows, err = db.Pool.Query(context.Background(), `
		SELECT path || '||file', coalesce(content_hash, blob_sha, '') FROM files WHERE repository_id = $1`, repoID)
	if err != nil {
		t.Fatalf("anchor hashes: %v", err)
	}
	if _, err := pgx.ForEachRow(rows, []any{&k, &h}, func() error { out[k] = []string{h}; return nil }); err != nil {
		t.Fatalf("anchor hashes: %v", err)
	}
	return out
}

// AnchorLines renders the anchors of the live memories of repoID, as the
// index under test holds them (got) and as a clean index whose hashes are
// clean (AnchorHashes) would have them (want).
func AnchorLines(t testing.TB, db *pg.DB, repoID int64, clean map[string][]string) (got, want []string) {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(), `
		SELECT m.content, a.path, coalesce(a.old_path, ''), a.name, a.kind, a.content_hash, a.state
		FROM memory_anchors a JOIN memories m ON m.repository_id = a.repository_id AND m.id = a.memory_id
		WHERE a.repository_id = $1 AND m.status IN ('ACTIVE', 'DISPUTED', 'PENDING_EMBEDDING', 'NEEDS_REVIEW')`, repoID)
	if err != nil {
		t.Fatalf("anchors: %v", err)
	}
	var text, path, old, name, kind, pinned, state string
	_, err = pgx.ForEachRow(rows, []any{&text, &path, &old, &name, &kind, &pinned, &state}, func() error {
		line := "anchor | " + text + " | " + path + " | " + old + " | " + name + " | " + kind + " | "
		got = append(got, line+state)
		key := path + "|" + name + "|" + kind
		if name == "" {
			key = path + "||file"
		}
		now, ok := clean[key]
		want = append(want, line+expectedState(state, pinned, now, ok))
		return nil
	})
	if err != nil {
		t.Fatalf("anchors: %v", err)
	}
	return got, want
}

// expectedState is an anchor's state against a clean index where the
// definitions of its name have hashes now (none: ok false); the one with the
// pinned hash is the anchor's (overloads).
func expectedState(state, pinned string, now []string, ok bool) string {
	switch {
	case !ok:
		return "removed"
	case state == "renamed":
		return "renamed"
	case !slices.Contains(now, pinned):
		return "changed"
	}
	return "current"
}
