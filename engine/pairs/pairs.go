// Package pairs mines pairs of human text and the code it describes from a
// source tree: doc comments and docstrings → their definitions, inline
// comments → the lines after them, test names → the definitions they test,
// README sections → the APIs they name, commit messages → the definitions
// their diffs touched. It parses with engine/parse, so a pair's code is cut
// as a search result's chunk is.
//
// Two users: the trainer's corpus miner (internal/train/mine, over many
// public repositories) and `spelunk model learn` (engine/learn, over the user's own
// repository). train/README.md describes each kind of pair.
package pairs

import (
	"context"
	"hash/fnv"
	"io"
	"strings"

	"github.com/spelunkhq/spelunk/engine/parse"
)

// Pair is one example: human text and the code it describes.
type Pair struct {
	Kind   string `json:"kind"` // doc, comment, test, readme or commit
	Query  string `json:"query"`
	Code   string `json:"code"`
	Repo   string `json:"repo"`
	Path   string `json:"path"`   // relative to the repository, slash-separated
	Symbol string `json:"symbol"` // the definition's qualified name
}

// Options tune [Mine].
type Options struct {
	// Workers parse files in parallel (at least 1).
	Workers int
	// Commits mines the git history too: the commits reachable from Rev,
	// newest first, read from GitDir. Without GitDir, only when dir is the top
	// of a git work tree, whose history it reads.
	Commits bool
	// GitDir is the repository whose history is read (default dir).
	GitDir string
	// Rev is the newest commit read (default HEAD).
	Rev string
}

// Mine walks dir, parses its code and calls emit for each pair, in a fixed
// order (files, then README sections, then commits). name is the pairs'
// Repo. Pairs are not deduplicated: [Key] says which are the same.
func Mine(ctx context.Context, name, dir string, o Options, emit func(Pair)) error {
	r, err := loadRepo(ctx, name, dir, max(o.Workers, 1))
	if err != nil {
		return err
	}
	for _, f := range r.files {
		docPairs(r, f, emit)
		commentPairs(r, f, emit)
		testPairs(r, f, emit)
	}
	readmePairs(r, emit)
	r.gitDir, r.rev = o.GitDir, o.Rev
	if r.gitDir == "" && isGitTree(dir) {
		r.gitDir = dir
	}
	if r.rev == "" {
		r.rev = "HEAD"
	}
	if o.Commits && r.gitDir != "" {
		if err := commitPairs(ctx, r, max(o.Workers, 1), emit); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// Reads reports whether [Mine] reads the file at path (slash-separated,
// relative to the tree): code in a language it mines, or Markdown, outside
// the directories it skips (hidden, vendored, third-party, test data).
func Reads(path string) bool {
	dirs := strings.Split(path, "/")
	for _, d := range dirs[:len(dirs)-1] {
		if skipDirs[d] || strings.HasPrefix(d, ".") {
			return false
		}
	}
	return isMarkdown(path) || codeLangs[parse.Language(path)]
}

// Key identifies a pair by its text (case-insensitive) and code, for
// deduplication.
func Key(p Pair) uint64 {
	h := fnv.New64a()
	io.WriteString(h, strings.ToLower(p.Query))
	h.Write([]byte{0})
	io.WriteString(h, p.Code)
	return h.Sum64()
}

// Overlap is the share of the query's content words that are also words of
// the code's identifiers: near 1 when the text only repeats the code's names.
func Overlap(query, code string) float64 { return overlap(query, code) }
