package search

import (
	_ "embed"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
	"sync"
)

// The learned expansion of a question's words (issue 35, item 2(b)): a table
// of the code tokens each English word stands for, learned from the mined
// pairs of public code (internal/train/translate, train/README.md "The
// translation table"), whose tokens the lexical channel adds to a question as
// BM25 terms weighing less than the words themselves ("twice" also looks for
// dedupe). Explain lists the ones that matched a result.

// The values of Options.Expand.
const (
	ExpandOn  = "on"
	ExpandOff = "off"
)

// DefaultExpand is whether a question's words are expanded when
// Options.Expand is empty. Measured on the tune half of the real-code set
// (train/README.md, "The translation table").
const DefaultExpand = ExpandOff

// Expansion bounds: at most expandPerWord tokens per word and expandMax per
// query, each a BM25 term weighing expandScale × its translation weight
// (capped at expandCap, below a word of the query's own, which weighs 1).
const (
	expandPerWord = 3
	expandMax     = 12
	expandScale   = 1.0
	expandCap     = 0.8
	// expandAbsentOnly: a word's translations count only where the
	// repository lacks the word itself.
	expandAbsentOnly = true
)

// Expansion is one learned term a question was expanded with.
type Expansion struct {
	Term   string  `json:"term"`   // the code token looked for
	From   string  `json:"from"`   // the question's word it was learned from
	Weight float64 `json:"weight"` // the translation's weight, in (0, 1]
}

// String is what explain prints: "matched `dedupe` ← learned from `twice`, 0.31".
func (e Expansion) String() string {
	return fmt.Sprintf("matched `%s` ← learned from `%s`, %.2f", e.Term, e.From, e.Weight)
}

//go:embed translate.tsv
var translateTSV []byte

type translationTable struct {
	name   string
	byWord map[string][]Expansion
	err    error
}

var translations = sync.OnceValue(func() *translationTable {
	t, err := parseTranslations(translateTSV)
	if err != nil {
		return &translationTable{err: err}
	}
	return t
})

// TranslationModel is the built-in table's name, with its checksum
// ("spelunk-translate-v1-1a2b3c4d"), or an error when it cannot be read.
func TranslationModel() (string, error) {
	t := translations()
	return t.name, t.err
}

// parseTranslations reads the table internal/train/translate writes: a
// "# NAME: ..." line, then "word<TAB>token:hundredths,..." lines.
func parseTranslations(b []byte) (*translationTable, error) {
	text := string(b)
	head, body, _ := strings.Cut(text, "\n")
	name, _, ok := strings.Cut(strings.TrimPrefix(head, "# "), ":")
	if !ok || !strings.HasPrefix(head, "# ") {
		return nil, fmt.Errorf("translation table: no header line")
	}
	t := &translationTable{name: fmt.Sprintf("%s-%08x", name, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli))),
		byWord: map[string][]Expansion{}}
	for n, line := range strings.Split(body, "\n") {
		if line == "" {
			continue
		}
		word, list, ok := strings.Cut(line, "\t")
		if !ok {
			return nil, fmt.Errorf("translation table line %d: no tab", n+2)
		}
		for _, item := range strings.Split(list, ",") {
			tok, w, ok := strings.Cut(item, ":")
			h, err := strconv.Atoi(w)
			if !ok || err != nil || h <= 0 || h > 100 {
				return nil, fmt.Errorf("translation table line %d: bad entry %q", n+2, item)
			}
			t.byWord[word] = append(t.byWord[word], Expansion{Term: tok, From: word, Weight: float64(h) / 100})
		}
	}
	return t, nil
}

// expansions are the learned terms of a question's words: each word's best
// translations not already among the terms, the heaviest kept when two words
// give one token, at most expandMax in the words' order.
func (t *translationTable) expansions(words []string) []Expansion {
	if t == nil || t.err != nil {
		return nil
	}
	have := map[string]bool{}
	for _, w := range words {
		have[w] = true
	}
	at := map[string]int{}
	var out []Expansion
	for _, w := range words {
		ts := t.byWord[w]
		for _, e := range ts[:min(len(ts), expandPerWord)] {
			if have[e.Term] {
				continue
			}
			if i, ok := at[e.Term]; ok {
				if e.Weight > out[i].Weight {
					out[i] = e
				}
				continue
			}
			if len(out) == expandMax {
				continue
			}
			at[e.Term] = len(out)
			out = append(out, e)
		}
	}
	return out
}

// expandOn reports whether a search expands its question.
func expandOn(p plan, opts Options) bool {
	mode := opts.Expand
	if mode == "" {
		mode = DefaultExpand
	}
	return mode == ExpandOn && p.kind == Semantic && !p.long
}
