package watch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// lockSpace is the first key of the watch lock. It differs from the index run
// lock's (engine/index, "SPLK") and the webhook server's ("SPWB"): holding the
// watch lock says "this process follows the repository", not "it is writing",
// so the watcher's own runs still take the run lock like any other.
const lockSpace int32 = 0x5350_5754 // "SPWT"

// errLockLost reports that the session holding the watch lock is gone (the
// server restarted, the connection broke): another process may have taken
// over, so this one stops leading and waits for the lock again.
var errLockLost = errors.New("the watch lock was lost")

// watchLock is a session advisory lock on (lockSpace, repository) held on a
// connection of its own, outside the pool, for as long as the watcher leads.
// PostgreSQL releases the locks of a session that ends, so when the leading
// process dies another one takes over without anything to clean up.
type watchLock struct {
	conn *pgx.Conn
	key  int32
}

// lockKey folds a repository id into the second key, as the run lock does.
func lockKey(repoID int64) int32 { return int32(repoID) ^ int32(repoID>>32) }

// acquire takes the watch lock of the repository. When another process holds
// it, standby is called once and acquire waits, without polling, until that
// process lets go or ctx ends.
func acquire(ctx context.Context, url string, repoID int64, standby func()) (*watchLock, error) {
	conn, err := pg.ConnectOwner(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("watch lock: %w", err)
	}
	l := &watchLock{conn: conn, key: lockKey(repoID)}
	var got bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, lockSpace, l.key).Scan(&got); err != nil {
		l.close()
		return nil, fmt.Errorf("take the watch lock: %w", err)
	}
	if got {
		return l, nil
	}
	standby()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1, $2)`, lockSpace, l.key); err != nil {
		// Granted as the cancellation arrived, perhaps: closing the session is
		// the one way to be sure it is not held.
		l.close()
		return nil, fmt.Errorf("wait for the watch lock: %w", err)
	}
	return l, nil
}

// alive reports errLockLost when the lock's session has ended.
func (l *watchLock) alive(ctx context.Context) error {
	pctx := ctx
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := l.conn.Exec(ctx, `SELECT 1`); err != nil {
		if pctx.Err() != nil {
			return pctx.Err()
		}
		return fmt.Errorf("%w: %v", errLockLost, err)
	}
	return nil
}

// close releases the lock and ends the session. The explicit unlock makes
// the release visible at once (the server may take a moment to notice a
// closed connection); if it fails, ending the session releases it anyway.
func (l *watchLock) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if !l.conn.IsClosed() {
		_, _ = l.conn.Exec(ctx, `SELECT pg_advisory_unlock($1, $2)`, lockSpace, l.key)
	}
	_ = l.conn.Close(ctx)
}

// Leading reports whether a watcher (of any process) leads the repository in
// db: something that would index after a commit anyway (a git hook) can leave
// it to the watcher, which also keeps the uncommitted files indexed. It looks
// at pg_locks and never takes the lock, so a watcher starting meanwhile is
// not turned away.
func Leading(ctx context.Context, db *pg.DB, repoID int64) (bool, error) {
	var held bool
	err := db.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND objsubid = 2
		  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
		  AND classid = ($1::bigint & 4294967295)::oid AND objid = ($2::bigint & 4294967295)::oid)`,
		int64(lockSpace), int64(lockKey(repoID))).Scan(&held)
	if err != nil {
		return false, fmt.Errorf("is a watcher running: %w", err)
	}
	return held, nil
}
