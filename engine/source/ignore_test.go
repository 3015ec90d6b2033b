package source

import (
	"strings"
	"testing"
)

func TestIgnoreMatcher(t *testing.T) {
	type probe struct {
		path  string
		isDir bool
		want  bool
	}
	tests := []struct {
		name   string
		files  map[string]string // .gitignore directory -> content
		probes []probe
	}{
		{
			name:  "basename glob at any depth",
			files: map[string]string{"": "*.log\n"},
			probes: []probe{
				{"a.log", false, true}, {"x/y/b.log", false, true}, {"a.logx", false, false},
				{"log", false, false}, {"dir.log", true, true},
			},
		},
		{
			name:  "comments, blank lines, escapes",
			files: map[string]string{"": "# a comment\n\n\\#literal\n\\!bang\n  \n"},
			probes: []probe{
				{"# a comment", false, false}, {"#literal", false, true}, {"!bang", false, true},
			},
		},
		{
			name:  "trailing spaces",
			files: map[string]string{"": "plain   \nescaped\\ \n"},
			probes: []probe{
				{"plain", false, true}, {"plain   ", false, false},
				{"escaped ", false, true}, {"escaped", false, false},
			},
		},
		{
			name:  "negation, last match wins",
			files: map[string]string{"": "*.txt\n!keep.txt\n"},
			probes: []probe{
				{"a.txt", false, true}, {"keep.txt", false, false}, {"d/keep.txt", false, false},
			},
		},
		{
			name:  "negation cannot re-include inside an excluded directory",
			files: map[string]string{"": "build/\n!build/keep.go\n"},
			probes: []probe{
				{"build", true, true}, {"build/keep.go", false, true}, {"build", false, false},
			},
		},
		{
			name:  "directory-only suffix",
			files: map[string]string{"": "out/\n"},
			probes: []probe{
				{"out", true, true}, {"out", false, false}, {"a/out", true, true}, {"out/x.go", false, true},
			},
		},
		{
			name:  "anchored with a leading slash",
			files: map[string]string{"": "/root.txt\n/tmp/\n"},
			probes: []probe{
				{"root.txt", false, true}, {"sub/root.txt", false, false},
				{"tmp", true, true}, {"a/tmp", true, false},
			},
		},
		{
			name:  "anchored by a middle slash",
			files: map[string]string{"": "doc/frotz\n"},
			probes: []probe{
				{"doc/frotz", false, true}, {"a/doc/frotz", false, false},
			},
		},
		{
			name:  "double star forms",
			files: map[string]string{"": "**/logs\nabc/**\na/**/b\n**/foo/bar\n"},
			probes: []probe{
				{"logs", true, true}, {"x/y/logs", true, true}, {"logsx", true, false},
				{"abc/x", false, true}, {"abc/x/y", false, true}, {"abc", true, false},
				{"a/b", false, true}, {"a/x/b", false, true}, {"a/x/y/b", false, true}, {"ab", false, false},
				{"foo/bar", false, true}, {"q/foo/bar", false, true},
			},
		},
		{
			name:  "stars do not cross slashes; other double stars are single",
			files: map[string]string{"": "src/*.go\nx**y\n"},
			probes: []probe{
				{"src/a.go", false, true}, {"src/a/b.go", false, false},
				{"xaay", false, true}, {"x/y", false, false},
			},
		},
		{
			name:  "question mark and classes",
			files: map[string]string{"": "?.c\n[abc].h\n[!a-y]z\n[^0-9]n\n"},
			probes: []probe{
				{"a.c", false, true}, {"ab.c", false, false}, {"/.c", false, false},
				{"b.h", false, true}, {"d.h", false, false},
				{"zz", false, true}, {"az", false, false},
				{"xn", false, true}, {"5n", false, false},
			},
		},
		{
			name:   "a malformed class never matches, as in git",
			files:  map[string]string{"": "[oops\n"},
			probes: []probe{{"[oops", false, false}, {"o", false, false}},
		},
		{
			name: "nested .gitignore files, deeper wins, relative to their directory",
			files: map[string]string{
				"":        "*.gen\n/top\n",
				"pkg":     "!keep.gen\n/local\n",
				"pkg/sub": "*.md\n",
			},
			probes: []probe{
				{"a.gen", false, true}, {"pkg/a.gen", false, true}, {"pkg/keep.gen", false, false},
				{"keep.gen", false, true}, {"top", false, true}, {"pkg/top", false, false},
				{"pkg/local", false, true}, {"pkg/x/local", false, false}, {"local", false, false},
				{"pkg/sub/r.md", false, true}, {"pkg/r.md", false, false},
			},
		},
		{
			name:   "CRLF line endings",
			files:  map[string]string{"": "*.tmp\r\n"},
			probes: []probe{{"a.tmp", false, true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rules []ignoreRule
			// Outer files first, as the walk stacks them.
			for _, base := range []string{"", "pkg", "pkg/sub"} {
				if content, ok := tt.files[base]; ok {
					rules = append(rules, parseIgnore(base, []byte(content))...)
				}
			}
			for _, p := range tt.probes {
				if got := ignored(rules, p.path, p.isDir); got != p.want {
					t.Errorf("ignored(%q, dir=%v) = %v, want %v (rules %q)", p.path, p.isDir, got, p.want, tt.files)
				}
			}
		})
	}
}

func TestWildmatchNoBlowup(t *testing.T) {
	// A pathological pattern must still answer quickly (each star backtracks
	// only within one path segment).
	p := strings.Repeat("*a", 12) + "*b"
	s := strings.Repeat("a", 40)
	if wildmatch(p, s) {
		t.Fatal("matched")
	}
}
