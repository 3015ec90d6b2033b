package tuitest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/search"
	"github.com/spelunkhq/spelunk/tui"
)

// Recording is a file of search answers recorded from real searches on the
// indexed fixture. The golden screens of the Search pane are drawn from it, so
// they change when the screen code does, not when a file added to the fixture
// moves the BM25 statistics or a weight changes the ranking (those show up in
// the ranking golden of engine/eval instead).
type Recording struct {
	Note     string           `json:"note"`
	Searches []RecordedSearch `json:"searches"`
}

// RecordedSearch is one question and its answer, ids and revisions as the
// recording run's index had them.
type RecordedSearch struct {
	Query    string           `json:"query"`
	Options  search.Options   `json:"options"`
	Response *search.Response `json:"response"`
}

// recordNote says, inside the file, how it is made.
const recordNote = "Search answers recorded from the indexed fixture by `go test ./tui -run Golden -record -update`; " +
	"the golden screens replay them. Not hand-written: re-record instead of editing."

// Replayed is the backend of the golden screens: the live backend for
// everything but Search, which answers from a Recording. Each recorded result
// is bound to the same definition (path, kind, name, first line) in the live
// index, so opening it, previewing it and walking its graph use the live ids.
type Replayed struct {
	tui.Backend
	t         testing.TB
	env       *Env
	path      string
	recording bool

	mu  sync.Mutex
	rec Recording
}

// Replay returns the backend of the golden screens over env. With record, it
// runs every search live and writes the answers to path when the test ends;
// otherwise it answers from path, and a search missing from it fails the test.
func Replay(t testing.TB, env *Env, path string, record bool) *Replayed {
	t.Helper()
	r := &Replayed{Backend: env.Backend, t: t, env: env, path: path, recording: record}
	if record {
		r.rec.Note = recordNote
		t.Cleanup(r.save)
		return r
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./tui -run Golden -record -update records it)", err)
	}
	if err := json.Unmarshal(data, &r.rec); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

// Search answers from the recording (or records a live answer).
func (r *Replayed) Search(ctx context.Context, q string, opts search.Options) (*search.Response, error) {
	key, err := searchKey(q, opts)
	if err != nil {
		return nil, err
	}
	if r.recording {
		// Not cancelled with a superseded request: the replay asks the same
		// questions, superseded ones included, and needs each answer.
		resp, err := r.Backend.Search(context.WithoutCancel(ctx), q, opts)
		if err != nil {
			return nil, err
		}
		var asked search.Options // a copy: the caller may reuse its maps
		if err := json.Unmarshal([]byte(key), &struct{ O *search.Options }{&asked}); err != nil {
			return nil, fmt.Errorf("copy options: %w", err)
		}
		r.mu.Lock()
		if _, ok := r.find(key); !ok {
			r.rec.Searches = append(r.rec.Searches, RecordedSearch{Query: q, Options: asked, Response: resp})
		}
		r.mu.Unlock()
		// What replay will return: only the fields that survive the file.
		return roundTrip(resp)
	}
	r.mu.Lock()
	resp, ok := r.find(key)
	r.mu.Unlock()
	if !ok {
		r.t.Errorf("%s has no answer for %q with %s (go test ./tui -run Golden -record -update records it)", r.path, q, key)
		return nil, fmt.Errorf("no recorded answer for %q", q)
	}
	out, err := roundTrip(resp)
	if err != nil {
		return nil, err
	}
	return out, r.bind(ctx, out)
}

// find returns the recorded answer for key; r.mu is held.
func (r *Replayed) find(key string) (*search.Response, bool) {
	for _, s := range r.rec.Searches {
		if k, err := searchKey(s.Query, s.Options); err == nil && k == key {
			return s.Response, true
		}
	}
	return nil, false
}

// bind gives every result the id and revision of the same definition in the
// live index; a definition that is gone fails the test, as the recording is
// then out of date.
func (r *Replayed) bind(ctx context.Context, resp *search.Response) error {
	for _, s := range resp.Symbols() {
		row := r.env.DB.Pool.QueryRow(ctx, `SELECT s.id, f.revision FROM symbols s
			JOIN files f ON f.repository_id = s.repository_id AND f.id = s.file_id
			WHERE s.repository_id = $1 AND s.path = $2 AND s.kind = $3 AND s.name = $4 AND s.start_line = $5`,
			r.env.Repo.ID, s.Path, s.Kind, s.Name, s.StartLine)
		err := row.Scan(&s.ID, &s.Revision)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("bind %s: %w", s.Name, err) // a superseded request, cancelled
		}
		if err != nil {
			r.t.Errorf("recorded result %s %s:%d is not in the live index (%v): re-record with go test ./tui -run Golden -record -update",
				s.Name, s.Path, s.StartLine, err)
			return fmt.Errorf("bind %s: %w", s.Name, err)
		}
	}
	return nil
}

// save writes the recording, answers in the order they were asked.
func (r *Replayed) save() {
	data, err := json.MarshalIndent(r.rec, "", "  ")
	if err != nil {
		r.t.Errorf("encode recording: %v", err)
		return
	}
	if err := os.MkdirAll(filepath.Dir(r.path), 0o755); err != nil {
		r.t.Errorf("save recording: %v", err)
		return
	}
	if err := os.WriteFile(r.path, append(data, '\n'), 0o644); err != nil {
		r.t.Errorf("save recording: %v", err)
	}
}

// searchKey identifies a question: the query and every option.
func searchKey(q string, opts search.Options) (string, error) {
	b, err := json.Marshal(struct {
		Q string
		O search.Options
	}{q, opts})
	return string(b), err
}

func roundTrip(resp *search.Response) (*search.Response, error) {
	data, err := json.Marshal(resp)
	if err != nil {
		return nil, fmt.Errorf("encode answer: %w", err)
	}
	var out search.Response
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("decode answer: %w", err)
	}
	return &out, nil
}
