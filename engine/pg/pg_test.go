package pg_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv("SPELUNK_TEST_INTERRUPTED_DIR"); dir != "" {
		interruptedStartChild(dir)
		return
	}
	pgtest.Main(m)
}

func TestMigrationsAreNumberedWithoutGaps(t *testing.T) {
	ms, err := pg.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) == 0 || ms[0].Version != 1 {
		t.Fatalf("got %d migrations starting at %v, want 0001 first", len(ms), ms)
	}
}

func TestLoadMigrationsRejectsGapsAndDuplicates(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  string
	}{
		{"gap", []string{"0001_a.sql", "0003_c.sql"}, "0002 is missing"},
		{"duplicate", []string{"0001_a.sql", "0001_b.sql"}, "defined twice"},
		{"bad name", []string{"1_a.sql"}, "NNNN_name.sql"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for _, f := range tt.files {
				fsys[f] = &fstest.MapFile{Data: []byte("SELECT 1;")}
			}
			_, err := pg.LoadMigrations(fsys)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestMigrateIsIdempotentAndConcurrent(t *testing.T) {
	url := pgtest.URL(t) // already migrated from the template
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			conn, err := pg.ConnectOwner(ctx, url)
			if err != nil {
				errs[i] = err
				return
			}
			defer conn.Close(ctx)
			n, err := pg.Migrate(ctx, conn)
			if err == nil && n != 0 {
				err = errors.New("re-applied migrations to a migrated database")
			}
			errs[i] = err
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestFreshDatabaseMigratesConcurrently(t *testing.T) {
	ctx := context.Background()
	url := freshDatabase(t)

	var wg sync.WaitGroup
	applied := make([]int, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			conn, err := pg.ConnectOwner(ctx, url)
			if err != nil {
				errs[i] = err
				return
			}
			defer conn.Close(ctx)
			applied[i], errs[i] = pg.Migrate(ctx, conn)
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	ms, _ := pg.Migrations()
	if applied[0]+applied[1] != len(ms) {
		t.Fatalf("applied %v migrations across two processes, want %d in all", applied, len(ms))
	}
}

func TestRefusesNewerSchema(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	conn, err := pg.ConnectOwner(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `INSERT INTO spelunk_schema_migrations (version, name) VALUES (9999, 'from_the_future')`); err != nil {
		t.Fatal(err)
	}
	var before int
	_ = conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname='public'`).Scan(&before)
	_, err = pg.Open(ctx, pg.Options{URL: url})
	if !errors.Is(err, pg.ErrSchemaNewer) || !strings.Contains(err.Error(), "upgrade spelunk") {
		t.Fatalf("got %v, want ErrSchemaNewer naming the fix", err)
	}
	var after int
	_ = conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname='public'`).Scan(&after)
	if before != after {
		t.Fatalf("tables changed from %d to %d on refusal", before, after)
	}
}

func TestBadURLFailsFast(t *testing.T) {
	tests := []struct{ name, url, want string }{
		{"unparsable", "postgres://%zz", "bad database URL"},
		{"nothing listening", "postgres://nobody@127.0.0.1:1/x?sslmode=disable", "cannot connect"},
		{"missing socket dir", "postgres://nobody@/x?host=/nonexistent/dir&sslmode=disable", "cannot connect"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := pg.Open(context.Background(), pg.Options{URL: tt.url})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Fatalf("took %v: a bad URL must fail within seconds", d)
			}
		})
	}
}

// TestTenantIsolation proves RLS: as tenant A, queries with no WHERE clause at all
// see none of tenant B's rows, and A cannot write rows tagged as B.
func TestTenantIsolation(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	a := pgtest.OpenTenant(t, url, "tenant-a")
	b := pgtest.OpenTenant(t, url, "tenant-b")
	if !a.AppRole {
		t.Fatal("the test server should let spelunk act as spelunk_app")
	}
	var repoB int64
	err := b.Pool.QueryRow(ctx, `INSERT INTO repositories (name, root) VALUES ('b', '/b') RETURNING id`).Scan(&repoB)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Pool.Exec(ctx, `INSERT INTO memories (repository_id, id, author, kind, content, content_hash)
		VALUES ($1, gen_random_uuid(), 'agent', 'fact', 'secret of b', 'h')`, repoB); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Pool.Exec(ctx, `INSERT INTO nuggets (repository_id, key, value, author) VALUES ($1, 'k', 'v', 'x')`, repoB); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"repositories", "files", "symbols", "symbol_embeddings", "edges", "postings",
		"memories", "memory_embeddings", "memory_events", "nuggets", "nugget_history",
		"state_compilations", "conflicts", "conflict_exemptions", "memory_anchors"} {
		var n int
		if err := a.Pool.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if n != 0 {
			t.Errorf("tenant A sees %d rows of %s belonging to tenant B", n, table)
		}
	}
	var n int
	if err := b.Pool.QueryRow(ctx, "SELECT count(*) FROM memories").Scan(&n); err != nil || n != 1 {
		t.Fatalf("tenant B sees %d of its own memories (err %v), want 1", n, err)
	}
	_, err = a.Pool.Exec(ctx, `INSERT INTO repositories (tenant_id, name, root) VALUES ('tenant-b', 'x', '/x')`)
	if err == nil || !strings.Contains(err.Error(), "row-level security") {
		t.Fatalf("tenant A wrote a row as tenant B: %v", err)
	}
	// Owner tables are not reachable by the app role for DDL.
	if _, err := a.Pool.Exec(ctx, `DROP TABLE memories`); err == nil {
		t.Fatal("the application role could drop a table")
	}
}

func TestRegisterModelCreatesPartialHNSW(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	m := pg.Model{Name: "test-model-4", Dims: 4}
	for range 2 { // idempotent
		if err := db.RegisterModel(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.RegisterModel(ctx, pg.Model{Name: "test-model-4", Dims: 8}); err == nil {
		t.Fatal("re-registering a model with other dims must fail")
	}
	id, err := db.ModelID(ctx, m.Name)
	if err != nil || id <= 0 {
		t.Fatalf("ModelID = %d, %v", id, err)
	}
	var def string
	err = db.Pool.QueryRow(ctx, `SELECT indexdef FROM pg_indexes WHERE indexname = $1`,
		"symbol_embeddings_"+pg.ModelIndexName(m.Name)).Scan(&def)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"hnsw", "halfvec(4)", "halfvec_cosine_ops", fmt.Sprintf("(model_id = %d)", id)} {
		if !strings.Contains(def, want) {
			t.Errorf("index %q lacks %q", def, want)
		}
	}
}

func TestClusterLifecycle(t *testing.T) {
	c := pgtest.Cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// Two processes starting at once: one cluster, both succeed.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c2, err := pg.NewCluster(c.DataDir)
			if err == nil {
				c2.Throwaway = true
				err = c2.Start(ctx)
			}
			errs[i] = err
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	st, err := c.Status(ctx)
	if err != nil || !st.Running || st.PID == 0 {
		t.Fatalf("status %+v, %v: want running", st, err)
	}
	if err := c.EnsureDatabase(ctx, "spelunk"); err != nil {
		t.Fatal(err)
	}
	ping(t, c.URL("spelunk"))

	// A crash: kill the postmaster hard, leaving postmaster.pid behind.
	proc, _ := os.FindProcess(st.PID)
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, st.PID)
	if _, err := os.Stat(filepath.Join(c.DataDir, "postmaster.pid")); err != nil {
		t.Fatalf("expected a stale pid file after the crash: %v", err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatalf("restart after a crash: %v", err)
	}
	ping(t, c.URL("spelunk"))

	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if st, _ := c.Status(ctx); st.Running {
		t.Fatal("still running after Stop")
	}
}

func ping(t *testing.T, url string) {
	t.Helper()
	conn, err := pg.ConnectOwner(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var one int
	if err := conn.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	for range 200 {
		if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid))); err != nil {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("process %d did not exit", pid)
}

// freshDatabase creates an empty database for this test (dropped after it) and
// returns its owner URL.
func freshDatabase(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	admin, err := pg.ConnectOwner(ctx, pgtest.ServerURL(t))
	if err != nil {
		t.Fatal(err)
	}
	name := strings.ToLower("fresh_" + strings.ReplaceAll(t.Name(), "/", "_"))
	// The connection closes after the drop (a deferred Close ran before the
	// cleanup and left the database behind, failing the next run on the cluster).
	t.Cleanup(func() {
		_, _ = admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		admin.Close(context.Background())
	})
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	return pgtest.WithDatabase(pgtest.ServerURL(t), name)
}

// Two processes opening a new database at once both get a pool on the current
// schema, acting as the application role (whose role and types only exist once
// the first migration has run).
func TestOpenMigratesAFreshDatabase(t *testing.T) {
	url := freshDatabase(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	dbs := make([]*pg.DB, 2)
	errs := make([]error, 2)
	for i := range dbs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			dbs[i], errs[i] = pg.Open(ctx, pg.Options{URL: url})
		}(i)
	}
	wg.Wait()
	ms, _ := pg.Migrations()
	for i, db := range dbs {
		if errs[i] != nil {
			t.Fatalf("open %d: %v", i, errs[i])
		}
		defer db.Close()
		var user string
		var version int
		if err := db.Pool.QueryRow(ctx, `SELECT current_user, (SELECT max(version) FROM spelunk_schema_migrations)`).Scan(&user, &version); err != nil {
			t.Fatal(err)
		}
		if !db.AppRole || user != pg.AppRole || version != len(ms) {
			t.Fatalf("open %d: acting as %q (app role %v) at schema %d, want %s at %d", i, user, db.AppRole, version, pg.AppRole, len(ms))
		}
	}
}
