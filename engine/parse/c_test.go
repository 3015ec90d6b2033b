package parse

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCSniffHeader(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"prototypes", "#ifndef A_H\n#define A_H\nint f(void);\n#endif\n", "c"},
		{"extern C guard", "#ifdef __cplusplus\nextern \"C\" {\n#endif\nint f(void);\n#ifdef __cplusplus\n}\n#endif\n", "c"},
		{"namespace", "namespace geo {\nint f();\n}\n", "cpp"},
		{"class with a body", "class Length {\n double u;\n};\n", "cpp"},
		{"class with a base", "class B : public A {};\n", "cpp"},
		{"template", "template <typename T> T id(T x);\n", "cpp"},
		{"scope operator", "int x = std::max(1, 2);\n", "cpp"},
		{"access specifier", "struct S {\npublic:\n int a;\n};\n", "cpp"},
		{"standard C++ header", "#include <vector>\n", "cpp"},
		{"C header include", "#include <stdio.h>\n#include \"x.h\"\n", "c"},
		{"C++ words in comments and strings", "/* namespace x { class Y { */\n// template <\nconst char *s = \"std::string\";\n", "c"},
		{"a field named class", "struct S { int class; };\n", "c"},
	} {
		f, err := Parse("inc/a.h", []byte(tc.src), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if f.Language != tc.want {
			t.Errorf("%s: language %q, want %q", tc.name, f.Language, tc.want)
		}
	}
	if got := Language("a.hpp"); got != "cpp" {
		t.Errorf("Language(a.hpp) = %q", got)
	}
}

func TestCMaskMacros(t *testing.T) {
	blank := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '\n' {
				return r
			}
			return ' '
		}, s)
	}
	for _, tc := range []struct {
		src, masked string // masked: the text blanked, "" for none
	}{
		{"class LEVELDB_EXPORT Cache {\n};\n", "LEVELDB_EXPORT"},
		{"SQLITE_API int open(void);\n", "SQLITE_API"},
		{"int ZEXPORT deflate(z_stream *s);\n", "ZEXPORT"},
		{"void f() EXCLUSIVE_LOCKS_REQUIRED(mu_);\n", "EXCLUSIVE_LOCKS_REQUIRED(mu_)"},
		{"int n_ GUARDED_BY(mu_);\n", "GUARDED_BY(mu_)"},
		{"REDIS_NO_SANITIZE(\"bounds\")\nint f(void) { return 0; }\n", "REDIS_NO_SANITIZE(\"bounds\")"},
		{"class W {\n  Q_OBJECT\n public:\n};\n", "Q_OBJECT"},
		{"#ifdef __cplusplus\nextern \"C\" {\n#endif\nint f(void);\n", "extern \"C\" {"},
		// Left alone: macros in function bodies, a macro whose body follows,
		// enumerators, upper-case types, #define lines, a word inside a name.
		{"void f() { if (x) RETURN_ERROR(e); }\n", ""},
		{"TEST_F(Foo, Bar)\n{\n}\n", ""},
		{"enum { A_ONE,\n  A_TWO\n};\n", ""},
		{"DWORD n;\nFILE *f;\n", ""},
		{"#define LEVELDB_EXPORT __attribute__((visibility(\"default\")))\n", ""},
		{"unsigned int LRU_CLOCK(void) { return 0; }\n", ""},
	} {
		want := tc.src
		if tc.masked != "" {
			want = strings.Replace(tc.src, tc.masked, blank(tc.masked), 1)
		}
		if got := string(cMaskMacros([]byte(tc.src))); got != want {
			t.Errorf("cMaskMacros(%q)\n got %q\nwant %q", tc.src, got, want)
		}
	}
}

// cSymbols parses src as path and indexes its symbols by qualified name.
func cSymbols(t *testing.T, path, src string) (*File, map[string]Symbol) {
	t.Helper()
	f, err := Parse(path, []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, f, []byte(src))
	m := map[string]Symbol{}
	for _, s := range f.Symbols[1:] {
		m[s.QualifiedName] = s
	}
	return f, m
}

func TestCDeclarationsAndDefinitions(t *testing.T) {
	src := `/* Doc on the prototype. */
static int helper(int x);
int api(void);
int helper(int x) { return x; }
`
	_, syms := cSymbols(t, "a.c", src)
	h, ok := syms["helper"]
	if !ok || h.StartLine != 4 || h.Doc != "Doc on the prototype." || strings.HasSuffix(h.Signature, ";") {
		t.Errorf("helper: the definition alone, with the prototype's doc: %+v", h)
	}
	if a := syms["api"]; a.Kind != KindFunction || a.Signature != "int api(void);" {
		t.Errorf("api: a declaration marked by its ';': %+v", a)
	}
	if len(syms) != 2 {
		t.Errorf("symbols %v, want helper and api", syms)
	}
}

func TestCPlusPlusMembers(t *testing.T) {
	src := `namespace ns {
class Foo : public Base<int> {
 public:
  void bar();
  int get() const { return n_; }
 private:
  Helper* h_;
  int n_;
};
void Foo::bar() { get(); h_->run(); this->get(); }
}  // namespace ns
void ns::Foo::later() {}
`
	f, syms := cSymbols(t, "a.cpp", src)
	bar := syms["ns.Foo.bar"]
	if bar.Kind != KindMethod || bar.StartLine != 10 || f.Symbols[bar.Parent].QualifiedName != "ns.Foo" {
		t.Errorf("ns.Foo.bar: the out-of-class definition under Foo, the declaration dropped: %+v", bar)
	}
	if l := syms["ns.Foo.later"]; l.Kind != KindMethod || l.Receiver != "Foo" {
		t.Errorf("ns.Foo.later: %+v", l)
	}
	type call struct{ name, qual, typ string }
	var got []call
	for _, r := range f.Refs {
		if r.Kind == RefCalls {
			got = append(got, call{r.Name, r.Qualifier, r.QualifierType})
		}
	}
	want := []call{{"get", "this", "Foo"}, {"run", "h_", "Helper"}, {"get", "this", "Foo"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("calls %v, want %v", got, want)
	}
	inherits := false
	for _, r := range f.Refs {
		inherits = inherits || (r.Kind == RefInherits && r.Name == "Base")
	}
	if !inherits {
		t.Errorf("no inherits Base in %v", f.Refs)
	}
}

// FuzzParseC is FuzzParse for C and C++: the fixtures are the seeds, and
// each input is parsed as a .c, .h, .cpp and .hpp file.
func FuzzParseC(f *testing.F) {
	for _, s := range []string{
		"int f(void);\nint f(void) { return 0; }\n",
		"class A EXPORT_API B {\n  Q_OBJECT\n};\n",
		"#ifdef __cplusplus\nextern \"C\" {\n#endif\n",
		"namespace a::b { template <class T> void X<T>::f() {} }\n",
		"void (*signal(int, void (*)(int)))(int);\n",
		"#define F(x) \\\n  (x)\n",
	} {
		f.Add(s)
	}
	for _, dir := range []string{"c", "cpp"} {
		_ = filepath.WalkDir(filepath.Join(cFixtureDir, dir), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, err := os.ReadFile(p); err == nil {
					f.Add(string(b))
				}
			}
			return nil
		})
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, p := range []string{"a.c", "a.h", "a.cpp", "a.hpp"} {
			file, err := Parse(p, []byte(src), Options{MaxSymbolBytes: 256})
			if err != nil {
				t.Fatalf("Parse(%s): %v", p, err)
			}
			checkInvariants(t, file, []byte(src))
		}
	})
}

// TestCRealWorldHeaders parses the system's C headers and the C++ standard
// library's (.h files sniffed as C++) and checks the invariants on every
// file. Where they are absent it skips, except under CI=true (corpus).
func TestCRealWorldHeaders(t *testing.T) {
	for _, root := range []string{"/usr/include", "/usr/include/c++"} {
		t.Run(root, func(t *testing.T) {
			paths, srcs, total := corpus(t, root, ".h", 4<<20)
			langs, partial := map[string]int{}, 0
			for i, src := range srcs {
				f, err := Parse(paths[i], src, Options{})
				if err != nil {
					t.Fatalf("%s: %v", paths[i], err)
				}
				checkInvariants(t, f, src)
				langs[f.Language]++
				if f.Partial {
					partial++
				}
			}
			t.Logf("%d headers, %d bytes, %d partial; by language %v", len(srcs), total, partial, langs)
		})
	}
}

// TestCRecoveryKeepsFunctions: a syntax error does not cut a function at a
// column-0 label or preprocessor line (where error recovery used to resume).
func TestCRecoveryKeepsFunctions(t *testing.T) {
	src := "int f(int x) {\n\tint y = (x + ;\n\tif (y)\n\t\tgoto cleanup;\ncleanup:\n#ifdef X\n\ty = 2;\n#endif\n\treturn y;\n}\n\nint g(void) { return 1; }\n"
	f, syms := cSymbols(t, "a.c", src)
	if !f.Partial || syms["f"].StartLine != 1 || syms["f"].EndLine != 10 || syms["g"].StartLine != 12 {
		t.Errorf("partial %v, f %d-%d, g %d", f.Partial, syms["f"].StartLine, syms["f"].EndLine, syms["g"].StartLine)
	}
}

// cFixtureDir holds the C and C++ fixture, apart from testdata/fixture so
// that the tests indexing that repository (rankings, counts, TUI views) do
// not change with it; its goldens are in testdata/parse like the others.
const cFixtureDir = "../../testdata/langfixture"

// TestGoldenC is TestGolden for cFixtureDir (-update rewrites the goldens).
func TestGoldenC(t *testing.T) {
	goldenTree(t, cFixtureDir, cFixtureDir)
}
