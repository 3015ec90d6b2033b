package pg_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// TestEmbeddedClusterLeavesLittleWAL starts an embedded cluster as spelunk
// does and checks its bulk-phase WAL settings (issue 39): minimal WAL, so a
// table built in one transaction (as CLUSTER, VACUUM FULL and index builds
// write theirs) writes almost none, and a checkpoint deletes what a load wrote.
func TestEmbeddedClusterLeavesLittleWAL(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	data := filepath.Join(clusterRoot(t), "pg")
	c, err := pg.NewCluster(data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop(context.Background()) })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err := pg.ConnectOwner(ctx, c.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for name, want := range map[string]string{"wal_level": "minimal", "wal_recycle": "off"} {
		var got string
		if err := conn.QueryRow(ctx, "SHOW "+name).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
	// 32 MB of rows created and filled in one transaction: WAL-logged,
	// they would be as much WAL again.
	walBytes := func() int64 {
		var lsn int64
		if err := conn.QueryRow(ctx, `SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint`).Scan(&lsn); err != nil {
			t.Fatal(err)
		}
		return lsn
	}
	before := walBytes()
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `CREATE TABLE big AS SELECT g AS id, repeat('x', 300) AS body FROM generate_series(1, 100000) g`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if wrote := walBytes() - before; wrote > 4<<20 {
		t.Errorf("a table built in its own transaction wrote %d bytes of WAL, want well under its 32 MB", wrote)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO big SELECT g, repeat('y', 300) FROM generate_series(1, 100000) g`); err != nil {
		t.Fatal(err)
	}
	if err := c.EnsureDatabase(ctx, "spelunk"); err != nil {
		t.Fatal(err)
	}
	db, err := pg.Open(ctx, pg.Options{URL: c.URL("spelunk")})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	done, err := db.Checkpoint(ctx)
	if err != nil || !done {
		t.Fatalf("checkpoint as a superuser: %v, %v", done, err)
	}
	if n := walFiles(t, filepath.Join(data, "pg_wal")); n > 2 {
		t.Errorf("%d WAL segments after the checkpoint, want at most 2", n)
	}
}

// walFiles counts the WAL segments in dir.
func walFiles(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() && len(e.Name()) == 24 {
			n++
		}
	}
	return n
}
