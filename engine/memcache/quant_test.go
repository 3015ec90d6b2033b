package memcache

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/vecsketch"
)

// TestSketchRecall: past exactBelow the sketch picks the candidates; the top 10
// it returns must be the exact scan's top 10 for nearly every query (the texts
// are the benchmark's, embedded by the hashing embedder, whose vectors are
// sparse: the hard case for a sign sketch).
func TestSketchRecall(t *testing.T) {
	const n, queries, limit = 20_000, 50, 10
	x, emb := sketchIndex(t, n)
	found, total := 0, 0
	for q := range queries {
		text := fmt.Sprintf("retry budget of queue %d on port %d", q%13, 8000+q%50)
		qv, err := emb.Embed(context.Background(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		d := x.dims
		want := x.top(limit, func(i int) float64 { return vecsketch.Dot(qv[0], x.flat[i*d:(i+1)*d]) }, x.mostSim(qv[0]), nil)
		got := map[int]bool{}
		for _, s := range x.scan(qv[0], limit) {
			got[s.i] = true
		}
		for _, s := range want {
			total++
			if got[s.i] {
				found++
			}
		}
	}
	recall := float64(found) / float64(total)
	t.Logf("sketch recall@%d against the exact scan over %d vectors: %.3f", limit, n, recall)
	if recall < 0.95 {
		t.Errorf("sketch recall@%d = %.3f, want >= 0.95", limit, recall)
	}
}

// sketchIndex is a vecIndex over n hashing vectors of the benchmark's texts.
func sketchIndex(tb testing.TB, n int) (*vecIndex, *embed.Hashing) {
	tb.Helper()
	emb := embed.NewHashing(0)
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("memory %d about service %d, port %d and the retry budget of queue %d", i, i%97, 8000+i%50, i%13)
	}
	vecs, err := emb.Embed(context.Background(), texts)
	if err != nil {
		tb.Fatal(err)
	}
	x := &vecIndex{dims: emb.Dims(), loaded: true}
	for i, v := range vecs {
		x.ids = append(x.ids, fmt.Sprint(i))
		x.created = append(x.created, int64(i+1))
		x.weight = append(x.weight, 1/(1+float64(n-1-i)/float64(n))) // oldest first, as decay does
		x.flat = append(x.flat, v...)
	}
	x.sketch = sketchAll(x.flat, x.dims)
	x.measure()
	return x, emb
}

// BenchmarkScan50k: the in-memory part of a local vector read at 50k cached
// memories (the sketch pass and the exact re-scoring of its candidates), with
// no SQLite in the way: `go test -run '^$' -bench Scan50k ./engine/memcache`.
func BenchmarkScan50k(b *testing.B) {
	x, emb := sketchIndex(b, 50_000)
	qv, err := emb.Embed(context.Background(), []string{"retry budget of queue 7"})
	if err != nil {
		b.Fatal(err)
	}
	cpu0 := cpuTime()
	for b.Loop() {
		if got := x.scan(qv[0], 10); len(got) != 10 {
			b.Fatalf("%d results", len(got))
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// TestScanStopsEarlyExactly: the scans stop where the weight alone rules the
// rest out; what they return must be what a pass over every vector gives, both
// the exact ranking and the sketch's candidates.
func TestScanStopsEarlyExactly(t *testing.T) {
	x, emb := sketchIndex(t, 6_000)
	for i := range x.weight { // a steeper decay than the benchmark's: more to skip
		x.weight[i] = 1 / (1 + 20*float64(len(x.ids)-1-i)/float64(len(x.ids)))
	}
	// Vectors of an embedder that does not normalise: similarities past 1.
	for i := range x.flat {
		x.flat[i] *= 1 + float32(i/x.dims%5)
	}
	x.measure()
	qv, err := emb.Embed(context.Background(), []string{"retry budget of queue 7 on port 8007"})
	if err != nil {
		t.Fatal(err)
	}
	d := x.dims
	all := func(limit int, sim func(int) float64) []int {
		s := make([]scored, len(x.ids))
		for i := range s {
			v := sim(i)
			s[i] = scored{i: i, sim: v, score: v * x.weight[i]}
		}
		slices.SortFunc(s, func(a, b scored) int {
			if x.better(a, b) {
				return -1
			}
			return 1
		})
		out := make([]int, limit)
		for k := range out {
			out[k] = s[k].i
		}
		return out
	}
	exact := func(i int) float64 { return vecsketch.Dot(qv[0], x.flat[i*d:(i+1)*d]) }
	var got []int
	for _, s := range x.top(10, exact, x.mostSim(qv[0]), nil) {
		got = append(got, s.i)
	}
	if want := all(10, exact); !slices.Equal(got, want) {
		t.Errorf("exact top 10 %v, a full pass gives %v", got, want)
	}
	q := sketchOf(qv[0])
	cands := x.sketchTop(q, minCandidates)
	slices.Sort(cands)
	want := all(minCandidates, func(i int) float64 { return float64(sketchSim(q, x.sketch[i*len(q):(i+1)*len(q)])) })
	slices.Sort(want)
	if !slices.Equal(cands, want) {
		t.Errorf("the sketch's %d candidates differ from a full pass's", len(cands))
	}
}

// TestIndexLoadsOldestFirst: the scans' early stop needs the index in order of
// weight; memories pulled in any order load oldest first.
func TestIndexLoadsOldestFirst(t *testing.T) {
	ctx := context.Background()
	emb := embed.NewHashing(0)
	c, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "c.db()"), Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	now := time.Now()
	err = c.inTx(ctx, func(tx *sql.Tx) error {
		for _, age := range []int{5, 1, 9, 3, 7} {
			text := fmt.Sprintf("memory %d hours old", age)
			v, err := emb.Embed(ctx, []string{text})
			if err != nil {
				return err
			}
			m := memory.Memory{ID: newID(), Kind: memory.KindFact, Author: "agent:t", Content: text,
				Status: memory.StatusActive, CreatedAt: now.Add(-time.Duration(age) * time.Hour)}
			if err := putMemory(ctx, tx, m, now, emb.Name(), v[0]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.loadIndex(ctx, emb.Dims()); err != nil {
		t.Fatal(err)
	}
	x := &c.vecs
	if len(x.ids) != 5 || !slices.IsSorted(x.created) {
		t.Errorf("loaded %d vectors created at %v; want 5, oldest first", len(x.ids), x.created)
	}
	if !slices.IsSorted(x.weight) {
		t.Errorf("weights %v not in increasing order", x.weight)
	}
}
