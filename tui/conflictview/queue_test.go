package conflictview

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func conflicts(ids ...string) []Conflict {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var out []Conflict
	for i, id := range ids {
		out = append(out, Conflict{ID: id, CreatedAt: t0.Add(time.Duration(i) * time.Hour)})
	}
	return out
}

// state renders a queue as "A [B] C" (current in brackets) for table tests.
func state(q *Queue) string {
	var parts []string
	for i, c := range q.Items() {
		if i == q.Pos() {
			parts = append(parts, "["+c.ID+"]")
		} else {
			parts = append(parts, c.ID)
		}
	}
	return strings.Join(parts, " ")
}

func TestQueue(t *testing.T) {
	type step struct {
		op   string // next, prev, skip, resolve:ID, undo, reset:IDS
		want string
	}
	tests := []struct {
		name  string
		start []string
		steps []step
	}{
		{"navigation wraps", []string{"A", "B", "C"}, []step{
			{"next", "A [B] C"}, {"next", "A B [C]"}, {"next", "[A] B C"}, {"prev", "A B [C]"}, {"skip", "[A] B C"},
		}},
		{"resolving the current one shows the next", []string{"A", "B", "C"}, []step{
			{"next", "A [B] C"}, {"resolve:B", "A [C]"}, {"resolve:C", "[A]"}, {"resolve:A", ""},
		}},
		{"resolving one before the current keeps the current", []string{"A", "B", "C"}, []step{
			{"next", "A [B] C"}, {"next", "A B [C]"}, {"resolve:A", "B [C]"},
		}},
		{"undo puts it back where it was, current", []string{"A", "B", "C"}, []step{
			{"next", "A [B] C"}, {"resolve:B", "A [C]"}, {"resolve:C", "[A]"},
			{"undo", "A [C]"}, {"undo", "A [B] C"}, {"undo", "A [B] C"},
		}},
		{"unknown ids change nothing", []string{"A"}, []step{{"resolve:Z", "[A]"}}},
		{"reset keeps the current conflict when still open", []string{"A", "B", "C"}, []step{
			{"next", "A [B] C"}, {"reset:C,B,D", "C [B] D"}, {"reset:C,D", "[C] D"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := NewQueue(conflicts(tt.start...))
			for _, s := range tt.steps {
				op, arg, _ := strings.Cut(s.op, ":")
				switch op {
				case "next":
					q.Next()
				case "prev":
					q.Prev()
				case "skip":
					q.Skip()
				case "resolve":
					q.Resolve(arg, Resolution{Action: KeepBoth})
				case "undo":
					q.Undo()
				case "reset":
					q.Reset(conflicts(strings.Split(arg, ",")...))
				}
				if got := state(q); got != s.want {
					t.Fatalf("after %s: got %q, want %q", s.op, got, s.want)
				}
			}
		})
	}
}

func TestQueueOrdersOldestFirstAndCounts(t *testing.T) {
	cs := conflicts("A", "B", "C")
	cs[0].CreatedAt, cs[2].CreatedAt = cs[2].CreatedAt, cs[0].CreatedAt // C is now the oldest
	q := NewQueue(cs)
	if got := state(q); got != "[C] B A" {
		t.Fatalf("order %q, want oldest first", got)
	}
	q.Skip()
	q.Resolve("B", Resolution{Action: KeepOne, Memory: "m1"})
	if q.Resolved() != 1 || q.Skipped() != 1 || q.Len() != 2 {
		t.Fatalf("counts: resolved %d skipped %d len %d", q.Resolved(), q.Skipped(), q.Len())
	}
	c, res, ok := q.LastResolved()
	if !ok || c.ID != "B" || res.Memory != "m1" {
		t.Fatalf("last resolved %v %v %v", c.ID, res, ok)
	}
}

func TestMergeTemplateRoundTrip(t *testing.T) {
	c := Conflict{Sides: []Side{{Kind: "fact", Author: "a", Content: "Port 8080.\n"}, {Kind: "fact", Author: "b", Content: "Port 9090."}}}
	tmpl := mergeTemplate(c)
	if !strings.Contains(tmpl, "# --- A: fact by a ---") || !strings.Contains(tmpl, "# --- B: fact by b ---") {
		t.Fatalf("template lacks the side markers:\n%s", tmpl)
	}
	if got := stripComments(tmpl); got != "Port 8080.\nPort 9090." {
		t.Fatalf("stripped %q", got)
	}
	if got := stripComments("# only comments\n\n"); got != "" {
		t.Fatalf("a template left as is gives %q, want empty (cancel)", got)
	}
}

// TestExternalEditorMerge runs the $EDITOR path up to the resolution: the
// template is written, the "editor" (a shell command) edits it, and what it left
// becomes the merge.
func TestExternalEditorMerge(t *testing.T) {
	c := Conflict{ID: "c1", Sides: []Side{{ID: "a", Kind: "fact", Author: "x", Content: "Port 8080."}, {ID: "b", Kind: "fact", Author: "y", Content: "Port 9090."}}}
	m := &Model{cfg: Config{Editor: "an-editor"}, q: NewQueue([]Conflict{c})}
	ready, ok := m.startMerge(c)().(editorReadyMsg)
	if !ok || ready.err != nil {
		t.Fatalf("editor not prepared: %+v", ready)
	}
	data, err := os.ReadFile(ready.path)
	if err != nil || !strings.Contains(string(data), "Port 9090.") {
		t.Fatalf("template %q: %v", data, err)
	}
	// What tea.ExecProcess does: run the command, then call back.
	args := []string{"-c", `printf '# header\nPort 8081 now.\n' > "$0"`, ready.path}
	err = exec.Command("sh", args...).Run()
	got := finishEdit(ready.id, ready.path, err).(editedMsg)
	if got.err != nil || got.text != "Port 8081 now." || got.id != "c1" {
		t.Fatalf("edited %+v", got)
	}
	if _, err := os.Stat(ready.path); !os.IsNotExist(err) {
		t.Errorf("the temp file was left behind")
	}
	if got := finishEdit("c1", ready.path, errors.New("editor exited 1")).(editedMsg); got.err == nil {
		t.Errorf("a failing editor gave no error")
	}
}
