// Command mine turns source trees into training pairs for spelunk's code
// embedding model: human text (doc comments, inline comments, test names,
// README sections, commit messages) paired with the code it describes. It
// parses with engine/parse, the parser spelunk indexes with, so a pair's code
// is cut exactly as a search result's chunk is.
//
//	go run ./internal/train/mine -src DIR... -out pairs.jsonl
//
// Each -src directory is one repository (several may follow one -src, and
// -src may repeat). Output is JSON lines
// {"kind","query","code","repo","path","symbol"}; per-kind and per-language
// counts go to standard error. See train/README.md.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/spelunkhq/spelunk/engine/pairs"
	"github.com/spelunkhq/spelunk/engine/parse"
)

type options struct {
	srcs       []string
	out        string
	par        int
	maxOverlap float64
}

func main() {
	var o options
	flag.StringVar(&o.out, "out", "pairs.jsonl", "output JSON lines file (- for standard output)")
	flag.IntVar(&o.par, "j", min(2, runtime.NumCPU()), "parse workers")
	flag.Float64Var(&o.maxOverlap, "max-overlap", 0, "drop non-test pairs whose query shares at least this share of its words with the code's identifiers (0: keep all)")
	var rest []string
	o.srcs, rest = splitSrcs(os.Args[1:])
	if err := flag.CommandLine.Parse(rest); err != nil {
		os.Exit(2)
	}
	o.srcs = append(o.srcs, flag.Args()...)
	if len(o.srcs) == 0 {
		fmt.Fprintln(os.Stderr, "usage: mine [-j N] -out pairs.jsonl -src DIR...")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, o, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mine:", err)
		os.Exit(1)
	}
}

// splitSrcs takes the directories after each -src (up to the next flag) out
// of args, so that "-src A B -out F" works as the usage says.
func splitSrcs(args []string) (srcs, rest []string) {
	in := false
	for _, a := range args {
		switch {
		case a == "-src" || a == "--src":
			in = true
		case in && !strings.HasPrefix(a, "-"):
			srcs = append(srcs, a)
		default:
			in = false
			rest = append(rest, a)
		}
	}
	return srcs, rest
}

// sink deduplicates pairs, writes them and counts them.
type sink struct {
	w          *bufio.Writer
	seen       map[uint64]bool
	byKind     map[string]int
	byLang     map[string]int
	overlapped int
	dropped    int
	maxOverlap float64
	err        error
}

func newSinkFor(w io.Writer) *sink {
	return &sink{w: bufio.NewWriterSize(w, 1<<20), seen: map[uint64]bool{}, byKind: map[string]int{},
		byLang: map[string]int{}}
}

func (s *sink) emit(p pairs.Pair) {
	p.Query, p.Code = strings.TrimSpace(p.Query), strings.TrimRight(p.Code, " \t\n")
	if p.Query == "" || strings.TrimSpace(p.Code) == "" {
		return
	}
	k := pairs.Key(p)
	if s.seen[k] {
		return
	}
	s.seen[k] = true
	if p.Kind != "test" && pairs.Overlap(p.Query, p.Code) >= 0.6 {
		s.overlapped++
		if s.maxOverlap > 0 && pairs.Overlap(p.Query, p.Code) >= s.maxOverlap {
			s.dropped++
			return
		}
	}
	b, err := json.Marshal(p)
	if err == nil {
		_, err = s.w.Write(append(b, '\n'))
	}
	if err != nil && s.err == nil {
		s.err = fmt.Errorf("write pair: %w", err)
	}
	s.byKind[p.Kind]++
	s.byLang[langGroup(parse.Language(p.Path))]++
}

func langGroup(l string) string {
	if l == "tsx" {
		return "typescript"
	}
	return l
}

// run mines every source directory into o.out.
func run(ctx context.Context, o options, log io.Writer) error {
	var w io.Writer = os.Stdout
	if o.out != "-" {
		f, err := os.Create(o.out)
		if err != nil {
			return fmt.Errorf("create %s: %w", o.out, err)
		}
		defer f.Close()
		w = f
	}
	s := newSinkFor(w)
	s.maxOverlap = o.maxOverlap
	start := time.Now()
	for i, dir := range o.srcs {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		t := time.Now()
		before := total(s.byKind)
		if err := mineRepo(ctx, o, dir, s); err != nil {
			fmt.Fprintf(log, "mine: %s: %v\n", dir, err)
			continue
		}
		line := fmt.Sprintf("[%3d/%3d] %6d pairs %5.1fs %s", i+1, len(o.srcs), total(s.byKind)-before,
			time.Since(t).Seconds(), repoName(dir))
		fmt.Fprintln(log, line[:min(len(line), 79)])
	}
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", o.out, err)
	}
	if s.err != nil {
		return s.err
	}
	summary(log, s, time.Since(start))
	return nil
}

func mineRepo(ctx context.Context, o options, dir string, s *sink) error {
	return pairs.Mine(ctx, repoName(dir), dir, pairs.Options{Workers: o.par, Commits: true}, s.emit)
}

// repoName names a directory: "eco/pkg@version" for a corpus cache entry
// (.../src/<eco>/<pkg>@<version>), else its cleaned path.
func repoName(dir string) string {
	dir = filepath.Clean(dir)
	eco := filepath.Base(filepath.Dir(dir))
	if filepath.Base(filepath.Dir(filepath.Dir(dir))) == "src" && strings.Contains(filepath.Base(dir), "@") {
		return eco + "/" + filepath.Base(dir)
	}
	return filepath.ToSlash(dir)
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func summary(log io.Writer, s *sink, took time.Duration) {
	fmt.Fprintf(log, "pairs: %d in %s (%d with query/identifier overlap >= 0.6, %d dropped by -max-overlap)\n",
		total(s.byKind), took.Round(time.Second), s.overlapped, s.dropped)
	for _, m := range []map[string]int{s.byKind, s.byLang} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(log, "  %-12s %8d\n", k, m[k])
		}
		fmt.Fprintln(log)
	}
}
