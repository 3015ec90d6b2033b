package search

import (
	"path"
	"sort"
	"strings"
)

// Granularity is what a search ranks.
type Granularity string

// Granularities.
const (
	Symbols Granularity = "symbols" // definitions (the default)
	Files   Granularity = "files"   // files, by the evidence of their definitions
)

// FileResult is one ranked file with the definitions that put it there.
type FileResult struct {
	Rank  int     `json:"rank"`
	Path  string  `json:"path"`
	Score float64 `json:"score"`
	// Symbols are the file's best definitions in rank order (at most
	// filesSymbolsShown), each with its own explain.
	Symbols []Result `json:"symbols"`
	IsTest  bool     `json:"is_test,omitempty"`
}

const (
	// filesPool is how many definitions a file ranking draws its evidence from,
	// per file asked for.
	filesPool = 8
	// filesSymbolsShown is how many definitions are listed under each file.
	filesSymbolsShown = 3
	// fileSecondWeight is how much a file's second and third definitions add to
	// its best one: a file with several good definitions beats a file with one
	// equally good, but a single strong match still decides.
	fileSecondWeight = 0.3
)

// rankFiles groups ranked definitions by file. A file scores its best
// definition's score plus fileSecondWeight times the next two.
func rankFiles(results []Result, limit int) []FileResult {
	byPath := map[string]*FileResult{}
	var order []*FileResult
	for _, r := range results {
		f := byPath[r.Path]
		if f == nil {
			f = &FileResult{Path: r.Path, IsTest: r.IsTest}
			byPath[r.Path] = f
			order = append(order, f)
		}
		switch n := len(f.Symbols); {
		case n == 0:
			f.Score = r.Score
		case n < filesSymbolsShown:
			f.Score += fileSecondWeight * r.Score
		}
		if len(f.Symbols) < filesSymbolsShown {
			f.Symbols = append(f.Symbols, r)
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].Score != order[j].Score {
			return order[i].Score > order[j].Score
		}
		return order[i].Path < order[j].Path
	})
	if len(order) > limit {
		order = order[:limit]
	}
	out := make([]FileResult, len(order))
	for i, f := range order {
		f.Rank = i + 1
		out[i] = *f
	}
	return out
}

// isProse reports whether path holds prose or configuration rather than code:
// Markdown, reStructuredText, plain text, changelogs, YAML, JSON, TOML. A
// changelog paragraph shares more words with a question than the code it
// describes, so such chunks are ranked down like tests (docs/ARCHITECTURE.md §6).
func isProse(p string) bool {
	base := strings.ToLower(path.Base(p))
	switch path.Ext(base) {
	case ".md", ".markdown", ".mdx", ".rst", ".txt", ".adoc", ".asciidoc", ".textile", ".rdoc",
		".yml", ".yaml", ".json", ".toml", ".ini", ".cfg", ".conf", ".csv", ".lock", ".xml", ".svg", ".html", ".htm":
		return true
	}
	stem := strings.TrimSuffix(base, path.Ext(base))
	switch stem {
	case "changelog", "changes", "history", "news", "license", "licence", "authors", "contributors", "notice", "readme":
		return true
	}
	return false
}

// isBuildOutput reports whether path lies under a dist/ directory: a bundle
// built from the sources (axios ships dist/axios.js with a copy of every
// function), which must not outrank, or prune as its near-duplicate, the source
// definition it was built from.
func isBuildOutput(p string) bool {
	return strings.HasPrefix(p, "dist/") || strings.Contains(p, "/dist/")
}
