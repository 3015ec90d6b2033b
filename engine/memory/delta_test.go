package memory_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pgvector/pgvector-go"

	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// deltaTexts are n memories of a few topics, so that queries have many
// neighbours at varied similarities.
func deltaTexts(n, from int) []memory.NewMemory {
	topics := []string{"the deploy pipeline", "the session token", "the nightly backup job", "the search index", "the billing export"}
	out := make([]memory.NewMemory, n)
	for i := range out {
		k := from + i
		out[i] = memory.NewMemory{Kind: memory.KindFact, Author: "agent:delta",
			Text: fmt.Sprintf("%s of service %d runs every %d minutes on host h%d", topics[k%len(topics)], k%13, 5+k%7, k%3)}
	}
	return out
}

// neighbours is what every nearest-neighbour reader answers for the queries:
// the search hits, the briefing's memories, and the conflict check's
// candidates (through the exported statement), each with its similarity.
func neighbours(t *testing.T, db *pg.DB, s *memory.Store, queries []string) []string {
	t.Helper()
	ctx := context.Background()
	emb := newHashing()
	var out []string
	for _, q := range queries {
		res, err := s.Search(ctx, q, 20)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			out = append(out, fmt.Sprintf("search %q: %s %.12f %d", q, h.ID, h.Similarity, h.DenseRank))
		}
		b, err := s.Briefing(ctx, memory.BriefingOptions{Query: q, Limit: 15})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range b.Memories {
			out = append(out, fmt.Sprintf("briefing %q: %s", q, m.ID))
		}
		vec, _ := emb.Embed(ctx, []string{q})
		rows, err := db.Pool.Query(ctx, memory.CandidatesSQL(emb.Name(), len(vec[0]), true), s.Project(),
			pgvector.NewVector(vec[0]), 0.05, "00000000-0000-0000-0000-000000000000", []string{}, "x")
		if err != nil {
			t.Fatal(err)
		}
		var cands []string
		for rows.Next() {
			var id, kind, content, status string
			var at any
			var sim float64
			if err := rows.Scan(&id, &kind, &content, &status, &at, &sim); err != nil {
				t.Fatal(err)
			}
			cands = append(cands, fmt.Sprintf("candidates %q: %.12f %s", q, sim, id))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		// The statement orders by similarity alone: equal ones in any order.
		slices.Sort(cands)
		out = append(out, cands...)
	}
	return out
}

// TestDeltaNeighboursAsIndexed: a pushed run's vectors are stored beside the
// HNSW index (unindexed) and every nearest-neighbour reader finds them at
// once: with part of the project's vectors indexed and part not, search,
// briefing and the conflict check's pool give the same neighbours, in the same
// order and with the same similarities, as once IndexDelta has moved them all
// into the index. (That the statement reads each part through its index at
// scale is checkPlanUsesIndex's, in bench_test.go.)
func TestDeltaNeighboursAsIndexed(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	// The index walk is approximate (its graph is random): with a search list
	// longer than the project it finds every neighbour, so that what is
	// compared is the union with the unindexed part, not the walk's luck.
	conn, err := pg.ConnectOwner(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET hnsw.ef_search = 400', current_database()); END $$`); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	db.Pool.Reset()
	var ef string
	if err := db.Pool.QueryRow(ctx, `SELECT current_setting('hnsw.ef_search', true)`).Scan(&ef); err != nil || ef != "400" {
		t.Fatalf("hnsw.ef_search %q (%v), want 400", ef, err)
	}
	s := newProject(t, db, memory.Options{})
	if _, err := s.AddMany(ctx, deltaTexts(90, 0)); err != nil {
		t.Fatal(err)
	}
	if n, err := s.IndexDelta(ctx); err != nil || n != 90 {
		t.Fatalf("IndexDelta moved %d (%v), want 90", n, err)
	}
	if _, err := s.AddMany(ctx, deltaTexts(90, 90)); err != nil {
		t.Fatal(err)
	}
	if u, err := s.Unindexed(ctx); err != nil || u != 90 {
		t.Fatalf("%d unindexed (%v), want the second run's 90", u, err)
	}
	queries := []string{"deploy pipeline of service 3", "session token runs every 6 minutes", "nightly backup job on host h1",
		"billing export of service 12"}

	mixed := neighbours(t, db, s, queries)
	if n, err := s.IndexDelta(ctx); err != nil || n != 90 {
		t.Fatalf("IndexDelta moved %d (%v), want 90", n, err)
	}
	if u, err := s.Unindexed(ctx); err != nil || u != 0 {
		t.Fatalf("%d unindexed after IndexDelta (%v)", u, err)
	}
	indexed := neighbours(t, db, s, queries)
	if len(mixed) < 4*20 {
		t.Fatalf("only %d answers: the queries find too little to compare", len(mixed))
	}
	if !reflect.DeepEqual(mixed, indexed) {
		t.Fatalf("neighbours with half the vectors unindexed differ from the indexed ones:\n%s\n---\n%s",
			strings.Join(mixed, "\n"), strings.Join(indexed, "\n"))
	}
}

// TestIndexDeltaConcurrentMovers: two processes (each its own pool) move the
// same project's unindexed vectors at once while a third pushes more runs:
// none fails or waits on another, every vector is moved exactly once, and at
// the end every memory has its one vector, indexed.
func TestIndexDeltaConcurrentMovers(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	s := newProject(t, db, memory.Options{})
	for k := range 4 {
		if _, err := s.AddMany(ctx, deltaTexts(150, 150*k)); err != nil {
			t.Fatal(err)
		}
	}
	stores := []*memory.Store{s}
	for range 2 {
		other, err := pg.Open(ctx, pg.Options{URL: db.URL})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(other.Close)
		stores = append(stores, memory.New(other, s.Project(), memory.Options{Embedder: newHashing()}))
	}
	var wg sync.WaitGroup
	moved := make([]int, 2)
	errs := make([]error, 3)
	for k := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			moved[k], errs[k] = stores[k].IndexDelta(ctx)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for k := range 2 {
			if _, err := stores[2].AddMany(ctx, deltaTexts(100, 600+100*k)); err != nil {
				errs[2] = err
				return
			}
		}
	}()
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			t.Fatalf("process %d: %v", k, err)
		}
	}
	rest, err := s.IndexDelta(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if total := moved[0] + moved[1] + rest; total != 800 {
		t.Fatalf("moved %d + %d + %d vectors, want each of 800 once", moved[0], moved[1], rest)
	}
	if moved[0] == 0 || moved[1] == 0 {
		t.Logf("one mover found nothing left (moved %v): the other was faster", moved)
	}
	var memories, vectors, unindexed int
	if err := db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM memories WHERE repository_id = $1),
		(SELECT count(*) FROM memory_embeddings WHERE repository_id = $1),
		(SELECT count(*) FROM memory_embeddings WHERE repository_id = $1 AND NOT indexed)`, s.Project()).
		Scan(&memories, &vectors, &unindexed); err != nil {
		t.Fatal(err)
	}
	if memories != 800 || vectors != 800 || unindexed != 0 {
		t.Fatalf("%d memories, %d vectors, %d unindexed; want 800, 800, 0", memories, vectors, unindexed)
	}
}
