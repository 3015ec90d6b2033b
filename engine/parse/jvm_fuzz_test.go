package parse

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseJVM is FuzzParse for Java and C#: Parse never panics or fails,
// and its chunks are whole lines inside the file.
//
//	go test ./engine/parse -run '^$' -fuzz FuzzParseJVM -fuzztime 60s
func FuzzParseJVM(f *testing.F) {
	seeds := []string{
		"package a;\nclass A { void f() { g(; } }\n",
		"@interface A { int v() default 1; }\nenum E { X { void f() {} }; abstract void f(); }\n",
		"record R(int x) { R { } }\nclass C<T extends Comparable<? super T>> { <U> U m(U... u) { return u[0]; } }\n",
		"namespace N;\npublic partial class C : B, I { public int P { get; set; } = 1; ~C() {} }\n",
		"#if A\nclass X :\n#else\nclass X : Y\n#endif\n{ }\n#endif\n#else\n",
		"using A = B.C;\nvar x = new D();\nstatic void F() => x.G();\n",
		"class C { int this[int i] => i; public static C operator +(C a, C b) => a; }\n",
		"\xef\xbb\xbf#region\n\xff\x00",
		"",
	}
	for _, s := range seeds {
		f.Add(s, uint8(0))
	}
	for _, dir := range []string{"java", "csharp"} {
		_ = filepath.WalkDir(filepath.Join(fixtureDir, dir), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, err := os.ReadFile(p); err == nil && len(b) < 8<<10 {
					f.Add(string(b), uint8(len(p)))
				}
			}
			return nil
		})
	}
	paths := []string{"A.java", "A.cs"}
	f.Fuzz(func(t *testing.T, src string, lang uint8) {
		p := paths[int(lang)%len(paths)]
		file, err := Parse(p, []byte(src), Options{MaxSymbolBytes: 256})
		if err != nil {
			t.Fatalf("Parse(%s): %v", p, err)
		}
		checkInvariants(t, file, []byte(src))
	})
}
