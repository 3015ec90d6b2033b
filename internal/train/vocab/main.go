// Command vocab counts the tokens spelunk's embedders see (embed.Tokenize:
// identifier-aware, lower-cased sub-tokens) over source trees and text files,
// and writes them most frequent first as "token<TAB>count" lines. It is the
// vocabulary step of `make train` (train/README.md): every token kept here is
// embedded by the teacher and gets a row of the static model.
//
//	go run ./internal/train/vocab -min 5 -out vocab.tsv DIR|FILE.jsonl ...
//
// A directory is walked for source and documentation files; a .jsonl file is
// read as mined pairs and both its "query" and "code" fields are counted.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spelunkhq/spelunk/engine/embed"
)

// sourceExt lists the extensions counted when walking a directory.
var sourceExt = map[string]bool{
	".go": true, ".py": true, ".js": true, ".mjs": true, ".cjs": true, ".ts": true, ".tsx": true,
	".jsx": true, ".rs": true, ".java": true, ".c": true, ".h": true, ".cc": true, ".cpp": true,
	".hpp": true, ".cs": true, ".rb": true, ".md": true, ".rst": true, ".txt": true,
}

// maxFileBytes skips generated or data files that would skew the counts.
const maxFileBytes = 512 << 10

func main() {
	minCount := flag.Int("min", 5, "drop tokens seen fewer times")
	maxLen := flag.Int("maxlen", 24, "drop tokens longer than this many bytes")
	out := flag.String("out", "-", "output file")
	flag.Parse()
	counts := map[string]int{}
	for _, arg := range flag.Args() {
		var err error
		if strings.HasSuffix(arg, ".jsonl") {
			err = countPairs(arg, counts)
		} else {
			err = countTree(arg, counts)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "vocab:", err)
			os.Exit(1)
		}
	}
	if err := write(*out, counts, *minCount, *maxLen); err != nil {
		fmt.Fprintln(os.Stderr, "vocab:", err)
		os.Exit(1)
	}
}

func add(counts map[string]int, text string) {
	for _, t := range embed.Tokenize(text) {
		counts[t]++
	}
}

func countTree(root string, counts map[string]int) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable entries are skipped, not fatal
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "vendor", "_vendor", "testdata", "__pycache__":
				return filepath.SkipDir
			}
			return nil
		}
		if !sourceExt[strings.ToLower(filepath.Ext(path))] {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > maxFileBytes {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		add(counts, string(b))
		return nil
	})
}

func countPairs(path string, counts map[string]int) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open pairs: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var p struct{ Query, Code string }
		if json.Unmarshal(sc.Bytes(), &p) == nil {
			add(counts, p.Query)
			add(counts, p.Code)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// noise reports tokens that name nothing a person would ask about: long numbers
// and hex or base64 fragments (hashes, test vectors, magic constants).
func noise(t string) bool {
	digits := 0
	for i := 0; i < len(t); i++ {
		if t[i] >= '0' && t[i] <= '9' {
			digits++
		}
	}
	return digits > 4 || (digits > 0 && len(t) > 12)
}

func write(path string, counts map[string]int, minCount, maxLen int) error {
	type kv struct {
		tok string
		n   int
	}
	var rows []kv
	for t, n := range counts {
		if n >= minCount && len(t) <= maxLen && !noise(t) {
			rows = append(rows, kv{t, n})
		}
	}
	slices.SortFunc(rows, func(a, b kv) int {
		if a.n != b.n {
			return b.n - a.n
		}
		return strings.Compare(a.tok, b.tok)
	})
	w := os.Stdout
	if path != "-" {
		f, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("create %s: %w", path, err)
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriter(w)
	for _, r := range rows {
		fmt.Fprintf(bw, "%s\t%d\n", r.tok, r.n)
	}
	return bw.Flush()
}
