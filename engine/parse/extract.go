package parse

import (
	"fmt"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// qualMode says how a definition's QualifiedName is formed.
type qualMode int

const (
	qualExplicit qualMode = iota // def.qual as set by the language code (or the name)
	qualNested                   // parent's QualifiedName + "." + name when nested in a definition
)

// def is a definition found in the tree, before it becomes a Symbol.
type def struct {
	name     string
	aliases  []string
	kind     Kind
	qual     string
	mode     qualMode
	receiver string
	memberOf *def   // JS/TS: the class of a class member
	private  bool   // JS/TS: a #private or private/protected member
	owner    string // a top-level definition to parent this one to when it is in the file: a Go method's receiver type, the object of `res.send = function`
	exported bool
	doc      string
	sig      string
	result   string   // Symbol.ResultType
	embeds   []string // Symbol.Embeds

	start, end int // byte range the chunk covers, doc comments included
	ownStart   int // start of the definition itself (after doc comments), for containment
	refStart   int // the range references are attributed from, when narrower than ownStart..end
	refEnd     int
	node       sitter.Node
	splittable bool // node is usable for splitting

	dropped bool // superseded by error recovery
	parent  int  // index into extractor.defs, -1 = top level
	nested  bool // inside another definition's range (a Go method is not, whatever its parent)
	sym     int  // index in File.Symbols

	ownerWins bool // owner applies even when nested: a Rust method in its impl block
}

type rawRef struct {
	kind      RefKind
	name      string
	qualifier string
	qualType  string // Ref.QualifierType
	off       int
}

// match is one query match, decoded into the captures the language code uses.
type match struct {
	tag       string // capture name of the main node: "definition.function", "reference.call", ...
	node      sitter.Node
	name      *sitter.Node
	qualifier *sitter.Node
	value     *sitter.Node
	key       *sitter.Node
	callee    *sitter.Node
}

// langHandler holds the language-specific rules.
type langHandler interface {
	handle(x *extractor, m *match)
	finish(x *extractor) // called after all matches
	commentMarker() string
	headerNode(x *extractor, n *sitter.Node) bool // is this top-level node part of the file header?
}

type extractor struct {
	*chunker
	g       *grammar
	h       langHandler
	f       *File
	root    *sitter.Node
	defs    []*def
	refs    []rawRef
	fields  []rawField
	claimed map[uintptr]int // node id -> index in defs, for de-duplication
	cur     *sitter.TreeCursor
	top     []sitter.Node
	covered []span // top-level statements covered by definitions inside them
	minOff  int    // during error recovery: ignore findings before this offset
}

type span struct{ start, end int }

func (c *chunker) parseCode(f *File, lang string) error {
	g, err := loadGrammar(lang)
	if err != nil {
		return err
	}
	p, err := g.getParser()
	if err != nil {
		return err
	}
	// A parse that timed out can leave the parser flagged as cancelled, which
	// Reset does not clear: the next parse with it would abort the process. Such
	// a parser is freed, not pooled.
	spoiled := false
	defer func() {
		if spoiled {
			p.Close()
		} else {
			g.putParser(p)
		}
	}()
	// Error recovery can make tree-sitter slow on pathological input; bound
	// it. (SetTimeoutMicros is deprecated in go-tree-sitter in favour of a
	// progress callback, which would cost a cgo callback every hundred
	// parser operations; the clock check here is in C.)
	//lint:ignore SA1019 the replacement costs a cgo callback every hundred parser steps (see above)
	p.SetTimeoutMicros(uint64(parseTimeout(len(c.src)).Microseconds()))
	setIncludedRanges(p, lang, c.src) // csharp_preproc.go: C# skips its preprocessor lines
	if l := registered[lang]; l != nil && l.prepare != nil {
		c.src = l.prepare(c.src) // c.s, which chunks and names are cut from, stays as written
	}
	tree := p.Parse(c.src, nil)
	if tree == nil {
		spoiled = true
		f.Partial = true // what the index says of a file it could not parse
		f.Notes = append(f.Notes, "parse timed out: chunked as plain text")
		c.textBlocks(f)
		f.Language = lang
		return nil
	}
	defer tree.Close()
	root := tree.RootNode()
	x := &extractor{chunker: c, g: g, f: f, root: root, claimed: map[uintptr]int{}, cur: root.Walk()}
	defer x.cur.Close()
	switch lang {
	case "go":
		x.h = &goHandler{}
	case "python":
		x.h = &pyHandler{}
		f.Package = pythonModule(c.path)
	case "javascript", "typescript", "tsx":
		x.h = &jsHandler{ts: lang != "javascript"}
	default:
		l, ok := registered[lang]
		if !ok {
			return fmt.Errorf("no handler for language %q", lang)
		}
		x.h = l.handler()
	}
	if root.HasError() {
		f.Partial = true
		f.Notes = append(f.Notes, fmt.Sprintf("syntax errors near line %d: definitions are what tree-sitter recovered", x.firstErrorLine(root)))
	}
	x.runQuery()
	if root.HasError() {
		trees := x.recoverAfterErrors(p, &spoiled)
		defer func() {
			for _, t := range trees {
				t.Close()
			}
		}()
	}
	x.h.finish(x)
	x.build()
	return nil
}

func (x *extractor) runQuery() {
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	qc.SetMatchLimit(1 << 16)
	matches := qc.Matches(x.g.query, x.root, x.src)
	var deferred []match
	var slab nodeSlab
	// One match value for the whole run: a fresh one per match escaped to the
	// heap through the handler interface (a fifth of a parse's allocations).
	// Handlers copy what they keep; none keeps m or &m.node.
	var m match
	for {
		qm := matches.Next()
		if qm == nil {
			break
		}
		m = match{}
		for _, cp := range qm.Captures {
			switch name := x.g.captures[cp.Index]; name {
			case "name":
				m.name = slab.put(cp.Node)
			case "qualifier":
				m.qualifier = slab.put(cp.Node)
			case "value":
				m.value = slab.put(cp.Node)
			case "key":
				m.key = slab.put(cp.Node)
			case "callee":
				m.callee = slab.put(cp.Node)
			default:
				if m.tag == "" {
					m.tag, m.node = name, cp.Node
				}
			}
		}
		if m.tag == "" {
			continue
		}
		// Fallback patterns run after every primary definition is known.
		if m.tag == "definition.named" || m.tag == "definition.definer" || m.tag == "definition.method" || m.tag == "definition.signature" {
			deferred = append(deferred, m)
			continue
		}
		x.h.handle(x, &m)
	}
	// Definers before the generic named-function fallback; class members
	// last, so their class is known.
	order := []string{"definition.definer", "definition.named", "definition.method", "definition.signature"}
	for _, tag := range order {
		for i := range deferred {
			if deferred[i].tag == tag {
				x.h.handle(x, &deferred[i])
			}
		}
	}
}

// nodeSlab hands out stable node pointers from blocks: one allocation per
// block instead of one per capture, which was the bulk of a parse's
// allocations. A block is never reused, so a pointer stays valid for as long
// as a handler keeps it.
type nodeSlab struct{ block []sitter.Node }

func (s *nodeSlab) put(n sitter.Node) *sitter.Node {
	if len(s.block) == cap(s.block) {
		s.block = make([]sitter.Node, 0, 256)
	}
	s.block = append(s.block, n)
	return &s.block[len(s.block)-1]
}

// text returns the source of n.
func (x *extractor) text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return x.s[n.StartByte():n.EndByte()]
}

func (x *extractor) kind(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return x.g.kind(n)
}

// field returns n's child by field name, or nil.
func field(n *sitter.Node, name string) *sitter.Node {
	if n == nil {
		return nil
	}
	return n.ChildByFieldName(name)
}

// named returns n's named children, comments included.
func (x *extractor) named(n *sitter.Node) []sitter.Node {
	if n == nil || n.NamedChildCount() == 0 {
		return nil
	}
	return n.NamedChildren(x.cur)
}

// topLevel returns the root's named children (cached).
func (x *extractor) topLevel() []sitter.Node {
	if x.top == nil {
		x.top = x.named(x.root)
		if x.top == nil {
			x.top = []sitter.Node{}
		}
	}
	return x.top
}

// fieldChildren returns n's children in the field name.
func (x *extractor) fieldChildren(n *sitter.Node, name string) []sitter.Node {
	id := x.g.ts.FieldIdForName(name)
	if n == nil || id == 0 {
		return nil
	}
	x.cur.Reset(*n)
	var out []sitter.Node
	for ok := x.cur.GotoFirstChild(); ok; ok = x.cur.GotoNextSibling() {
		if x.cur.FieldId() == id {
			out = append(out, *x.cur.Node())
		}
	}
	return out
}

// addDef records a definition whose chunk covers outer (plus the doc comments
// directly above it) and returns its index, or -1 when node was already taken.
func (x *extractor) addDef(d *def, node, outer *sitter.Node) int {
	if _, ok := x.claimed[node.Id()]; ok || int(outer.StartByte()) < x.minOff {
		return -1
	}
	d.node = *outer
	d.splittable = true
	d.ownStart, d.end = int(outer.StartByte()), int(outer.EndByte())
	d.start = d.ownStart
	if d.name == "" {
		d.name = "_"
	}
	if d.doc == "" {
		d.start, d.doc = x.attachDocs(d.ownStart)
	} else {
		d.start, _ = x.attachDocs(d.ownStart)
	}
	d.parent = -1
	x.defs = append(x.defs, d)
	i := len(x.defs) - 1
	x.claimed[node.Id()] = i
	return i
}

// outerIsTopLevel reports whether d's chunk is a statement of the file itself.
func (x *extractor) outerIsTopLevel(d *def) bool {
	p := d.node.Parent()
	return p != nil && p.Equals(*x.root)
}

// isComment reports whether n is a comment node.
func (x *extractor) isComment(n *sitter.Node) bool {
	k := x.kind(n)
	return k == "comment" || k == "line_comment" || k == "block_comment"
}

// attachDocs extends a definition starting at off upward over the contiguous
// comment lines directly above it and returns the new start and the comment
// text with its markers removed.
func (x *extractor) attachDocs(off int) (int, string) {
	if !x.onlySpaceBefore(off) {
		return off, ""
	}
	start := x.lineStartByte(x.lineOf(off))
	line := x.lineOf(off)
	var parts []string
	for line > 1 {
		prev := line - 1
		txt := x.lineText(prev)
		trimmed := strings.TrimLeft(txt, " \t")
		if strings.TrimSpace(trimmed) == "" {
			break
		}
		b := x.lineStartByte(prev) + len(txt) - len(trimmed)
		n := x.root.DescendantForByteRange(uint(b), uint(b+1))
		for n != nil && !x.isComment(n) && int(n.StartByte()) == b && n.ChildCount() > 0 {
			n = n.Child(0)
		}
		if n == nil || !x.isComment(n) {
			break
		}
		cs, ce := int(n.StartByte()), int(n.EndByte())
		if x.endLineOf(cs, ce) != prev || !x.onlySpaceAfter(ce) || !x.onlySpaceBefore(cs) {
			break
		}
		parts = append(parts, x.s[cs:ce])
		line = x.lineOf(cs)
		start = x.lineStartByte(line)
	}
	if len(parts) == 0 {
		return off, ""
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return start, cleanComments(parts)
}

// cleanComments strips comment markers and joins comment texts.
func cleanComments(parts []string) string {
	var lines []string
	for _, p := range parts {
		p = strings.TrimSpace(p)
		switch {
		case strings.HasPrefix(p, "/*"):
			p = strings.TrimSuffix(strings.TrimPrefix(p, "/*"), "*/")
			p = strings.TrimLeft(p, "*!")
			for l := range strings.SplitSeq(p, "\n") {
				l = strings.TrimSpace(l)
				l = strings.TrimPrefix(l, "*")
				lines = append(lines, strings.TrimSpace(l))
			}
		case strings.HasPrefix(p, "//"):
			lines = append(lines, strings.TrimSpace(strings.TrimLeft(p, "/!")))
		case strings.HasPrefix(p, "#"):
			lines = append(lines, strings.TrimSpace(strings.TrimLeft(p, "#")))
		default:
			lines = append(lines, p)
		}
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// signature returns the source from start to end (the body), whitespace
// collapsed, trailing "{" or ":" removed, capped in length.
func (x *extractor) signature(start, end int) string {
	if end <= start || end > len(x.s) {
		end = x.lineEndByte(x.lineOf(start))
	}
	s := strings.Join(strings.Fields(x.s[start:end]), " ")
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "{"))
	s = strings.TrimSuffix(strings.TrimSuffix(s, ":"), ";")
	if len(s) > 400 {
		cut := 400
		for cut > 0 && !utf8RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// firstLine returns the first line of n's text, whitespace collapsed (the
// signature of a variable or type alias).
func (x *extractor) firstLine(n *sitter.Node) string {
	start := int(n.StartByte())
	end := min(x.lineEndByte(x.lineOf(start)), int(n.EndByte()))
	s := strings.Join(strings.Fields(x.s[start:end]), " ")
	if len(s) > 400 {
		cut := 400
		for cut > 0 && !utf8RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strings.TrimSuffix(s, ";")
}

func (x *extractor) addRef(kind RefKind, name, qualifier string, off int) {
	x.addTypedRef(kind, name, qualifier, "", off)
}

// addTypedRef is addRef with the qualifier's type (Ref.QualifierType) when the
// language handler knows it.
func (x *extractor) addTypedRef(kind RefKind, name, qualifier, qualType string, off int) {
	if strings.TrimSpace(name) == "" || off < x.minOff || (kind == RefCalls && qualifier == "" && keywords[name]) {
		return
	}
	x.refs = append(x.refs, rawRef{kind: kind, name: name, qualifier: qualifier, qualType: qualType, off: off})
}

// keywords are never callees; error recovery can make them look like one.
var keywords = map[string]bool{
	"if": true, "else": true, "elif": true, "for": true, "while": true, "switch": true, "case": true,
	"return": true, "catch": true, "function": true, "func": true, "def": true, "class": true,
	"typeof": true, "yield": true, "await": true, "lambda": true, "not": true, "and": true, "or": true,
	"in": true, "is": true, "with": true, "new": true, "delete": true, "void": true, "import": true,
}

// addImport records an import and its "imports" reference.
func (x *extractor) addImport(imp Import, off int) {
	if off < x.minOff || strings.TrimSpace(imp.Path) == "" {
		return
	}
	x.f.Imports = append(x.f.Imports, imp)
	x.addRef(RefImports, imp.Path, "", off)
}

// qualifierText renders a call's receiver expression compactly.
func (x *extractor) qualifierText(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	s := x.text(n)
	if strings.ContainsAny(s, " \t\r\n") {
		s = strings.Join(strings.Fields(s), " ")
	}
	if len(s) > 64 {
		cut := 61
		for cut > 0 && !utf8RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}
