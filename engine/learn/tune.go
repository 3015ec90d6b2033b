package learn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/spelunkhq/spelunk/engine/embed"
)

// Example is one pair as the model reads it.
type Example struct {
	Query, Code embed.Bag
}

// TuneOptions are the fine-tuning's settings; zero values take the defaults
// of [DefaultTune].
type TuneOptions struct {
	Epochs int     // passes over the examples
	Batch  int     // examples per step; the others of a batch are each one's negatives
	LR     float64 // Adam's step size
	Tau    float64 // the contrastive loss's temperature
	Pull   float64 // weight of the pull of each changed row towards the shipped one
	Mask   float64 // share of queries stripped of the tokens their code contains
	Seed   uint64
}

// DefaultTune is the recipe of the shipped model's own fine-tuning
// (train/finetune.py) adapted to one repository's few thousand pairs: more
// passes over fewer, smaller batches.
var DefaultTune = TuneOptions{Epochs: 3, Batch: 128, LR: 3e-3, Tau: 0.05, Pull: 1, Mask: 0.5, Seed: 1}

func (o TuneOptions) withDefaults() TuneOptions {
	d := DefaultTune
	if o.Epochs > 0 {
		d.Epochs = o.Epochs
	}
	if o.Batch > 1 {
		d.Batch = o.Batch
	}
	for _, p := range []struct {
		dst *float64
		v   float64
	}{{&d.LR, o.LR}, {&d.Tau, o.Tau}, {&d.Pull, o.Pull}, {&d.Mask, o.Mask}} {
		if p.v > 0 {
			*p.dst = p.v
		}
	}
	if o.Seed != 0 {
		d.Seed = o.Seed
	}
	return d
}

// param is one row being trained, with Adam's moments.
type param struct {
	w, base, m, v []float32
	steps         int
}

// table is the rows a fine-tuning has touched, over a shipped model.
type table struct {
	model *embed.Static
	rows  map[int32]*param
}

func (t *table) param(id int32) *param {
	p := t.rows[id]
	if p == nil {
		base := t.model.Row(id)
		d := len(base)
		p = &param{w: slices.Clone(base), base: base, m: make([]float32, d), v: make([]float32, d)}
		t.rows[id] = p
	}
	return p
}

// bagView is a bag as one step reads it (the query's perhaps masked).
type bagView struct {
	ids    []int32
	w      []float32
	hashed []float32
}

// vector returns the bag's unit vector (word dims then hashed dims) and the
// norm it divided by.
func (t *table) vector(b bagView, wordDims int) ([]float32, float64) {
	v := make([]float32, wordDims+len(b.hashed))
	for i, id := range b.ids {
		row := t.param(id).w
		for k, x := range row {
			v[k] += b.w[i] * x
		}
	}
	copy(v[wordDims:], b.hashed)
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	n := math.Sqrt(ss)
	if n == 0 {
		return v, 0
	}
	for k := range v {
		v[k] = float32(float64(v[k]) / n)
	}
	return v, n
}

// masked is the query without the tokens the code contains, unless nothing
// would be left: what a person's question looks like when its words are not
// the code's.
func masked(q, c embed.Bag) bagView {
	out := bagView{hashed: q.Hashed}
	for i, id := range q.IDs {
		if _, found := slices.BinarySearch(c.IDs, id); !found {
			out.ids = append(out.ids, id)
			out.w = append(out.w, q.Weights[i])
		}
	}
	if len(out.ids) == 0 {
		return whole(q)
	}
	return out
}

func whole(b embed.Bag) bagView { return bagView{ids: b.IDs, w: b.Weights, hashed: b.Hashed} }

// Tune fine-tunes model's rows on examples: a symmetric in-batch contrastive
// loss (InfoNCE) over text and code embedded exactly as the embedder does,
// plus a pull of every changed row towards its shipped value, so that words
// the examples rarely show keep their meaning. It returns the changed rows
// (word id → row) and the loss of each epoch.
func Tune(ctx context.Context, model *embed.Static, examples []Example, o TuneOptions) (map[int32][]float32, []float64, error) {
	o = o.withDefaults()
	t := &table{model: model, rows: map[int32]*param{}}
	rng := rand.New(rand.NewPCG(o.Seed, 0x5e1f))
	order := make([]int, len(examples))
	for i := range order {
		order[i] = i
	}
	var losses []float64
	for range o.Epochs {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		var sum float64
		steps := 0
		for s := 0; s+o.Batch <= len(order) || (s == 0 && len(order) > 1); s += o.Batch {
			if err := ctx.Err(); err != nil {
				return nil, nil, fmt.Errorf("learn: %w", err)
			}
			batch := order[s:min(s+o.Batch, len(order))]
			sum += t.step(examples, batch, o, rng)
			steps++
		}
		losses = append(losses, sum/float64(max(steps, 1)))
	}
	out := make(map[int32][]float32, len(t.rows))
	for id, p := range t.rows {
		if p.steps > 0 {
			out[id] = p.w
		}
	}
	return out, losses, nil
}

// step runs one batch forward and backward and updates the rows it touched;
// it returns the batch's contrastive loss.
func (t *table) step(examples []Example, batch []int, o TuneOptions, rng *rand.Rand) float64 {
	wordDims := t.model.WordDims()
	n := len(batch)
	qb, cb := make([]bagView, n), make([]bagView, n)
	q, c := make([][]float32, n), make([][]float32, n)
	qn, cn := make([]float64, n), make([]float64, n)
	for i, e := range batch {
		ex := examples[e]
		qb[i], cb[i] = whole(ex.Query), whole(ex.Code)
		if rng.Float64() < o.Mask {
			qb[i] = masked(ex.Query, ex.Code)
		}
		q[i], qn[i] = t.vector(qb[i], wordDims)
		c[i], cn[i] = t.vector(cb[i], wordDims)
	}
	g, loss := contrastiveGrad(q, c, o.Tau)
	// dL/dq_i = Σ_j g_ij c_j / τ and dL/dc_j = Σ_i g_ij q_i / τ, then back
	// through the normalisation and the sums into the rows.
	grads := map[int32][]float32{}
	for i := range n {
		dq, dc := make([]float32, len(q[i])), make([]float32, len(c[i]))
		for j := range n {
			axpy(dq, float32(g[i][j]/o.Tau), c[j])
			axpy(dc, float32(g[j][i]/o.Tau), q[j])
		}
		t.backBag(grads, qb[i], q[i], dq, qn[i], wordDims)
		t.backBag(grads, cb[i], c[i], dc, cn[i], wordDims)
	}
	t.update(grads, o)
	return loss
}

// backBag adds to grads the gradient of the loss for every row of bag b,
// given the gradient dv of its unit vector v (of norm n before normalising).
func (t *table) backBag(grads map[int32][]float32, b bagView, v, dv []float32, n float64, wordDims int) {
	if n == 0 {
		return
	}
	var dot float64
	for k := range v {
		dot += float64(v[k]) * float64(dv[k])
	}
	ds := make([]float32, wordDims)
	for k := range ds {
		ds[k] = float32((float64(dv[k]) - float64(v[k])*dot) / n)
	}
	for i, id := range b.ids {
		gr := grads[id]
		if gr == nil {
			gr = make([]float32, wordDims)
			grads[id] = gr
		}
		axpy(gr, b.w[i], ds)
	}
}

// update adds the pull towards the shipped rows (relative to their mean
// squared norm, as the shipped model's trainer does) and takes one lazy Adam
// step on every row with a gradient.
func (t *table) update(grads map[int32][]float32, o TuneOptions) {
	var baseSq float64
	for id := range grads {
		for _, x := range t.rows[id].base {
			baseSq += float64(x) * float64(x)
		}
	}
	if baseSq == 0 {
		baseSq = 1
	}
	pull := float32(2 * o.Pull / baseSq) // d/dw of Pull·Σ|w−base|²/Σ|base|²
	const b1, b2, eps = 0.9, 0.999, 1e-8
	for id, gr := range grads {
		p := t.rows[id]
		p.steps++
		c1 := 1 - math.Pow(b1, float64(p.steps))
		c2 := 1 - math.Pow(b2, float64(p.steps))
		for k := range gr {
			gk := gr[k] + pull*(p.w[k]-p.base[k])
			p.m[k] = b1*p.m[k] + (1-b1)*gk
			p.v[k] = b2*p.v[k] + (1-b2)*gk*gk
			mh, vh := float64(p.m[k])/c1, float64(p.v[k])/c2
			p.w[k] -= float32(o.LR * mh / (math.Sqrt(vh) + eps))
		}
	}
}

// contrastiveGrad returns, for unit vectors q and c of n pairs, the symmetric
// InfoNCE loss over the logits q_i·c_j/τ and its gradient with respect to
// each logit, g[i][j] = ∂loss/∂(q_i·c_j/τ).
func contrastiveGrad(q, c [][]float32, tau float64) ([][]float64, float64) {
	n := len(q)
	logits := make([][]float64, n)
	for i := range n {
		logits[i] = make([]float64, n)
		for j := range n {
			logits[i][j] = dot(q[i], c[j]) / tau
		}
	}
	g := make([][]float64, n)
	for i := range g {
		g[i] = make([]float64, n)
	}
	var loss float64
	// Rows: each query against every code; columns: each code against
	// every query. Each half weighs 1/(2n).
	for i := range n {
		p, lse := softmax(func(j int) float64 { return logits[i][j] }, n)
		loss += lse - logits[i][i]
		for j := range n {
			g[i][j] += (p[j] - kron(i, j)) / float64(2*n)
		}
	}
	for j := range n {
		p, lse := softmax(func(i int) float64 { return logits[i][j] }, n)
		loss += lse - logits[j][j]
		for i := range n {
			g[i][j] += (p[i] - kron(i, j)) / float64(2*n)
		}
	}
	return g, loss / float64(2*n)
}

func softmax(x func(int) float64, n int) ([]float64, float64) {
	mx := math.Inf(-1)
	for k := range n {
		mx = max(mx, x(k))
	}
	p := make([]float64, n)
	var z float64
	for k := range n {
		p[k] = math.Exp(x(k) - mx)
		z += p[k]
	}
	for k := range p {
		p[k] /= z
	}
	return p, mx + math.Log(z)
}

func kron(i, j int) float64 {
	if i == j {
		return 1
	}
	return 0
}

func dot(a, b []float32) float64 {
	var s float64
	for k := range a {
		s += float64(a[k]) * float64(b[k])
	}
	return s
}

func axpy(dst []float32, a float32, x []float32) {
	for k := range dst {
		dst[k] += a * x[k]
	}
}
