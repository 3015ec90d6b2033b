package embed

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"sync"
	"testing"
)

// refEmbed is the static embedding of text computed from the float rows, the
// way the brief defines it, independently of wordTable: known tokens sum
// row × (1+ln tf), unknown tokens hash into the extra dimensions with weight
// unknownWeight × (1+ln tf), stop words only when nothing else is left.
func refEmbed(words []string, rows [][]float32, hashDims int, unknownWeight float64, text string) []float64 {
	d := len(rows[0])
	ids := map[string]int{}
	for i, w := range words {
		ids[w] = i
	}
	counts := map[string]int{}
	var order []string
	var content bool
	for _, tok := range Tokenize(text) {
		if counts[tok] == 0 {
			order = append(order, tok)
		}
		counts[tok]++
		content = content || !IsStopWord(tok)
	}
	out := make([]float64, d+hashDims)
	for _, tok := range order {
		if content && IsStopWord(tok) {
			continue
		}
		tf := 1 + math.Log(float64(counts[tok]))
		if id, ok := ids[tok]; ok {
			for k, x := range rows[id] {
				out[k] += float64(x) * tf
			}
			continue
		}
		b, sign := bucket(tokenFeature([]byte(tok)), hashDims)
		out[d+b] += float64(sign) * unknownWeight * tf
	}
	return out
}

func cosine64(a []float64, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += a[i] * float64(b[i])
		aa += a[i] * a[i]
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

func TestStaticMatchesFloatEmbedding(t *testing.T) {
	s := placeholderStatic(t)
	tbl := newPlaceholderTable()
	texts := []string{
		"refund the customer's payment",
		"isEligibleForRefund(order) checks the purchase",
		"parseCSVHeader decodes the heading of a spreadsheet",
		"refund refund refund customer",
		"sendEmail dispatches a mail message to the buyer via smtpRelay",
		"the return for",                // only stop words, all in the table
		"zorblax quuxify refund refund", // unknown tokens with tf
		"blank blank refund",            // a zero row
	}
	vecs, err := s.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	checkUnit(t, s.Name(), vecs, s.Dims())
	for i, text := range texts {
		want := refEmbed(tbl.words, tbl.rows, 28, 0.5, text)
		if c := cosine64(want, vecs[i]); c < 0.99 {
			t.Errorf("%q: cosine with the float32 embedding %.4f, want >= 0.99", text, c)
		}
	}
}

func TestStaticMetadata(t *testing.T) {
	b, tbl, _ := placeholderModel(t)
	s, err := LoadStatic(b)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("spelunk-code-test-76d-v0-%08x", binary.LittleEndian.Uint32(b[len(b)-4:]))
	if got := s.Name(); got != want {
		t.Errorf("Name() = %q, want %q", got, want)
	}
	// Other weights under the same metadata name are another vector space.
	b2 := slices.Clone(b)
	b2[len(b2)-5] ^= 1 // the last row's last component
	b2 = binary.LittleEndian.AppendUint32(b2[:len(b2)-4], crc32.Checksum(b2[:len(b2)-4], castagnoli))
	s2, err := LoadStatic(b2)
	if err != nil {
		t.Fatal(err)
	}
	if s2.Name() == s.Name() {
		t.Errorf("two sets of weights share the name %q", s.Name())
	}
	if got, want := s.Dims(), placeholderDims+28; got != want {
		t.Errorf("Dims() = %d, want %d", got, want)
	}
	if got, want := s.Words(), len(tbl.words); got != want {
		t.Errorf("Words() = %d, want %d", got, want)
	}
	m := s.Meta()
	if m.Teacher != "none (test placeholder)" || m.HashDims != 28 || m.UnknownWeight != 0.5 || m.Dims != placeholderDims {
		t.Errorf("Meta() = %+v", m)
	}
	for _, name := range []string{NewHashing(0).Name(), fixtureGloVe(t).Name()} {
		if s.Name() == name {
			t.Errorf("static model name %q collides with another embedder", name)
		}
	}
}

// TestStaticWeights checks the exact formula against the loaded (int8) rows:
// tf weighting, row norms as weights, and unknown tokens at unknown_weight.
func TestStaticWeights(t *testing.T) {
	s := placeholderStatic(t)
	row := func(w string) []float64 {
		id, ok := s.index.get(w)
		if !ok || id < 0 {
			t.Fatalf("%q not a content word of the table", w)
		}
		v := s.vector(int(id))
		out := make([]float64, len(v))
		for k, x := range v {
			out[k] = float64(x) * float64(s.weight[id])
		}
		return out
	}
	embed1 := func(text string) []float32 {
		v, err := s.Embed(context.Background(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		return v[0]
	}
	combo := func(parts ...any) []float64 { // alternating vector, weight
		out := make([]float64, s.Dims())
		for i := 0; i < len(parts); i += 2 {
			v, w := parts[i].([]float64), parts[i+1].(float64)
			for k, x := range v {
				out[k] += w * x
			}
		}
		return out
	}
	hashed := func(tok string, w float64) []float64 {
		v := make([]float64, s.Dims())
		b, sign := bucket(tokenFeature([]byte(tok)), 28)
		v[placeholderDims+b] = float64(sign) * w
		return v
	}
	tf3 := 1 + math.Log(3)
	tests := []struct {
		text string
		want []float64
	}{
		{"refund buyer", combo(row("refund"), 1.0, row("buyer"), 1.0)}, // norms 0.6 and 0.9
		{"refund refund refund customer", combo(row("refund"), tf3, row("customer"), 1.0)},
		{"Refund the CUSTOMER", combo(row("refund"), 1.0, row("customer"), 1.0)},
		{"refund zorblax", combo(row("refund"), 1.0, hashed("zorblax", 0.5), 1.0)},
		{"zorblax zorblax zorblax", hashed("zorblax", 0.5*tf3)},
		{"blank refund", combo(row("refund"), 1.0)},
	}
	for _, tt := range tests {
		got := embed1(tt.text)
		if c := cosine64(tt.want, got); c < 0.99999 {
			t.Errorf("%q: cosine with the expected combination %.6f, want 1", tt.text, c)
		}
	}
	// Row norms differ, so they must weigh: a heavy word dominates a light one.
	if a, b := norm32(row("refund")), norm32(row("repay")); math.Abs(a-b) < 0.1 {
		t.Fatalf("placeholder rows refund/repay have norms %.2f/%.2f; the test needs them apart", a, b)
	}
}

func norm32(v []float64) float64 {
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	return math.Sqrt(ss)
}

func TestStaticStopWords(t *testing.T) {
	s := placeholderStatic(t)
	same := func(a, b string) bool {
		v, err := s.Embed(context.Background(), []string{a, b})
		if err != nil {
			t.Fatal(err)
		}
		return slices.Equal(v[0], v[1])
	}
	tests := []struct {
		a, b string
		want bool
	}{
		{"the refund for a customer", "refund customer", true},
		{"func refund() { return self.payment }", "refund payment", true},
		{"the return", "return the", true}, // only stop words: used, order-free
		{"the return", "the", false},       // ... and each counts
		{"the", "", false},                 // a stop word beats no word at all
		{"if else", "", false},             // stop words the table lacks are hashed
		{"if else", "while until", false},
	}
	for _, tt := range tests {
		if got := same(tt.a, tt.b); got != tt.want {
			t.Errorf("Embed(%q) == Embed(%q): %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestStaticWordVector(t *testing.T) {
	s := placeholderStatic(t)
	for _, tt := range []struct {
		word string
		want bool
	}{
		{"refund", true}, {"reimbursement", true}, {"the", true}, {"violin", true},
		{"blank", false}, {"Refund", false}, {"zorblax", false}, {"if", false}, {"", false},
	} {
		v, ok := s.WordVector(tt.word)
		if ok != tt.want {
			t.Errorf("WordVector(%q) ok = %v, want %v", tt.word, ok, tt.want)
		}
		if ok && (len(v) != placeholderDims || cap(v) != len(v) || math.Abs(norm(v)-1) > 1e-5) {
			t.Errorf("WordVector(%q): %d dims, cap %d, norm %.4f; want %d, %[2]d, 1", tt.word, len(v), cap(v), norm(v), placeholderDims)
		}
	}
	refund, _ := s.WordVector("refund")
	repay, _ := s.WordVector("repay")
	violin, _ := s.WordVector("violin")
	if near, far := dot(refund, repay), dot(refund, violin); near <= far+0.3 {
		t.Errorf("cos(refund, repay) = %.2f, cos(refund, violin) = %.2f; want synonyms far closer", near, far)
	}
}

func TestStaticEdgeInputsAndDeterminism(t *testing.T) {
	b, _, _ := placeholderModel(t)
	s1, err := LoadStatic(b)
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := LoadStatic(b)
	ctx := context.Background()
	all, err := s1.Embed(ctx, edgeTexts)
	if err != nil {
		t.Fatal(err)
	}
	checkUnit(t, s1.Name(), all, s1.Dims())
	// Another instance, one text at a time, in reverse: the same bits.
	for i := len(edgeTexts) - 1; i >= 0; i-- {
		one, err := s2.Embed(ctx, []string{edgeTexts[i]})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(one[0], all[i]) {
			t.Errorf("text %d: vector differs between instances or batches", i)
		}
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s1.Embed(canceled, []string{"x"}); err == nil {
		t.Error("Embed with a canceled context: no error")
	}
}

// TestStaticConcurrentFirstUse embeds from many goroutines on a fresh model,
// so blocks are decoded concurrently (run with -race).
func TestStaticConcurrentFirstUse(t *testing.T) {
	b, tbl, _ := placeholderModel(t)
	want, err := placeholderStaticFrom(t, b).Embed(context.Background(), tbl.words)
	if err != nil {
		t.Fatal(err)
	}
	s := placeholderStaticFrom(t, b)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range tbl.words {
				i := (i + 7*g) % len(tbl.words)
				if g%2 == 0 {
					s.WordVector(tbl.words[i])
				}
				v, err := s.Embed(context.Background(), []string{tbl.words[i]})
				if err != nil || !slices.Equal(v[0], want[i]) {
					t.Errorf("goroutine %d, %q: differs (%v)", g, tbl.words[i], err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestStaticReleaseVectors: letting go of the decoded table while other
// goroutines embed changes no vector (the blocks are decoded again, the
// weights written once; run under the race detector by make test), and
// drops every block decoded before it.
func TestStaticReleaseVectors(t *testing.T) {
	b, tbl, _ := placeholderModel(t)
	want, err := placeholderStaticFrom(t, b).Embed(context.Background(), tbl.words)
	if err != nil {
		t.Fatal(err)
	}
	s := placeholderStaticFrom(t, b)
	if _, err := s.Embed(context.Background(), tbl.words); err != nil {
		t.Fatal(err)
	}
	s.ReleaseVectors()
	for blk, v := range s.decoded.Load().vecs {
		if v != nil {
			t.Fatalf("block %d still decoded after ReleaseVectors", blk)
		}
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				s.ReleaseVectors()
			}
		}
	})
	var embedders sync.WaitGroup
	for g := range 4 {
		embedders.Go(func() {
			for round := range 3 {
				for i := range tbl.words {
					i := (i + 7*g + round) % len(tbl.words)
					v, err := s.Embed(context.Background(), []string{tbl.words[i]})
					if err != nil || !slices.Equal(v[0], want[i]) {
						t.Errorf("goroutine %d, %q: differs after a release (%v)", g, tbl.words[i], err)
						return
					}
				}
			}
		})
	}
	embedders.Wait()
	close(stop)
	wg.Wait()
}

func placeholderStaticFrom(tb testing.TB, b []byte) *Static {
	tb.Helper()
	s, err := LoadStatic(b)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestStaticEmbedAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts under the race detector")
	}
	s := placeholderStatic(t)
	texts := []string{"isEligibleForRefund(order) checks the purchase of the customer", "zorblax refund"}
	ctx := context.Background()
	s.Embed(ctx, texts) // decode the blocks
	// The result (one backing array and the slice headers) is all that
	// steady-state embedding allocates, as for GloVe.
	if n := testing.AllocsPerRun(100, func() { s.Embed(ctx, texts) }); n > 2 {
		t.Errorf("Embed allocates %.0f times a call, want <= 2", n)
	}
	if n := testing.AllocsPerRun(100, func() { s.WordVector("refund") }); n != 0 {
		t.Errorf("WordVector allocates %.0f times, want 0", n)
	}
}
