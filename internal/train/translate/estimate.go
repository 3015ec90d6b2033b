package main

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/spelunkhq/spelunk/engine/embed"
)

// Settings of the estimate (flags of the command).
type Settings struct {
	MinWord    int     // a word counts in a repository from this many of its pairs on
	MinPair    int     // a (word, token) co-occurrence counts from this many pairs on
	MinRepos   int     // repositories that must agree on a translation
	MinLift    float64 // P_r(token | word) over P_r(token) for a repository to agree
	MinWeight  float64 // translations weighing less are dropped
	Top        int     // translations kept per word
	MaxPerRepo int     // pairs read per repository (0: all)
	// Measure is a repository's evidence: "pmi", log(P_r(t|w) / P_r(t)) over
	// log n_r (1 when t is in the code of one pair in n_r and of every pair
	// saying w), times k/(k+Shrink) for k co-occurrences; or "diff",
	// P_r(t|w) − P_r(t), which favoured tokens every code has (string, get,
	// value: train/README.md).
	Measure string
	Shrink  float64
	// MaxShare drops tokens in more than this share of a repository's code,
	// averaged over the repositories (get, value, error, path): a search
	// drops such terms anyway, and as translations they only add noise.
	MaxShare float64
}

// DefaultSettings are the shipped table's.
var DefaultSettings = Settings{MinWord: 1, MinPair: 1, MinRepos: 4, MinLift: 2, MinWeight: 0.03, Top: 3,
	Measure: "pmi", Shrink: 1, MaxShare: 0.01}

// Translation is one code token a word translates into, with its weight.
type Translation struct {
	Token  string
	Weight float64
	Repos  int // repositories that agree
}

// pair is one mined pair as token ids: the text's words and the code's tokens
// that no word of the text names (stem included).
type pair struct {
	words, tokens []int32
}

// corpus is the pairs grouped by repository, over one interned vocabulary.
type corpus struct {
	ids   map[string]int32
	names []string
	repos map[string][]pair
	order []string // repositories as first seen
	// code holds, per repository, every token of its code (those a pair's
	// text names too: inflections are made of them).
	code map[string]map[int32]bool
}

func newCorpus() *corpus {
	return &corpus{ids: map[string]int32{}, repos: map[string][]pair{}, code: map[string]map[int32]bool{}}
}

func (c *corpus) id(s string) int32 {
	if i, ok := c.ids[s]; ok {
		return i
	}
	i := int32(len(c.names))
	c.ids[s] = i
	c.names = append(c.names, s)
	return i
}

// add tokenises one pair. Words are the text's content words; tokens the
// code's identifier pieces, each once, leaving out the ones a word of the text
// names itself or by its stem: they are that word, not a translation of it
// (inflections, which the lexical channel does not match, are -inflections'),
// and left in they would credit every other word of the text with them.
func (c *corpus) add(repo, text, code string) {
	words := contentTokens(text)
	if len(words) == 0 {
		return
	}
	var p pair
	for _, w := range words {
		p.words = append(p.words, c.id(w))
	}
	seen := c.code[repo]
	if seen == nil {
		seen = map[int32]bool{}
		c.code[repo] = seen
	}
	for _, t := range contentTokens(withoutImports(code)) {
		seen[c.id(t)] = true
		if !slices.ContainsFunc(words, func(w string) bool { return sameWord(w, t) }) {
			p.tokens = append(p.tokens, c.id(t))
		}
	}
	if len(p.tokens) == 0 {
		return
	}
	if _, ok := c.repos[repo]; !ok {
		c.order = append(c.order, repo)
	}
	c.repos[repo] = append(c.repos[repo], p)
}

// withoutImports drops a code's import, package and use lines: their tokens
// are paths (com, apache, github), not what the code does.
func withoutImports(code string) string {
	if !strings.Contains(code, "import") && !strings.Contains(code, "package") && !strings.Contains(code, "use ") {
		return code
	}
	lines := strings.Split(code, "\n")
	kept := lines[:0]
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "package ") || strings.HasPrefix(t, "from ") && strings.Contains(t, " import ") ||
			strings.HasPrefix(t, "use ") || strings.HasPrefix(t, "pub use ") {
			continue
		}
		kept = append(kept, l)
	}
	return strings.Join(kept, "\n")
}

// contentTokens are the distinct tokens of s as the lexical channel sees them
// (embed.Tokenize), stop words, numbers and tokens under three or over 24
// letters left out.
func contentTokens(s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range embed.Tokenize(s) {
		if len(t) < 3 || len(t) > 24 || seen[t] || embed.IsStopWord(t) || !letters(t) {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}

func letters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// stem is a crude English stem (plural, -ing, -ed, -er, -ion, -ly, a final e)
// that lets "dedupes" meet "dedupe" and "parsing" meet "parser".
func stem(w string) string {
	for _, suf := range []string{"ies", "ied", "ily"} { // retries, lazily: retry, lazy
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)] + "y"
		}
	}
	for _, suf := range []string{"ations", "ation", "ings", "ing", "ers", "ions", "ion", "ed", "er", "es", "ly", "s", "e"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

// sameWord reports whether a token is a word itself, its stem or one of them
// a prefix of the other (config / configuration, init / initialize): the same
// word, inflected or cut short, not a translation.
func sameWord(w, t string) bool {
	if w == t || stem(w) == stem(t) {
		return true
	}
	short, long := w, t
	if len(short) > len(long) {
		short, long = long, short
	}
	return len(short) >= 3 && strings.HasPrefix(long, short)
}

// acc sums, over the repositories, one (word, token) pair's evidence.
type acc struct {
	sum   float64
	repos int32
}

// estimate learns each word's translations. In each repository r with n_r
// pairs where a word w is said (in at least MinWord of them) and a token t is
// in the code of at least MinPair of those with P_r(t | w) ≥ MinLift ×
// P_r(t), the repository agrees, with the evidence of Measure. A
// translation's weight is that evidence averaged over every repository that
// says w (0 where it does not agree), so each repository weighs the same and
// one repository's vocabulary cannot carry it; at least MinRepos must agree.
func estimate(c *corpus, s Settings) map[string][]Translation {
	sums := map[uint64]*acc{}
	wordRepos := map[int32]int{}
	share := map[int32]float64{}
	repos := 0
	for _, name := range c.order {
		pairs := c.repos[name]
		if s.MaxPerRepo > 0 && len(pairs) > s.MaxPerRepo {
			pairs = pairs[:s.MaxPerRepo]
		}
		if len(pairs) > 0 {
			repos++
			repoEvidence(pairs, s, sums, wordRepos, share)
		}
	}
	out := map[string][]Translation{}
	for key, a := range sums {
		w, t := int32(key>>32), int32(uint32(key))
		if int(a.repos) < s.MinRepos || wordRepos[w] < s.MinRepos {
			continue
		}
		word, tok := c.names[w], c.names[t]
		if sameWord(word, tok) || s.MaxShare > 0 && share[t]/float64(repos) > s.MaxShare {
			continue
		}
		weight := a.sum / float64(wordRepos[w])
		if weight < s.MinWeight {
			continue
		}
		out[word] = append(out[word], Translation{Token: tok, Weight: weight, Repos: int(a.repos)})
	}
	for w, ts := range out {
		slices.SortFunc(ts, func(a, b Translation) int {
			return cmp.Or(cmp.Compare(b.Weight, a.Weight), cmp.Compare(a.Token, b.Token))
		})
		out[w] = ts[:min(len(ts), s.Top)]
	}
	return out
}

// repoEvidence adds one repository's evidence to sums and counts the words it
// uses often enough in wordRepos, and each token's share of its code in share.
func repoEvidence(pairs []pair, s Settings, sums map[uint64]*acc, wordRepos map[int32]int, share map[int32]float64) {
	wordN, tokN := map[int32]int{}, map[int32]int{}
	for _, p := range pairs {
		for _, w := range p.words {
			wordN[w]++
		}
		for _, t := range p.tokens {
			tokN[t]++
		}
	}
	co := map[uint64]int32{}
	for _, p := range pairs {
		for _, w := range p.words {
			if wordN[w] < s.MinWord {
				continue
			}
			for _, t := range p.tokens {
				co[uint64(w)<<32|uint64(uint32(t))]++
			}
		}
	}
	n := float64(len(pairs))
	for t, k := range tokN {
		share[t] += float64(k) / n
	}
	for w, k := range wordN {
		if k >= s.MinWord {
			wordRepos[w]++
		}
	}
	for key, k := range co {
		if int(k) < s.MinPair {
			continue
		}
		w, t := int32(key>>32), int32(uint32(key))
		p, bg := float64(k)/float64(wordN[w]), float64(tokN[t])/n
		if p < s.MinLift*bg || p <= bg {
			continue
		}
		a := sums[key]
		if a == nil {
			a = &acc{}
			sums[key] = a
		}
		if s.Measure == "diff" {
			a.sum += p - bg
		} else {
			a.sum += math.Log(p/bg) / math.Log(max(n, 2)) * float64(k) / (float64(k) + s.Shrink)
		}
		a.repos++
	}
}
