package parse

import (
	"fmt"
	"strings"
	"testing"
)

// typeCase is one qualifier-type test: calls are "line:qualifier.name" ->
// the QualifierType wanted, results are qualified name -> ResultType.
type typeCase struct {
	name    string
	src     string
	calls   map[string]string
	results map[string]string
}

// callTypes returns each call through a qualifier as "line:qualifier.name"
// -> its QualifierType.
func callTypes(f *File) map[string]string {
	out := map[string]string{}
	for _, r := range f.Refs {
		if r.Kind == RefCalls && r.Qualifier != "" {
			out[fmt.Sprintf("%d:%s.%s", r.Line, r.Qualifier, r.Name)] = r.QualifierType
		}
	}
	return out
}

func runTypeCases(t *testing.T, path string, cases []typeCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.TrimPrefix(c.src, "\n")
			f := mustParse(t, path, src, Options{})
			got := callTypes(f)
			for call, want := range c.calls {
				g, ok := got[call]
				if !ok {
					t.Errorf("no call %s; have %v", call, got)
					continue
				}
				if g != want {
					t.Errorf("%s: QualifierType = %q, want %q", call, g, want)
				}
			}
			for qname, want := range c.results {
				if g := find(t, f, qname).ResultType; g != want {
					t.Errorf("%s: ResultType = %q, want %q", qname, g, want)
				}
			}
		})
	}
}

func TestPythonQualifierTypes(t *testing.T) {
	runTypeCases(t, "pkg/mod.py", []typeCase{
		{name: "self cls super", src: `
class A(B):
    def f(self):
        self.g()
        super().h()
        super(B, self).h()
        def inner():
            self.k()
    @classmethod
    def make(cls):
        cls.build()
    x = self.nope()

def free(self):
    self.x()
`, calls: map[string]string{
			"3:self.g": "A", "4:super.h": "A", "5:super.h": "B", "7:self.k": "A",
			"10:cls.build": "A", "11:self.nope": "", "14:self.x": "",
		}},
		{name: "constructed locals", src: `
def f():
    x = C()
    x.m()
    y = mod.sub.C()
    y.m()
    z = make()
    z.m()
    w = len(z)
    w.m()
    a = b = D()
    a.m()
    b.m()
    o = obj
    o.m()
    if (n := C()):
        n.m()
`, calls: map[string]string{
			"3:x.m": "()C", "5:y.m": "()mod.sub.C", "7:z.m": "()make", "9:w.m": "",
			"11:a.m": "()D", "12:b.m": "()D", "14:o.m": "", "16:n.m": "()C",
		}},
		{name: "annotations", src: `
def f(a: C, b: Optional[C], c: C | None, d: "C", e: list[C], g: Union[A, B], h, *args: C, i: typing.Optional[mod.C] = None, j: Dict[str, C] = {}, k: Repo[User] = None):
    a.m(); b.m(); c.m(); d.m(); e.m(); g.m(); h.m(); args.m(); i.m(); j.m(); k.m()
    v: C = load()
    v.m()
    try:
        pass
    except Err as err:
        err.m()
    lam = lambda p: p.m()
`, calls: map[string]string{
			"2:a.m": "C", "2:b.m": "C", "2:c.m": "C", "2:d.m": "C", "2:e.m": "", "2:g.m": "",
			"2:h.m": "", "2:args.m": "", "2:i.m": "mod.C", "2:j.m": "", "2:k.m": "Repo",
			"4:v.m": "C", "8:err.m": "Err", "9:p.m": "",
		}},
		{name: "attributes", src: `
class S:
    conn: Conn
    cache = Cache()

    def __init__(self, repo: Repo, other):
        self.db = DB()
        self.repo = repo
        self.other = other
        self.twice = A()
        self.twice = B()
        self.typed: "T" = make()

    def run(self):
        self.db.q()
        self.repo.find()
        self.other.go()
        self.twice.go()
        self.typed.go()
        self.conn.send()
        self.cache.get()
        self.later.go()

    def setup(self):
        self.later = L()
`, calls: map[string]string{
			"14:self.db.q": "()DB", "15:self.repo.find": "Repo", "16:self.other.go": "",
			"17:self.twice.go": "", "18:self.typed.go": "T", "19:self.conn.send": "Conn",
			"20:self.cache.get": "()Cache", "21:self.later.go": "",
		}},
		{name: "shadowing", src: `
db = DB()

def uses():
    db.q()

def param(db):
    db.q()

def local_later():
    db.q()
    db = Other()

def branches(c):
    if c:
        y = Y()
        y.m()
    else:
        y = Z()
    y.m()
    s = S()
    if c:
        s = T()
    s.m()
    r = R()
    r = Q()
    r.m()

def loops(items):
    it = I()
    for it in items:
        it.m()
    v = V()
    [v.m() for v in items]
    v.m()

def outer():
    cl = C()
    def inner():
        cl.m()
    def inner2(cl):
        cl.m()
`, calls: map[string]string{
			"4:db.q": "()DB", "7:db.q": "", "10:db.q": "",
			"16:y.m": "()Y", "19:y.m": "", "23:s.m": "", "26:r.m": "()Q",
			"31:it.m": "", "33:v.m": "", "34:v.m": "()V",
			"39:cl.m": "()C", "41:cl.m": "",
		}},
		{name: "result types", src: `
def a() -> C: pass
def b() -> "C": pass
def c() -> Optional[mod.C]: pass
def d() -> None: pass
def e() -> int: pass
def f() -> list[C]: pass
def g(): pass
class K:
    def me(self) -> Self: pass
    def other(self) -> "K": pass
`, results: map[string]string{
			"a": "C", "b": "C", "c": "mod.C", "d": "", "e": "", "f": "", "g": "",
			"K.me": "K", "K.other": "K",
		}},
	})
}

func TestPythonSuperQualifier(t *testing.T) {
	f := mustParse(t, "a.py", "class A(B):\n    def f(self):\n        super().f()\n", Options{})
	for _, r := range f.Refs {
		if r.Name == "f" && r.Kind == RefCalls && r.Qualifier != "super" {
			t.Errorf("super().f(): Qualifier = %q, want \"super\" (the indexer's name for it)", r.Qualifier)
		}
	}
}
