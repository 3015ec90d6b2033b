package embed

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// realGloVe loads the installed GloVe data, skipping the test when it is not
// installed (it is a 118 MB download). In CI (CI=true), where `make test`
// installs it (make setup-glove), a missing file is a failure rather than a silent skip.
func realGloVe(tb testing.TB) *GloVe {
	tb.Helper()
	path := DefaultGloVePath()
	if _, err := os.Stat(path); err != nil {
		msg := "GloVe data not installed at " + path + " (run `make setup-glove` or engine/embed/fetch-glove.sh; or set SPELUNK_GLOVE)"
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	g, err := LoadGloVe(path)
	if err != nil {
		tb.Fatalf("LoadGloVe(%s): %v", path, err)
	}
	return g
}

type paraphraseTriple struct {
	Query      string `json:"query"`
	Paraphrase string `json:"paraphrase"`
	Unrelated  string `json:"unrelated"`
}

func readParaphrases(t *testing.T) []paraphraseTriple {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "embed", "paraphrase.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []paraphraseTriple
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var p paraphraseTriple
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("paraphrase.jsonl line %d: %v", len(out)+1, err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 20 {
		t.Fatalf("paraphrase.jsonl has %d triples, want >= 20", len(out))
	}
	return out
}

// paraphraseAccuracy returns the fraction of triples where e puts the
// paraphrase closer to the query than the unrelated text, and the failures.
func paraphraseAccuracy(t *testing.T, e Embedder, triples []paraphraseTriple) (float64, []paraphraseTriple) {
	t.Helper()
	var failed []paraphraseTriple
	for _, p := range triples {
		v, err := e.Embed(context.Background(), []string{p.Query, p.Paraphrase, p.Unrelated})
		if err != nil {
			t.Fatal(err)
		}
		if dot(v[0], v[1]) <= dot(v[0], v[2]) {
			failed = append(failed, p)
		}
	}
	return 1 - float64(len(failed))/float64(len(triples)), failed
}

func TestGloVeRealParaphraseRanking(t *testing.T) {
	g := realGloVe(t)
	if got, want := g.Name(), "spelunk-glove-128d-v1"; got != want {
		t.Errorf("Name() = %q, want %q", got, want)
	}
	triples := readParaphrases(t)
	acc, failed := paraphraseAccuracy(t, g, triples)
	for _, p := range failed {
		t.Logf("miss: %q: paraphrase %q not above %q", p.Query, p.Paraphrase, p.Unrelated)
	}
	hashAcc, _ := paraphraseAccuracy(t, NewHashing(0), triples)
	t.Logf("paraphrase ranked above unrelated: GloVe %.1f%% (%d/%d), hashing baseline %.1f%%",
		100*acc, len(triples)-len(failed), len(triples), 100*hashAcc)
	if acc < 0.85 {
		t.Errorf("GloVe paraphrase accuracy %.1f%%, want >= 85%%", 100*acc)
	}
}

func TestGloVeRealSynonyms(t *testing.T) {
	g := realGloVe(t)
	tests := []struct{ a, near, far string }{
		{"refund", "reimbursement", "keyboard"},
		{"delete", "remove", "weather"},
		{"car", "automobile", "sentence"},
		{"getUserByEmail", "fetch account by mail address", "draw polygon"},
	}
	for _, tt := range tests {
		v, err := g.Embed(context.Background(), []string{tt.a, tt.near, tt.far})
		if err != nil {
			t.Fatal(err)
		}
		if near, far := dot(v[0], v[1]), dot(v[0], v[2]); near <= far {
			t.Errorf("sim(%q, %q) = %.3f, want > sim(%q, %q) = %.3f", tt.a, tt.near, near, tt.a, tt.far, far)
		}
	}
}

// TestGloVeRealParaphraseRetrieval is the harder version of the triple test:
// each query must find its own paraphrase among every paraphrase and
// unrelated text of the set. It reports hit@1 and MRR and asserts only a
// loose floor, as a regression guard.
func TestGloVeRealParaphraseRetrieval(t *testing.T) {
	g := realGloVe(t)
	triples := readParaphrases(t)
	for _, e := range []Embedder{g, NewHashing(0)} {
		hit1, mrr := paraphraseRetrieval(t, e, triples)
		t.Logf("%s: paraphrase retrieval among %d candidates: hit@1 %.2f, MRR %.2f", e.Name(), 2*len(triples), hit1, mrr)
		if e == Embedder(g) && mrr < 0.5 {
			t.Errorf("%s: MRR %.2f, want >= 0.5", e.Name(), mrr)
		}
	}
}

func paraphraseRetrieval(t *testing.T, e Embedder, triples []paraphraseTriple) (hit1, mrr float64) {
	t.Helper()
	var queries, cands []string
	for _, p := range triples {
		queries = append(queries, p.Query)
		cands = append(cands, p.Paraphrase)
	}
	for _, p := range triples {
		cands = append(cands, p.Unrelated)
	}
	qv, err := e.Embed(context.Background(), queries)
	if err != nil {
		t.Fatal(err)
	}
	cv, err := e.Embed(context.Background(), cands)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range qv {
		target := dot(q, cv[i])
		rank := 1
		for j, c := range cv {
			if j != i && dot(q, c) >= target {
				rank++
			}
		}
		if rank == 1 {
			hit1++
		}
		mrr += 1 / float64(rank)
	}
	n := float64(len(triples))
	return hit1 / n, mrr / n
}
