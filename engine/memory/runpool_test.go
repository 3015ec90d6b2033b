package memory_test

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"reflect"
	"testing"

	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestRunPoolsSeeOtherWriters: a run's pools come from the project's vectors
// as the store's last run left them; a memory another writer (another machine,
// another Store) added in between must be seen, or the contradiction is missed.
func TestRunPoolsSeeOtherWriters(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	mine := newProject(t, db, memory.Options{})
	theirs := memory.New(db, mine.Project(), memory.Options{Embedder: newHashing()})
	if _, err := mine.AddMany(ctx, []memory.NewMemory{fact("The nightly backup runs at 02:00."), fact("Logs go to the ELK cluster.")}); err != nil {
		t.Fatal(err)
	}
	other := mustAdd(t, theirs, memory.KindFact, "agent:b", "The API server listens on port 8080.")
	as, err := mine.AddMany(ctx, []memory.NewMemory{fact("The API server listens on port 9090."), fact("Use pnpm for JavaScript dependencies.")})
	if err != nil {
		t.Fatal(err)
	}
	if as[0].ConflictID == "" {
		t.Fatalf("the run did not see %s, added by another writer after the store's last run: %+v", other.Memory.ID, as[0])
	}
	wantStatus(t, mine, other.Memory.ID, memory.StatusDisputed)
}

// TestAddManyPastExactPoolMax: past exactPoolMax stored vectors the sketch
// picks which rows a member is compared with (lowered to 64 here, with 100
// candidates, so that 600 stored memories are well past it): a batch must
// leave the same rows as the same memories added one by one (Add's HNSW walk),
// the seed itself loaded in runs that keep the vectors between them and cross
// the bound.
func TestAddManyPastExactPoolMax(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
		"kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform",
		"victor", "whiskey", "xray", "yankee", "zulu", "amber", "basalt", "cobalt", "dune", "ember", "fjord"}
	r := mrand.New(mrand.NewPCG(7, 8))
	seed := make([]memory.NewMemory, 600)
	for i := range seed {
		w := func() string { return words[r.IntN(len(words))] }
		seed[i] = episode(fmt.Sprintf("%s %s %s %s %s", w(), w(), w(), w(), w()))
	}
	seed[123] = fact("Session tokens expire after 15 minutes.")
	seed[550] = fact("The staging database is db-stage-2.")
	batch := []memory.NewMemory{
		fact("Session tokens expire after 24 hours."),
		fact("The staging database is db-stage-3."),
		fact("Query result caching is enabled in production."),
		episode("alpha bravo charlie delta echo"),
	}
	var stores [2]*memory.Store
	for k := range stores {
		// A gate above the seed's chance overlaps keeps the judge's pairs few.
		stores[k] = newProject(t, db, memory.Options{Threshold: 0.5})
		stores[k].SetExactPoolMaxForTest(64, 100)
		for i := 0; i < len(seed); i += 100 {
			if _, err := stores[k].AddMany(ctx, seed[i:min(i+100, len(seed))]); err != nil {
				t.Fatal(err)
			}
		}
	}
	many, err := stores[0].AddMany(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	for i, in := range batch {
		one, err := stores[1].Add(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if outcome(many[i]) != outcome(one) {
			t.Errorf("member %d: batch %s, one by one %s", i, outcome(many[i]), outcome(one))
		}
	}
	if many[0].ConflictID == "" || many[1].ConflictID == "" {
		t.Errorf("the contradictions of stored memories were missed: %s; %s", outcome(many[0]), outcome(many[1]))
	}
	got, want := dumpProject(t, db, stores[0]), dumpProject(t, db, stores[1])
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows after the batch differ from rows added one by one:\n%s", diffLines(got, want))
	}
}
