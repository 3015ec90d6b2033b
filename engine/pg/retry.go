package pg

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// maxTxAttempts bounds how often [InTx] runs a transaction that PostgreSQL
// chose as a deadlock's victim.
const maxTxAttempts = 5

// IsDeadlock reports whether err says that PostgreSQL ended the transaction
// to break a deadlock (deadlock_detected) or a serialisation conflict
// (serialization_failure): the transaction did nothing and may be run again.
func IsDeadlock(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
}

// InTx runs fn in a transaction (pgx.BeginFunc) and runs it again, after a
// short random pause, when PostgreSQL ends it to break a deadlock: two
// writers that lock rows in different orders (an index run's writer deleting a
// file's symbols while its embedding stage locks the symbols it stores
// vectors for) then both commit instead of one failing the run. fn must be
// safe to run again: everything it does is in the rolled-back transaction or
// recomputed from its inputs.
func InTx(ctx context.Context, pool *pgxpool.Pool, fn func(pgx.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := pgx.BeginFunc(ctx, pool, fn)
		if err == nil || !IsDeadlock(err) || attempt == maxTxAttempts {
			return err
		}
		pause := time.Duration(attempt) * time.Duration(5+rand.IntN(20)) * time.Millisecond
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
	}
}
