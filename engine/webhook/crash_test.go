package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/engine/webhook"
)

// A server killed (SIGKILL) in the middle of a job's index run leaves the job
// running and the index half written; the next server rescues the job, runs
// it again to completion, and the index then holds exactly the rows of a
// clean index of the pushed commit.
func TestJobKilledMidRunResumesOnRestart(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{noStart: true})
	for i := range 300 {
		full := filepath.Join(e.dev, fmt.Sprintf("gen/d%02d/f%03d.go", i%10, i))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, fmt.Appendf(nil, "package d%02d\n\n// Gen%03d is generated.\nfunc Gen%03d() int { return Gen%03d() }\n",
			i%10, i, i, (i+10)%300), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	after := e.commit(t, "pay/refund.go", "package pay\n\nfunc Refund() error { return Charge(1) }\n")
	if status, resp := e.deliverGitHub(t, "gh-killed", after); status != 202 {
		t.Fatalf("status %d %s", status, resp)
	}
	// The job waits in the queue: the server that took it never started.
	// Its lock goes to the child, which works the job and dies mid-run.
	e.svc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SPELUNK_WEBHOOK_CRASH_CHILD=1", "SPELUNK_WEBHOOK_CRASH_URL="+e.db.URL,
		"SPELUNK_WEBHOOK_CRASH_DIR="+e.dir)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child server should die by SIGKILL mid-run, got %v\n%s", err, out)
	}
	if js := e.jobs(t); len(js) != 1 || js[0].State != "running" || js[0].Attempt != 1 {
		t.Fatalf("jobs after the kill %+v: want one running on its first attempt\n%s", js, out)
	}
	var files int
	var midRun bool
	err = e.db.Pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM files), indexing_started IS NOT NULL
		FROM repositories WHERE root = $1`, e.dir).Scan(&files, &midRun)
	if err != nil || files == 0 || !midRun || e.lastCommit(t) == after {
		t.Fatalf("after the kill: %d files, mid-run %v, err %v: the child did not die mid-run; the test proves nothing\n%s", files, midRun, err, out)
	}

	t.Logf("killed mid-run with %d files written", files)

	// River rescues a job still running RescueStuckJobsAfter (JobTimeout + 15
	// min) after its attempt began; a test cannot wait that long, so the
	// attempt is made that old.
	if _, err := e.owner.Exec(context.Background(), `UPDATE river.river_job SET attempted_at = now() - interval '3 hours'`); err != nil {
		t.Fatal(err)
	}
	if e.svc, err = webhook.New(context.Background(), webhook.Config{DB: e.db, Embedder: indextest.Embedder(), Dir: e.dir,
		Secret: []byte(secret), Logger: slog.New(slog.NewTextHandler(e.logs, nil)), RetryDelay: time.Second}); err != nil {
		t.Fatal(err)
	}
	e.start(t)
	if js := e.waitDone(t, 1); js[0].State != "completed" || js[0].Attempt != 2 {
		t.Fatalf("job %+v: want completed on attempt 2", js[0])
	}
	if got := e.lastCommit(t); got != after {
		t.Fatalf("index at %s, want %s", got, after)
	}
	rec, err := e.db.RepositoryByRoot(context.Background(), e.dir)
	if err != nil {
		t.Fatal(err)
	}
	clean := pgtest.Open(t)
	sum, err := index.New(clean, indextest.Embedder()).Index(context.Background(), e.dir, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := indextest.DiffRows(indextest.Rows(t, e.db, rec.ID), indextest.Rows(t, clean, sum.RepositoryID), 40); d != "" {
		t.Fatalf("the resumed index differs from a clean one: %s", d)
	}
}

// killingEmbedder kills its process on its first batch: by then the index
// run has committed files and not finished.
type killingEmbedder struct{ *embed.Hashing }

func (k killingEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	fmt.Println("child: killing myself at the first embedding batch")
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	time.Sleep(time.Minute)
	return nil, errors.New("not killed")
}

// crashChild is the server TestJobKilledMidRunResumesOnRestart kills.
func crashChild() {
	ctx := context.Background()
	db, err := pg.Open(ctx, pg.Options{URL: os.Getenv("SPELUNK_WEBHOOK_CRASH_URL"), Tenant: pg.DefaultTenant})
	if err != nil {
		fmt.Println("child:", err)
		os.Exit(3)
	}
	svc, err := webhook.New(ctx, webhook.Config{DB: db, Embedder: killingEmbedder{indextest.Embedder()},
		Dir: os.Getenv("SPELUNK_WEBHOOK_CRASH_DIR"), Secret: []byte(secret)})
	if err == nil {
		err = svc.Start(ctx)
	}
	if err != nil {
		fmt.Println("child:", err)
		os.Exit(3)
	}
	time.Sleep(waitLimit)
	fmt.Println("child: the job never reached the embedder")
	os.Exit(4)
}
