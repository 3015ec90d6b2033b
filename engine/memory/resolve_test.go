package memory_test

import (
	"context"
	"errors"
	"testing"

	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

func TestResolveAndUndo(t *testing.T) {
	const (
		textA = "Query result caching is enabled in production."
		textB = "Query result caching is disabled in production."
	)
	db := pgtest.Open(t)
	ctx := context.Background()
	tests := []struct {
		name    string
		res     memory.Resolution
		wantA   memory.Status
		wantB   memory.Status
		checkFn func(t *testing.T, s *memory.Store, r memory.Resolved, a, b string)
	}{
		{"keep a", memory.Resolution{Action: memory.ResolveKeep, Memory: "a"}, memory.StatusActive, memory.StatusSuperseded,
			func(t *testing.T, s *memory.Store, r memory.Resolved, a, b string) {
				if m := mustGet(t, s, b); m.SupersededBy != a {
					t.Fatalf("b superseded by %q, want a %s", m.SupersededBy, a)
				}
			}},
		{"keep b by id", memory.Resolution{Action: memory.ResolveKeep, Memory: "<b>"}, memory.StatusSuperseded, memory.StatusActive, nil},
		{"keep both", memory.Resolution{Action: memory.ResolveKeepAll}, memory.StatusActive, memory.StatusActive,
			func(t *testing.T, s *memory.Store, r memory.Resolved, a, b string) {
				// The same pair, even re-learned as a new copy, is not flagged again.
				again := mustAdd(t, s, memory.KindFact, "agent-c", textB)
				if again.ConflictID != "" {
					t.Fatalf("a kept-both pair was flagged again in %s", again.ConflictID)
				}
			}},
		{"merge", memory.Resolution{Action: memory.ResolveMerge, Text: "Query result caching is enabled in production, except for the reports API."},
			memory.StatusSuperseded, memory.StatusSuperseded,
			func(t *testing.T, s *memory.Store, r memory.Resolved, a, b string) {
				m := r.Merged
				if m == nil || m.Author != "alice" || m.Status != memory.StatusActive || len(m.ParentIDs) != 2 || m.Kind != memory.KindFact {
					t.Fatalf("merged memory: got %+v", m)
				}
				if got := mustGet(t, s, a).SupersededBy; got != m.ID {
					t.Fatalf("a superseded by %q, want the merge %s", got, m.ID)
				}
			}},
		{"invalidate b", memory.Resolution{Action: memory.ResolveInvalidate, Memory: "b"}, memory.StatusActive, memory.StatusInvalidated,
			func(t *testing.T, s *memory.Store, r memory.Resolved, a, b string) {
				if m := mustGet(t, s, b); m.TombstonedAt == nil {
					t.Fatalf("invalidated memory has no tombstone: %+v", m)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newProject(t, db, memory.Options{})
			a := mustAdd(t, s, memory.KindFact, "agent-a", textA).Memory.ID
			added := mustAdd(t, s, memory.KindFact, "agent-b", textB)
			b, cid := added.Memory.ID, added.ConflictID
			if cid == "" {
				t.Fatal("setup: no conflict")
			}
			res := tt.res
			res.Resolver, res.Note = "alice", "checked the config"
			if res.Memory == "<b>" {
				res.Memory = b
			}
			r, err := s.Resolve(ctx, cid, res)
			if err != nil {
				t.Fatal(err)
			}
			if r.Conflict.Status != memory.ConflictResolved || r.Conflict.Resolver != "alice" || r.Conflict.Note != "checked the config" || r.Conflict.ResolvedAt == nil {
				t.Fatalf("resolved conflict: got %+v", r.Conflict)
			}
			wantStatus(t, s, a, tt.wantA)
			wantStatus(t, s, b, tt.wantB)
			evs, _ := s.Events(ctx, a)
			if last := evs[len(evs)-1]; last.Action != memory.ActionResolve || last.Actor != "alice" || last.ConflictID != cid {
				t.Fatalf("resolution audit: got %+v", last)
			}
			if tt.checkFn != nil {
				tt.checkFn(t, s, r, a, b)
			}

			if _, err := s.Resolve(ctx, cid, res); !errors.Is(err, memory.ErrAlreadyResolved) {
				t.Fatalf("resolving twice: got %v, want ErrAlreadyResolved", err)
			}
			c, err := s.Undo(ctx, cid, "bob")
			if err != nil {
				t.Fatal(err)
			}
			if c.Status != memory.ConflictOpen || c.Resolution != "" {
				t.Fatalf("undone conflict: got %+v", c)
			}
			wantStatus(t, s, a, memory.StatusDisputed)
			wantStatus(t, s, b, memory.StatusDisputed)
			if m := mustGet(t, s, b); m.SupersededBy != "" || m.TombstonedAt != nil {
				t.Fatalf("undo left superseded_by %q tombstone %v", m.SupersededBy, m.TombstonedAt)
			}
			if r.Merged != nil {
				wantStatus(t, s, r.Merged.ID, memory.StatusInvalidated)
			}
			if _, err := s.Undo(ctx, cid, "bob"); !errors.Is(err, memory.ErrNotResolved) {
				t.Fatalf("undo twice: got %v, want ErrNotResolved", err)
			}
			// Resolvable again after the undo.
			if _, err := s.Resolve(ctx, cid, memory.Resolution{Action: memory.ResolveKeep, Memory: "a", Resolver: "carol"}); err != nil {
				t.Fatalf("resolve after undo: %v", err)
			}
			wantStatus(t, s, b, memory.StatusSuperseded)
			if _, err := s.Undo(ctx, cid, "dave"); err != nil {
				t.Fatalf("second undo: %v", err)
			}
			wantStatus(t, s, b, memory.StatusDisputed)
		})
	}
}

func TestResolveRejectsBadInput(t *testing.T) {
	s := newProject(t, pgtest.Open(t), memory.Options{})
	ctx := context.Background()
	mustAdd(t, s, memory.KindFact, "agent-a", "Autoscaling is turned on for the web tier.")
	cid := mustAdd(t, s, memory.KindFact, "agent-b", "Autoscaling is turned off for the web tier.").ConflictID
	outsider := mustAdd(t, s, memory.KindFact, "agent-c", "The nightly backup runs at 02:00 UTC.").Memory.ID
	tests := []struct {
		name string
		ref  string
		res  memory.Resolution
		want error
	}{
		{"no resolver", cid, memory.Resolution{Action: memory.ResolveKeepAll}, memory.ErrInvalid},
		{"unknown action", cid, memory.Resolution{Action: "shrug", Resolver: "x"}, memory.ErrInvalid},
		{"keep without memory", cid, memory.Resolution{Action: memory.ResolveKeep, Resolver: "x"}, memory.ErrInvalid},
		{"keep side c of two", cid, memory.Resolution{Action: memory.ResolveKeep, Memory: "c", Resolver: "x"}, memory.ErrNotMember},
		{"keep an outsider", cid, memory.Resolution{Action: memory.ResolveKeep, Memory: outsider, Resolver: "x"}, memory.ErrNotMember},
		{"merge without text", cid, memory.Resolution{Action: memory.ResolveMerge, Resolver: "x"}, memory.ErrInvalid},
		{"unknown conflict", "00000000-0000-0000-0000-000000000000", memory.Resolution{Action: memory.ResolveKeepAll, Resolver: "x"}, memory.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := s.Resolve(ctx, tt.ref, tt.res); !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := s.Undo(ctx, cid, "x"); !errors.Is(err, memory.ErrNotResolved) {
		t.Fatalf("undo of an open conflict: got %v, want ErrNotResolved", err)
	}
}

func TestUndoRefusesWhenMemoryChanged(t *testing.T) {
	s := newProject(t, pgtest.Open(t), memory.Options{})
	ctx := context.Background()
	a := mustAdd(t, s, memory.KindFact, "agent-a", "The strict_mode flag is set to true in production.").Memory.ID
	cid := mustAdd(t, s, memory.KindFact, "agent-b", "The strict_mode flag is set to false in production.").ConflictID
	if _, err := s.Resolve(ctx, cid, memory.Resolution{Action: memory.ResolveKeep, Memory: "a", Resolver: "alice"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Invalidate(ctx, a, "bob", "flag removed"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Undo(ctx, cid, "alice"); !errors.Is(err, memory.ErrChanged) {
		t.Fatalf("got %v, want ErrChanged", err)
	}
	wantStatus(t, s, a, memory.StatusInvalidated) // nothing half-undone
}
