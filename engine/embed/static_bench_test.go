package embed

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// benchCorpus is this package's Go source: its tokens make a benchmark
// vocabulary that covers real code, and its 40-line pieces are chunk-sized
// texts (~1.2 KB).
var benchCorpus = sync.OnceValues(func() (vocab []string, chunks []string) {
	files, _ := filepath.Glob("*.go")
	count := map[string]int{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		lines := strings.Split(string(b), "\n")
		for i := 0; i+40 <= len(lines); i += 40 {
			chunks = append(chunks, strings.Join(lines[i:i+40], "\n"))
		}
		for _, tok := range Tokenize(string(b)) {
			if len(tok) <= maxWordBytes {
				count[tok]++
			}
		}
	}
	for w := range count {
		vocab = append(vocab, w)
	}
	sort.Slice(vocab, func(i, j int) bool { return count[vocab[i]] > count[vocab[j]] })
	return vocab, chunks
})

// benchWords returns n distinct words: the corpus's tokens, then synthWords.
func benchWords(n int) []string {
	vocab, _ := benchCorpus()
	seen := map[string]bool{}
	var words []string
	for _, w := range append(append([]string(nil), vocab...), synthWords(n)...) {
		if !seen[w] && len(words) < n {
			seen[w] = true
			words = append(words, w)
		}
	}
	return words
}

// BenchmarkStaticEmbed compares the static model (256 dims, int8) with GloVe
// (100 dims, binary16) on the same 50k-word vocabulary and texts, in one run:
// short texts (queries, signatures) and 40-line chunks of real Go code.
func BenchmarkStaticEmbed(b *testing.B) {
	words := benchWords(50000)
	_, chunks := benchCorpus()
	s, err := LoadStatic(synthStaticFile(b, words, 256))
	if err != nil {
		b.Fatal(err)
	}
	gf, err := parseGloVeFile(synthGloVeFile(b, words, 100))
	if err != nil {
		b.Fatal(err)
	}
	g, err := newGloVe(gf)
	if err != nil {
		b.Fatal(err)
	}
	embs := []struct {
		name string
		emb  Embedder
	}{{"static256d", s}, {"glove100d", g}}
	// The shipped weights and the installed GloVe data, where present: the
	// figures the README quotes.
	if c, err := LoadCode(); err == nil {
		embs = append(embs, struct {
			name string
			emb  Embedder
		}{"builtin-code", c})
	}
	if path := DefaultGloVePath(); path != "" {
		if rg, err := LoadGloVe(path); err == nil {
			embs = append(embs, struct {
				name string
				emb  Embedder
			}{"installed-glove", rg})
		}
	}
	for _, e := range embs {
		b.Run(e.name+"/short", func(b *testing.B) { benchEmbed(b, e.emb, shortTexts) })
		b.Run(e.name+"/chunk40", func(b *testing.B) { benchEmbed(b, e.emb, chunks) })
	}
}

// BenchmarkLoadCode is what a process pays to load a 100k-token 256-d code
// model (~26 MB) the way the built-in one is loaded (no checksum, rows left in
// place), then to embed one query; and LoadStatic's full checksum for
// comparison.
func BenchmarkLoadCode(b *testing.B) {
	file := synthStaticFile(b, benchWords(100000), 256)
	b.Logf("model file: %.1f MB", float64(len(file))/(1<<20))
	load := func(b *testing.B, verify bool) *Static {
		f, err := parseStaticFile(bytes.NewReader(file), int64(len(file)), verify)
		if err != nil {
			b.Fatal(err)
		}
		s, err := newStatic(f)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	b.Run("builtin", func(b *testing.B) {
		for b.Loop() {
			load(b, false)
		}
	})
	b.Run("builtin+query", func(b *testing.B) {
		for b.Loop() {
			s := load(b, false)
			if _, err := s.Embed(context.Background(), []string{"how are refunds validated before the payment is reversed"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("verified", func(b *testing.B) {
		for b.Loop() {
			load(b, true)
		}
	})
}
