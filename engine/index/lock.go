package index

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// ErrBusy is returned (wrapped) by Index with Options.NoWait when another run,
// in this process or another, is indexing the same repository.
var ErrBusy = errors.New("another index of the repository is running")

// lockSpace is the first key of the two-key advisory locks that serialise index
// runs. Nothing else in spelunk takes two-key locks but the postings groups'
// (groupLockSpace, another first key), so these never collide with the
// single-key ones (migrations, model registration, memory).
const lockSpace int32 = 0x5350_4c4b // "SPLK"

// runLock is a session advisory lock on one repository, held on a connection of
// its own for the whole run: two runs interleaving their deletes and inserts
// failed on duplicate keys and left the index half-written yet marked fresh.
type runLock struct {
	conn *pgxpool.Conn
	key  int32
}

// lockRun takes the repository's run lock. When another run holds it, it reports
// that through prog and waits (until ctx ends), or with noWait returns ErrBusy.
func lockRun(ctx context.Context, db *pg.DB, repoID int64, name string, noWait bool, prog *progressTracker) (*runLock, error) {
	// The lock's connection is held while the run's statements take others:
	// with one connection in all they would wait for it for ever.
	if n := db.Pool.Config().MaxConns; n < 2 {
		return nil, fmt.Errorf("index %s: the database pool holds %d connection; a run needs 2 or more (pool_max_conns in the URL)", name, n)
	}
	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("index %s: connect for the run lock: %w", name, err)
	}
	l := &runLock{conn: conn, key: lockKey(repoID)}
	var got bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, lockSpace, l.key).Scan(&got); err != nil {
		l.drop()
		return nil, fmt.Errorf("index %s: take the run lock: %w", name, err)
	}
	if got {
		return l.drainKilled(ctx, name)
	}
	if noWait {
		l.drop()
		return nil, fmt.Errorf("index %s: %w (wait for it to finish, or run without --no-wait)", name, ErrBusy)
	}
	prog.phase("waiting: another index of " + name + " is running")
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1, $2)`, lockSpace, l.key); err != nil {
		// The lock may have been granted as the cancellation arrived: closing the
		// session is the one way to be sure it is not left held in the pool.
		l.drop()
		return nil, fmt.Errorf("index %s: wait for the other run: %w", name, err)
	}
	return l.drainKilled(ctx, name)
}

// workSpace is the first key of the shared transaction locks a run's long
// transactions hold (holdWork). A run killed in one leaves its backend going
// on with the statements it had sent (resolution's pipelined batch) after
// the session of its run lock has ended, holding locks on edge rows until it
// reads the end of its connection and rolls back: the next run waits for it
// (drainKilled) instead of failing on a deadlock against it.
const workSpace int32 = 0x5350_4c57 // "SPLW"

// lockKey is the second key of a repository's run and work locks. Ids are
// identity values far below 2^32; folding the high half in keeps larger ones
// distinct enough (a collision would only serialise two runs).
func lockKey(repoID int64) int32 { return int32(repoID) ^ int32(repoID>>32) }

// holdWorkSQL takes the transaction's shared work lock ($1: workSpace, $2:
// lockKey).
const holdWorkSQL = `SELECT pg_advisory_xact_lock_shared($1, $2)`

// holdWork takes tx's shared work lock on the repository (workSpace).
func holdWork(ctx context.Context, tx pgx.Tx, repoID int64) error {
	if _, err := tx.Exec(ctx, holdWorkSQL, workSpace, lockKey(repoID)); err != nil {
		return fmt.Errorf("take the work lock: %w", err)
	}
	return nil
}

// drainKilled, with the run lock held, waits until no transaction of an
// earlier, killed run holds the work lock (a live run would hold the run
// lock), then returns l; on an error it drops l.
func (l *runLock) drainKilled(ctx context.Context, name string) (*runLock, error) {
	for _, q := range []string{`SELECT pg_advisory_lock($1, $2)`, `SELECT pg_advisory_unlock($1, $2)`} {
		if _, err := l.conn.Exec(ctx, q, workSpace, l.key); err != nil {
			l.drop()
			return nil, fmt.Errorf("index %s: wait for the statements of a stopped run: %w", name, err)
		}
	}
	return l, nil
}

// release unlocks and returns the connection to the pool. It runs on every exit
// path, also after ctx is cancelled, so it does not use the run's context.
func (l *runLock) release() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var ok bool
	if err := l.conn.QueryRow(ctx, `SELECT pg_advisory_unlock($1, $2)`, lockSpace, l.key).Scan(&ok); err != nil || !ok {
		l.drop()
		return
	}
	l.conn.Release()
}

// drop closes the session (which releases any lock it holds) instead of returning
// it to the pool; the pool discards closed connections.
func (l *runLock) drop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = l.conn.Conn().Close(ctx)
	l.conn.Release()
}
