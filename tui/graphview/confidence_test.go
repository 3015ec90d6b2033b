package graphview_test

import (
	"context"
	"strings"
	"testing"

	"github.com/muesli/termenv"

	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/event"
	"github.com/spelunkhq/spelunk/tui/internal/tuitest"
	"github.com/spelunkhq/spelunk/tui/theme"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestGraphConfidence runs the real program over the indexed fixture with
// IssueRefund's calls given known confidences (IsEligibleForRefund ambiguous
// between it and retry.Backoff, Invoice.Total inferred, retry.Do exact) and opens
// its callees: inexact links are tagged and dimmed, exact ones are not.
func TestGraphConfidence(t *testing.T) {
	env := tuitest.Open(t, true)
	ctx := context.Background()
	id := func(qual string) int64 {
		t.Helper()
		var id int64
		if err := env.DB.Pool.QueryRow(ctx, `SELECT id FROM symbols WHERE repository_id = $1 AND qualified_name = $2 AND NOT is_test ORDER BY path LIMIT 1`,
			env.Repo.ID, qual).Scan(&id); err != nil {
			t.Fatalf("symbol %s: %v", qual, err)
		}
		return id
	}
	refund, eligible, backoff := id("billing.IssueRefund"), id("Invoice.IsEligibleForRefund"), id("retry.Backoff")
	for _, u := range []struct {
		target int64
		conf   string
		cands  []int64
	}{{eligible, "ambiguous", []int64{eligible, backoff}}, {id("retry.Do"), "exact", nil}, {id("Invoice.Total"), "inferred", nil}} {
		tag, err := env.DB.Pool.Exec(ctx, `UPDATE edges SET confidence = $4, candidates = $5 WHERE repository_id = $1 AND source_id = $2 AND target_id = $3`,
			env.Repo.ID, refund, u.target, u.conf, u.cands)
		if err != nil || tag.RowsAffected() == 0 {
			t.Fatalf("set %s: %v (%d rows)", u.conf, err, tag.RowsAffected())
		}
	}

	p, dark := termenv.TrueColor, true
	th := theme.New(theme.Options{Profile: &p, Dark: &dark})
	for _, colour := range []bool{false, true} {
		cfg := tuitest.Config(t)
		if colour {
			cfg.Theme = th
		}
		m := tui.New(env.Backend, cfg)
		d := tuitest.NewDriver(t, m, 140, 40)
		d.WaitFor("status", func() bool { return m.Status().Name != "" || m.LastError() != nil })
		d.Keys("IssueRefund", "enter")
		d.WaitFor("results", func() bool { r, ok := m.Search().Selected(); return ok && r.Name == "IssueRefund" })
		d.Keys("C")
		d.WaitFor("callees", func() bool {
			return m.Active() == event.Graph && !m.Graph().Loading() && strings.Contains(strings.Join(m.Graph().Rows(), "\n"), "retry.Do")
		})
		view := m.View()
		line := func(name string) string {
			for _, l := range strings.Split(view, "\n") {
				if strings.Contains(l, name) {
					return l
				}
			}
			t.Fatalf("no line of %s:\n%s", name, view)
			return ""
		}
		if colour {
			for _, name := range []string{"Invoice.IsEligibleForRefund", "retry.Backoff", "Invoice.Total"} {
				if !strings.Contains(line(name), th.Inexact.Render(name)) {
					t.Errorf("%s is not dimmed: %q", name, line(name))
				}
			}
			if l := line("retry.Do"); strings.Contains(l, th.Inexact.Render("retry.Do")) || !strings.Contains(l, th.Text.Render("retry.Do")) {
				t.Errorf("exact retry.Do is dimmed: %q", l)
			}
			continue
		}
		for name, want := range map[string]string{"Invoice.IsEligibleForRefund": "[ambiguous: 2 candidates]",
			"retry.Backoff": "[ambiguous: 2 candidates]", "Invoice.Total": "[inferred]"} {
			if !strings.Contains(line(name), want) {
				t.Errorf("line of %s lacks %s: %q", name, want, line(name))
			}
		}
		if l := line("retry.Do"); strings.Contains(l, "[") {
			t.Errorf("exact retry.Do is tagged: %q", l)
		}
	}
}
