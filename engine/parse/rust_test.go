package parse

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// languagesDir holds the parser inputs of the registered languages
// (testdata/languages/README.md).
const languagesDir = "../../testdata/languages"

// TestGoldenRust is TestGolden for testdata/languages/rust: the goldens are
// testdata/parse/rust/<path>.json.
func TestGoldenRust(t *testing.T) {
	goldenTree(t, languagesDir, filepath.Join(languagesDir, "rust"))
}

func parseRust(t testing.TB, src string, opts Options) *File {
	t.Helper()
	f, err := Parse("src/a.rs", []byte(src), opts)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, f, []byte(src))
	return f
}

// symbolsByLabel indexes a file's symbols as the goldens label them.
func symbolsByLabel(f *File) map[string]Symbol {
	out := map[string]Symbol{}
	for _, s := range f.Symbols {
		out[fmt.Sprintf("%s@%d", s.QualifiedName, s.StartLine)] = s
	}
	return out
}

func TestRustMethodsOfATypeOfAnotherFile(t *testing.T) {
	f := parseRust(t, `impl Store {
    fn get(&self) -> u8 { self.load() }
}

impl Drop for Store {
    fn drop(&mut self) {}
}

mod inner {
    struct Local;
    impl Local { fn m(&self) {} }
}
`, Options{})
	syms := symbolsByLabel(f)
	parent := func(label string) string {
		s, ok := syms[label]
		if !ok {
			t.Fatalf("no symbol %s in %v", label, syms)
		}
		p := f.Symbols[s.Parent]
		return fmt.Sprintf("%s@%d", p.QualifiedName, p.StartLine)
	}
	// Without the type in the file (or at its top level), methods stay in
	// their impl block.
	for label, want := range map[string]string{
		"Store.get@2":           "impl Store@1",
		"Store.drop@6":          "impl Drop for Store@5",
		"impl Drop for Store@5": "src/a.rs@1",
		"inner.Local.m@11":      "impl inner.Local@11",
		"impl inner.Local@11":   "inner@9",
		"inner.Local@10":        "inner@9",
	} {
		if got := parent(label); got != want {
			t.Errorf("parent of %s = %s, want %s", label, got, want)
		}
	}
	var impl *Ref
	for i, r := range f.Refs {
		if r.Kind == RefImplements {
			impl = &f.Refs[i]
		}
	}
	if impl == nil || impl.Name != "Drop" || f.Symbols[impl.From].QualifiedName != "impl Drop for Store" || impl.Line != 5 {
		t.Errorf("implements ref = %+v, want Drop from the impl block at line 5", impl)
	}
	// Store's methods are in another file too: self is left untyped.
	for _, r := range f.Refs {
		if r.Name == "load" && r.QualifierType != "" {
			t.Errorf("self.load() typed %q, want untyped", r.QualifierType)
		}
	}
}

func TestRustQualifierTypes(t *testing.T) {
	f := parseRust(t, `struct Repo { db: Pool, cache: Arc<Cache> }

impl Repo {
    fn open() -> Result<Self, Error> { todo!() }
    fn find<T: Key>(&self, key: T, user: &User, other: Box<dyn Store>) {
        self.db.query();
        self.cache.get();
        self.remote.fetch();
        key.hash();
        user.name();
        other.put();
        let r = Repo::open()?;
        r.close();
        let s = Self::open().unwrap();
        s.flush();
        let p = Point { x: 1 };
        p.norm();
        let u: models::User = load();
        u.save();
        let made = make();
        made.run();
        if let Some(user) = lookup() { user.name(); }
        assert!(self.db.ready());
        Cache::clear();
    }
}
`, Options{})
	got := map[string]string{}
	for _, r := range f.Refs {
		if r.Kind == RefCalls {
			got[r.Qualifier+"."+r.Name+fmt.Sprint("@", r.Line)] = r.QualifierType
		}
	}
	for call, want := range map[string]string{
		"self.db.query@6":     "Pool",
		"self.cache.get@7":    "Cache",
		"self.remote.fetch@8": "", // Repo is in the file and has no remote
		"key.hash@9":          "", // a generic parameter
		"user.name@10":        "User",
		"other.put@11":        "", // dyn Trait
		"Repo.open@12":        "Repo",
		"r.close@13":          "Repo",
		"Self.open@14":        "Repo",
		"s.flush@15":          "Repo",
		"p.norm@17":           "Point",
		"u.save@19":           "User", // models is not an import binding here
		"made.run@21":         "()make",
		"user.name@22":        "", // the if-let binding shadows the parameter
		"self.db.ready@23":    "Pool",
		"Cache.clear@24":      "Cache",
	} {
		typ, ok := got[call]
		if !ok {
			t.Errorf("no call %s in %v", call, got)
			continue
		}
		if typ != want {
			t.Errorf("%s: QualifierType = %q, want %q", call, typ, want)
		}
	}
}

func TestRustImports(t *testing.T) {
	f := parseRust(t, `use a::b::{self, c::D as E, f::*};
use ::std::io;
extern crate serde as sd;
mod m;
#[cfg(unix)]
#[path = "sys/unix.rs"]
mod sys;
mod outer {
    mod inner {
        use super::super::top;
        use super::sibling;
    }
}
`, Options{})
	var got []string
	for _, imp := range f.Imports {
		s := imp.Path + "=" + imp.Alias
		for _, n := range imp.Names {
			s += "+" + n.Name
		}
		got = append(got, s)
	}
	want := []string{"a::b=b", "a::b::c::D=E", "a::b::f=+*", "std::io=io", "serde=sd", "m=m", "sys/unix.rs=sys", "self::top=top", "self::sibling=sibling"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("imports:\n got %v\nwant %v", got, want)
	}
}

// An impl block over the size limit is followed by parts cut between its
// methods; they tile it.
func TestRustSplitsOversizedImpl(t *testing.T) {
	var b strings.Builder
	b.WriteString("impl Big {\n")
	for i := range 12 {
		fmt.Fprintf(&b, "    /// Method %d.\n    fn m%d(&self) -> u32 {\n        let x = %d;\n        x + 1\n    }\n\n", i, i, i)
	}
	b.WriteString("}\n")
	f := parseRust(t, b.String(), Options{MaxSymbolBytes: 300})
	var impl Symbol
	var parts []Symbol
	for _, s := range f.Symbols {
		switch {
		case s.QualifiedName == "impl Big":
			impl = s
		case s.Kind == KindPart:
			parts = append(parts, s)
		}
	}
	if len(parts) < 2 {
		t.Fatalf("impl Big has %d parts, want several", len(parts))
	}
	next := impl.StartLine
	for _, p := range parts {
		if p.StartLine != next || p.Parent == 0 || f.Symbols[p.Parent].QualifiedName != "impl Big" {
			t.Errorf("part %s lines %d-%d (parent %d): does not continue at line %d", p.Name, p.StartLine, p.EndLine, p.Parent, next)
		}
		next = p.EndLine + 1
	}
	if next != impl.EndLine+1 {
		t.Errorf("parts end at line %d, impl at %d", next-1, impl.EndLine)
	}
}

// FuzzParseRust is FuzzParse for Rust: seeds of its own and the Rust
// fixture files, parsed as a .rs file.
func FuzzParseRust(f *testing.F) {
	for _, s := range []string{
		"fn f() {}\n", "impl<T> X for T where T: Y {}\n", "mod a { mod b { fn c(", "macro_rules! m { () => {} }\nm!();\n",
		"use a::{b::{c, d as e}, *};\n", "#[derive(X)]\n/// d\npub struct S(u8);\n", "fn f() { a!(b(c.d(e::f(\"x\")))); }\n",
		"impl S { fn m(&self) { self.0.x(); Self::n(); <S as T>::o(); } }\n", "r#\"\n", "fn\n", "impl\n", "use\n",
	} {
		f.Add(s)
	}
	_ = filepath.WalkDir(filepath.Join(languagesDir, "rust"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".rs") {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(string(b))
			}
		}
		return nil
	})
	f.Fuzz(func(t *testing.T, src string) {
		file, err := Parse("src/a.rs", []byte(src), Options{MaxSymbolBytes: 256})
		if err != nil {
			t.Fatalf("Parse: %v", err)
		}
		checkInvariants(t, file, []byte(src))
	})
}
