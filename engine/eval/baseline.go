package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

// Embedder is the one embedding contract (engine/embed).
type Embedder = embed.Embedder

// WindowTokens is the window size of the baseline spelunk exists to beat: fixed
// 512-token windows (~3.6 characters a token) embedded and searched densely.
const WindowTokens = 512

type window struct {
	path       string
	start, end int             // lines, 1-based inclusive
	names      map[string]bool // definitions overlapping the window
	vec        []float32
}

// WindowBaseline builds the fixed-window dense baseline over the repository's
// indexed files, read from disk under root, and returns it as an extra eval config.
// Windows are cut at line boundaries once they reach 512 tokens; a window answers for
// every definition it overlaps (the most generous reading of a window hit).
func WindowBaseline(ctx context.Context, db *pg.DB, repoID int64, root string, emb Embedder) (func(context.Context, Query) ([]Ranked, error), int, error) {
	all, err := symbols.List(ctx, db, repoID, symbols.Filter{})
	if err != nil {
		return nil, 0, err
	}
	byPath := map[string][]symbols.Symbol{}
	for _, s := range all {
		byPath[s.Path] = append(byPath[s.Path], s)
	}
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	maxChars := WindowTokens * 36 / 10
	var wins []window
	var texts []string
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			continue
		}
		lines := strings.SplitAfter(string(data), "\n")
		start, size := 0, 0
		flush := func(end int) {
			if end <= start {
				return
			}
			w := window{path: p, start: start + 1, end: end, names: map[string]bool{}}
			for _, s := range byPath[p] {
				if s.Kind != "module" && s.StartLine <= w.end && s.EndLine >= w.start {
					w.names[s.Name] = true
					for _, a := range s.Aliases {
						w.names[a] = true
					}
				}
			}
			wins = append(wins, w)
			texts = append(texts, p+"\n"+strings.Join(lines[start:end], ""))
			start, size = end, 0
		}
		for i, l := range lines {
			size += len(l)
			if size >= maxChars {
				flush(i + 1)
			}
		}
		flush(len(lines))
	}
	for i := 0; i < len(texts); i += 256 {
		end := min(i+256, len(texts))
		vecs, err := emb.Embed(ctx, texts[i:end])
		if err != nil {
			return nil, 0, fmt.Errorf("embed baseline windows: %w", err)
		}
		for j, v := range vecs {
			wins[i+j].vec = v
		}
	}
	run := func(ctx context.Context, q Query) ([]Ranked, error) {
		vecs, err := emb.Embed(ctx, []string{q.Query})
		if err != nil {
			return nil, err
		}
		qv := vecs[0]
		type scored struct {
			i int
			s float32
		}
		sc := make([]scored, len(wins))
		for i, w := range wins {
			var dot float32
			for k := range qv {
				dot += qv[k] * w.vec[k]
			}
			sc[i] = scored{i, dot}
		}
		sort.Slice(sc, func(a, b int) bool { return sc[a].s > sc[b].s })
		var out []Ranked
		for _, s := range sc[:min(10, len(sc))] {
			w := wins[s.i]
			out = append(out, Ranked{path: w.path, window: w.names})
		}
		return out, nil
	}
	return run, len(wins), nil
}
