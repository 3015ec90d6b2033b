package tui_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/spelunkhq/spelunk/engine/search"
	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/event"
	"github.com/spelunkhq/spelunk/tui/internal/tuitest"
	"github.com/spelunkhq/spelunk/tui/searchview"
)

// slowFiles is the real backend with a delay on files-granularity searches, so a
// files answer can be made to arrive after a later definitions answer.
type slowFiles struct {
	tui.Backend
	delay time.Duration
	mu    sync.Mutex
	asked []search.Granularity
}

func (s *slowFiles) Search(ctx context.Context, q string, opts search.Options) (*search.Response, error) {
	s.mu.Lock()
	s.asked = append(s.asked, opts.Granularity)
	s.mu.Unlock()
	if opts.Granularity == search.Files {
		select {
		case <-time.After(s.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return s.Backend.Search(ctx, q, opts)
}

func (s *slowFiles) Asked() []search.Granularity {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]search.Granularity(nil), s.asked...)
}

// shown waits for the answer to q at the given granularity.
func shown(m *tui.Model, q string, files bool) func() bool {
	return func() bool {
		s := m.Search()
		r := s.Response()
		return r != nil && r.Query == q && !s.Loading() && s.ShowingFiles() == files
	}
}

func TestFilesModeToggle(t *testing.T) {
	env := tuitest.Open(t, true)
	slow := &slowFiles{Backend: env.Backend, delay: 150 * time.Millisecond}
	m, d := newDriver(t, slow, 120, 40)
	s := m.Search()
	d.Keys("refund window", "enter")
	d.WaitFor("definitions", shown(m, "refund window", false))
	d.Keys("down", "down")
	before, _ := s.Selected()

	// f asks for files at once; the definitions stay on screen until they come.
	d.Keys("f")
	if !s.FilesMode() || s.Options().Granularity != search.Files || !s.Loading() || s.ShowingFiles() {
		t.Fatalf("after f: files mode %v, granularity %q, loading %v, showing files %v",
			s.FilesMode(), s.Options().Granularity, s.Loading(), s.ShowingFiles())
	}
	if v := m.View(); !strings.Contains(v, "ranking files…") {
		t.Errorf("no sign of the files search in flight:\n%s", v)
	}
	d.WaitFor("files", shown(m, "refund window", true))
	files := s.Response().Files
	if len(files) == 0 {
		t.Fatal("no files")
	}
	for i, f := range files {
		if f.Rank != i+1 || len(f.Symbols) == 0 || (i > 0 && f.Score > files[i-1].Score) {
			t.Errorf("file %d: rank %d, %d definitions, score %v after %v", i, f.Rank, len(f.Symbols), f.Score, files[max(i-1, 0)].Score)
		}
	}
	// The selection follows the selected definition to its file; the file's best
	// definition stands for it.
	f, ok := s.SelectedFile()
	if !ok || f.Path != before.Path {
		t.Fatalf("selected file %q, want %q (the file of the selected definition)", f.Path, before.Path)
	}
	if r, _ := s.Selected(); r.ID != f.Symbols[0].ID {
		t.Errorf("selected definition %s, want the file's best %s", r.Name, f.Symbols[0].Name)
	}
	v := m.View()
	for _, want := range []string{fmt.Sprintf("%d files · ", len(files)), "best definition", "explain · best definition of file #"} {
		if !strings.Contains(v, want) {
			t.Errorf("files view lacks %q:\n%s", want, v)
		}
	}
	// Judgments are about definitions: m does nothing on a file row.
	d.Keys("m")
	if s.Judgment(f.Symbols[0].ID) != searchview.Unjudged {
		t.Error("m marked a file row")
	}

	// A files answer overtaken by a definitions request is dropped.
	d.Keys("f", "f", "f")
	d.WaitFor("definitions again", shown(m, "refund window", false))
	time.Sleep(2 * slow.delay)
	d.Settle()
	if s.FilesMode() || s.ShowingFiles() || m.LastError() != nil {
		t.Fatalf("after f f f: files mode %v, showing files %v, error %v; want definitions and no error",
			s.FilesMode(), s.ShowingFiles(), m.LastError())
	}
	if r, _ := s.Selected(); r.ID != f.Symbols[0].ID {
		t.Errorf("back in definitions the selection is %s, want %s", r.Name, f.Symbols[0].Name)
	}
	if n := len(slow.Asked()); n != 5 {
		t.Errorf("%d searches, want 5 (one per query or toggle)", n)
	}

	// enter on a file opens its best definition in the Symbol pane.
	d.Keys("f")
	d.WaitFor("files again", shown(m, "refund window", true))
	best, _ := s.Selected()
	d.Keys("enter")
	d.WaitFor("symbol", func() bool { sym, ok := m.Symbol().Symbol(); return ok && sym.ID == best.ID })
	if m.Active() != event.Symbol || m.Symbol().CursorLine() != best.StartLine {
		t.Errorf("enter: active %s at line %d, want Symbol at %d", m.Active(), m.Symbol().CursorLine(), best.StartLine)
	}
	d.Keys("esc")
	if f2, _ := s.SelectedFile(); m.Active() != event.Search || !s.ShowingFiles() || f2.Path != f.Path {
		t.Errorf("back: active %s, showing files %v, file %q; want Search on %q", m.Active(), s.ShowingFiles(), f2.Path, f.Path)
	}
}

// TestGoldenFilesViews checks the Search pane ranking files at 120x40 and 80x24
// (and the explain panel of the narrow layout), from recorded answers.
func TestGoldenFilesViews(t *testing.T) {
	env := tuitest.Open(t, true)
	backend := replayed(t, env, "files")
	for _, size := range []struct{ w, h int }{{120, 40}, {80, 24}} {
		suffix := fmt.Sprintf("_%dx%d", size.w, size.h)
		m, d := newDriver(t, backend, size.w, size.h)
		d.Keys("refund window", "enter", "f")
		d.WaitFor("files", shown(m, "refund window", true))
		d.Keys("down")
		d.WaitFor("preview", func() bool { return !strings.Contains(m.View(), "highlighting…") })
		checkGolden(t, env, "search_files"+suffix, m.View(), size.w, size.h)
		if size.w < 100 {
			d.Keys("e")
			checkGolden(t, env, "search_files_explain"+suffix, m.View(), size.w, size.h)
		}
	}
}

// TestFlowFilesMode runs the real program: search, rank files, open the best
// definition of the top file.
func TestFlowFilesMode(t *testing.T) {
	env := tuitest.Open(t, true)
	tm := teatest.NewTestModel(t, tui.New(env.Backend, tuitest.Config(t)), teatest.WithInitialTermSize(120, 40))
	waitScreen(t, tm, "shop @")
	tm.Type("compute_tax")
	tm.Send(key(tea.KeyEnter))
	waitScreen(t, tm, "▸  1", "explain · #1")
	tm.Send(runes("f"))
	waitScreen(t, tm, "files · ", "best definition", "py/shop/billing/tax.py", "explain · best definition of file #1")
	tm.Send(key(tea.KeyEnter))
	waitScreen(t, tm, "[2 Symbol]", "def compute_tax(")
	tm.Send(runes("q"))

	m := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*tui.Model)
	if !m.Search().ShowingFiles() {
		t.Error("the Search pane left files mode")
	}
	if s, _ := m.Symbol().Symbol(); s.Name != "compute_tax" {
		t.Errorf("symbol pane shows %s, want compute_tax", s.Name)
	}
}
