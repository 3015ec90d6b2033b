// Command translate learns which code tokens the words people write stand
// for, from the mined pairs of `make train-corpus` (train/README.md, "The
// translation table"): for each word of the texts, the few identifier pieces
// its code uses far more often than that repository's code at large, with
// each repository weighing the same. The lexical channel adds them to a
// question as weighted BM25 terms (engine/search/expand.go).
//
//	go run ./internal/train/translate -out engine/search/translate.tsv PAIRS.jsonl
//
// Output: a comment line, then "word<TAB>token:weight,token:weight" lines
// sorted by word, weights in hundredths.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

func main() {
	s := DefaultSettings
	out := flag.String("out", "", "write the table here (default: standard output)")
	flag.IntVar(&s.MinWord, "min-word", s.MinWord, "a word counts in a repository from this many of its pairs on")
	flag.IntVar(&s.MinPair, "min-pair", s.MinPair, "a word and a token co-occur from this many pairs on")
	flag.IntVar(&s.MinRepos, "min-repos", s.MinRepos, "repositories that must agree on a translation")
	flag.Float64Var(&s.MinLift, "min-lift", s.MinLift, "P(token|word) over P(token) in a repository that agrees")
	flag.Float64Var(&s.MinWeight, "min-weight", s.MinWeight, "drop lighter translations")
	flag.IntVar(&s.Top, "top", s.Top, "translations per word")
	flag.IntVar(&s.MaxPerRepo, "max-per-repo", s.MaxPerRepo, "pairs read per repository (0: all)")
	flag.StringVar(&s.Measure, "measure", s.Measure, "a repository's evidence: pmi or diff")
	flag.Float64Var(&s.Shrink, "shrink", s.Shrink, "pmi: k co-occurrences count k/(k+shrink)")
	flag.Float64Var(&s.MaxShare, "max-share", s.MaxShare, "drop tokens in more than this share of a repository's code (averaged)")
	infl := flag.Int("inflections", 0, "also the code tokens of each word's stem (batched → batch), at most this many a word, first")
	show := flag.String("show", "", "comma-separated words whose translations to print")
	flag.Parse()
	if err := run(flag.Args(), *out, *show, s, *infl); err != nil {
		fmt.Fprintln(os.Stderr, "translate:", err)
		os.Exit(1)
	}
}

func run(inputs []string, out, show string, s Settings, infl int) error {
	if len(inputs) == 0 {
		return fmt.Errorf("no pairs given (PAIRS.jsonl ...)")
	}
	c := newCorpus()
	n := 0
	for _, in := range inputs {
		k, err := readPairs(in, c)
		if err != nil {
			return err
		}
		n += k
	}
	table := estimate(c, s)
	if infl > 0 {
		table = merge(inflections(c, s.MinRepos, infl), table, s.Top)
	}
	entries := 0
	for _, ts := range table {
		entries += len(ts)
	}
	fmt.Fprintf(os.Stderr, "translate: %d pairs from %d repositories; %d words, %d translations\n",
		n, len(c.order), len(table), entries)
	for _, w := range strings.Split(show, ",") {
		if w != "" {
			fmt.Fprintf(os.Stderr, "  %s →%s\n", w, describe(table[w]))
		}
	}
	var w io.Writer = os.Stdout
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	return write(w, table)
}

func describe(ts []Translation) string {
	var b strings.Builder
	for _, t := range ts {
		fmt.Fprintf(&b, " %s %.2f (%d repos)", t.Token, t.Weight, t.Repos)
	}
	return b.String()
}

// readPairs adds the pairs of one JSON-lines file to c.
func readPairs(path string, c *corpus) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	n := 0
	for sc.Scan() {
		var p struct{ Query, Code, Repo string }
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return n, fmt.Errorf("%s line %d: %w", path, n+1, err)
		}
		c.add(p.Repo, p.Query, p.Code)
		n++
	}
	if err := sc.Err(); err != nil {
		return n, fmt.Errorf("read %s: %w", path, err)
	}
	return n, nil
}

// Header is the table's first line.
const Header = "# spelunk-translate-v1: word<TAB>code token:weight×100,... (internal/train/translate, train/README.md)"

// write prints the table sorted by word, weights in hundredths (at least 1).
func write(w io.Writer, table map[string][]Translation) error {
	words := make([]string, 0, len(table))
	for word := range table {
		words = append(words, word)
	}
	slices.Sort(words)
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, Header)
	for _, word := range words {
		parts := make([]string, 0, len(table[word]))
		for _, t := range table[word] {
			parts = append(parts, fmt.Sprintf("%s:%d", t.Token, max(1, int(t.Weight*100+0.5))))
		}
		fmt.Fprintf(bw, "%s\t%s\n", word, strings.Join(parts, ","))
	}
	return bw.Flush()
}
