package memcache

import (
	"context"
	"fmt"
	"testing"

	"github.com/spelunkhq/spelunk/engine/embed"
)

// TestSketchRecall: past exactBelow the sketch picks the candidates; the top 10
// it returns must be the exact scan's top 10 for nearly every query (the texts
// are the benchmark's, embedded by the hashing embedder, whose vectors are
// sparse: the hard case for a sign sketch).
func TestSketchRecall(t *testing.T) {
	const n, queries, limit = 20_000, 50, 10
	emb := embed.NewHashing(0)
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("memory %d about service %d, port %d and the retry budget of queue %d", i, i%97, 8000+i%50, i%13)
	}
	vecs, err := emb.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	x := &vecIndex{dims: emb.Dims(), loaded: true}
	for i, v := range vecs {
		x.ids = append(x.ids, fmt.Sprint(i))
		x.created = append(x.created, int64(n-i))
		x.weight = append(x.weight, 1/(1+float64(i)/float64(n))) // newer first, as decay does
		x.flat = append(x.flat, v...)
	}
	x.sketch = sketchAll(x.flat, x.dims)
	found, total := 0, 0
	for q := range queries {
		text := fmt.Sprintf("retry budget of queue %d on port %d", q%13, 8000+q%50)
		qv, err := emb.Embed(context.Background(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		d := x.dims
		want := x.top(limit, func(i int) float64 { return dot(qv[0], x.flat[i*d:(i+1)*d]) }, maxCosine, nil)
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
		x.created = append(x.created, int64(n-i))
		x.weight = append(x.weight, 1/(1+float64(i)/float64(n))) // newer first, as decay does
		x.flat = append(x.flat, v...)
	}
	x.sketch = sketchAll(x.flat, x.dims)
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
