package pg_test

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// postingsIndexDefs maps each index of postings to its definition.
func postingsIndexDefs(t *testing.T, db *pg.DB) map[string]string {
	return indexDefs(t, db, "postings")
}

// indexDefs maps each index of table to its definition.
func indexDefs(t *testing.T, db *pg.DB, table string) map[string]string {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(), `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = $1`, table)
	if err != nil {
		t.Fatal(err)
	}
	defs := map[string]string{}
	var name, def string
	if _, err := pgx.ForEachRow(rows, []any{&name, &def}, func() error { defs[name] = def; return nil }); err != nil {
		t.Fatal(err)
	}
	return defs
}

// TestPostingsIndexesDeferredOnlyWhenEmpty drops the postings indexes for a
// first bulk load, builds them back as migration 0017 defines them (a run
// after a crash does the same) with the rows rewritten in term order, and
// keeps them once any posting is stored.
func TestPostingsIndexesDeferredOnlyWhenEmpty(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	want := postingsIndexDefs(t, db)
	if len(want) != 2 {
		t.Fatalf("postings indexes after migrating: %v", want)
	}
	deferred, err := db.DeferPostingsIndexes(ctx)
	if err != nil || !deferred {
		t.Fatalf("defer on an empty table: %v (err %v)", deferred, err)
	}
	if got := postingsIndexDefs(t, db); len(got) != 0 {
		t.Fatalf("indexes left after the deferral: %v", got)
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO postings (repository_id, group_id, term, n, data)
		SELECT 1, g, 'term' || (g % 50), 1, '\x010101'::bytea FROM generate_series(1, 500) g`); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second finds them and does nothing
		if err := db.BuildPostingsIndexes(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got := postingsIndexDefs(t, db)
	for name, def := range want {
		if got[name] != def {
			t.Errorf("index %s rebuilt as %q, want %q", name, got[name], def)
		}
	}
	// Inserted with the terms interleaved, the rows are now in term order.
	var unordered int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT term, lag(term) OVER (ORDER BY ctid) AS prev
		FROM postings) x WHERE prev > term`).Scan(&unordered); err != nil || unordered != 0 {
		t.Fatalf("after the build, %d rows follow a row of a later term (err %v)", unordered, err)
	}
	if deferred, err := db.DeferPostingsIndexes(ctx); err != nil || deferred {
		t.Fatalf("defer with postings stored: %v (err %v), want kept", deferred, err)
	}
	if names := keys(postingsIndexDefs(t, db)); !slices.Equal(names, keys(want)) {
		t.Fatalf("indexes after a refused deferral: %v", names)
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestEdgeIndexesDeferredOnlyWhenEmpty drops every edge index but the primary
// key for a first bulk load, builds the ones a resolution in SQL reads on
// their own, then the rest, each as the migrations define it, and keeps them
// once any edge is stored.
func TestEdgeIndexesDeferredOnlyWhenEmpty(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	want := indexDefs(t, db, "edges")
	deferred, err := db.DeferEdgeIndexes(ctx)
	if err != nil || !deferred {
		t.Fatalf("defer on an empty table: %v (err %v)", deferred, err)
	}
	if kept := keys(indexDefs(t, db, "edges")); !slices.Equal(kept, []string{"edges_pkey"}) {
		t.Fatalf("indexes kept through the deferral: %v", kept)
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO edges (repository_id, file_id, source_id, kind, target_name, line)
		SELECT 1, g % 7, g, 'calls', 'f' || (g % 50), g FROM generate_series(1, 500) g`); err != nil {
		t.Fatal(err)
	}
	if err := db.BuildEdgeResolutionIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	resolution := []string{"edges_file_idx", "edges_pkey", "edges_source_idx", "edges_target_idx"}
	if built := keys(indexDefs(t, db, "edges")); !slices.Equal(built, resolution) {
		t.Fatalf("indexes after the resolution's build: %v, want %v", built, resolution)
	}
	for range 2 { // the second finds them and does nothing
		if err := db.BuildEdgeIndexes(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got := indexDefs(t, db, "edges")
	if !slices.Equal(keys(got), keys(want)) {
		t.Fatalf("indexes after the build: %v, want %v", keys(got), keys(want))
	}
	for name, def := range want {
		if got[name] != def {
			t.Errorf("index %s rebuilt as %q, want %q", name, got[name], def)
		}
	}
	if deferred, err := db.DeferEdgeIndexes(ctx); err != nil || deferred {
		t.Fatalf("defer with edges stored: %v (err %v), want kept", deferred, err)
	}
}

// TestSymbolIndexesDeferredOnlyWhenEmpty drops the trigram index of names for
// a first bulk load, builds it back as the migrations define it, and keeps it
// once any symbol is stored.
func TestSymbolIndexesDeferredOnlyWhenEmpty(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	want := indexDefs(t, db, "symbols")
	deferred, err := db.DeferSymbolIndexes(ctx)
	if err != nil || !deferred {
		t.Fatalf("defer on an empty table: %v (err %v)", deferred, err)
	}
	if _, ok := indexDefs(t, db, "symbols")["symbols_name_trgm_idx"]; ok || len(indexDefs(t, db, "symbols")) != len(want)-1 {
		t.Fatalf("indexes kept through the deferral: %v", keys(indexDefs(t, db, "symbols")))
	}
	for range 2 { // the second finds it and does nothing
		if err := db.BuildSymbolIndexes(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got := indexDefs(t, db, "symbols")
	for name, def := range want {
		if got[name] != def {
			t.Errorf("index %s rebuilt as %q, want %q", name, got[name], def)
		}
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO symbols (repository_id, file_id, path, name, qualified_name, kind,
		start_line, end_line, start_byte, end_byte, content, content_hash)
		VALUES (1, 1, 'a.go', 'f', 'a.f', 'function', 1, 1, 0, 1, 'f', 'h')`); err != nil {
		t.Fatal(err)
	}
	if deferred, err := db.DeferSymbolIndexes(ctx); err != nil || deferred {
		t.Fatalf("defer with symbols stored: %v (err %v), want kept", deferred, err)
	}
}

// TestRepackLoadIndexes rebuilds the load's btree indexes as they were
// defined, with the rows still found through them.
func TestRepackLoadIndexes(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	want := indexDefs(t, db, "symbols")
	if _, err := db.Pool.Exec(ctx, `INSERT INTO symbols (repository_id, file_id, path, name, qualified_name, kind,
		start_line, end_line, start_byte, end_byte, content, content_hash)
		SELECT 1, g % 7, 'a.go', 'f' || g, 'a.f' || g, 'function', g, g, 0, 1, 'f', 'h' FROM generate_series(1, 300) g`); err != nil {
		t.Fatal(err)
	}
	if err := db.RepackLoadIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	got := indexDefs(t, db, "symbols")
	for name, def := range want {
		if got[name] != def {
			t.Errorf("index %s after the repack: %q, want %q", name, got[name], def)
		}
	}
	var n int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM symbols WHERE repository_id = 1 AND name = 'f42'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("symbols named f42 after the repack: %d (err %v)", n, err)
	}
}
