package index_test

import (
	"context"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestRunWaitsForAKilledRunsStatements: a `spelunk index` killed during
// resolution leaves its backend running the statements it had sent (a
// pipelined batch), holding locks on edge rows, after the session of its run
// lock has ended; the next run failed on "deadlock detected" against it
// (found by the soak on koa, issue 36). That transaction holds the work lock
// (here a transaction of the test's stands for it): the next run waits for
// it to end, then runs.
func TestRunWaitsForAKilledRunsStatements(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	ix := index.New(db, hashing())
	root := indextest.Repo(t)
	sum, err := ix.Index(ctx, root, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	orphan, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = orphan.Rollback(ctx) }()
	space, key := index.WorkLock(sum.RepositoryID)
	if _, err := orphan.Exec(ctx, `SELECT pg_advisory_xact_lock_shared($1, $2)`, space, key); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ix.Index(ctx, root, index.Options{Full: true}); done <- err }()
	for waiting := false; !waiting; { // until the run waits for the work lock
		select {
		case err := <-done:
			t.Fatalf("the run did not wait for the killed run's transaction (err %v)", err)
		case <-time.After(20 * time.Millisecond):
		}
		if err := db.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory'
			AND NOT granted AND classid::int8 = $1 AND objid::int8 = $2 AND objsubid = 2)`, space, key).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
	}
	if err := orphan.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the run after the killed run's transaction ended: %v", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the run still waits once the killed run's transaction ended")
	}
}
