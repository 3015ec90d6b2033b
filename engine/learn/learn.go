// Package learn adapts the built-in code model to one repository (issue 35,
// item 4): it mines the repository's own pairs of human text and code (doc
// comments, inline comments, test names, README sections, commit messages;
// engine/pairs), fine-tunes the rows of the tokens they use on them (Tune,
// pure Go, seconds) and packs a model file that the embedder loads like any
// static model. Its vectors carry their own model name, so they never mix
// with the shipped model's.
package learn

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/pairs"
)

// Options of [Learn].
type Options struct {
	// Rev learns from the repository as of this commit: its tree and the
	// history up to it (for a time split). Default: the working tree and HEAD.
	Rev string
	// Holdout is the share of pairs kept out of training to score the model
	// before and after (default 0.1).
	Holdout float64
	Tune    TuneOptions
	// Workers parse files in parallel (default 1).
	Workers int
	// Progress, when set, hears what the run is doing: the stage, and a count
	// (pairs mined so far, or the epoch) out of a total (0: unknown).
	Progress func(stage string, done, total int)
}

func (o Options) progress(stage string, done, total int) {
	if o.Progress != nil {
		o.Progress(stage, done, total)
	}
}

// Result is what [Learn] made.
type Result struct {
	Model   []byte         // the packed model file
	Name    string         // the model name its vectors carry
	Pairs   map[string]int // pairs mined, by kind
	Trained int            // pairs trained on
	Rows    int            // rows changed
	Losses  []float64      // the contrastive loss of each epoch
	// Before and After are the mean reciprocal rank of each held-out pair's
	// code among all held-out pairs' code, with the base model and the new one.
	Before, After float64
	Heldout       int
	// Mining is the time spent reading and parsing the repository and its
	// history; Took is the whole run's.
	Mining, Took time.Duration
}

// maxCodeBytes is how much of a pair's code is read, as the index embeds a
// chunk (engine/index embedText).
const maxCodeBytes = 1500

// Learn mines dir (a git work tree) and fine-tunes base on its pairs.
func Learn(ctx context.Context, dir string, base *embed.Static, o Options) (Result, error) {
	start := time.Now()
	res := Result{Pairs: map[string]int{}}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return res, fmt.Errorf("learn: %s is not a directory", dir)
	}
	gitDir := "" // the miner reads the history of dir when dir is a work tree's top
	if o.Rev != "" {
		gitDir = dir
	}
	o.progress("reading the tree", 0, 0)
	tree, cleanup, err := treeAt(ctx, dir, o.Rev)
	if err != nil {
		return res, err
	}
	defer cleanup()
	var mined []pairs.Pair
	seen := map[uint64]bool{}
	err = pairs.Mine(ctx, filepath.Base(dir), tree, pairs.Options{Workers: o.Workers, Commits: true, GitDir: gitDir, Rev: o.Rev},
		func(p pairs.Pair) {
			if k := pairs.Key(p); !seen[k] && strings.TrimSpace(p.Query) != "" {
				seen[k] = true
				mined = append(mined, p)
				res.Pairs[p.Kind]++
				if len(mined)%100 == 0 {
					o.progress("mining pairs", len(mined), 0)
				}
			}
		})
	if err != nil {
		return res, fmt.Errorf("learn: mine %s: %w", dir, err)
	}
	if len(mined) < 2 {
		return res, fmt.Errorf("learn: %s has %d pairs of text and code to learn from; it needs doc comments, tests or commit messages", dir, len(mined))
	}
	res.Mining = time.Since(start)
	train, held := split(examples(base, mined), o.Holdout, o.Tune.withDefaults().Seed)
	o.progress(fmt.Sprintf("training on %d pairs", len(train)), 0, 0)
	rows, losses, err := Tune(ctx, base, train, o.Tune)
	if err != nil {
		return res, err
	}
	res.Trained, res.Rows, res.Losses, res.Heldout = len(train), len(rows), losses, len(held)
	res.Before, res.After = Score(base, nil, held), Score(base, rows, held)
	rev := o.Rev
	if rev == "" {
		rev = "the working tree"
	}
	src := fmt.Sprintf("%s; learned from %s at %s: %d pairs", base.Meta().Source, filepath.Base(dir), rev, len(train))
	res.Model, err = base.Retuned(base.Meta().Name+"-learned", src, rows)
	if err != nil {
		return res, err
	}
	m, err := embed.LoadStatic(res.Model)
	if err != nil {
		return res, err
	}
	res.Name, res.Took = m.Name(), time.Since(start)
	return res, nil
}

// examples reads each pair as the embedder will: the query as it is, the code
// as the index embeds a chunk (name, path, the start of the code).
func examples(m *embed.Static, ps []pairs.Pair) []Example {
	out := make([]Example, len(ps))
	for i, p := range ps {
		code := p.Code[:min(len(p.Code), maxCodeBytes)]
		out[i] = Example{Query: m.Bag(p.Query), Code: m.Bag(p.Symbol + "\n" + p.Path + "\n" + code)}
	}
	return out
}

// split keeps a share of the examples out of training, chosen by seed.
func split(ex []Example, share float64, seed uint64) (train, held []Example) {
	if share <= 0 {
		share = 0.1
	}
	rng := rand.New(rand.NewPCG(seed, 0x401d))
	for _, e := range ex {
		if rng.Float64() < share {
			held = append(held, e)
		} else {
			train = append(train, e)
		}
	}
	return train, held
}

// Score is the mean reciprocal rank of each example's code among all the
// examples' code for its query, with rows (word id → row) in place of the
// model's own where given.
func Score(m *embed.Static, rows map[int32][]float32, ex []Example) float64 {
	if len(ex) == 0 {
		return 0
	}
	t := &table{model: m, rows: map[int32]*param{}}
	for id, r := range rows {
		t.rows[id] = &param{w: r}
	}
	d := m.WordDims()
	q, c := make([][]float32, len(ex)), make([][]float32, len(ex))
	for i, e := range ex {
		q[i], _ = t.vector(whole(e.Query), d)
		c[i], _ = t.vector(whole(e.Code), d)
	}
	var rr float64
	for i := range ex {
		own, rank := dot(q[i], c[i]), 1
		for j := range ex {
			if j != i && dot(q[i], c[j]) > own {
				rank++
			}
		}
		rr += 1 / float64(rank)
	}
	return rr / float64(len(ex))
}
