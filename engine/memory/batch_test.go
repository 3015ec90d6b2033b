package memory_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestAddManyIsAddOneByOne: one batch (AddMany, set-wise where it can) and the
// same memories added one by one (Add) into a project seeded alike leave the
// same rows: memories with their statuses and reasons, conflicts with their
// members, similarity and reasons, the audit events of every memory, and the
// same answers. The batch holds what the set-wise check must get right:
// contradictions with stored memories and among its own members (a three-way
// one that merges into a stored conflict), a keep-both exemption by content, a
// correction naming an earlier member (Add's path), a replay and an id given
// twice, and near-duplicates that agree.
func TestAddManyIsAddOneByOne(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	seed := []memory.NewMemory{
		rule("Deploys happen on Fridays"),
		rule("Deploys never happen on Fridays"),
		fact("The API server listens on port 8080."),
		fact("Session tokens expire after 15 minutes."),
		fact("The staging database is db-stage-2."),
		fact("Session tokens expire after 24 hours."),
	}
	batch := []memory.NewMemory{
		fact("The API server listens on port 9090."),   // contradicts a stored fact
		fact("The API server listens on port 7070."),   // and the one before it too
		fact("The API server listens on port 8080."),   // same as stored: agrees
		rule("Deploys never happen on Fridays."),       // joins the stored open conflict
		fact("Session tokens expire after 15 minutes"), // exempt by keep-both, by content
		fact("Query result caching is enabled in production."),
		fact("Query result caching is disabled in production."), // contradicts the one before
		episode("The nightly job retried after 300 ms"),
		episode("The nightly job did not retry after 300 ms"),
		fact("Use pnpm to install JavaScript dependencies."),
		fact("Use yarn to install JavaScript dependencies."),
	}
	// A correction of an earlier member (by prefix), a replay of a stored id
	// and an id given twice go Add's way at their place in the order.
	correction := fact("The API server listens on port 6060.")
	correction.Parents = []string{batch[1].ID[:8]}
	batch = slices.Insert(batch, 7, correction)
	batch = append(batch, seed[4], batch[9], fact("The staging database is db-stage-3."))

	var stores [2]*memory.Store
	var answers [2][]memory.Added
	for k := range stores {
		stores[k] = newProject(t, db, memory.Options{})
		for _, in := range seed {
			if _, err := stores[k].Add(ctx, in); err != nil {
				t.Fatal(err)
			}
		}
		keepBothTokens(t, stores[k], seed[3].ID)
	}
	var err error
	if answers[0], err = stores[0].AddMany(ctx, batch); err != nil {
		t.Fatal(err)
	}
	for _, in := range batch {
		a, err := stores[1].Add(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		answers[1] = append(answers[1], a)
	}

	got, want := dumpProject(t, db, stores[0]), dumpProject(t, db, stores[1])
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows after the batch differ from rows added one by one:\n%s", diffLines(got, want))
	}
	disputed := 0
	for i := range batch {
		g, w := outcome(answers[0][i]), outcome(answers[1][i])
		if g != w {
			t.Errorf("answer %d (%q): batch %s, one by one %s", i, batch[i].Text, g, w)
		}
		if answers[1][i].ConflictID != "" {
			disputed++
		}
	}
	// The test means something only if the batch met contradictions of each kind.
	if disputed < 4 || len(answers[1][7].Corrected) != 1 {
		t.Fatalf("one by one: %d memories disputed, correction %v; the batch does not exercise the check", disputed, answers[1][7].Corrected)
	}
}

func newMem(kind memory.Kind, text string) memory.NewMemory {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return memory.NewMemory{ID: fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]),
		Kind: kind, Author: "agent:a", Text: text}
}

func rule(text string) memory.NewMemory    { return newMem(memory.KindRule, text) }
func fact(text string) memory.NewMemory    { return newMem(memory.KindFact, text) }
func episode(text string) memory.NewMemory { return newMem(memory.KindEpisode, text) }

// keepBothTokens resolves the conflict of memory id with "keep both".
func keepBothTokens(t *testing.T, s *memory.Store, id string) {
	t.Helper()
	ctx := context.Background()
	ks, err := s.Conflicts(ctx, memory.ConflictOpen)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ks {
		if slices.Contains(k.MemoryIDs, id) {
			if _, err := s.Resolve(ctx, k.ID, memory.Resolution{Action: memory.ResolveKeepAll, Resolver: "human:ann"}); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no open conflict holds %s: the seed does not set up the exemption", id)
}

// outcome is an answer without the conflict's id (each project has its own).
func outcome(a memory.Added) string {
	return fmt.Sprintf("%s %s conflict=%t corrected=%v", a.Memory.ID, a.Memory.Status, a.ConflictID != "", a.Corrected)
}

// dumpProject lists a project's memory rows in a comparable form: conflicts by
// their members (their own ids are random), events by memory in order.
func dumpProject(t *testing.T, db *pg.DB, s *memory.Store) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	for _, q := range []string{
		`SELECT format('memory %s %s %s %s %s parents=%s by=%s reason=%s', id, kind, author, status, content,
			parent_ids, superseded_by, status_reason) FROM memories WHERE repository_id = $1 ORDER BY id`,
		`SELECT format('conflict %s %s %s %s %s', (SELECT array_agg(x ORDER BY x) FROM unnest(memory_ids) x),
			similarity, reason, status, resolution) FROM conflicts WHERE repository_id = $1 ORDER BY 1`,
		`SELECT format('event %s %s %s->%s %s %s conflict=%s', memory_id, action, from_status, to_status, actor,
			reason, conflict_id IS NOT NULL) FROM memory_events WHERE repository_id = $1 ORDER BY memory_id, id`,
		`SELECT format('embedding %s %s', memory_id, model) FROM memory_embeddings WHERE repository_id = $1 ORDER BY 1`,
	} {
		rows, err := db.Pool.Query(ctx, q, s.Project())
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			out = append(out, line)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func diffLines(got, want []string) string {
	var b strings.Builder
	for _, l := range got {
		if !slices.Contains(want, l) {
			b.WriteString("batch only:      " + l + "\n")
		}
	}
	for _, l := range want {
		if !slices.Contains(got, l) {
			b.WriteString("one by one only: " + l + "\n")
		}
	}
	return b.String()
}
