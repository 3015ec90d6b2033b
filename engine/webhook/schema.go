package webhook

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// Schema holds river's tables, functions and types. Keeping them out of
// public leaves spelunk's own schema as it was: every public table keyed by
// repository_id (engine/pg/distribution_test.go), and the sizes spelunk
// status reports.
const Schema = "river"

// migrationLock serialises river migrations between servers starting at once,
// next to engine/pg's 0x5e1c_0001 for spelunk's own migrations.
const migrationLock = 0x5e1c_0002

// Migrate creates the river schema and applies river's pending migrations in
// it (each in its own transaction: some cannot share one), under a session
// advisory lock so that two servers starting together migrate once.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Schema: Schema})
	if err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("river migrations: connect: %w", err)
	}
	// Closing the session is the one sure way to drop the lock, also when ctx
	// was cancelled while it was being taken.
	defer func() {
		_ = conn.Conn().Close(context.Background())
		conn.Release()
	}()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(migrationLock)); err != nil {
		return fmt.Errorf("river migrations: take the lock: %w", err)
	}
	if _, err := conn.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{Schema}.Sanitize()); err != nil {
		return fmt.Errorf("create schema %s: %w", Schema, err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations in schema %s: %w", Schema, err)
	}
	return nil
}
