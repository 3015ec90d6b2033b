package pg_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestFirstRunsRaceForTheDatabase: processes that start on a new cluster at
// once all create the database; each must end with it, none with an error.
// The losers got 23505 from pg_database's unique index, which only 42P04
// was taken for (issue 36, 9).
func TestFirstRunsRaceForTheDatabase(t *testing.T) {
	server := pgtest.ServerURL(t)
	ctx := context.Background()
	for round := range 6 {
		name := fmt.Sprintf("spelunk_race_%d", round)
		t.Cleanup(func() { dropDatabase(t, server, name) })
		var wg sync.WaitGroup
		errs := make([]error, 6)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = pg.EnsureDatabaseAt(ctx, server, name)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, first run %d: %v", round, i, err)
			}
		}
	}
}

func dropDatabase(t *testing.T, server, name string) {
	conn, err := pgx.Connect(context.Background(), server)
	if err != nil {
		t.Error(err)
		return
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `DROP DATABASE IF EXISTS `+pgx.Identifier{name}.Sanitize()+` WITH (FORCE)`); err != nil {
		t.Error(err)
	}
}
