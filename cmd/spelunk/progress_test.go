package main

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spelunkhq/spelunk/engine/index"
)

func TestProgressLineFitsTheTerminal(t *testing.T) {
	busy := index.Progress{Phase: "resolving; building the repository's vector index", FilesTotal: 123456, FilesDone: 120000,
		FilesSkipped: 1234, Chunks: 9876543, EmbedQueued: 9876543, Embedded: 123456, Elapsed: 90 * time.Second}
	start := index.Progress{Phase: "indexing", FilesTotal: 400, FilesDone: 10, Chunks: 80, Elapsed: 3 * time.Second}
	for _, width := range []int{40, 80, 120} {
		for _, p := range []index.Progress{busy, start} {
			line := progressLine(p, width)
			if n := utf8.RuneCountInString(line); n >= width {
				t.Errorf("width %d: %d columns: %q", width, n, line)
			}
			if !strings.HasPrefix(line, p.Phase[:8]) {
				t.Errorf("width %d: the phase does not lead: %q", width, line)
			}
		}
	}
	if line := progressLine(start, 200); strings.Contains(line, "ETA") {
		t.Errorf("an estimate from the first 10 files: %q", line)
	}
	if line := progressLine(busy, 80); strings.Count(line, "resolving") != 1 {
		t.Errorf("the phase repeats: %q", line)
	}
}
