package parse

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that Parse never panics or fails and always returns
// chunks whose ranges are whole lines inside the file, whatever the input
// and whichever language it is parsed as.
func FuzzParse(f *testing.F) {
	seeds := []string{
		"package x\nfunc f() {}\n",
		"def f(:\n  pass\n",
		"module.exports = function () {};\na.b = a.c = function c() {};\n",
		"export function f(a: string): void;\nexport function f(a: any) {}\n",
		"const C = () => <div>{x}</div>;\n",
		"\xff\xfe\n\x00",
		"",
	}
	for _, s := range seeds {
		f.Add(s, uint8(0))
	}
	// The fixture files are realistic seeds.
	_ = filepath.WalkDir(fixtureDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, err := os.ReadFile(p); err == nil && len(b) < 8<<10 {
				f.Add(string(b), uint8(len(p)))
			}
		}
		return nil
	})
	paths := []string{"a.go", "a.py", "a.js", "a.ts", "a.tsx", "a.md", "a.txt", "a.png"}
	f.Fuzz(func(t *testing.T, src string, lang uint8) {
		p := paths[int(lang)%len(paths)]
		file, err := Parse(p, []byte(src), Options{MaxSymbolBytes: 256})
		if err != nil {
			t.Fatalf("Parse(%s): %v", p, err)
		}
		checkInvariants(t, file, []byte(src))
	})
}
