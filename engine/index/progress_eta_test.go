package index

import (
	"testing"
	"time"
)

func TestETAWaitsForData(t *testing.T) {
	tests := []struct {
		name string
		p    Progress
		want time.Duration
	}{
		{"nothing done", Progress{FilesTotal: 400, Elapsed: 3 * time.Second}, 0},
		// The listing took 3 s, the first 10 files 0.1 s: no estimate from that.
		{"first batch", Progress{FilesTotal: 400, FilesDone: 11, Elapsed: 3100 * time.Millisecond, firstFile: 3 * time.Second}, 0},
		{"too early", Progress{FilesTotal: 400, FilesDone: 101, Elapsed: 3500 * time.Millisecond, firstFile: 3 * time.Second}, 0},
		{"meaningful", Progress{FilesTotal: 400, FilesDone: 201, Elapsed: 5 * time.Second, firstFile: 3 * time.Second}, 1990 * time.Millisecond},
		{"done", Progress{FilesTotal: 400, FilesDone: 400, Elapsed: 9 * time.Second, firstFile: 3 * time.Second}, 0},
	}
	for _, tt := range tests {
		if got := tt.p.ETA(); got != tt.want {
			t.Errorf("%s: ETA %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestPhaseNeverRepeats(t *testing.T) {
	var seen []string
	tr := &progressTracker{fn: func(p Progress) { seen = append(seen, p.Phase) }, start: time.Now()}
	tr.phase("analyzing")
	tr.besidePhase("analyzing")
	tr.besidePhase("")
	tr.phase("resolving")
	tr.besidePhase("building the vector index")
	tr.besidePhase("")
	want := []string{"analyzing", "analyzing", "analyzing", "resolving", "resolving; building the vector index", "resolving"}
	for i := range want {
		if i >= len(seen) || seen[i] != want[i] {
			t.Fatalf("phases %q, want %q", seen, want)
		}
	}
}
