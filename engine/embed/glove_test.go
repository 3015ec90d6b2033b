package embed

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestGloVeFixtureMetadata(t *testing.T) {
	g := fixtureGloVe(t)
	words := fixtureWords()
	var reach int
	for _, w := range words {
		if reachable(w) {
			reach++
		}
	}
	if got, want := g.Words(), reach; got != want {
		t.Errorf("Words() = %d, want %d (every reachable fixture word)", got, want)
	}
	if got, want := g.Dims(), fixtureDims+GloVeHashDims; got != want {
		t.Errorf("Dims() = %d, want %d", got, want)
	}
	if got, want := g.Source(), fixtureLabel; got != want {
		t.Errorf("Source() = %q, want %q", got, want)
	}
	// A non-standard vocabulary must not share the standard model name.
	if name := g.Name(); !strings.HasPrefix(name, "spelunk-glove-60d-v1-") || name == "spelunk-glove-60d-v1" {
		t.Errorf("Name() = %q, want spelunk-glove-60d-v1-<vocabulary id>", name)
	}
	for _, tt := range []struct {
		word string
		want bool
	}{
		{"refund", true}, {"the", true}, {"func", true}, {"reimbursement", true},
		{",", false}, {"mp3", false}, {"cross-country", false}, {"n't", false}, {"Refund", false}, {"zzz", false},
	} {
		v, ok := g.WordVector(tt.word)
		if ok != tt.want {
			t.Errorf("WordVector(%q) ok = %v, want %v", tt.word, ok, tt.want)
		}
		if ok && (len(v) != fixtureDims || norm(v) < 0.999) {
			t.Errorf("WordVector(%q) = %d dims, norm %.3f; want %d, 1", tt.word, len(v), norm(v), fixtureDims)
		}
	}
}

func TestGloVeFixtureRanking(t *testing.T) {
	g := fixtureGloVe(t)
	tests := []struct{ query, near, far string }{
		{"refund the customer's payment", "reimburse the buyer", "parse the CSV header"},
		{"isEligibleForRefund", "check whether the order qualifies for reimbursement", "resize the thumbnail"},
		{"deleteUserAccount", "remove a member profile", "start the web server"},
		{"sendEmail", "dispatch a mail message", "compress the log file"},
		{"cacheQueryResults", "memoize database lookups", "launch the daemon"},
		{"parseCSVHeader", "decode the spreadsheet heading", "refund the payment"},
		// Unknown identifiers (not in the vocabulary) still match through the
		// hashed dimensions.
		{"frobnicateWidget", "the frobnicate widget helper", "tiger violin"},
		{"zorbTable", "zorb table", "refund payment"},
	}
	for _, tt := range tests {
		v, err := g.Embed(context.Background(), []string{tt.query, tt.near, tt.far})
		if err != nil {
			t.Fatal(err)
		}
		near, far := dot(v[0], v[1]), dot(v[0], v[2])
		t.Logf("%q: near %.3f, far %.3f", tt.query, near, far)
		if near <= far {
			t.Errorf("sim(%q, %q) = %.3f, want > sim(%q, %q) = %.3f", tt.query, tt.near, near, tt.query, tt.far, far)
		}
	}
}

func TestGloVeStopWordsAndKeywords(t *testing.T) {
	g := fixtureGloVe(t)
	v, err := g.Embed(context.Background(), []string{
		"refund payment",
		"func refund(payment) { return the refund payment if self }",
		"the of and",
		"func return if",
		"",
		"{}",
	})
	if err != nil {
		t.Fatal(err)
	}
	// Keywords and stop words are dropped: only the tf of "refund" differs.
	if s := dot(v[0], v[1]); s < 0.95 {
		t.Errorf("keywords changed the vector: sim = %.3f, want >= 0.95", s)
	}
	// A text of stop words only still gets a meaningful, distinct vector.
	if s := dot(v[2], v[4]); s > 0.99 {
		t.Errorf("stop-word-only text embedded like the empty text (sim %.3f)", s)
	}
	if s := dot(v[3], v[2]); s > 0.99 {
		t.Errorf("different stop-word-only texts embedded alike (sim %.3f)", s)
	}
	checkUnit(t, "stop words", v, g.Dims())
}

func TestGloVeEdgeInputs(t *testing.T) {
	g := fixtureGloVe(t)
	vecs, err := g.Embed(context.Background(), edgeTexts)
	if err != nil {
		t.Fatal(err)
	}
	checkUnit(t, g.Name(), vecs, g.Dims())
	// Empty and whitespace-only texts are the same (nothing) text.
	if s := dot(vecs[0], vecs[1]); s < 0.9999 {
		t.Errorf(`sim("", " ") = %.4f, want 1`, s)
	}
}

func TestGloVeDeterministicAndBatchInvariant(t *testing.T) {
	g := fixtureGloVe(t)
	texts := []string{"refund the buyer", "zorbTable lookup", "", "the"}
	batch, err := g.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		one, err := g.Embed(context.Background(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(one[0], batch[i]) {
			t.Errorf("Embed(%q) alone differs from the batch result", text)
		}
	}
	// Appending to a result must not clobber the next vector.
	before := slices.Clone(batch[1])
	_ = append(batch[0], 42)
	if !slices.Equal(before, batch[1]) {
		t.Error("append to one vector changed its neighbour")
	}
}

func TestGloVeConcurrent(t *testing.T) {
	g := fixtureGloVe(t)
	texts := []string{"refund the buyer", "zorbTable lookup", "", "HTTPServer start"}
	want, _ := g.Embed(context.Background(), texts)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				got, err := g.Embed(context.Background(), texts)
				if err != nil {
					t.Error(err)
					return
				}
				for i := range got {
					if !slices.Equal(got[i], want[i]) {
						t.Errorf("concurrent Embed(%q) differs", texts[i])
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

func TestGloVeContextCanceled(t *testing.T) {
	g := fixtureGloVe(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestLoadGloVeErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.bin")
	if err := ImportWink(context.Background(), fixtureTGZ, good, 0); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) []byte {
		b := slices.Clone(data)
		b[i] ^= 0x40
		return b
	}
	version := slices.Clone(data)
	version[8] = 9
	tests := []struct {
		name    string
		content []byte
	}{
		{"empty", nil},
		{"magic only", []byte(gloveMagic)},
		{"wrong magic", append([]byte("NOTGLOVE"), data[8:]...)},
		{"future version", version},
		{"truncated", data[:len(data)/2]},
		{"one byte short", data[:len(data)-1]},
		{"flipped header bit", flip(14)},
		{"flipped word bit", flip(60)},
		{"flipped vector bit", flip(len(data) - 10)},
		{"trailing garbage", append(slices.Clone(data), 1, 2, 3)},
	}
	for _, tt := range tests {
		p := filepath.Join(dir, tt.name)
		if err := os.WriteFile(p, tt.content, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadGloVe(p); err == nil {
			t.Errorf("LoadGloVe(%s) succeeded, want an error", tt.name)
		} else if !errors.Is(err, errCorrupt) {
			t.Errorf("LoadGloVe(%s) = %v, want an errCorrupt error", tt.name, err)
		}
	}
	if _, err := LoadGloVe(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadGloVe(missing) = %v, want os.ErrNotExist", err)
	}
}

// FuzzParseGloVeFile feeds arbitrary bytes (with a valid checksum, so the
// parser's own checks are reached) to the decoder: it must never panic.
func FuzzParseGloVeFile(f *testing.F) {
	out := filepath.Join(f.TempDir(), "g.bin")
	if err := ImportWink(context.Background(), fixtureTGZ, out, 20); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(out)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good[:len(good)-4])
	f.Add([]byte(gloveMagic))
	f.Fuzz(func(t *testing.T, body []byte) {
		b := appendCRC(body)
		gf, err := parseGloVeFile(b)
		if err != nil {
			return
		}
		if _, err := newGloVe(gf); err != nil {
			return
		}
	})
}

func BenchmarkLoadGloVe(b *testing.B) {
	path := DefaultGloVePath()
	if _, err := os.Stat(path); err != nil {
		b.Skip("GloVe data not installed at " + path)
	}
	for b.Loop() {
		if _, err := LoadGloVe(path); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadGloVeAndEmbedQuery is what a CLI search pays for the embedder:
// load the data and embed one question.
func BenchmarkLoadGloVeAndEmbedQuery(b *testing.B) {
	path := DefaultGloVePath()
	if _, err := os.Stat(path); err != nil {
		b.Skip("GloVe data not installed at " + path)
	}
	for b.Loop() {
		g, err := LoadGloVe(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := g.Embed(context.Background(), []string{"how are refunds validated before the payment is reversed"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGloVeEmbed measures the real data when installed, else the fixture
// (whose tiny vocabulary makes it faster than real use).
func BenchmarkGloVeEmbed(b *testing.B) {
	var g *GloVe
	if _, err := os.Stat(DefaultGloVePath()); err == nil {
		g = realGloVe(b)
	} else {
		b.Log("GloVe data not installed; benchmarking the synthetic fixture")
		g = fixtureGloVe(b)
	}
	runEmbedBenchmarks(b, g, g.words)
}

// FuzzEmbed: any text gets a finite unit vector from both local embedders.
func FuzzEmbed(f *testing.F) {
	g := fixtureGloVe(f)
	h := NewHashing(0)
	for _, s := range edgeTexts[:10] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, e := range []Embedder{g, h} {
			v, err := e.Embed(context.Background(), []string{s})
			if err != nil {
				t.Fatal(err)
			}
			checkUnit(t, e.Name(), v, e.Dims())
		}
	})
}
