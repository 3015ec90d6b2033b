// Command ranker trains spelunk's learned fusion (engine/search/learned.go)
// from the feature files `spelunk eval history --features` writes: a linear
// model over each candidate's channel evidence, fitted with a pairwise logistic
// loss (a changed definition above an unchanged one, a changed file's
// definition above another file's) and chosen on repositories it did not fit.
//
//	go run ./internal/train/ranker -out engine/search/rankmodel.json FEATURES.jsonl...
//
// It prints, per validation repository and overall, the first relevant
// candidate's hit@1/@5 and MRR under the RRF order the files hold and under the
// model, then fits the kept setting on every repository and writes the model.
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spelunkhq/spelunk/engine/eval"
	"github.com/spelunkhq/spelunk/engine/search"
)

// query is one training query: its candidates in the file's (RRF) order.
type query struct {
	repo   string
	tags   []string
	masked bool
	weight float64
	x      [][]float64
	label  []int
	test   []bool
	boost  []float64
}

func main() {
	out := flag.String("out", "", "write the trained model here (JSON)")
	epochs := flag.Int("epochs", 300, "full-batch Adam steps")
	l2 := flag.Float64("l2", 1e-3, "L2 penalty on the weights' distance from the prior")
	l2Weak := flag.Float64("l2-weak", -1, "L2 penalty of the *_weaklex weights (default: -l2)")
	priorScale := flag.Float64("prior", 8, "the prior and starting point: RRF's question weights times this on the *_rr features (0: zero weights)")
	self := flag.Bool("self", false, "also score the fit on its own training data (a sanity check)")
	maskedWeight := flag.Float64("masked-weight", 1, "weight of a masked query against a plain one")
	dev := flag.String("dev", "", "comma-separated feature files of hand-written questions (eval --features): their lay questions are scored, never trained on")
	valid := flag.String("valid", "", "comma-separated repository names held out for validation (default: every repository in turn)")
	flag.Parse()
	if *l2Weak < 0 {
		*l2Weak = *l2
	}
	pen := penalty(*l2, *l2Weak)
	qs, err := load(flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "ranker:", err)
		os.Exit(1)
	}
	for i := range qs {
		qs[i].weight = 1
		if qs[i].masked {
			qs[i].weight = *maskedWeight
		}
	}
	repos := repoNames(qs)
	fmt.Printf("%d queries from %d repositories, %d features\n", len(qs), len(repos), len(search.LearnedFeatures))
	folds := repos
	if *valid != "" {
		folds = strings.Split(*valid, ",")
	}
	devQs, err := loadLay(*dev)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ranker:", err)
		os.Exit(1)
	}
	crossValidate(qs, folds, func(train []query) []float64 { return fit(train, prior(*priorScale), *epochs, pen) })
	if *self {
		w := fit(qs, prior(*priorScale), *epochs, pen)
		fmt.Printf("fit on all, scored on all %s\n", compare(evaluate(qs, nil), evaluate(qs, w)))
	}
	if *out == "" && len(devQs) == 0 {
		return
	}
	fmt.Printf("prior (RRF's order)     %s\n", compare(evaluate(qs, nil), evaluate(qs, prior(*priorScale))))
	w := fit(qs, prior(*priorScale), *epochs, pen)
	if len(devQs) > 0 {
		fmt.Printf("dev lay questions       %s\n", compare(evaluate(devQs, nil), evaluate(devQs, w)))
	}
	if *out == "" {
		return
	}
	if err := write(*out, w, repos, len(qs)); err != nil {
		fmt.Fprintln(os.Stderr, "ranker:", err)
		os.Exit(1)
	}
	for i, f := range search.LearnedFeatures {
		fmt.Printf("  %-20s %+.3f\n", f, w[i])
	}
}

// crossValidate fits on every repository but each fold's and prints how the
// fit ranks the fold's queries against RRF's order.
func crossValidate(qs []query, folds []string, fitTo func([]query) []float64) {
	var rrfAll, modelAll []metrics
	for _, v := range folds {
		var train, test []query
		for _, q := range qs {
			if q.repo == v {
				test = append(test, q)
			} else {
				train = append(train, q)
			}
		}
		w := fitTo(train)
		r, m := evaluate(test, nil), evaluate(test, w)
		rrfAll, modelAll = append(rrfAll, r...), append(modelAll, m...)
		fmt.Printf("held out %-14s %s\n", v, compare(r, m))
	}
	fmt.Printf("all folds               %s\n", compare(rrfAll, modelAll))
}

// loadLay reads the comma-separated feature files of hand-written queries
// and keeps the lay questions ("" = none).
func loadLay(files string) ([]query, error) {
	if files == "" {
		return nil, nil
	}
	all, err := load(strings.Split(files, ","))
	if err != nil {
		return nil, err
	}
	var out []query
	for _, q := range all {
		if slices.Contains(q.tags, "lay") {
			out = append(out, q)
		}
	}
	return out, nil
}

// load reads feature files; a query without a relevant candidate teaches
// nothing and is left out.
func load(paths []string) ([]query, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no feature files given")
	}
	var qs []query
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var fq eval.FeatureQuery
			if err := json.Unmarshal(sc.Bytes(), &fq); err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			q := query{repo: filepath.Base(fq.Repository), masked: fq.Masked, tags: fq.Tags}
			relevant := false
			for _, c := range fq.Candidates {
				if len(c.Features) < search.LearnedInputCount() {
					f.Close()
					return nil, fmt.Errorf("%s: %d inputs, this build has %d", p, len(c.Features), search.LearnedInputCount())
				}
				x := search.ExpandLearned(c.Features[:search.LearnedInputCount()])
				q.x, q.label, q.test, q.boost = append(q.x, x), append(q.label, c.Label), append(q.test, c.Test), append(q.boost, c.Boost)
				relevant = relevant || c.Label > 0
			}
			if relevant {
				qs = append(qs, q)
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	return qs, nil
}

func repoNames(qs []query) []string {
	seen := map[string]bool{}
	var out []string
	for _, q := range qs {
		if !seen[q.repo] {
			seen[q.repo] = true
			out = append(out, q.repo)
		}
	}
	sort.Strings(out)
	return out
}

// labelWeight is a candidate's share of the target: a changed definition 1,
// another definition of a changed file 0.5.
func labelWeight(l int) float64 {
	switch l {
	case 2:
		return 1
	case 1:
		return 0.5
	}
	return 0
}

// prior is the model that ranks as RRF does with the question weights
// (search.DefaultWeights): RRF's sum is linear in the *_rr features, and the
// engine's sigmoid keeps the order. The fit starts there and is pulled back
// to it, so that what the history queries do not say stays as RRF had it.
func prior(scale float64) []float64 {
	w := make([]float64, len(search.LearnedFeatures))
	rrf := search.DefaultWeights(search.Semantic)
	for i, c := range search.AllChannels {
		w[i] = scale * rrf[c]
	}
	return w
}

// penalty is each weight's L2 penalty: base for the inputs, weak for the
// *_weaklex features (how the evidence counts when the question's words are
// not the code's, which RRF has no prior for).
func penalty(base, weak float64) []float64 {
	out := make([]float64, len(search.LearnedFeatures))
	for i, f := range search.LearnedFeatures {
		out[i] = base
		if strings.HasSuffix(f, "_weaklex") {
			out[i] = weak
		}
	}
	return out
}

// fit minimises the listwise loss, weighted per query, plus each weight's l2
// times its squared distance from w0, by full-batch Adam starting at w0.
func fit(qs []query, w0 []float64, epochs int, l2 []float64) []float64 {
	n := len(search.LearnedFeatures)
	w := slices.Clone(w0)
	m, v := make([]float64, n), make([]float64, n)
	const lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-8
	for t := 1; t <= epochs; t++ {
		g := gradient(qs, w)
		for i := range w {
			g[i] += 2 * l2[i] * (w[i] - w0[i])
			m[i] = b1*m[i] + (1-b1)*g[i]
			v[i] = b2*v[i] + (1-b2)*g[i]*g[i]
			mh, vh := m[i]/(1-math.Pow(b1, float64(t))), v[i]/(1-math.Pow(b2, float64(t)))
			w[i] -= lr * mh / (math.Sqrt(vh) + eps)
		}
	}
	return w
}

// gradient of the weighted mean over queries of the listwise softmax loss:
// the cross-entropy between the candidates' softmax and the target spread over
// the relevant ones by labelWeight. It weighs the top of the list most, where
// a pairwise loss spends itself on the tail.
func gradient(qs []query, w []float64) []float64 {
	g := make([]float64, len(w))
	var weights float64
	for _, q := range qs {
		weights += q.weight
	}
	for _, q := range qs {
		s := make([]float64, len(q.x))
		hi := math.Inf(-1)
		for i, x := range q.x {
			s[i] = dot(w, x)
			hi = max(hi, s[i])
		}
		var z, tz float64
		for i := range s {
			s[i] = math.Exp(s[i] - hi)
			z += s[i]
			tz += labelWeight(q.label[i])
		}
		for i, x := range q.x {
			c := s[i]/z - labelWeight(q.label[i])/tz
			for k := range g {
				g[k] += q.weight * c * x[k] / weights
			}
		}
	}
	return g
}

func dot(w, x []float64) float64 {
	var s float64
	for i := range w {
		s += w[i] * x[i]
	}
	return s
}

// metrics is one query's first relevant rank under an order (0 = not in the list).
type metrics struct {
	masked bool
	rank   int
}

// evaluate ranks each query's candidates as the engine would with the model
// (nil: the file's RRF order): its score mapped as learnedScale does, plus the
// candidate's boost, tests halved; and finds the first relevant one.
func evaluate(qs []query, w []float64) []metrics {
	out := make([]metrics, len(qs))
	for qi, q := range qs {
		order := make([]int, len(q.x))
		score := make([]float64, len(q.x))
		for i := range order {
			order[i] = i
			if w != nil {
				score[i] = 0.15/(1+math.Exp(-dot(w, q.x[i]))) + q.boost[i]
				if q.test[i] {
					score[i] *= 0.5
				}
			}
		}
		if w != nil {
			sort.SliceStable(order, func(a, b int) bool { return score[order[a]] > score[order[b]] })
		}
		out[qi].masked = q.masked
		for r, i := range order {
			if q.label[i] > 0 {
				out[qi].rank = r + 1
				break
			}
		}
	}
	return out
}

// compare formats hit@1, hit@5 and MRR@10 of the RRF order against the model's,
// for the plain and the masked queries.
func compare(rrf, model []metrics) string {
	var parts []string
	for _, masked := range []bool{false, true} {
		r, m := summarize(rrf, masked), summarize(model, masked)
		name := "plain"
		if masked {
			name = "masked"
		}
		parts = append(parts, fmt.Sprintf("%s n=%d hit@1 %.3f→%.3f hit@5 %.3f→%.3f mrr %.3f→%.3f",
			name, r.n, r.hit1, m.hit1, r.hit5, m.hit5, r.mrr, m.mrr))
	}
	return strings.Join(parts, " | ")
}

type summary struct {
	n               int
	hit1, hit5, mrr float64
}

func summarize(ms []metrics, masked bool) summary {
	var s summary
	for _, m := range ms {
		if m.masked != masked {
			continue
		}
		s.n++
		if m.rank == 1 {
			s.hit1++
		}
		if m.rank >= 1 && m.rank <= 5 {
			s.hit5++
		}
		if m.rank >= 1 && m.rank <= 10 {
			s.mrr += 1 / float64(m.rank)
		}
	}
	if s.n > 0 {
		s.hit1, s.hit5, s.mrr = s.hit1/float64(s.n), s.hit5/float64(s.n), s.mrr/float64(s.n)
	}
	return s
}

// write saves the model, named by a hash of its weights so that a retrained
// ranker is told apart in explain and JSON.
func write(path string, w []float64, repos []string, queries int) error {
	for i := range w {
		w[i] = math.Round(w[i]*1e4) / 1e4
	}
	h := sha256.Sum256([]byte(fmt.Sprint(w)))
	m := search.RankModel{
		Name:     fmt.Sprintf("spelunk-rank-v1-%x", h[:4]),
		Features: search.LearnedFeatures,
		Weights:  w,
		Trained:  fmt.Sprintf("%d history queries (plain and masked) of %s", queries, strings.Join(repos, ", ")),
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
