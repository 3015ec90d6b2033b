package search

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/postings"
)

// TestGroupedPostingsRankAsPerFileRows checks the channels that read the
// postings against the rows of several files each (migration 0021: the
// fixture is one write batch, so one group): the lexical and literal channels
// must return the same hits with the same scores, filtered or not, once the
// rows are split into one row per term and file (migration 0017's layout).
// A multi-file row decoded wrongly (a symbol lost, a delta misread across two
// files' postings) changes a score or a hit.
func TestGroupedPostingsRankAsPerFileRows(t *testing.T) {
	fx := indextest.Fixture(t)
	ctx := context.Background()
	s := New(fx.DB, fx.RepoID, fx.Emb)
	queries := []string{
		"refund eligible order", "sliding window rate limiter", "send the response content type",
		"add an item to the cart", "apply discount to invoice total", "refund path:billing/",
		"rate limiter test:no", "parse config lang:python",
	}
	literals := []string{`"refund larger than the order"`, `"not enough stock"`, `"Coupon code"`, `error "planter full"`}
	run := func() []string {
		var out []string
		for _, q := range queries {
			rest, f, err := ParseFilters(q)
			if err != nil {
				t.Fatal(err)
			}
			p := analyze(rest, "")
			p.filter = f.rows()
			hits, err := s.bm25Channel(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s: %v", q, hits))
		}
		for _, q := range literals {
			hits, err := s.literalChannel(ctx, analyze(q, ""))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s: %v", q, hits))
		}
		return out
	}
	grouped := run()
	if split := splitPostingsByFile(t, fx); split < 2 {
		t.Fatalf("the grouped rows held at most %d files each: the test needs multi-file rows", split)
	}
	perFile := run()
	for i := range grouped {
		if grouped[i] != perFile[i] {
			t.Errorf("grouped rows:\n%s\nper-file rows:\n%s", grouped[i], perFile[i])
		}
	}
	for _, g := range grouped[:3] {
		if len(g) < 40 {
			t.Errorf("no hits to compare: %s", g)
		}
	}
}

// splitPostingsByFile rewrites fx's postings as one row per term and file
// (group_id = the file's id) and returns the most files a grouped row held.
func splitPostingsByFile(t *testing.T, fx indextest.Indexed) int {
	t.Helper()
	ctx := context.Background()
	fileOf := map[int64]int64{}
	rows, err := fx.DB.Pool.Query(ctx, `SELECT id, file_id FROM symbols WHERE repository_id = $1`, fx.RepoID)
	if err != nil {
		t.Fatal(err)
	}
	var id, file int64
	if _, err := pgx.ForEachRow(rows, []any{&id, &file}, func() error { fileOf[id] = file; return nil }); err != nil {
		t.Fatal(err)
	}
	type key struct {
		term string
		file int64
	}
	split := map[key][]postings.Posting{}
	most := 0
	rows, err = fx.DB.Pool.Query(ctx, `SELECT term, data FROM postings WHERE repository_id = $1`, fx.RepoID)
	if err != nil {
		t.Fatal(err)
	}
	var term string
	var data []byte
	if _, err := pgx.ForEachRow(rows, []any{&term, &data}, func() error {
		var files []int64
		err := postings.Decode(data, func(p postings.Posting) {
			k := key{term, fileOf[p.Symbol]}
			split[k] = append(split[k], p)
			files = append(files, k.file)
		})
		slices.Sort(files)
		most = max(most, len(slices.Compact(files)))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var groups, ns []int64
	var terms []string
	var datas [][]byte
	for k, ps := range split {
		groups, terms, ns = append(groups, k.file), append(terms, k.term), append(ns, int64(len(ps)))
		datas = append(datas, postings.Encode(nil, ps))
	}
	if _, err := fx.DB.Pool.Exec(ctx, `DELETE FROM postings WHERE repository_id = $1`, fx.RepoID); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.DB.Pool.Exec(ctx, `INSERT INTO postings (repository_id, group_id, term, n, data)
		SELECT $1, g, t, n, d FROM unnest($2::bigint[], $3::text[], $4::int8[], $5::bytea[]) AS u(g, t, n, d)`,
		fx.RepoID, groups, terms, ns, datas); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.DB.Pool.Exec(ctx, `ANALYZE postings`); err != nil {
		t.Fatal(err)
	}
	return most
}

// TestKeepBestIsKeepFilteredCut: the lexical channel checks a filter on its
// best hits a slice at a time; the result must be the filter over every hit,
// cut at the depth, for depths that take one round, several, or all.
func TestKeepBestIsKeepFilteredCut(t *testing.T) {
	fx := indextest.Fixture(t)
	ctx := context.Background()
	s := New(fx.DB, fx.RepoID, fx.Emb)
	rows, err := fx.DB.Pool.Query(ctx, `SELECT id FROM symbols WHERE repository_id = $1 AND kind <> 'field' ORDER BY md5(id::text)`, fx.RepoID)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	ranked := make([]hit, len(ids))
	for i, id := range ids {
		ranked[i] = hit{id: id, score: float64(len(ids) - i)}
	}
	_, f, err := ParseFilters("path:billing/ test:no")
	if err != nil {
		t.Fatal(err)
	}
	all, err := s.keepFiltered(ctx, f, slices.Clone(ranked))
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 5 || len(all) > len(ranked)/4 {
		t.Fatalf("the filter keeps %d of %d hits", len(all), len(ranked))
	}
	for _, depth := range []int{1, 2, 5, len(all), len(ranked)} {
		got, err := s.keepBest(ctx, f, slices.Clone(ranked), depth)
		if err != nil {
			t.Fatal(err)
		}
		if want := all[:min(depth, len(all))]; !slices.Equal(got, want) {
			t.Errorf("depth %d: %v, want %v", depth, got, want)
		}
	}
}
