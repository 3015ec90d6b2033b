package index

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/embed"
)

// searchTextByWords is SearchText as first written, each word through
// strings.ToLower and embed.Tokenize: the definition the allocation-free
// version must keep (the stored text and the query side depend on it).
func searchTextByWords(s string) string {
	var b strings.Builder
	eachWord(s, func(word string) {
		lower := strings.ToLower(word)
		parts := embed.Tokenize(word)
		b.WriteString(lower)
		b.WriteByte(' ')
		if len(parts) > 1 || (len(parts) == 1 && parts[0] != lower) {
			for _, p := range parts {
				b.WriteString(p)
				b.WriteByte(' ')
			}
		}
	})
	return strings.TrimSpace(b.String())
}

// TestSearchTextMatchesWordByWord compares SearchText with its definition on
// this repository's own sources and on random text full of the cases the
// fast paths skip: capitals, digits, underscores, non-ASCII letters and
// marks, and invalid UTF-8.
func TestSearchTextMatchesWordByWord(t *testing.T) {
	var texts []string
	for _, glob := range []string{"*.go", "../parse/*.go", "../../testdata/languages/*/*", "../../testdata/fixture/*/*"} {
		paths, _ := filepath.Glob(glob)
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				texts = append(texts, string(b))
			}
		}
	}
	if len(texts) < 20 {
		t.Fatalf("found %d source files to compare on", len(texts))
	}
	pieces := []string{"a", "Z", "_", "9", "HTTPServer2", "parseURLs", "IDsFor", "é", "Ärger", "ǅ", "\u0301", "日本",
		"Σίσυφος", "\xff", "\xe2\x82", "-", " ", ".", "\t", "snake_case", "x86_64", "İ", "ß", "ﬁ", "Ⅻ", "٣"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	for _, text := range texts {
		if got, want := SearchText(text), searchTextByWords(text); got != want {
			t.Fatalf("SearchText(%.80q):\n got %.200q\nwant %.200q", text, got, want)
		}
	}
}
