package memory_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

func TestAddRejectsBadInput(t *testing.T) {
	db := pgtest.Open(t)
	s := newProject(t, db, memory.Options{})
	other := newProject(t, db, memory.Options{})
	ctx := context.Background()
	foreign := mustAdd(t, other, memory.KindFact, "agent-b", "The other project uses Rust.").Memory.ID
	tests := []struct {
		name    string
		in      memory.NewMemory
		want    error
		message string
	}{
		{"empty text", memory.NewMemory{Kind: memory.KindFact, Author: "a", Text: ""}, memory.ErrInvalid, "empty"},
		{"blank text", memory.NewMemory{Kind: memory.KindFact, Author: "a", Text: " \n\t"}, memory.ErrInvalid, "empty"},
		{"1 MB text", memory.NewMemory{Kind: memory.KindFact, Author: "a", Text: strings.Repeat("x", 1<<20)}, memory.ErrTooLarge, "the limit is 65536 bytes (64 KiB)"},
		{"just over the limit", memory.NewMemory{Kind: memory.KindFact, Author: "a", Text: strings.Repeat("x", memory.MaxContentBytes+1)}, memory.ErrTooLarge, "64 KiB"},
		{"NUL byte", memory.NewMemory{Kind: memory.KindFact, Author: "a", Text: "a\x00b"}, memory.ErrInvalid, "NUL"},
		{"invalid UTF-8", memory.NewMemory{Kind: memory.KindFact, Author: "a", Text: "a\xffb"}, memory.ErrInvalid, "UTF-8"},
		{"unknown kind", memory.NewMemory{Kind: "opinion", Author: "a", Text: "x"}, memory.ErrInvalid, "opinion"},
		{"no author", memory.NewMemory{Kind: memory.KindFact, Text: "x"}, memory.ErrInvalid, "author"},
		{"unknown parent", memory.NewMemory{Kind: memory.KindFact, Author: "a", Text: "x", Parents: []string{"00000000-0000-0000-0000-000000000000"}}, memory.ErrNotFound, "parent"},
		{"parent from another project", memory.NewMemory{Kind: memory.KindFact, Author: "a", Text: "x", Parents: []string{foreign}}, memory.ErrOtherProject, "another project"},
		{"malformed parent", memory.NewMemory{Kind: memory.KindFact, Author: "a", Text: "x", Parents: []string{"'; DROP TABLE memories; --"}}, memory.ErrInvalid, "not an id"},
		{"parent prefix too short", memory.NewMemory{Kind: memory.KindFact, Author: "a", Text: "x", Parents: []string{"ab"}}, memory.ErrInvalid, "too short"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Add(ctx, tt.in)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.message) {
				t.Fatalf("got %v, want %v mentioning %q", err, tt.want, tt.message)
			}
		})
	}
	if ms, err := s.List(ctx, memory.Filter{}); err != nil || len(ms) != 0 {
		t.Fatalf("rejected input left memories behind: %v, %v", ms, err)
	}
}

func TestAddAcceptsTheLimit(t *testing.T) {
	s := newProject(t, pgtest.Open(t), memory.Options{})
	a := mustAdd(t, s, memory.KindEpisode, "agent", strings.Repeat("word ", memory.MaxContentBytes/5))
	if a.Memory.Status != memory.StatusActive {
		t.Fatalf("got status %s, want ACTIVE", a.Memory.Status)
	}
}

func TestLineage(t *testing.T) {
	s := newProject(t, pgtest.Open(t), memory.Options{})
	ctx := context.Background()
	a := mustAdd(t, s, memory.KindFact, "agent-a", "The API server listens on port 8080.")
	// A child that contradicts its parent is a correction: the parent is superseded.
	b := mustAdd(t, s, memory.KindFact, "agent-b", "The API server listens on port 9090.", a.Memory.ID[:8])
	if len(b.Corrected) != 1 || b.Corrected[0] != a.Memory.ID || b.ConflictID != "" {
		t.Fatalf("correction: got corrected %v conflict %q, want [%s] and no conflict", b.Corrected, b.ConflictID, a.Memory.ID)
	}
	// A child that agrees is a refinement: the parent stands.
	c := mustAdd(t, s, memory.KindFact, "agent-c", "The API server listens on port 9090 behind the nginx proxy.", b.Memory.ID)
	if len(c.Corrected) != 0 {
		t.Fatalf("refinement corrected %v", c.Corrected)
	}
	wantStatus(t, s, a.Memory.ID, memory.StatusSuperseded)
	wantStatus(t, s, b.Memory.ID, memory.StatusActive)

	l, err := s.Lineage(ctx, c.Memory.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, an := range l.Ancestors {
		got = append(got, an.ID[:8]+"@"+string(rune('0'+an.Depth)))
	}
	want := []string{b.Memory.ID[:8] + "@1", a.Memory.ID[:8] + "@2"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("ancestors: got %v, want %v", got, want)
	}
	la, err := s.Lineage(ctx, a.Memory.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(la.Successors) != 1 || la.Successors[0].ID != b.Memory.ID {
		t.Fatalf("successors of a: got %v, want [b]", la.Successors)
	}
	if len(la.Children) != 1 || la.Children[0].ID != b.Memory.ID {
		t.Fatalf("children of a: got %v, want [b]", la.Children)
	}
	var actions []string
	for _, e := range la.Events {
		actions = append(actions, e.Action+":"+string(e.ToStatus)+":"+e.Actor)
	}
	if want := "add:ACTIVE:agent-a,supersede:SUPERSEDED:agent-b"; strings.Join(actions, ",") != want {
		t.Fatalf("events of a: got %v, want %s", actions, want)
	}
	if !strings.Contains(la.Events[1].Reason, "corrected by "+b.Memory.ID) {
		t.Fatalf("supersede reason %q does not name the correction", la.Events[1].Reason)
	}
}

func TestSupersedeAndInvalidate(t *testing.T) {
	s := newProject(t, pgtest.Open(t), memory.Options{})
	ctx := context.Background()
	old := mustAdd(t, s, memory.KindDecision, "agent", "Use the v1 payments API.").Memory.ID
	nw := mustAdd(t, s, memory.KindDecision, "agent", "Migrate checkout to the Payment Intents API.").Memory.ID
	third := mustAdd(t, s, memory.KindRule, "agent", "Run the linter in CI.").Memory.ID

	m, err := s.Supersede(ctx, old, nw, "alice", "v1 is deprecated")
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != memory.StatusSuperseded || m.SupersededBy != nw || m.StatusBy != "alice" || m.StatusReason != "v1 is deprecated" || m.StatusAt == nil {
		t.Fatalf("superseded memory: got %+v", m)
	}
	tests := []struct {
		name string
		run  func() error
		want error
	}{
		{"supersede twice", func() error { _, err := s.Supersede(ctx, old, third, "bob", ""); return err }, memory.ErrAlreadySuperseded},
		{"supersede by itself", func() error { _, err := s.Supersede(ctx, nw, nw, "bob", ""); return err }, memory.ErrInvalid},
		{"supersede by a superseded memory", func() error { _, err := s.Supersede(ctx, third, old, "bob", ""); return err }, memory.ErrNotLive},
		{"supersede unknown", func() error {
			_, err := s.Supersede(ctx, "00000000-0000-0000-0000-000000000001", nw, "bob", "")
			return err
		}, memory.ErrNotFound},
		{"invalidate without reason", func() error { _, err := s.Invalidate(ctx, third, "bob", " "); return err }, memory.ErrInvalid},
		{"invalidate without actor", func() error { _, err := s.Invalidate(ctx, third, "", "stale"); return err }, memory.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.run(); !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}

	inv, err := s.Invalidate(ctx, third, "bob", "we dropped the linter")
	if err != nil {
		t.Fatal(err)
	}
	if inv.Status != memory.StatusInvalidated || inv.TombstonedAt == nil || inv.TombstoneReason != "we dropped the linter" {
		t.Fatalf("invalidated memory: got %+v", inv)
	}
	if _, err := s.Invalidate(ctx, third, "bob", "again"); !errors.Is(err, memory.ErrAlreadyInvalidated) {
		t.Fatalf("invalidate twice: got %v, want ErrAlreadyInvalidated", err)
	}
	evs, err := s.Events(ctx, third)
	if err != nil {
		t.Fatal(err)
	}
	last := evs[len(evs)-1]
	if last.Action != memory.ActionInvalidate || last.Actor != "bob" || last.Reason != "we dropped the linter" ||
		last.FromStatus != memory.StatusActive || last.ToStatus != memory.StatusInvalidated {
		t.Fatalf("audit event: got %+v", last)
	}
}

func TestListFilters(t *testing.T) {
	s := newProject(t, pgtest.Open(t), memory.Options{})
	ctx := context.Background()
	mustAdd(t, s, memory.KindFact, "alice", "Builds run on GitHub Actions.")
	b := mustAdd(t, s, memory.KindRule, "bob", "Every migration needs a rollback script.").Memory.ID
	mustAdd(t, s, memory.KindFact, "alice", "The staging cluster has three nodes.")
	if _, err := s.Invalidate(ctx, b, "carol", "obsolete"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		f    memory.Filter
		want int
	}{
		{"all", memory.Filter{}, 3},
		{"by author", memory.Filter{Author: "alice"}, 2},
		{"by status", memory.Filter{Status: memory.StatusInvalidated}, 1},
		{"by kind", memory.Filter{Kind: memory.KindRule}, 1},
		{"author and status", memory.Filter{Author: "alice", Status: memory.StatusInvalidated}, 0},
		{"limit", memory.Filter{Limit: 1}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := s.List(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if len(ms) != tt.want {
				t.Fatalf("got %d memories, want %d", len(ms), tt.want)
			}
		})
	}
	if _, err := s.List(ctx, memory.Filter{Status: "GONE"}); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("bad status: got %v, want ErrInvalid", err)
	}
}

func TestIDPrefixes(t *testing.T) {
	s := newProject(t, pgtest.Open(t), memory.Options{})
	ctx := context.Background()
	a := mustAdd(t, s, memory.KindFact, "agent", "Deploys happen from the release branch.").Memory
	got, err := s.Get(ctx, strings.ToUpper(a.ID[:6]))
	if err != nil || got.ID != a.ID {
		t.Fatalf("prefix lookup: got %v, %v", got.ID, err)
	}
	if _, err := s.Get(ctx, "ffff"); err == nil && !strings.HasPrefix(a.ID, "ffff") {
		t.Fatal("an unmatched prefix found a memory")
	}
}

func TestJudgeErrorFailsTheWrite(t *testing.T) {
	s := newProject(t, pgtest.Open(t), memory.Options{Judge: failingJudge{}, Threshold: 0.01})
	ctx := context.Background()
	mustAdd(t, s, memory.KindFact, "agent", "Caching is enabled.")
	if _, err := s.Add(ctx, memory.NewMemory{Kind: memory.KindFact, Author: "agent", Text: "Caching is disabled."}); err == nil || !strings.Contains(err.Error(), "judge exploded") {
		t.Fatalf("got %v, want the judge's error", err)
	}
	ms, _ := s.List(ctx, memory.Filter{})
	if len(ms) != 1 {
		t.Fatalf("a failed write left %d memories, want 1", len(ms))
	}
}
