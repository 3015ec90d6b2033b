package indextest

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The change generator of the differential tests (engine/index
// differential_test.go): random edits to a repository's tree that move the
// graph — definitions added, removed, moved from one file to another, their
// signatures and callees changed; files added, deleted, renamed and moved;
// commits and branch switches. Each Op carries its random numbers and is
// resolved against the tree when applied, so any subsequence of a sequence is
// a valid sequence too: a failing one can be shrunk by leaving ops out.

// OpKind names one kind of change.
type OpKind string

// The kinds of change.
const (
	OpAddDef     OpKind = "add-definition"
	OpRemoveDef  OpKind = "remove-definition"
	OpMoveDef    OpKind = "move-definition"
	OpChangeDef  OpKind = "change-definition"
	OpTouch      OpKind = "touch-file"
	OpAddFile    OpKind = "add-file"
	OpDeleteFile OpKind = "delete-file"
	OpRenameFile OpKind = "rename-file"
	OpCommit     OpKind = "commit"
	OpSwitch     OpKind = "switch-branch"
)

// opWeight is how often a kind of change is drawn, relative to the others.
type opWeight struct {
	kind   OpKind
	weight int
}

var opWeights = []opWeight{
	{OpAddDef, 6}, {OpRemoveDef, 3}, {OpMoveDef, 3}, {OpChangeDef, 4}, {OpTouch, 2},
	{OpAddFile, 2}, {OpDeleteFile, 1}, {OpRenameFile, 2}, {OpCommit, 3}, {OpSwitch, 1},
}

// Op is one change with the random numbers that pick its files and names.
type Op struct {
	Kind OpKind
	ID   int        // the definition an add or a new file defines (gen<ID>)
	R    [6]float64 // picks: file, definition, callee, shape; the run after it, where to stop it
}

func (o Op) String() string { return fmt.Sprintf("%s#%d%.3v", o.Kind, o.ID, o.R) }

// Ops generates n changes from seed.
func Ops(seed uint64, n int) []Op {
	return drawOps(rand.New(rand.NewPCG(seed, seed^0x5eed)), opWeights, n)
}

// drawOps draws n changes of the weighted kinds, each with its random numbers.
func drawOps(rng *rand.Rand, weights []opWeight, n int) []Op {
	total := 0
	for _, w := range weights {
		total += w.weight
	}
	out := make([]Op, n)
	for i := range out {
		k := rng.IntN(total)
		for _, w := range weights {
			if k -= w.weight; k < 0 {
				out[i].Kind = w.kind
				break
			}
		}
		out[i].ID = i + 1
		for j := range out[i].R {
			out[i].R[j] = rng.Float64()
		}
	}
	return out
}

// Tree applies Ops to a git repository.
type Tree struct {
	t       testing.TB
	Root    string
	names   map[string][]string // language -> every name generated so far, removed or not
	types   map[string][]string // language -> class and type names a base can be (real trees)
	branch  string
	touched map[string]bool // paths changed since ResetTouched
	// Committed is set by a commit or a branch switch since ResetTouched.
	Committed bool
}

// NewTree wraps the repository at root, on branch main, for Apply.
func NewTree(t testing.TB, root string) *Tree {
	return &Tree{t: t, Root: root, branch: "main", touched: map[string]bool{},
		names: map[string][]string{
			"go": {"Total", "Add", "Do", "Issue", "Parse"},
			"py": {"compute_tax", "round_money", "retry_with_backoff", "close"},
			"js": {"retryWithBackoff", "record", "send", "limit"},
			"ts": {"retryWithBackoff", "record", "charge", "pointsFor"},
		}}
}

// Touched lists the paths changed since ResetTouched, sorted.
func (tr *Tree) Touched() []string {
	out := make([]string, 0, len(tr.touched))
	for p := range tr.touched {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// ResetTouched starts a new set of changed paths (after a run saw them).
func (tr *Tree) ResetTouched() { tr.touched, tr.Committed = map[string]bool{}, false }

var genExt = []string{".go", ".py", ".js", ".ts"}

// sources lists the tree's files of the generated languages, sorted.
func (tr *Tree) sources() []string {
	var out []string
	_ = filepath.WalkDir(tr.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() && slices.Contains(genExt, filepath.Ext(p)) {
			rel, _ := filepath.Rel(tr.Root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out
}

func pick[T any](xs []T, r float64) (T, bool) {
	var zero T
	if len(xs) == 0 {
		return zero, false
	}
	return xs[min(int(r*float64(len(xs))), len(xs)-1)], true
}

func lang(path string) string { return strings.TrimPrefix(filepath.Ext(path), ".") }

// Apply makes one change; it reports what it did ("" for nothing: no file
// or definition to pick).
func (tr *Tree) Apply(o Op) string {
	switch o.Kind {
	case OpAddDef:
		p, ok := pick(tr.sources(), o.R[0])
		if !ok {
			return ""
		}
		tr.appendDef(p, tr.definition(lang(p), o.ID, o.R[2], o.R[3]))
		return "add gen" + fmt.Sprint(o.ID) + " to " + p
	case OpRemoveDef, OpMoveDef, OpChangeDef:
		return tr.applyToDef(o)
	case OpTouch:
		p, ok := pick(tr.sources(), o.R[0])
		if !ok {
			return ""
		}
		tr.appendDef(p, comment(lang(p))+" touched\n")
		return "touch " + p
	case OpAddFile:
		return tr.addFile(o)
	case OpDeleteFile:
		p, ok := pick(tr.sources(), o.R[0])
		if !ok {
			return ""
		}
		tr.remove(p)
		return "delete " + p
	case OpRenameFile:
		return tr.renameFile(o)
	case OpCommit:
		Git(tr.t, tr.Root, "add", "-A")
		Git(tr.t, tr.Root, "commit", "-q", "--allow-empty", "-m", o.String())
		tr.Committed = true
		return "commit"
	case OpSwitch:
		return tr.switchBranch(o)
	}
	return tr.applyReal(o)
}

func (tr *Tree) abs(rel string) string { return filepath.Join(tr.Root, filepath.FromSlash(rel)) }

func (tr *Tree) read(rel string) string {
	data, err := readFile(tr.abs(rel))
	if err != nil {
		tr.t.Fatal(err)
	}
	return data
}

func readFile(abs string) (string, error) {
	data, err := os.ReadFile(abs)
	return string(data), err
}

func (tr *Tree) write(rel, s string) {
	writeRel(tr.t, tr.Root, rel, s)
	tr.touched[rel] = true
}

func (tr *Tree) appendDef(rel, def string) {
	s := tr.read(rel)
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	tr.write(rel, s+"\n"+def)
}

func comment(lang string) string {
	if lang == "py" {
		return "#"
	}
	return "//"
}

// defRE finds a generated definition: its markers and what lies between.
var defRE = regexp.MustCompile(`(?s)\n(//|#) gen:(\d+) begin\n.*?(//|#) gen:(\d+) end\n`)

// defs lists the generated definitions: (path, id, text with its markers).
func (tr *Tree) defs() [][3]string {
	var out [][3]string
	for _, p := range tr.sources() {
		s := tr.read(p)
		for _, m := range defRE.FindAllStringSubmatch(s, -1) {
			if m[2] == m[4] {
				out = append(out, [3]string{p, m[2], m[0]})
			}
		}
	}
	return out
}

func (tr *Tree) applyToDef(o Op) string {
	d, ok := pick(tr.defs(), o.R[1])
	if !ok {
		return ""
	}
	p, id, text := d[0], d[1], d[2]
	s := strings.Replace(tr.read(p), text, "\n", 1)
	switch o.Kind {
	case OpRemoveDef:
		tr.write(p, s)
		return "remove gen" + id + " from " + p
	case OpChangeDef:
		var n int
		fmt.Sscan(id, &n)
		tr.write(p, s+tr.definition(lang(p), n, o.R[2], o.R[3]))
		return "change gen" + id + " in " + p
	}
	var to []string
	for _, q := range tr.sources() {
		if lang(q) == lang(p) && q != p {
			to = append(to, q)
		}
	}
	dst, ok := pick(to, o.R[0])
	if !ok {
		return ""
	}
	tr.write(p, s)
	tr.appendDef(dst, strings.TrimPrefix(text, "\n"))
	return "move gen" + id + " from " + p + " to " + dst
}

// definition is generated definition id in language l: a function, or a
// type with a field and a method, calling (or reading through) a name
// generated before or one of the fixture's, so that adding, removing and
// moving definitions moves the graph.
func (tr *Tree) definition(l string, id int, rCallee, rShape float64) string {
	callee, _ := pick(tr.names[l], rCallee)
	shape := int(rShape * 4)
	var name, body string
	switch l {
	case "go":
		name = fmt.Sprintf("Gen%d", id)
		switch shape {
		case 0, 1:
			body = fmt.Sprintf("func %s(x int) int {\n\treturn %s(x)\n}\n", name, callee)
		case 2:
			body = fmt.Sprintf("type %s struct {\n\tNext *%s\n\tCount int\n}\n\nfunc (g *%s) %s() int {\n\treturn g.Next.%s() + g.Next.Count\n}\n",
				name, name, name, callee, callee)
		default:
			body = fmt.Sprintf("func %s(g *%s) int {\n\treturn g.%s()\n}\n", name, strings.TrimPrefix(callee, "*"), callee)
		}
	case "py":
		name = fmt.Sprintf("gen_%d", id)
		switch shape {
		case 0, 1:
			body = fmt.Sprintf("def %s(x):\n    return %s(x)\n", name, callee)
		default:
			body = fmt.Sprintf("class %s:\n    def %s(self, x):\n        return self.%s(x)\n", strings.ToUpper(name[:1])+name[1:], callee, callee)
		}
	default: // js, ts
		name = fmt.Sprintf("gen%d", id)
		switch shape {
		case 0, 1:
			body = fmt.Sprintf("export function %s(x) {\n  return %s(x);\n}\n", name, callee)
		default:
			body = fmt.Sprintf("export class %s {\n  %s(x) {\n    return this.%s(x);\n  }\n}\n", strings.ToUpper(name[:1])+name[1:], callee, callee)
		}
	}
	if !slices.Contains(tr.names[l], name) {
		tr.names[l] = append(tr.names[l], name)
	}
	c := comment(l)
	return fmt.Sprintf("%s gen:%d begin\n%s%s gen:%d end\n", c, id, body, c, id)
}

// addFile writes a new file of one language, with one definition, into the
// directory of an existing file of that language.
func (tr *Tree) addFile(o Op) string {
	p, ok := pick(tr.sources(), o.R[0])
	if !ok {
		return ""
	}
	l, dir := lang(p), filepath.ToSlash(filepath.Dir(p))
	rel := path.Join(dir, fmt.Sprintf("gen%d.%s", o.ID, l))
	head := ""
	if l == "go" {
		head = goPackage(tr.read(p)) + "\n"
	}
	tr.write(rel, head+"\n"+tr.definition(l, o.ID, o.R[2], o.R[3]))
	return "add file " + rel
}

var packageRE = regexp.MustCompile(`(?m)^package \w+`)

func goPackage(src string) string {
	if m := packageRE.FindString(src); m != "" {
		return m
	}
	return "package gen"
}

// renameFile moves a file to the directory of another file of its language
// (or renames it in place).
func (tr *Tree) renameFile(o Op) string {
	srcs := tr.sources()
	p, ok := pick(srcs, o.R[0])
	if !ok {
		return ""
	}
	var dirs []string
	for _, q := range srcs {
		if lang(q) == lang(p) && (lang(p) != "go" || goPackage(tr.read(q)) == goPackage(tr.read(p))) {
			dirs = append(dirs, filepath.ToSlash(filepath.Dir(q)))
		}
	}
	dir, _ := pick(dirs, o.R[1])
	rel := path.Join(dir, fmt.Sprintf("moved%d_%s", o.ID, filepath.Base(p)))
	if err := os.Rename(tr.abs(p), tr.abs(rel)); err != nil {
		tr.t.Fatal(err)
	}
	tr.touched[p], tr.touched[rel] = true, true
	return "rename " + p + " to " + rel
}

// switchBranch commits what the tree holds and checks out the other of two
// branches (creating it at the first switch).
func (tr *Tree) switchBranch(o Op) string {
	Git(tr.t, tr.Root, "add", "-A")
	Git(tr.t, tr.Root, "commit", "-q", "--allow-empty", "-m", "before "+o.String())
	before := Git(tr.t, tr.Root, "rev-parse", "HEAD")
	to := "main"
	if tr.branch == "main" {
		to = "alt"
	}
	if strings.TrimSpace(Git(tr.t, tr.Root, "branch", "--list", to)) == "" {
		Git(tr.t, tr.Root, "branch", to, "HEAD~1")
	}
	Git(tr.t, tr.Root, "checkout", "-q", to)
	tr.branch = to
	for _, p := range strings.Fields(Git(tr.t, tr.Root, "diff", "--name-only", before, "HEAD")) {
		tr.touched[p] = true
	}
	tr.Committed = true
	return "switch to " + to
}
