package searchview

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/spelunkhq/spelunk/tui/event"

	"github.com/spelunkhq/spelunk/engine/search"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

// evalQuery is one line of an eval file (docs/ARCHITECTURE.md §7). Reject, Config and Source
// are extra fields that `spelunk eval` ignores: the results judged not relevant and
// the retrieval settings in force when the judgment was made.
type evalQuery struct {
	ID     string       `json:"id"`
	Kind   string       `json:"kind"`
	Query  string       `json:"query"`
	Expect []evalTarget `json:"expect"`
	Reject []evalTarget `json:"reject,omitempty"`
	Config *evalConfig  `json:"config,omitempty"`
	Source string       `json:"source,omitempty"`
}

type evalTarget struct {
	Path     string   `json:"path"`
	Symbol   string   `json:"symbol,omitempty"`
	Receiver string   `json:"receiver,omitempty"`
	Class    string   `json:"class,omitempty"`
	Aliases  []string `json:"aliases,omitempty"`
}

type evalConfig struct {
	Channels []search.Channel           `json:"channels,omitempty"`
	K        float64                    `json:"k,omitempty"`
	Weights  map[search.Channel]float64 `json:"weights,omitempty"`
}

// target describes a judged symbol the way §7 matches it: the file for a file
// header, the receiver for Go methods, the class for other languages' methods.
func target(s symbols.Symbol) evalTarget {
	t := evalTarget{Path: s.Path}
	if s.Kind == "module" {
		return t
	}
	t.Symbol = s.Name
	t.Aliases = s.Aliases
	switch {
	case s.Receiver != "":
		t.Receiver = strings.TrimLeft(s.Receiver, "*")
	case s.Kind == "method" && s.Parent != "":
		parent := s.Parent
		if i := strings.LastIndexByte(parent, '.'); i >= 0 {
			parent = parent[i+1:]
		}
		if s.Language == "go" {
			t.Receiver = parent
		} else {
			t.Class = parent
		}
	}
	return t
}

// evalEntry builds the eval query for the current response and marks.
func (m *Model) evalEntry() evalQuery {
	q := evalQuery{Query: m.markQuery, Kind: "semantic", Expect: []evalTarget{}, Source: "spelunk tui"}
	if q.Query == "" {
		q.Query = m.query()
	}
	sum := sha256.Sum256([]byte(q.Query))
	q.ID = "tui-" + hex.EncodeToString(sum[:4])
	if m.resp != nil {
		if m.resp.Kind != "" {
			q.Kind = string(m.resp.Kind)
		}
		for _, r := range m.resp.Results {
			switch m.marks[r.ID] {
			case Relevant:
				q.Expect = append(q.Expect, target(r.Symbol))
			case NotRelevant:
				q.Reject = append(q.Reject, target(r.Symbol))
			}
		}
	}
	opts := m.Options()
	if opts.Channels != nil || opts.K != 0 || len(opts.Weights) > 0 {
		q.Config = &evalConfig{Channels: opts.Channels, K: opts.K, Weights: opts.Weights}
	}
	return q
}

func (m *Model) judge(j Judgment) {
	r, ok := m.Selected()
	if !ok {
		return
	}
	if m.marks[r.ID] == j {
		delete(m.marks, r.ID)
		return
	}
	m.marks[r.ID] = j
	m.markQuery = m.query()
}

// save writes the judged query to the eval file in a command.
func (m *Model) save() tea.Cmd {
	if m.resp == nil || len(m.marks) == 0 {
		// Listed in the help before there is anything to save: say how to get there.
		return event.Note("w saves the results marked with m (relevant) or x (not) to %s", m.cfg.EvalPath)
	}
	entry := m.evalEntry()
	path := m.cfg.EvalPath
	return func() tea.Msg {
		return savedMsg{path: path, entry: entry, err: writeEval(path, entry)}
	}
}

// writeEval adds entry to the JSON-lines file at path, replacing an earlier line
// with the same id (saving the same query again updates it), creating the file and
// its directory when needed. Lines it does not understand are kept as they are.
func writeEval(path string, entry evalQuery) error {
	if path == "" {
		return errors.New("no eval file configured")
	}
	line, err := json.Marshal(entry)
	if err != nil {
		return err
	}
	var lines [][]byte
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return err
	default:
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
		replaced := false
		for sc.Scan() {
			l := bytes.TrimSpace(sc.Bytes())
			if len(l) == 0 {
				continue
			}
			var head struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(l, &head) == nil && head.ID == entry.ID {
				if !replaced {
					lines = append(lines, line)
					replaced = true
				}
				continue
			}
			lines = append(lines, append([]byte(nil), l...))
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		if replaced {
			line = nil
		}
	}
	if line != nil {
		lines = append(lines, line)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	out := append(bytes.Join(lines, []byte("\n")), '\n')
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, out, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// sortedChannels returns map keys in display order.
func sortedChannels[V any](m map[search.Channel]V) []search.Channel {
	var out []search.Channel
	for _, c := range search.AllChannels {
		if _, ok := m[c]; ok {
			out = append(out, c)
		}
	}
	var extra []search.Channel
	for c := range m {
		known := false
		for _, k := range search.AllChannels {
			known = known || k == c
		}
		if !known {
			extra = append(extra, c)
		}
	}
	sort.Slice(extra, func(i, j int) bool { return extra[i] < extra[j] })
	return append(out, extra...)
}
