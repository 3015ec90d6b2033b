package watch

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/engine/search"
)

// BenchmarkSavedToSearchable measures what DESIGN.md §10 asks of the watcher
// (a saved file searchable in < 1 s): 50 saves, each adding a function to a
// file, timed from the write until a search by the new name finds it (the
// symbol channel, polled every 5 ms). Each save waits for the previous run to
// end, as a save on an idle watcher does. Reported: p50 and p95 of that
// latency, and the p50 of the runs themselves (the rest is the debounce,
// DefaultDebounce, and the polling). The repository is the fixture, or all of
// $GOROOT/src (~100k chunks) with SPELUNK_BENCH_WATCH_GOROOT=1.
func BenchmarkSavedToSearchable(b *testing.B) {
	root := benchRepo(b)
	db := pgtest.Open(b)
	ctx := context.Background()
	// Indexed first (at $GOROOT scale that takes minutes): the watcher's
	// catch-up run then finds nothing to do.
	t0 := time.Now()
	sum, err := index.New(db, hashing()).Index(ctx, root, index.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("index: %d files, %d symbols in %s", sum.FilesIndexed, sum.Symbols, time.Since(t0).Round(time.Millisecond))
	w := start(b, db, root, Options{})
	waitRuns(b, w.rec, 1)
	write(b, root, benchFile, "package watchbench\n")
	waitRuns(b, w.rec, 2)
	s := search.New(db, sum.RepositoryID, hashing())
	const edits = 50
	var lat, runs []time.Duration
	for b.Loop() {
		var body strings.Builder
		body.WriteString("package watchbench\n")
		for i := range edits {
			name := fmt.Sprintf("WatchBench%02d", i)
			fmt.Fprintf(&body, "\n// %s is save number %d.\nfunc %s() int { return %d }\n", name, i, name, i)
			done := len(w.rec.runs())
			t0 := time.Now()
			write(b, root, benchFile, body.String())
			for !found(ctx, b, s, name) {
				if time.Since(t0) > patience {
					b.Fatalf("%s not found after %s; events:\n%s", name, patience, w.rec)
				}
				time.Sleep(5 * time.Millisecond)
			}
			lat = append(lat, time.Since(t0))
			all := waitRuns(b, w.rec, done+1)
			runs = append(runs, all[len(all)-1].Duration)
		}
	}
	b.ReportMetric(ms(percentile(lat, 50)), "p50-ms")
	b.ReportMetric(ms(percentile(lat, 95)), "p95-ms")
	b.ReportMetric(ms(percentile(runs, 50)), "run-p50-ms")
	b.ReportMetric(0, "ns/op") // one op is 50 saves: its time says nothing
}

// benchFile is the file the saves rewrite, in a directory of its own.
const benchFile = "watchbench/bench.go"

// benchRepo is the fixture, or a copy of $GOROOT/src as one commit.
func benchRepo(b *testing.B) string {
	if os.Getenv("SPELUNK_BENCH_WATCH_GOROOT") != "1" {
		return repoWith(b, nil)
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatal(err)
	}
	dst := filepath.Join(b.TempDir(), "src")
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(strings.TrimSpace(string(out)), "src"))); err != nil {
		b.Fatal(err)
	}
	git(b, dst, "init", "-q")
	git(b, dst, "add", "-A")
	git(b, dst, "commit", "-q", "-m", "goroot")
	return dst
}

func found(ctx context.Context, b *testing.B, s *search.Searcher, name string) bool {
	resp, err := s.Search(ctx, name, search.Options{Channels: []search.Channel{search.Symbol}, Limit: 3})
	if err != nil {
		b.Fatal(err)
	}
	return len(resp.Results) > 0 && resp.Results[0].Name == name
}

func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, (len(s)*p+99)/100-1)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
