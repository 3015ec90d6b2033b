package parse

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// fieldCase is one Python fields test: fields are "Class.name:Type@line",
// accesses "From kind qualifier.name:QualifierType" in source order (From
// "-" for the file header), each list complete.
type fieldCase struct {
	name     string
	src      string
	fields   []string
	accesses []string
}

func fieldLines(f *File) []string {
	var out []string
	for _, fl := range f.Fields {
		out = append(out, fmt.Sprintf("%s:%s@%d", fl.QualifiedName, fl.Type, fl.StartLine))
	}
	return out
}

func accessLines(f *File) []string {
	var out []string
	for _, r := range f.Refs {
		if r.Kind != RefReads && r.Kind != RefWrites {
			continue
		}
		from := "-"
		if r.From > 0 {
			from = f.Symbols[r.From].QualifiedName
		}
		out = append(out, fmt.Sprintf("%s %s %s.%s:%s", from, r.Kind, r.Qualifier, r.Name, r.QualifierType))
	}
	return out
}

func runFieldCases(t *testing.T, cases []fieldCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := mustParse(t, "pkg/mod.py", strings.TrimPrefix(c.src, "\n"), Options{})
			if c.fields != nil {
				if got := fieldLines(f); !slices.Equal(got, c.fields) {
					t.Errorf("fields:\n got  %q\n want %q", got, c.fields)
				}
			}
			if c.accesses != nil {
				if got := accessLines(f); !slices.Equal(got, c.accesses) {
					t.Errorf("accesses:\n got  %q\n want %q", got, c.accesses)
				}
			}
		})
	}
}

func TestPythonFields(t *testing.T) {
	runFieldCases(t, []fieldCase{
		{name: "class body", src: `
TOP = 1

class A:
    x = 1
    y: int
    z: Optional["DB"] = None
    _p = None
    __slots__ = ()
    def m(self):
        pass
    m2 = m
    def area(self):
        return 1
    area = property(area)
    for _i in range(3):
        pass
    if DEBUG:
        w: DB = make()
    class Inner:
        k: str = ""
`, fields: []string{"A.x:@4", "A.y:int@5", "A.z:DB@6", "A._p:@7", "A.m2:@11", "A.w:DB@18", "A.Inner.k:str@20"}},
		{name: "init", src: `
class A:
    def __init__(self, db: Database, n, conn):
        self.db = DB()
        self.conn = connect()
        self.n: int = n
        self.db2 = db
        self.a, (self.b, c) = n, (1, 2)
        self.n += 1
        self.items[0] = 1
        other.y = 1
        def later():
            self.no = 1
    def reset(self):
        self.late = 1
`, fields: []string{"A.db:DB@3", "A.conn:@4", "A.n:int@5", "A.db2:Database@6", "A.a:@7", "A.b:@7"}},
		{name: "first declaration wins", src: `
class A:
    db = None
    cache: "Cache"
    def __init__(self):
        self.db = DB()
        self.cache = make_cache()
        self.x = 1
        self.x = X()
`, fields: []string{"A.db:DB@2", "A.cache:Cache@3", "A.x:X@7"}},
		{name: "dataclass", src: `
@dataclass
class P:
    """Doc."""
    x: int
    tags: list[str] = field(default_factory=list)
    parent: Optional["P"] = None
    kind: Final = "p"
    ids: ClassVar[Set[int]] = set()
`, fields: []string{"P.x:int@4", "P.tags:list@5", "P.parent:P@6", "P.kind:@7", "P.ids:Set@8"}},
		{name: "no class, no fields", src: `
x = 1
def f(self):
    self.y = 2
`, fields: []string{}},
	})
}

func TestPythonFieldDeclaration(t *testing.T) {
	f := mustParse(t, "pkg/mod.py", `class A:
    _hidden: dict = {
        "a": 1,
    }
    def __init__(self):
        self.shown   =   1
`, Options{})
	if len(f.Fields) != 2 {
		t.Fatalf("fields = %+v, want 2", f.Fields)
	}
	h, s := f.Fields[0], f.Fields[1]
	if h.Exported || !s.Exported {
		t.Errorf("exported: _hidden %v, shown %v; want false, true", h.Exported, s.Exported)
	}
	if h.StartLine != 2 || h.EndLine != 4 || h.Owner != 1 || h.Type != "dict" {
		t.Errorf("_hidden = %+v, want lines 2-4, owner 1, type dict", h)
	}
	if s.Signature != "self.shown = 1" || s.Content != "        self.shown   =   1\n" {
		t.Errorf("shown: signature %q, content %q", s.Signature, s.Content)
	}
}

func TestPythonFieldAccesses(t *testing.T) {
	runFieldCases(t, []fieldCase{
		{name: "reads and writes", src: `
class A:
    def f(self, db: DB, other, k, v):
        self.x = 1
        self.n += 1
        print(self.y)
        self.items[k] = v
        self.m[k][v] = 1
        self.counts[k] += 1
        self.a.b = 1
        del self.d
        del self.e[0], self.g
        self.p, self.q = 1, 2
        [self.r, *self.s] = v
        db.conn = 1
        other.h
        self.t: int = 0
`, accesses: []string{
			"A.f writes self.x:A", "A.f writes self.n:A", "A.f reads self.y:A", "A.f writes self.items:A",
			"A.f writes self.m:A", "A.f writes self.counts:A", "A.f reads self.a:A", "A.f writes self.a.b:",
			"A.f writes self.d:A", "A.f writes self.e:A", "A.f writes self.g:A", "A.f writes self.p:A",
			"A.f writes self.q:A", "A.f writes self.r:A", "A.f writes self.s:A", "A.f writes db.conn:DB",
			"A.f reads other.h:", "A.f writes self.t:A",
		}},
		{name: "dedupe per definition", src: `
class A:
    def f(self):
        self.x = 1
        self.x = 2
        print(self.x, self.x)
        return self.x + other.x
    def g(self):
        return self.x
`, accesses: []string{"A.f writes self.x:A", "A.f reads self.x:A", "A.f reads other.x:", "A.g reads self.x:A"}},
		{name: "not accesses", src: `
import os
import numpy as np
import a.b.c
from pkg import helper, Config
from . import sibling as sib

class B(mod.Base):
    @prop.setter
    def f(self, xs):
        self.run()
        self.c.run()
        os.path.sep, np.pi, helper.v, a.b.c.d, sib.z
        foo().z, "".join, xs[0].w
        self.__class__.__name__
        Config.DEBUG
`, accesses: []string{"B.f reads self.c:B", "B.f reads Config.DEBUG:"}},
		{name: "qualifier types", src: `
class A:
    def __init__(self):
        self.db = DB()
    def f(self):
        local = Conn()
        def inner():
            return self.v
        return self.db.x, local.y, self.a.b.c
    @classmethod
    def make(cls):
        return cls.registry
    w = self.nope

def free(self, c: "Conn"):
    return self.x, c.y
`, accesses: []string{
			"A.__init__ writes self.db:A", "A.f.inner reads self.v:A", "A.f reads self.db:A", "A.f reads self.db.x:()DB",
			"A.f reads local.y:()Conn", "A.f reads self.a:A", "A.f reads self.a.b:", "A.f reads self.a.b.c:",
			"A.make reads cls.registry:A", "A reads self.nope:", "free reads self.x:", "free reads c.y:Conn",
		}},
		{name: "module level", src: `
cfg = load()
PORT = cfg.port
cfg.debug = True
`, accesses: []string{"PORT reads cfg.port:()load", "mod.py#1 writes cfg.debug:()load"}},
	})
}

// checkFields asserts what must hold for every field: its owner is a class
// around it, its lines are whole source lines, no name twice per owner.
func checkFields(t *testing.T, f *File, src []byte) {
	t.Helper()
	seen := map[string]bool{}
	for _, fl := range f.Fields {
		if fl.Owner <= 0 || fl.Owner >= len(f.Symbols) {
			t.Errorf("field %s: bad owner %d", fl.QualifiedName, fl.Owner)
			continue
		}
		o := f.Symbols[fl.Owner]
		if o.Kind != KindClass || fl.StartLine < o.StartLine || fl.EndLine > o.EndLine {
			t.Errorf("field %s (lines %d-%d) outside its owner %s %s (%d-%d)", fl.QualifiedName, fl.StartLine, fl.EndLine, o.Kind, o.QualifiedName, o.StartLine, o.EndLine)
		}
		if fl.QualifiedName != o.QualifiedName+"."+fl.Name || seen[fl.QualifiedName] {
			t.Errorf("field %s of %s: bad or repeated name", fl.QualifiedName, o.QualifiedName)
		}
		seen[fl.QualifiedName] = true
		if fl.StartByte < 0 || fl.EndByte > len(src) || fl.Content != string(src[fl.StartByte:fl.EndByte]) {
			t.Errorf("field %s: Content is not the source cut", fl.QualifiedName)
		}
	}
}

// TestPythonFieldsCorpus checks the fields of broken and real code.
func TestPythonFieldsCorpus(t *testing.T) {
	check := func(path string, src []byte) {
		f, err := Parse(path, src, Options{})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		checkFields(t, f, src)
	}
	for _, s := range []string{
		"class A:\n    x = 1\n    def __init__(self):\n        self.b = foo(\n\n    def f(self):\n        self.c = 1\n\nclass B:\n    y = 2\n",
		"class A:\n    def __init__(self):\n        self.a, self.b = (\nclass B:\n    z: int\n",
		"class A(:\n    x: int\n",
	} {
		check("broken.py", []byte(s))
	}
	if testing.Short() {
		return
	}
	paths, srcs, _ := corpus(t, "/usr/lib/python3.11", ".py", 2<<20)
	for i, src := range srcs {
		check(paths[i], src)
	}
}
