package pg_test

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// Two transactions that lock the same two rows in opposite orders deadlock;
// PostgreSQL ends one of them, and InTx runs it again, so both commit. Without
// InTx one of them fails (the check that the test makes a real deadlock).
func TestInTxRunsADeadlocksVictimAgain(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	owner, err := pg.ConnectOwner(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close(ctx)
	if _, err := owner.Exec(ctx, `CREATE TABLE lock_order (id int PRIMARY KEY, n int NOT NULL DEFAULT 0);
		INSERT INTO lock_order (id) VALUES (1), (2)`); err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	db := struct{ Pool *pgxpool.Pool }{pool}
	run := func(retry bool) []error {
		var wg, ready sync.WaitGroup
		ready.Add(2)
		errs := make([]error, 2)
		for i, order := range [][2]int{{1, 2}, {2, 1}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				attempt := 0
				fn := func(tx pgx.Tx) error {
					attempt++
					if _, err := tx.Exec(ctx, `UPDATE lock_order SET n = n + 1 WHERE id = $1`, order[0]); err != nil {
						return err
					}
					if attempt == 1 { // both hold their first row before either asks for its second
						ready.Done()
						ready.Wait()
					}
					_, err := tx.Exec(ctx, `UPDATE lock_order SET n = n + 1 WHERE id = $1`, order[1])
					return err
				}
				if retry {
					errs[i] = pg.InTx(ctx, db.Pool, fn)
				} else {
					errs[i] = pgx.BeginFunc(ctx, db.Pool, fn)
				}
			}()
		}
		wg.Wait()
		return errs
	}
	if errs := run(false); !(pg.IsDeadlock(errs[0]) || pg.IsDeadlock(errs[1])) {
		t.Fatalf("without InTx: %v, want one deadlock", errs)
	}
	if errs := run(true); errs[0] != nil || errs[1] != nil {
		t.Fatalf("with InTx: %v", errs)
	}
	var total int
	if err := db.Pool.QueryRow(ctx, `SELECT sum(n) FROM lock_order`).Scan(&total); err != nil {
		t.Fatal(err)
	}
	if total != 2+4 { // the first pair: one of the two committed; the second: both
		t.Fatalf("sum %d, want 6", total)
	}
}
