package contradict

import (
	"os"
	"testing"
)

func TestZZDebug(t *testing.T) {
	a, b := os.Getenv("ZA"), os.Getenv("ZB")
	if a == "" {
		t.Skip()
	}
	sa, sb := analyze(Statement{Text: a}), analyze(Statement{Text: b})
	for _, c := range sa.clauses {
		for _, tk := range c.toks {
			t.Logf("A tok %q key=%q stop=%v shaped=%v", tk.surface, tk.key, tk.stop, tk.shaped)
		}
	}
	for _, c := range sb.clauses {
		for _, tk := range c.toks {
			t.Logf("B tok %q key=%q stop=%v shaped=%v", tk.surface, tk.key, tk.stop, tk.shaped)
		}
	}
	t.Logf("%+v", Check(Statement{Text: a}, Statement{Text: b}))
}

func TestZZTune(t *testing.T) {
	if os.Getenv("ZT") == "" {
		t.Skip()
	}
	for _, p := range (pairSet{file: "pairs_heldout2", split: "tune"}).load(t) {
		if p.Conflict {
			r := Check(Statement{Text: p.A}, Statement{Text: p.B})
			t.Logf("%s %v | %s | %s || %s", p.Category, r.Contradicts, p.A, p.B, r.Reason)
		}
	}
}
