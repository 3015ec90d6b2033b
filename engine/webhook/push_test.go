package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/search"
	"github.com/spelunkhq/spelunk/engine/webhook"
)

// A delivery that is unsigned or badly signed is refused and logged, and
// changes nothing: no job, no index, no fetch into the clone.
func TestRefusedDeliveriesChangeNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	before := indextest.Git(t, e.dir, "rev-parse", "HEAD")
	after := e.commit(t, "pay/refund.go", "package pay\n\n// Refund gives the money back.\nfunc Refund(cents int) error { return nil }\n")
	body := githubPush("refs/heads/main", after)
	gitlab := []byte(`{"object_kind":"push","ref":"refs/heads/main","after":"` + after + `"}`)
	tests := []struct {
		name    string
		headers map[string]string
		body    []byte
		status  int
	}{
		{"github unsigned", map[string]string{"X-GitHub-Event": "push", "X-GitHub-Delivery": "u-1"}, body, 401},
		{"github wrong secret", map[string]string{"X-GitHub-Event": "push", "X-Hub-Signature-256": signature("guess", body)}, body, 403},
		{"github signature of another body", map[string]string{"X-GitHub-Event": "push",
			"X-Hub-Signature-256": signature(secret, githubPush("refs/heads/main", strings.Repeat("1", 40)))}, body, 403},
		{"github malformed signature", map[string]string{"X-GitHub-Event": "push", "X-Hub-Signature-256": "sha256=not-hex"}, body, 403},
		{"github sha1 only", map[string]string{"X-GitHub-Event": "push", "X-Hub-Signature": "sha1=00"}, body, 401},
		{"gitlab no token", map[string]string{"X-Gitlab-Event": "Push Hook"}, gitlab, 401},
		{"gitlab wrong token", map[string]string{"X-Gitlab-Event": "Push Hook", "X-Gitlab-Token": secret[:len(secret)-1]}, gitlab, 403},
	}
	for _, tt := range tests {
		if status, resp := e.post(t, tt.headers, tt.body); status != tt.status {
			t.Errorf("%s: status %d (%s), want %d", tt.name, status, resp, tt.status)
		}
	}
	if js := e.jobs(t); len(js) != 0 {
		t.Errorf("jobs %+v: a refused delivery queued work", js)
	}
	if got := e.find(t, "Refund"); len(got) != 0 {
		t.Errorf("Refund indexed after refused deliveries: %+v", got)
	}
	if head := indextest.Git(t, e.dir, "rev-parse", "HEAD"); head != before {
		t.Errorf("clone moved from %s to %s", before, head)
	}
	if _, err := e.db.RepositoryByRoot(context.Background(), e.dir); err == nil {
		t.Errorf("the repository was registered by refused deliveries")
	}
	logs := e.logs.String()
	if n := strings.Count(logs, "result=refused"); n != len(tests) {
		t.Errorf("%d refused lines, want %d:\n%s", n, len(tests), logs)
	}
	for _, want := range []string{"no X-Hub-Signature-256 header", "does not match the body", "no X-Gitlab-Token header",
		"X-Gitlab-Token does not match", "delivery=u-1"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, secret) {
		t.Errorf("the log shows the secret:\n%s", logs)
	}
}

// A signed push is fetched, checked out in the clone and indexed: the new
// commit's definitions are searchable, and the next push is incremental.
func TestGitHubPushIndexesTheCommit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	after := e.commit(t, "pay/refund.go", "package pay\n\n// Refund gives the money back.\nfunc Refund(cents int) error { return nil }\n")
	if status, resp := e.deliverGitHub(t, "gh-1", after); status != 202 || !strings.Contains(resp, `"accepted"`) {
		t.Fatalf("status %d %s, want 202 accepted", status, resp)
	}
	e.waitDone(t, 1)
	if got := e.find(t, "Refund"); len(got) != 1 || got[0].Path != "pay/refund.go" || got[0].Revision != after {
		t.Fatalf("Refund: %+v, want one definition in pay/refund.go at %s", got, after)
	}
	if got := e.lastCommit(t); got != after {
		t.Errorf("index at %s, want %s", got, after)
	}
	if head := indextest.Git(t, e.dir, "rev-parse", "HEAD"); head != after {
		t.Errorf("clone HEAD %s, want the pushed %s", head, after)
	}
	rec, err := e.db.RepositoryByRoot(context.Background(), e.dir)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := search.New(e.db, rec.ID, indextest.Embedder()).Search(context.Background(), "Refund", search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) == 0 || resp.Results[0].Name != "Refund" {
		t.Errorf("search Refund: %+v, want Refund first", resp.Results)
	}

	// A second push renames a definition: the old one leaves the index.
	second := e.commit(t, "pay/refund.go", "package pay\n\n// Reimburse gives the money back.\nfunc Reimburse(cents int) error { return nil }\n")
	if status, resp := e.deliverGitHub(t, "gh-2", second); status != 202 {
		t.Fatalf("second push: status %d %s", status, resp)
	}
	e.waitDone(t, 2)
	if got := e.find(t, "Reimburse"); len(got) != 1 {
		t.Errorf("Reimburse: %+v, want one", got)
	}
	if got := e.find(t, "Refund"); len(got) != 0 {
		t.Errorf("Refund still indexed after it was renamed: %+v", got)
	}
	if got := e.find(t, "Charge"); len(got) != 1 {
		t.Errorf("Charge (untouched file): %+v, want one", got)
	}
	if n := strings.Count(e.logs.String(), "msg=\"webhook indexed\""); n != 2 {
		t.Errorf("%d indexed lines, want 2:\n%s", n, e.logs)
	}
}

// The same delivery sent twice (a redelivery) queues one job and one run,
// whether the second copy arrives while the first is queued or after it ran.
func TestSameDeliveryTwiceIsIndexedOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	after := e.commit(t, "pay/refund.go", "package pay\n\nfunc Refund() {}\n")
	first, _ := e.deliverGitHub(t, "gh-dup", after)
	again, resp := e.deliverGitHub(t, "gh-dup", after)
	if first != 202 || again != 200 || !strings.Contains(resp, `"duplicate"`) {
		t.Fatalf("statuses %d then %d (%s), want 202 then 200 duplicate", first, again, resp)
	}
	js := e.waitDone(t, 1)
	late, resp := e.deliverGitHub(t, "gh-dup", after)
	if late != 200 || !strings.Contains(resp, fmt.Sprintf(`"job":%d`, js[0].ID)) {
		t.Errorf("redelivery after the run: %d %s, want 200 naming job %d", late, resp, js[0].ID)
	}
	// Without a delivery id (an old GitLab), the pushed commit is the key.
	body := []byte(`{"object_kind":"push","ref":"refs/heads/main","after":"` + after + `"}`)
	for range 2 {
		e.post(t, map[string]string{"X-Gitlab-Event": "Push Hook", "X-Gitlab-Token": secret}, body)
	}
	js = e.waitDone(t, 2)
	if len(js) != 2 || js[0].Delivery != "gh-dup" || js[1].Delivery != "sha:"+after {
		t.Fatalf("jobs %+v: want one for gh-dup and one for sha:%s", js, after)
	}
	for _, j := range js {
		if j.State != "completed" || j.Attempt != 1 {
			t.Errorf("job %+v: want completed on its first attempt", j)
		}
	}
	if n := strings.Count(e.logs.String(), "msg=\"webhook indexed\""); n != 2 {
		t.Errorf("%d index runs, want 2 (one per distinct delivery):\n%s", n, e.logs)
	}
	if n := strings.Count(e.logs.String(), "result=duplicate"); n != 3 {
		t.Errorf("%d duplicate lines, want 3", n)
	}
}

// GitLab's token header is the credential; Idempotency-Key names the delivery.
func TestGitLabPush(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	after := e.commit(t, "ship/ship.go", "package ship\n\n// Dispatch sends the parcel.\nfunc Dispatch() {}\n")
	body := []byte(`{"object_kind":"push","ref":"refs/heads/main","before":"` + strings.Repeat("0", 40) + `","after":"` + after +
		`","project":{"path_with_namespace":"acme/shop"}}`)
	status, resp := e.post(t, map[string]string{"X-Gitlab-Event": "Push Hook", "X-Gitlab-Token": secret,
		"Idempotency-Key": "gl-1"}, body)
	if status != 202 {
		t.Fatalf("status %d %s, want 202", status, resp)
	}
	js := e.waitDone(t, 1)
	if js[0].State != "completed" || js[0].Delivery != "gl-1" {
		t.Fatalf("job %+v", js[0])
	}
	if got := e.find(t, "Dispatch"); len(got) != 1 {
		t.Fatalf("Dispatch: %+v, want one", got)
	}
	if !strings.Contains(e.logs.String(), "provider=gitlab") {
		t.Errorf("log does not name the provider:\n%s", e.logs)
	}
}

// Pushes of other branches and tags, deleted branches and pings are answered
// and logged but queue nothing: the index follows the clone's branch only.
func TestOtherPushesAreIgnored(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	sha := strings.Repeat("a", 40)
	for _, b := range [][]byte{githubPush("refs/heads/feature", sha), githubPush("refs/tags/v1.0.0", sha),
		githubPush("refs/heads/main", strings.Repeat("0", 40))} {
		status, resp := e.post(t, map[string]string{"X-GitHub-Event": "push", "X-Hub-Signature-256": signature(secret, b)}, b)
		if status != 200 || !strings.Contains(resp, `"ignored"`) {
			t.Errorf("%s: %d %s, want 200 ignored", b, status, resp)
		}
	}
	ping := []byte(`{"zen":"Design for failure."}`)
	if status, _ := e.post(t, map[string]string{"X-GitHub-Event": "ping", "X-Hub-Signature-256": signature(secret, ping)}, ping); status != 200 {
		t.Errorf("ping: %d, want 200", status)
	}
	if js := e.jobs(t); len(js) != 0 {
		t.Errorf("jobs %+v, want none", js)
	}
	logs := e.logs.String()
	for _, want := range []string{"the index follows main only", "is not a branch", "was deleted", `event=ping`} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}

// A job whose fetch fails (the remote is gone for a while) is retried and
// indexes the push once the remote is back.
func TestFailedJobIsRetried(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	after := e.commit(t, "pay/refund.go", "package pay\n\nfunc Refund() {}\n")
	moved := e.remote + ".away"
	if err := os.Rename(e.remote, moved); err != nil {
		t.Fatal(err)
	}
	if status, _ := e.deliverGitHub(t, "gh-retry", after); status != 202 {
		t.Fatalf("status %d", status)
	}
	waitFor(t, "a failed attempt", func() (bool, string) {
		js := e.jobs(t)
		return len(js) == 1 && js[0].Errors > 0, fmt.Sprintf("%+v", js)
	})
	if err := os.Rename(moved, e.remote); err != nil {
		t.Fatal(err)
	}
	js := e.waitDone(t, 1)
	if js[0].State != "completed" || js[0].Attempt < 2 {
		t.Fatalf("job %+v: want completed on a retry", js[0])
	}
	if got := e.find(t, "Refund"); len(got) != 1 {
		t.Fatalf("Refund: %+v, want one", got)
	}
	if logs := e.logs.String(); !strings.Contains(logs, `msg="webhook index failed"`) || !strings.Contains(logs, "retried with backoff") {
		t.Errorf("the failure is not logged:\n%s", logs)
	}
}

// A job left running by a server that died (killed mid-run) is rescued by the
// next server and run again to completion.
func TestStuckJobIsRescuedAfterRestart(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{noStart: true})
	after := e.commit(t, "pay/refund.go", "package pay\n\nfunc Refund() {}\n")
	if status, _ := e.deliverGitHub(t, "gh-stuck", after); status != 202 {
		t.Fatalf("status %d", status)
	}
	// What a server killed during the run leaves behind: the job running, its
	// attempt started long ago by a client that is gone.
	_, err := e.owner.Exec(context.Background(), `UPDATE river.river_job SET state = 'running', attempt = 1,
		attempted_at = now() - interval '3 hours', attempted_by = ARRAY['killed-server']`)
	if err != nil {
		t.Fatal(err)
	}
	e.start(t)
	js := e.waitDone(t, 1)
	if js[0].State != "completed" || js[0].Attempt != 2 {
		t.Fatalf("job %+v: want completed on attempt 2", js[0])
	}
	if got := e.find(t, "Refund"); len(got) != 1 {
		t.Fatalf("Refund: %+v, want one", got)
	}
}

// With CatchUp, a start indexes the branch even if no delivery arrives: pushes
// made while no server listened are not lost.
func TestCatchUpAtStart(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{catchUp: true})
	e.waitDone(t, 1)
	if got := e.find(t, "Charge"); len(got) != 1 {
		t.Fatalf("Charge: %+v, want one after the catch-up", got)
	}
}

// One server per repository: a second one on the same clone is refused, so
// two never fetch into and reset the same work tree.
func TestSecondServerIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{noStart: true})
	_, err := webhook.New(context.Background(), webhook.Config{DB: e.db, Embedder: indextest.Embedder(), Dir: e.dir, Secret: []byte(secret)})
	if !errors.Is(err, webhook.ErrBusy) {
		t.Fatalf("second server: %v, want ErrBusy", err)
	}
}
