package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/internal/tuitest"
)

// TestNewcomerSearchPaneKeys drives the real program through what a first
// session meets in the Search pane (issue 40): the weights bar shows the
// defaults searches use before the first query, ? lists w and a literal
// toggle, w with nothing marked says how to mark and where it saves (outside
// the repository), and alt+x turns the literal channel off.
func TestNewcomerSearchPaneKeys(t *testing.T) {
	env := tuitest.Open(t, true)
	cfg := tuitest.Config(t)
	tm := teatest.NewTestModel(t, tui.New(env.Backend, cfg), teatest.WithInitialTermSize(120, 40))
	// A question's defaults (k 20, dense 0.40, symbol 0.60), not k 60 and 1.00 everywhere.
	waitScreen(t, tm, "shop @", "dense 0.40", "symbol 0.60", "k 20")

	tm.Type("compute_tax")
	tm.Send(key(tea.KeyEnter))
	waitScreen(t, tm, "▸  1", "compute_tax")
	tm.Send(key(tea.KeyEsc)) // to the results
	tm.Send(runes("?"))
	waitScreen(t, tm, "save marks", "alt+x", "literal on/off")
	tm.Send(key(tea.KeyEsc))
	tm.Send(runes("w"))
	waitScreen(t, tm, "w saves the results marked with m")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("x"), Alt: true})
	waitScreen(t, tm, "literal off")
	tm.Send(runes("q"))
	m := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*tui.Model)
	if chans := m.Search().Options().Channels; len(chans) == 0 || strings.Contains(strings.Join(channelNames(chans), ","), "literal") {
		t.Errorf("channels %v after alt+x, want all but literal", chans)
	}
	// Nothing was written into the repository.
	if _, err := os.Stat(filepath.Join(env.Root, "testdata", "eval")); !os.IsNotExist(err) {
		t.Errorf("the UI wrote into the repository: %v", err)
	}
}

func channelNames[T ~string](cs []T) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c)
	}
	return out
}
