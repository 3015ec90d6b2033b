package parse

import (
	"strings"
	"sync"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Highlighting over the grammars the index already links: the TUI and `spelunk
// show` colour code with the tree-sitter parse of it rather than a separate
// lexer library, whose registry of lexers would be built at the start of
// every process (chroma's took 10–75 ms of each CLI search's start-up).

// Class is how a highlighter draws a token.
type Class uint8

// The token classes, few as a code viewer needs.
const (
	Plain Class = iota
	Keyword
	Type
	Constant
	String
	Number
	Comment
	Function
	Operator
)

// Span is a styled byte range of a highlighted source.
type Span struct {
	Start, End int
	Class      Class
}

// hlGrammar is a grammar without the index's query (compiling that is wasted
// work for colouring) and a pool of parsers.
type hlGrammar struct {
	ts      *sitter.Language
	kinds   []string
	parsers chan *sitter.Parser
}

var (
	hlMu       sync.Mutex
	hlGrammars = map[string]*hlGrammar{}
)

func loadHLGrammar(lang string) *hlGrammar {
	hlMu.Lock()
	defer hlMu.Unlock()
	if g, ok := hlGrammars[lang]; ok {
		return g
	}
	spec, ok := grammarSpecs[lang]
	if !ok {
		return nil
	}
	g := &hlGrammar{ts: sitter.NewLanguage(spec.lang()), parsers: make(chan *sitter.Parser, 2)}
	g.kinds = make([]string, g.ts.NodeKindCount())
	for i := range g.kinds {
		g.kinds[i] = g.ts.NodeKindForId(uint16(i))
	}
	hlGrammars[lang] = g
	return g
}

// HighlightLanguage names the grammar that colours a file: the indexed
// language when it is a parsed one, else the language of path's extension,
// else a Markdown fence's name for one ("py", "rs", "c++"); "" when none.
func HighlightLanguage(path, language string) string {
	language = strings.ToLower(strings.TrimSpace(language))
	if a, ok := fenceNames[language]; ok {
		language = a
	}
	if _, ok := grammarSpecs[language]; ok {
		return language
	}
	if l := Language(path); l != "" && l != "text" {
		return l
	}
	return ""
}

var fenceNames = map[string]string{
	"golang": "go", "py": "python", "python3": "python", "js": "javascript", "jsx": "javascript",
	"node": "javascript", "ts": "typescript", "rb": "ruby", "rs": "rust", "cs": "csharp", "c#": "csharp",
	"c++": "cpp", "cc": "cpp", "cxx": "cpp", "hpp": "cpp", "h": "c",
}

// phpOpen starts a PHP source that lacks its opening tag (a chunk does):
// without it the grammar reads the code as inline HTML.
const phpOpen = "<?php\n"

// Highlight returns the styled spans of src in lang (see HighlightLanguage),
// in order and not overlapping; ok is false when lang has no grammar.
func Highlight(lang string, src []byte) (spans []Span, ok bool) {
	g := loadHLGrammar(lang)
	if g == nil {
		return nil, false
	}
	shift := 0
	if lang == "php" && !strings.HasPrefix(strings.TrimSpace(string(src[:min(len(src), 64)])), "<?") {
		src = append([]byte(phpOpen), src...)
		shift = len(phpOpen)
	}
	var p *sitter.Parser
	select {
	case p = <-g.parsers:
	default:
		p = sitter.NewParser()
		if err := p.SetLanguage(g.ts); err != nil {
			p.Close()
			return nil, false
		}
	}
	tree := p.Parse(src, nil)
	p.Reset()
	select {
	case g.parsers <- p:
	default:
		p.Close()
	}
	if tree == nil {
		return nil, false
	}
	defer tree.Close()
	c := tree.Walk()
	defer c.Close()
	spans = g.walk(c, src, shift)
	return spans, true
}

// walk visits the tree depth-first, emitting a span for each styled node; a
// comment, string or number is one span and is not descended into.
func (g *hlGrammar) walk(c *sitter.TreeCursor, src []byte, shift int) []Span {
	var spans []Span
	var parents []string
	for {
		n := c.Node()
		kind := g.kind(n)
		cl, leaf := g.classify(n, kind, c, parents)
		start, end := int(n.StartByte())-shift, int(n.EndByte())-shift
		if cl != Plain && end > start && end > 0 {
			spans = append(spans, Span{max(start, 0), end, cl})
		}
		if !leaf && c.GotoFirstChild() {
			parents = append(parents, kind)
			continue
		}
		for !c.GotoNextSibling() {
			if !c.GotoParent() {
				return spans
			}
			parents = parents[:len(parents)-1]
		}
	}
}

func (g *hlGrammar) kind(n *sitter.Node) string {
	if id := int(n.KindId()); id < len(g.kinds) {
		return g.kinds[id]
	}
	return n.Kind()
}

// classify says how a node is drawn and whether its children are skipped.
func (g *hlGrammar) classify(n *sitter.Node, kind string, c *sitter.TreeCursor, parents []string) (Class, bool) {
	named := n.IsNamed()
	switch {
	case named && strings.Contains(kind, "comment"):
		return Comment, true
	case named && isStringKind(kind):
		return String, true
	case named && isNumberKind(kind):
		return Number, true
	case named && constantKinds[kind]:
		return Constant, true
	case named && typeKinds[kind]:
		return Type, true
	}
	if n.ChildCount() > 0 {
		return Plain, false
	}
	if !named {
		switch {
		case isWord(kind):
			return Keyword, true
		case kind != "" && !strings.ContainsAny(kind, "(){}[],;.:$\"'`") && !n.IsError():
			return Operator, true
		}
		return Plain, true
	}
	if len(parents) == 0 || !strings.HasSuffix(kind, "identifier") && kind != "name" && kind != "constant" {
		return Plain, true
	}
	parent, field := parents[len(parents)-1], c.FieldName()
	switch {
	case field == "name" && (strings.Contains(parent, "function") || strings.Contains(parent, "method")):
		return Function, true
	case field == "name" && isTypeDecl(parent):
		return Type, true
	case (field == "function" || field == "method") && strings.Contains(parent, "call"):
		return Function, true
	}
	return Plain, true
}

func isStringKind(kind string) bool {
	return (strings.Contains(kind, "string") || strings.HasSuffix(kind, "char_literal") ||
		kind == "rune_literal" || kind == "character_literal" || kind == "heredoc_body") &&
		!strings.HasSuffix(kind, "_type")
}

func isNumberKind(kind string) bool {
	switch kind {
	case "integer", "float", "number", "number_literal", "int_literal", "float_literal", "imaginary_literal",
		"integer_literal", "real_literal", "decimal_integer_literal", "hex_integer_literal",
		"octal_integer_literal", "binary_integer_literal", "decimal_floating_point_literal",
		"hex_floating_point_literal", "rational", "complex":
		return true
	}
	return false
}

var constantKinds = map[string]bool{
	"true": true, "false": true, "nil": true, "null": true, "none": true, "undefined": true, "iota": true,
	"null_literal": true, "boolean_literal": true, "boolean": true,
}

var typeKinds = map[string]bool{
	"type_identifier": true, "primitive_type": true, "predefined_type": true, "integral_type": true,
	"floating_point_type": true, "boolean_type": true, "void_type": true, "builtin_type": true,
	"sized_type_specifier": true,
}

func isTypeDecl(kind string) bool {
	for _, k := range []string{"class", "struct", "interface", "enum", "trait", "type_spec", "module", "record"} {
		if strings.Contains(kind, k) {
			return true
		}
	}
	return false
}

// isWord reports whether an anonymous token is a keyword: letters only.
func isWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_') {
			return false
		}
	}
	return true
}
