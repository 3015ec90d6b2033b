package learn

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/embed"
)

func codeModel(t *testing.T) *embed.Static {
	t.Helper()
	m, err := embed.LoadCode()
	if err != nil {
		t.Fatalf("the built-in code model is part of the repository: %v", err)
	}
	return m
}

// topics builds examples whose query words and code tokens are drawn from
// disjoint random parts of the vocabulary, one association per topic: what
// the shipped model cannot know and a repository's pairs can teach.
func topics(m *embed.Static, n, perTopic int, seed uint64) []Example {
	rng := rand.New(rand.NewPCG(seed, 1))
	word := func(t, k int) string { return m.Word(int32(2000 + t*40 + k)) }
	var ex []Example
	for range n {
		t := rng.IntN(perTopic)
		var q, c []string
		for range 3 {
			q = append(q, word(t, rng.IntN(8)))
			c = append(c, word(t, 20+rng.IntN(12)))
		}
		for range 6 {
			c = append(c, m.Word(int32(5000+rng.IntN(20000)))) // noise the code carries
		}
		ex = append(ex, Example{Query: m.Bag(strings.Join(q, " ")), Code: m.Bag(strings.Join(c, " "))})
	}
	return ex
}

func TestTuneLearnsAnAssociation(t *testing.T) {
	m := codeModel(t)
	train, held := topics(m, 1200, 25, 1), topics(m, 200, 25, 2)
	rows, losses, err := Tune(context.Background(), m, train, TuneOptions{Epochs: 4})
	if err != nil {
		t.Fatal(err)
	}
	before, after := Score(m, nil, held), Score(m, rows, held)
	t.Logf("held-out MRR %.3f -> %.3f, losses %.3f, %d rows", before, after, losses, len(rows))
	if after < before+0.1 || losses[len(losses)-1] >= losses[0] {
		t.Fatalf("held-out MRR %.3f -> %.3f, losses %v: nothing learned", before, after, losses)
	}
	// Only rows the examples use change.
	used := map[int32]bool{}
	for _, e := range train {
		for _, id := range append(append([]int32{}, e.Query.IDs...), e.Code.IDs...) {
			used[id] = true
		}
	}
	for id := range rows {
		if !used[id] {
			t.Fatalf("row %d (%q) changed but no example uses it", id, m.Word(id))
		}
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func commitFile(t *testing.T, dir, path, content, msg string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, path), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", path)
	git(t, dir, "commit", "-q", "-m", msg)
	return git(t, dir, "rev-parse", "HEAD")
}

// --rev learns from the tree and history as of a commit, and nothing later:
// the time split that measures it honestly depends on it.
func TestLearnReadsTheRepositoryAsOfRev(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	first := commitFile(t, dir, "refund.go", `package shop

// Refund returns the customer's money for an order that was cancelled before shipping.
func Refund(order int) error {
	return nil
}

// Reserve holds the stock of an order until the payment clears or times out.
func Reserve(order int) error {
	return nil
}
`, "add refunds and reservations for cancelled orders")
	commitFile(t, dir, "outbox.go", `package shop

// DedupeOutbox drops the reminder e-mails that would otherwise go out twice.
func DedupeOutbox(ids []int) []int {
	return ids
}
`, "stop sending the same reminder e-mail twice")
	m := codeModel(t)
	ctx := context.Background()
	old, err := Learn(ctx, dir, m, Options{Rev: first, Holdout: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	now, err := Learn(ctx, dir, m, Options{Holdout: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	if old.Pairs["doc"] != 2 || old.Pairs["commit"] != 2 || now.Pairs["doc"] != 3 || now.Pairs["commit"] != 3 {
		t.Fatalf("pairs as of the first commit %v, now %v", old.Pairs, now.Pairs)
	}
	if old.Name == now.Name || old.Name == m.Name() || !strings.HasPrefix(old.Name, m.Meta().Name+"-learned-") {
		t.Fatalf("names %q and %q over %q", old.Name, now.Name, m.Name())
	}
	if _, err := embed.LoadStatic(now.Model); err != nil {
		t.Fatal(err)
	}
	if _, err := Learn(ctx, dir, m, Options{Rev: "no-such-rev"}); err == nil || !strings.Contains(err.Error(), "no-such-rev") {
		t.Fatalf("an unknown revision: %v", err)
	}
}
