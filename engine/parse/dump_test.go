//go:build devtools

// Debugging aids for writing queries and goldens, built only with -tags
// devtools so that make test never lists (and skips) them.

package parse

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

var (
	dumpFile = flag.String("dump", "", "print the syntax tree of this file (TestDumpTree)")
	dumpLang = flag.String("dumplang", "", "language for -dump (default: by extension)")
	showFile = flag.String("show", "", "print the golden view of this file (TestShow)")
)

// TestDumpTree prints a syntax tree; a debugging aid for writing queries:
//
//	go test -tags devtools ./engine/parse -run TestDumpTree -v -dump FILE
func TestDumpTree(t *testing.T) {
	if *dumpFile == "" {
		t.Fatal("give -dump FILE")
	}
	src, err := os.ReadFile(*dumpFile)
	if err != nil {
		t.Fatal(err)
	}
	lang := *dumpLang
	if lang == "" {
		lang = Language(*dumpFile)
	}
	g, err := loadGrammar(lang)
	if err != nil {
		t.Fatal(err)
	}
	p, err := g.getParser()
	if err != nil {
		t.Fatal(err)
	}
	defer g.putParser(p)
	tree := p.Parse(src, nil)
	defer tree.Close()
	var walk func(n *sitter.Node, depth int, field string)
	walk = func(n *sitter.Node, depth int, field string) {
		txt := ""
		if n.ChildCount() == 0 || n.EndByte()-n.StartByte() < 40 {
			txt = strings.ReplaceAll(string(src[n.StartByte():n.EndByte()]), "\n", "\\n")
		}
		if field != "" {
			field += ": "
		}
		fmt.Printf("%s%s%s [%d-%d] %q\n", strings.Repeat("  ", depth), field, n.Kind(), n.StartPosition().Row+1, n.EndPosition().Row+1, txt)
		for i := uint(0); i < n.ChildCount(); i++ {
			walk(n.Child(i), depth+1, n.FieldNameForChild(uint32(i)))
		}
	}
	walk(tree.RootNode(), 0, "")
}

// TestShow prints the golden view of one file:
//
//	go test -tags devtools ./engine/parse -run TestShow -v -show FILE
func TestShow(t *testing.T) {
	if *showFile == "" {
		t.Fatal("give -show FILE")
	}
	src, err := os.ReadFile(*showFile)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(*showFile, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.Write(goldenView(f))
	for _, s := range f.Symbols {
		if strings.Contains(os.Getenv("SHOW"), "sig") {
			fmt.Printf("%-30s sig=%q doc=%q\n", s.QualifiedName, s.Signature, s.Doc)
		}
		if strings.Contains(os.Getenv("SHOW"), "content") {
			fmt.Printf("---- %s [%d-%d]\n%s", s.QualifiedName, s.StartLine, s.EndLine, s.Content)
		}
	}
}
