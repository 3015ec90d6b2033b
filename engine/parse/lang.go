package parse

import (
	"embed"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsgo "github.com/tree-sitter/tree-sitter-go/bindings/go"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tspy "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

//go:embed queries/*.scm
var queryFS embed.FS

// grammar is one tree-sitter language with its compiled query and a pool of
// parsers. A Query is immutable and shared; parsers and cursors are not
// goroutine-safe, so each Parse call takes its own.
type grammar struct {
	name     string
	ts       *sitter.Language
	query    *sitter.Query
	captures []string // capture names by index
	kinds    []string // node kind names by kind id
	parsers  chan *sitter.Parser
}

type grammarSpec struct {
	lang    func() unsafe.Pointer
	queries []string
}

var grammarSpecs = map[string]grammarSpec{
	"go":         {tsgo.Language, []string{"go.scm"}},
	"python":     {tspy.Language, []string{"python.scm"}},
	"javascript": {tsjs.Language, []string{"javascript.scm", "javascript_only.scm", "jsx.scm"}},
	"typescript": {tsts.LanguageTypescript, []string{"javascript.scm", "typescript.scm"}},
	"tsx":        {tsts.LanguageTSX, []string{"javascript.scm", "typescript.scm", "jsx.scm"}},
}

var (
	grammarsMu sync.Mutex
	grammars   = map[string]*grammar{}
)

// loadGrammar returns the grammar for lang, compiling its query on first use.
func loadGrammar(lang string) (*grammar, error) {
	grammarsMu.Lock()
	defer grammarsMu.Unlock()
	if g, ok := grammars[lang]; ok {
		return g, nil
	}
	spec, ok := grammarSpecs[lang]
	if !ok {
		return nil, fmt.Errorf("no grammar for language %q", lang)
	}
	g := &grammar{name: lang, ts: sitter.NewLanguage(spec.lang())}
	var src []byte
	for _, q := range spec.queries {
		b, err := queryFS.ReadFile("queries/" + q)
		if err != nil {
			return nil, err
		}
		src = append(src, b...)
		src = append(src, '\n')
	}
	q, qerr := sitter.NewQuery(g.ts, string(src))
	if qerr != nil {
		return nil, fmt.Errorf("query for %s: %s", lang, qerr.Error())
	}
	g.query = q
	g.captures = q.CaptureNames()
	n := g.ts.NodeKindCount()
	g.kinds = make([]string, n)
	for i := range n {
		g.kinds[i] = g.ts.NodeKindForId(uint16(i))
	}
	g.parsers = make(chan *sitter.Parser, 2*runtime.GOMAXPROCS(0))
	grammars[lang] = g
	return g, nil
}

// kind returns the node's kind name without a cgo string conversion.
func (g *grammar) kind(n *sitter.Node) string {
	id := int(n.KindId())
	if id < len(g.kinds) {
		return g.kinds[id]
	}
	return n.Kind()
}

func (g *grammar) getParser() (*sitter.Parser, error) {
	select {
	case p := <-g.parsers:
		return p, nil
	default:
	}
	p := sitter.NewParser()
	if err := p.SetLanguage(g.ts); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// putParser returns p to the pool, or frees it when the pool is full (a
// sync.Pool would drop parsers without freeing their C memory).
func (g *grammar) putParser(p *sitter.Parser) {
	p.Reset()
	select {
	case g.parsers <- p:
	default:
		p.Close()
	}
}
