package parse

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/parse")

// goldenSymbol is the part of a Symbol a golden file pins down.
type goldenSymbol struct {
	Name      string   `json:"name"`
	Kind      Kind     `json:"kind"`
	Qualified string   `json:"qname,omitempty"`
	Aliases   []string `json:"aliases,omitempty"`
	Parent    string   `json:"parent,omitempty"`
	Receiver  string   `json:"recv,omitempty"`
	Lines     string   `json:"lines"`
	Exported  bool     `json:"exported,omitempty"`
	Signature string   `json:"sig,omitempty"`
	Doc       string   `json:"doc,omitempty"`     // first line only
	Summary   string   `json:"summary,omitempty"` // file header: the generated summary line
	Result    string   `json:"result,omitempty"`
	Embeds    []string `json:"embeds,omitempty"`
}

type goldenRef struct {
	Kind      RefKind `json:"kind"`
	From      string  `json:"from"`
	Name      string  `json:"name"`
	Qualifier string  `json:"qual,omitempty"`
	QualType  string  `json:"qtype,omitempty"`
	Line      int     `json:"line"`
}

type goldenField struct {
	Name      string `json:"name"`
	Qualified string `json:"qname"`
	Owner     string `json:"owner"`
	Type      string `json:"type,omitempty"`
	Lines     string `json:"lines"`
	Exported  bool   `json:"exported,omitempty"`
	Signature string `json:"sig,omitempty"`
}

type goldenImport struct {
	Path  string       `json:"path"`
	Alias string       `json:"alias,omitempty"`
	Names []ImportName `json:"names,omitempty"`
	Line  int          `json:"line"`
}

// marshal encodes v on one line without HTML escaping.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// goldenView renders f as stable, line-per-item JSON.
func goldenView(f *File) []byte {
	label := func(i int) string {
		if i < 0 || i >= len(f.Symbols) {
			return ""
		}
		s := f.Symbols[i]
		if s.Kind == KindModule {
			return "<header>"
		}
		return fmt.Sprintf("%s@%d", s.QualifiedName, s.StartLine)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n\"language\": %q,\n\"package\": %q,\n\"partial\": %v,\n", f.Language, f.Package, f.Partial)
	notes := marshal(f.Notes)
	fmt.Fprintf(&b, "\"notes\": %s,\n\"symbols\": [\n", notes)
	for i, s := range f.Symbols {
		g := goldenSymbol{Name: s.Name, Kind: s.Kind, Aliases: s.Aliases, Receiver: s.Receiver, Result: s.ResultType, Embeds: s.Embeds,
			Lines: fmt.Sprintf("%d-%d", s.StartLine, s.EndLine), Exported: s.Exported}
		if s.QualifiedName != s.Name {
			g.Qualified = s.QualifiedName
		}
		if s.Kind != KindPart {
			g.Signature = s.Signature
		}
		g.Doc, _, _ = strings.Cut(s.Doc, "\n")
		if s.Kind == KindModule {
			lines := strings.Split(strings.TrimRight(s.Content, "\n"), "\n")
			if last := lines[len(lines)-1]; strings.Contains(last, "Symbols: ") || strings.Contains(last, "Sections: ") {
				g.Summary = last
			}
		}
		if s.Parent > 0 {
			g.Parent = label(s.Parent)
		}
		line := marshal(g)
		b.Write(line)
		if i < len(f.Symbols)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("],\n\"imports\": [\n")
	for i, imp := range f.Imports {
		line := marshal(goldenImport(imp))
		b.Write(line)
		if i < len(f.Imports)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("],\n\"refs\": [\n")
	for i, r := range f.Refs {
		line := marshal(goldenRef{Kind: r.Kind, From: label(r.From), Name: r.Name, Qualifier: r.Qualifier, QualType: r.QualifierType, Line: r.Line})
		b.Write(line)
		if i < len(f.Refs)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("],\n\"fields\": [\n")
	for i, fl := range f.Fields {
		line := marshal(goldenField{Name: fl.Name, Qualified: fl.QualifiedName, Owner: label(fl.Owner), Type: fl.Type,
			Lines: fmt.Sprintf("%d-%d", fl.StartLine, fl.EndLine), Exported: fl.Exported, Signature: fl.Signature})
		b.Write(line)
		if i < len(f.Fields)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]\n}\n")
	return b.Bytes()
}

const fixtureDir = "../../testdata/fixture"
const goldenDir = "../../testdata/parse"

// TestGolden parses every fixture file and compares the result with
// testdata/parse/<path>.json. Run with -update to rewrite them.
func TestGolden(t *testing.T) {
	goldenTree(t, fixtureDir, fixtureDir)
}

// goldenTree compares the parse of every file under dir (named by its path
// relative to root) with its golden, or rewrites the goldens with -update.
func goldenTree(t *testing.T, root, dir string) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil || len(paths) == 0 {
		t.Fatalf("no inputs under %s: %v", dir, err)
	}
	for _, p := range paths {
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		t.Run(rel, func(t *testing.T) {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Parse(rel, src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, f, src)
			got := goldenView(f)
			gp := filepath.Join(goldenDir, rel+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(gp), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(gp, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(gp)
			if err != nil {
				t.Fatalf("no golden file (run with -update): %v", err)
			}
			if string(got) != string(want) {
				t.Errorf("%s differs from %s (run with -update and review the diff):\n%s", rel, gp, lineDiff(string(want), string(got)))
			}
		})
	}
}

// lineDiff lists the lines that differ between want and got.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %s\n  got  %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}
