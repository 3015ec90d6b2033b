package searchview

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/search"
	"github.com/spelunkhq/spelunk/engine/symbols"
	"github.com/spelunkhq/spelunk/tui/theme"
)

func TestEvalTargets(t *testing.T) {
	tests := []struct {
		name string
		sym  symbols.Symbol
		want evalTarget
	}{
		{"go method", symbols.Symbol{Path: "cart/cart.go", Name: "Add", Kind: "method", Receiver: "*Cart", Language: "go", Parent: "cart.Cart"},
			evalTarget{Path: "cart/cart.go", Symbol: "Add", Receiver: "Cart"}},
		{"python method", symbols.Symbol{Path: "py/a.py", Name: "apply", Kind: "method", Language: "python", Parent: "billing.RefundPolicy"},
			evalTarget{Path: "py/a.py", Symbol: "apply", Class: "RefundPolicy"}},
		{"function with aliases", symbols.Symbol{Path: "js/r.js", Name: "type", Kind: "function", Aliases: []string{"contentType"}},
			evalTarget{Path: "js/r.js", Symbol: "type", Aliases: []string{"contentType"}}},
		{"file header", symbols.Symbol{Path: "billing/refund.go", Name: "billing", Kind: "module"},
			evalTarget{Path: "billing/refund.go"}},
	}
	for _, tt := range tests {
		got, _ := json.Marshal(target(tt.sym))
		want, _ := json.Marshal(tt.want)
		if string(got) != string(want) {
			t.Errorf("%s: %s, want %s", tt.name, got, want)
		}
	}
}

func TestWriteEvalReplacesByID(t *testing.T) {
	path := filepath.Join(t.TempDir(), "eval", "saved.jsonl")
	other := `{"id":"x-01","kind":"semantic","query":"kept as is","expect":[],"custom":1}`
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(other+"\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	q := evalQuery{ID: "tui-1", Kind: "identifier", Query: "Cart.Add", Expect: []evalTarget{{Path: "cart/cart.go", Symbol: "Add"}}}
	for range 2 {
		if err := writeEval(path, q); err != nil {
			t.Fatal(err)
		}
	}
	q.Expect = append(q.Expect, evalTarget{Path: "b.go", Symbol: "B"})
	if err := writeEval(path, q); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || lines[0] != other || !strings.Contains(lines[1], `"symbol":"B"`) {
		t.Fatalf("file:\n%s", data)
	}
	if err := writeEval("", q); err == nil {
		t.Error("no path gave no error")
	}
}

func TestScoreCells(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 0.03279: "0.0328", 0.6358: "0.6358", 3.444: "3.444", 12.4: "12.40", 123.4: "123.4", 5000: "5000", 0.00001: "1e-05"} {
		if got := fmtScore(v); got != want || len(got) > 6 {
			t.Errorf("fmtScore(%v) = %q, want %q", v, got, want)
		}
	}
	e := search.Explain{Channels: map[search.Channel]search.ChannelScore{search.Lexical: {Rank: 3, Score: 1.5}}}
	if got := channelCell(e, search.Lexical, true); got != "3  1.500" {
		t.Errorf("wide cell %q", got)
	}
	if got := channelCell(e, search.Lexical, false); got != "3" {
		t.Errorf("narrow cell %q", got)
	}
	if got := channelCell(e, search.Dense, true); got != "" {
		t.Errorf("absent channel cell %q, want blank", got)
	}
}

// The explain panel lists the learned expansions a result matched.
func TestExplainShowsLearnedExpansions(t *testing.T) {
	m := New(nil, theme.New(theme.Options{}), nil, Config{})
	r := search.Result{Rank: 1, Explain: search.Explain{TestFactor: 1, Decay: 1,
		Channels: map[search.Channel]search.ChannelScore{search.Lexical: {Rank: 1, Score: 2}},
		Expanded: []search.Expansion{{Term: "dedupe", From: "twice", Weight: 0.31}}}}
	got := strings.Join(m.explainLines(r, 60, 30), "\n")
	if !strings.Contains(got, "matched `dedupe` ← learned from `twice`, 0.31") {
		t.Errorf("explain panel lacks the expansion:\n%s", got)
	}
}
