package pg_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	pgvector "github.com/pgvector/pgvector-go"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// Every pool connection acts as the application role within its tenant, and
// decodes pgvector's types, though Open no longer runs SET ROLE, set_config or
// a type lookup on each one (they are startup parameters and OIDs read once).
func TestPoolConnectionsActAsTheTenantsAppRole(t *testing.T) {
	url := pgtest.URL(t)
	db := pgtest.OpenTenant(t, url, "acme")
	ctx := context.Background()
	for range 3 { // more connections than one, acquired at once
		conns := make([]interface{ Release() }, 0, 3)
		for range 3 {
			c, err := db.Pool.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
			var user, tenant string
			var v pgvector.Vector
			var h pgvector.HalfVector
			err = c.QueryRow(ctx, `SELECT current_user, current_setting('spelunk.tenant'), '[1,2]'::vector, '[3,4]'::halfvec`).Scan(&user, &tenant, &v, &h)
			if err != nil {
				t.Fatal(err)
			}
			if user != pg.AppRole || tenant != "acme" || len(v.Slice()) != 2 || h.Slice()[1] != 4 {
				t.Fatalf("connection acts as %q in tenant %q, vector %v halfvec %v; want %s in acme", user, tenant, v, h, pg.AppRole)
			}
		}
		for _, c := range conns {
			c.Release()
		}
	}
}

// Opening a database whose schema is current takes no migration lock, so a
// process migrating (or stuck holding the lock) does not hold up the others.
func TestOpenOnACurrentSchemaTakesNoMigrationLock(t *testing.T) {
	url := pgtest.URL(t)
	pgtest.OpenTenant(t, url, "default") // migrated
	ctx := context.Background()
	holder, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	if _, err := holder.Exec(ctx, `SELECT pg_advisory_lock($1)`, pg.MigrationLockForTest); err != nil {
		t.Fatal(err)
	}
	octx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	db, err := pg.Open(octx, pg.Options{URL: url})
	if err != nil {
		t.Fatalf("open while another session holds the migration lock: %v", err)
	}
	db.Close()
}
