package tui_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/muesli/termenv"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/engine/search"
	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/backend"
	"github.com/spelunkhq/spelunk/tui/event"
	"github.com/spelunkhq/spelunk/tui/internal/tuitest"
	"github.com/spelunkhq/spelunk/tui/theme"
)

// BenchmarkView measures one frame (View, no I/O) with 200 results in the Search
// pane and a 2,000-line symbol in the Symbol pane. docs/ARCHITECTURE.md §10: < 16 ms.
func BenchmarkView(b *testing.B) {
	ctx := context.Background()
	root := tuitest.Repo(b)
	// 300 small functions (so a search returns 200 results) and one of 2,000 lines.
	var many strings.Builder
	many.WriteString("package big\n\n")
	words := strings.Fields(`ledger invoice customer voucher currency rounding ledger tax audit window policy
		gateway transfer partial prorate batch queue retry webhook session cart discount coupon shipping
		warehouse carrier label export report monthly daily account balance credit debit settlement payout`)
	for i := range 300 {
		w := func(k int) string { return words[(i*k+k)%len(words)] }
		fmt.Fprintf(&many, "// RefundStep%d applies the %s %s step of the refund pipeline (%s, %s, %s).\n", i, w(1), w(3), w(5), w(7), w(11))
		fmt.Fprintf(&many, "func RefundStep%d(cents int64, %s string) int64 {\n\t_ = %s\n\treturn cents - %d\n}\n\n", i, w(13), w(13), i)
	}
	var huge strings.Builder
	huge.WriteString("package big\n\n// HugeRefund is a very long function.\nfunc HugeRefund(cents int64) int64 {\n\ttotal := cents\n")
	for i := range 1996 {
		fmt.Fprintf(&huge, "\ttotal = total*3/2 - int64(%d) // step %d of the refund computation, with a comment long enough to need cutting\n", i, i)
	}
	huge.WriteString("\treturn total\n}\n")
	for name, text := range map[string]string{"many.go": many.String(), "huge.go": huge.String()} {
		if err := os.MkdirAll(filepath.Join(root, "big"), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "big", name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	tuitest.Git(b, root, "add", "-A")
	tuitest.Git(b, root, "commit", "-q", "-m", "big")
	db := pgtest.Open(b)
	emb := embed.NewHashing(384)
	if _, err := index.New(db, emb).Index(ctx, root, index.Options{}); err != nil {
		b.Fatal(err)
	}
	rec, err := db.EnsureRepository(ctx, root)
	if err != nil {
		b.Fatal(err)
	}
	be := backend.New(db, rec, emb, backend.Options{})
	for _, prof := range []termenv.Profile{termenv.Ascii, termenv.TrueColor} {
		benchFrames(b, be, prof)
	}
}

func benchFrames(b *testing.B, be *backend.Engine, prof termenv.Profile) {
	ctx := context.Background()
	name := map[termenv.Profile]string{termenv.Ascii: "plain", termenv.TrueColor: "truecolor"}[prof]
	cfg := tuitest.Config(b)
	cfg.Limit = 200
	dark := true
	cfg.Theme = theme.New(theme.Options{Output: io.Discard, Profile: &prof, Dark: &dark})
	m := tui.New(be, cfg)
	d := tuitest.NewDriver(b, m, 120, 40)
	// One search returns at most the union of the channels' top 100s: merge the
	// real answers to a few queries into one response of 200 results.
	var resp *search.Response
	seen := map[int64]bool{}
	for _, q := range []string{"refund pipeline step", "ledger invoice customer", "warehouse carrier label",
		"webhook retry queue", "monthly report export", "session cart discount", "tax rounding currency"} {
		r, err := be.Search(ctx, q, search.Options{Limit: 200})
		if err != nil {
			b.Fatal(err)
		}
		if resp == nil {
			resp = r
			resp.Results = nil
		}
		for _, res := range r.Results {
			if len(resp.Results) < 200 && !seen[res.ID] {
				seen[res.ID] = true
				res.Rank = len(resp.Results) + 1
				resp.Results = append(resp.Results, res)
			}
		}
	}
	if len(resp.Results) != 200 {
		b.Fatalf("%d results, want 200", len(resp.Results))
	}
	d.Keys("esc")
	d.Exec(m.Search().ShowResponse(resp))
	d.Settle()
	d.Keys("G") // the last result: the table scrolled to the end
	d.Settle()

	b.Run("search-200-results-"+name, func(b *testing.B) {
		for b.Loop() {
			_ = m.View()
		}
	})

	d.Keys("/", "ctrl+u", "HugeRefund", "enter")
	d.WaitFor("HugeRefund", resultsFor(m, "HugeRefund"))
	d.Keys("enter")
	d.WaitFor("2,000-line symbol", func() bool {
		s, ok := m.Symbol().Symbol()
		return ok && s.Name == "HugeRefund" && m.Active() == event.Symbol
	})
	if s, _ := m.Symbol().Symbol(); s.EndLine-s.StartLine+1 < 2000 {
		b.Fatalf("symbol has %d lines, want 2,000", s.EndLine-s.StartLine+1)
	}
	d.Keys("ctrl+d", "ctrl+d", "ctrl+d", "l") // somewhere in the middle, scrolled right
	b.Run("symbol-2000-lines-"+name, func(b *testing.B) {
		for b.Loop() {
			_ = m.View()
		}
	})
}
