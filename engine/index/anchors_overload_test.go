package index_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// overloaded is a Python module whose function has typing overloads before
// its definition: three definitions of one qualified name.
const overloaded = `import typing as t


@t.overload
def completion_class(shell: t.Literal["bash"]) -> int: ...
@t.overload
def completion_class(shell: str) -> int | None: ...
def completion_class(shell: str) -> int | None:
    return len(shell)


def other(x):
    return x
`

// anchorOverload indexes root (comp.py written) and adds a memory anchored to
// comp.py:8, the definition after the overloads.
func anchorOverload(t *testing.T, root string) (*index.Indexer, *memory.Store, memory.Added) {
	t.Helper()
	indextest.Git(t, root, "init", "-q", "-b", "main")
	ctx := context.Background()
	db := pgtest.Open(t)
	ix := index.New(db, hashing())
	sum, err := ix.Index(ctx, root, index.Options{WorkingTree: true})
	if err != nil {
		t.Fatal(err)
	}
	st := memory.New(db, sum.RepositoryID, memory.Options{Embedder: hashing()})
	a, err := st.Add(ctx, memory.NewMemory{Kind: memory.KindRule, Author: "alice",
		Text: "the shell lookup must stay total", Anchors: []string{"comp.py:8"}})
	if err != nil {
		t.Fatal(err)
	}
	return ix, st, a
}

// TestAnchorOnAnOverloadStaysCurrent: a memory anchored (path:line) to a
// function that has overloads before it stays current when another
// definition of its file changes: the check compared the anchor with the
// first definition of its name, an overload, and sent the memory to review
// though its definition never changed (found by the soak on click's
// shell_completion.py, issue 36).
func TestAnchorOnAnOverloadStaysCurrent(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ovl")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile := func(s string) {
		if err := os.WriteFile(filepath.Join(root, "comp.py"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(overloaded)
	ctx := context.Background()
	ix, st, a := anchorOverload(t, root)
	if len(a.Memory.Anchors) != 1 || a.Memory.Anchors[0].Name != "completion_class" {
		t.Fatalf("anchors %+v, want completion_class", a.Memory.Anchors)
	}
	writeFile(overloaded + "\n\ndef more(y):\n    return y\n")
	if _, err := ix.Index(ctx, root, index.Options{Paths: []string{"comp.py"}}); err != nil {
		t.Fatal(err)
	}
	m, err := st.Get(ctx, a.Memory.ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != memory.StatusActive || m.Anchors[0].State != memory.AnchorCurrent {
		t.Fatalf("after an edit elsewhere in the file: %s, anchors %+v (reason %q)", m.Status, m.Anchors, m.StatusReason)
	}
}

// TestReviewOfAnOverloadReadsTheAnchoredDefinition: when the definition a
// memory is anchored to, with overloads before it, changes, the review's
// diff is of that definition (not of the first overload, which never
// changed), and confirming re-pins the anchor to it, so that its next
// change sends the memory to review again (re-pinned to the first overload,
// the anchor never saw a change again).
func TestReviewOfAnOverloadReadsTheAnchoredDefinition(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ovl")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(body string) {
		s := strings.Replace(overloaded, "    return len(shell)\n", body, 1)
		if err := os.WriteFile(filepath.Join(root, "comp.py"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("    return len(shell)\n")
	ctx := context.Background()
	ix, st, a := anchorOverload(t, root)
	edit := func(body string) memory.Memory {
		t.Helper()
		write(body)
		if _, err := ix.Index(ctx, root, index.Options{Paths: []string{"comp.py"}}); err != nil {
			t.Fatal(err)
		}
		m, err := st.Get(ctx, a.Memory.ID)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := edit("    return len(shell) + 1\n"); m.Status != memory.StatusNeedsReview {
		t.Fatalf("after the anchored definition changed: %s, anchors %+v", m.Status, m.Anchors)
	}
	items, err := st.Review(ctx)
	if err != nil || len(items) != 1 || len(items[0].Anchors) != 1 {
		t.Fatalf("review: %+v, %v; want the one memory with its anchor", items, err)
	}
	diff := items[0].Anchors[0].Diff
	if !strings.Contains(diff, "-    return len(shell)\n") || !strings.Contains(diff, "+    return len(shell) + 1\n") || strings.Contains(diff, "Literal") {
		t.Errorf("review diff is not of the anchored definition:\n%s", diff)
	}
	if _, err := st.Confirm(ctx, a.Memory.ID, "alice", ""); err != nil {
		t.Fatal(err)
	}
	if m := edit("    return len(shell) + 2\n"); m.Status != memory.StatusNeedsReview {
		t.Errorf("after a confirm, the anchored definition changed again: %s, anchors %+v; want NEEDS_REVIEW", m.Status, m.Anchors)
	}
}
