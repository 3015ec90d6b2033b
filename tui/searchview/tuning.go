package searchview

import (
	"errors"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/spelunkhq/spelunk/engine/search"
)

// Options returns the search options the pane's controls currently describe.
func (m *Model) Options() search.Options {
	opts := search.Options{K: m.k, Limit: m.cfg.Limit}
	if m.files {
		opts.Granularity = search.Files
	}
	if len(m.weights) > 0 {
		opts.Weights = make(map[search.Channel]float64, len(m.weights))
		for c, w := range m.weights {
			opts.Weights[c] = w
		}
	}
	all := true
	for i, c := range search.AllChannels {
		if m.enabled[i] {
			opts.Channels = append(opts.Channels, c)
		} else {
			all = false
		}
	}
	if all {
		opts.Channels = nil
	}
	return opts
}

// tuneKey handles the retrieval tuning keys (channels, weights, k); ok reports
// whether msg was one. A change searches again after the debounce pause, so a
// burst of adjustments makes one search.
func (m *Model) tuneKey(msg tea.KeyMsg) (cmd tea.Cmd, ok bool) {
	k := m.km
	n := len(search.AllChannels)
	switch {
	case key.Matches(msg, k.PrevChannel):
		m.chanCur = (m.chanCur + n - 1) % n
		return m.ensurePreview(), true
	case key.Matches(msg, k.NextChannel):
		m.chanCur = (m.chanCur + 1) % n
		return m.ensurePreview(), true
	case key.Matches(msg, k.ToggleChannel):
		m.enabled[m.chanCur] = !m.enabled[m.chanCur]
	case key.Matches(msg, k.ToggleDense, k.ToggleLexical, k.ToggleLiteral, k.ToggleSymbol, k.ToggleGraph):
		// By channel, not by position: the engine may add channels between them.
		for _, t := range []struct {
			b  key.Binding
			ch search.Channel
		}{{k.ToggleDense, search.Dense}, {k.ToggleLexical, search.Lexical},
			{k.ToggleLiteral, search.Literal}, {k.ToggleSymbol, search.Symbol}, {k.ToggleGraph, search.Graph}} {
			if i := channelIndex(t.ch); key.Matches(msg, t.b) && i >= 0 {
				m.chanCur = i
				m.enabled[i] = !m.enabled[i]
			}
		}
	case key.Matches(msg, k.WeightUp):
		m.adjustWeight(0.25)
	case key.Matches(msg, k.WeightDown):
		m.adjustWeight(-0.25)
	case key.Matches(msg, k.KUp):
		m.k = m.effectiveK() + 10
	case key.Matches(msg, k.KDown):
		m.k = max(1, m.effectiveK()-10)
	default:
		return nil, false
	}
	return m.debounce(), true
}

func allOn(n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = true
	}
	return out
}

// channelIndex is ch's index in search.AllChannels, -1 when absent.
func channelIndex(ch search.Channel) int {
	for i, c := range search.AllChannels {
		if c == ch {
			return i
		}
	}
	return -1
}

// errAllOff is shown instead of searching with no channel.
var errAllOff = errors.New("every channel is off: turn one on (←/→ pick then space, or alt+d/l/s/g)")

func (m *Model) anyEnabled() bool {
	for _, on := range m.enabled {
		if on {
			return true
		}
	}
	return false
}

func (m *Model) effectiveK() float64 {
	if m.k > 0 {
		return m.k
	}
	if m.resp != nil && m.resp.K > 0 {
		return m.resp.K
	}
	return search.DefaultK
}

func (m *Model) effectiveWeight(c search.Channel) float64 {
	if w, ok := m.weights[c]; ok {
		return w
	}
	if m.resp != nil {
		if w, ok := m.resp.Weights[c]; ok {
			return w
		}
	}
	// Before the first search: the defaults the typed query will be searched
	// with (a question's until something is typed).
	if w, ok := search.DefaultWeights(search.DetectKind(m.query()))[c]; ok {
		return w
	}
	return 1
}

func (m *Model) adjustWeight(d float64) {
	c := search.AllChannels[m.chanCur]
	m.weights[c] = max(0, m.effectiveWeight(c)+d)
}
