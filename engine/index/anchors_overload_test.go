package index_test

import (
	"context"
	"os"
	"path/filepath"
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
