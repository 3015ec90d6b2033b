package parse

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

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
	defer g.putParser(p)
	// Error recovery can make tree-sitter slow on pathological input; bound
	// it. (SetTimeoutMicros is deprecated in go-tree-sitter in favour of a
	// progress callback, which would cost a cgo callback every hundred
	// parser operations; the clock check here is in C.)
	//lint:ignore SA1019 the replacement costs a cgo callback every hundred parser steps (see above)
	p.SetTimeoutMicros(uint64(parseTimeout(len(c.src)).Microseconds()))
	tree := p.Parse(c.src, nil)
	if tree == nil {
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
	default:
		x.h = &jsHandler{ts: lang != "javascript"}
	}
	if root.HasError() {
		f.Partial = true
		f.Notes = append(f.Notes, fmt.Sprintf("syntax errors near line %d: definitions are what tree-sitter recovered", x.firstErrorLine(root)))
	}
	x.runQuery()
	if root.HasError() {
		trees := x.recoverAfterErrors(p)
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

// parseTimeout is the time allowed to parse n bytes: far above the normal
// few MB/s, so only pathological input hits it.
func parseTimeout(n int) time.Duration {
	return time.Second + time.Duration(n)*2*time.Second/(1<<20)
}

// maxResyncs bounds the re-parses error recovery may do for one file.
const maxResyncs = 8

// recoverAfterErrors works around error recovery that swallows the rest of a
// file (an unclosed parenthesis in Python does). It looks for the first line
// after a syntax error that starts at column 0 inside the statement holding
// the error; if there is one, that statement is cut short there and the file
// is parsed again with the statement blanked out (same byte offsets, same
// lines), and everything found from that line on comes from the new tree.
// The returned trees must stay open until the extractor is done.
func (x *extractor) recoverAfterErrors(p *sitter.Parser) []*sitter.Tree {
	var trees []*sitter.Tree
	var masked []byte
	after := 0
	deadline := time.Now().Add(parseTimeout(len(x.src)) / 2)
	for range maxResyncs {
		if time.Now().After(deadline) {
			x.f.Notes = append(x.f.Notes, "syntax errors: recovery stopped early (time budget)")
			break
		}
		line, start := x.resyncLine(after)
		if line == 0 {
			break
		}
		cut := x.lineStartByte(line)
		// Keep what the current tree found before the cut, trimmed to it.
		last := line - 1
		for last > 1 && x.blank(last) {
			last--
		}
		lastEnd := x.lineStartByte(last) + len(x.lineText(last))
		for _, d := range x.defs {
			switch {
			case d.ownStart >= cut:
				d.dropped = true
			case d.end > cut:
				d.end = max(lastEnd, d.ownStart+1)
				d.splittable = false
			}
		}
		refs := x.refs[:0]
		for _, r := range x.refs {
			if r.off < cut {
				refs = append(refs, r)
			}
		}
		x.refs = refs
		imps := x.f.Imports[:0]
		for _, imp := range x.f.Imports {
			if imp.Line < line {
				imps = append(imps, imp)
			}
		}
		x.f.Imports = imps
		// Blank the broken statement up to the cut and parse again.
		if masked == nil {
			masked = append([]byte(nil), x.src...)
		}
		for i := start; i < cut; i++ {
			if masked[i] != '\n' && masked[i] != '\r' {
				masked[i] = ' '
			}
		}
		t := p.Parse(masked, nil)
		if t == nil {
			break
		}
		trees = append(trees, t)
		x.root, x.top = t.RootNode(), nil
		x.cur.Reset(*x.root)
		x.minOff = cut
		x.runQuery()
		x.f.Notes = append(x.f.Notes, fmt.Sprintf("syntax error: parsing resumed at line %d", line))
		after = cut
		if !x.root.HasError() {
			break
		}
	}
	x.minOff = 0
	return trees
}

// resyncLine finds the first syntax error at or after offset after and
// returns the first line after it, inside the top-level statement holding
// it, that starts at column 0 with something other than a closing bracket
// or a continuation keyword; and the offset where that statement starts.
func (x *extractor) resyncLine(after int) (int, int) {
	e := x.firstErrorFrom(x.root, after)
	if e < 0 {
		return 0, 0
	}
	for _, top := range x.topLevel() {
		s, end := int(top.StartByte()), int(top.EndByte())
		if end <= e || s > e {
			continue
		}
		for l := x.lineOf(e) + 1; l <= x.endLineOf(s, end); l++ {
			txt := x.lineText(l)
			if txt == "" || txt[0] == ' ' || txt[0] == '\t' || strings.TrimSpace(txt) == "" {
				continue
			}
			if strings.ContainsRune(")]}", rune(txt[0])) || continuationLine(txt) {
				continue
			}
			return l, max(s, after)
		}
		return 0, 0
	}
	return 0, 0
}

// continuationLine reports whether a column-0 line continues a statement.
func continuationLine(txt string) bool {
	for _, kw := range []string{"else", "elif", "except", "finally", "catch", "case", "default"} {
		if strings.HasPrefix(txt, kw) && (len(txt) == len(kw) || !isIdentByte(txt[len(kw)])) {
			return true
		}
	}
	return false
}

func isIdentByte(b byte) bool {
	return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// firstErrorFrom returns the offset of the first ERROR or MISSING node that
// ends after offset after, or -1.
func (x *extractor) firstErrorFrom(n *sitter.Node, after int) int {
	if n.IsError() || n.IsMissing() {
		return max(int(n.StartByte()), after)
	}
	for _, ch := range n.Children(x.cur) {
		if int(ch.EndByte()) <= after && !(ch.IsMissing() && int(ch.StartByte()) >= after) {
			continue
		}
		if ch.IsError() || ch.IsMissing() || ch.HasError() {
			if r := x.firstErrorFrom(&ch, after); r >= 0 {
				return r
			}
		}
	}
	return -1
}

// firstErrorLine finds the first ERROR or MISSING node.
func (x *extractor) firstErrorLine(n *sitter.Node) int {
	for {
		if n.IsError() || n.IsMissing() {
			return x.lineOf(int(n.StartByte()))
		}
		var next *sitter.Node
		for i := uint(0); i < n.ChildCount(); i++ {
			ch := n.Child(i)
			if ch != nil && (ch.HasError() || ch.IsMissing()) {
				next = ch
				break
			}
		}
		if next == nil {
			return x.lineOf(int(n.StartByte()))
		}
		n = next
	}
}

func (x *extractor) runQuery() {
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	qc.SetMatchLimit(1 << 16)
	matches := qc.Matches(x.g.query, x.root, x.src)
	var deferred []match
	var slab nodeSlab
	for {
		qm := matches.Next()
		if qm == nil {
			break
		}
		var m match
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
			lines = append(lines, strings.TrimSpace(strings.TrimLeft(p, "/")))
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

// build turns the defs into Symbols: parents, top-level code blocks, the file
// header, oversized parts, and each reference's enclosing symbol.
func (x *extractor) build() {
	defs := x.defs[:0]
	for _, d := range x.defs {
		if !d.dropped {
			defs = append(defs, d)
		}
	}
	x.defs = defs
	// Source order, outer before inner.
	sort.SliceStable(x.defs, func(i, j int) bool {
		a, b := x.defs[i], x.defs[j]
		if a.ownStart != b.ownStart {
			return a.ownStart < b.ownStart
		}
		return a.end > b.end
	})
	x.assignParents()
	x.addTopLevelBlocks()
	x.assignParents()

	f := x.f
	// Header.
	var names []string
	for _, d := range x.defs {
		if d.parent < 0 && d.kind != KindBlock {
			if d.kind == KindMethod && d.receiver != "" {
				names = append(names, d.receiver+"."+d.name)
			} else {
				names = append(names, d.name)
			}
		}
	}
	hEnd, hDoc := x.headerEnd()
	h := x.header(hEnd, summaryLine(x.h.commentMarker(), names))
	h.Doc = hDoc
	f.Symbols = append(f.Symbols, h)

	// Definitions in order; each oversized one followed by its parts.
	for _, d := range x.defs {
		d.sym = len(f.Symbols)
		s := x.symbol(x.lineOf(d.start), x.endLineOf(d.start, d.end))
		s.Name, s.Kind, s.Aliases = d.name, d.kind, d.aliases
		s.Receiver, s.Signature, s.Doc, s.Exported = d.receiver, d.sig, d.doc, d.exported
		s.ResultType, s.Embeds = d.result, d.embeds
		s.QualifiedName = d.qual
		if s.QualifiedName == "" {
			s.QualifiedName = d.name
		}
		if d.mode == qualNested && d.parent >= 0 {
			if p := x.defs[d.parent]; p.kind != KindBlock {
				s.QualifiedName = f.Symbols[p.sym].QualifiedName + "." + d.name
			}
		}
		if d.parent >= 0 {
			s.Parent = x.defs[d.parent].sym
		}
		f.Symbols = append(f.Symbols, s)
		if len(s.Content) > x.opts.MaxSymbolBytes && d.splittable {
			x.addParts(d)
		}
	}

	// References: the innermost enclosing definition (parts excluded).
	sort.SliceStable(x.refs, func(i, j int) bool { return x.refs[i].off < x.refs[j].off })
	var stack []*def
	di := 0
	for _, r := range x.refs {
		for di < len(x.defs) && x.defs[di].ownStart <= r.off {
			d := x.defs[di]
			for len(stack) > 0 && stack[len(stack)-1].end <= d.ownStart {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, d)
			di++
		}
		for len(stack) > 0 && stack[len(stack)-1].end <= r.off {
			stack = stack[:len(stack)-1]
		}
		from := 0
		for k := len(stack) - 1; k >= 0; k-- {
			d := stack[k]
			s, e := d.ownStart, d.end
			if d.refEnd > 0 {
				s, e = d.refStart, d.refEnd
			}
			if s <= r.off && r.off < e {
				from = d.sym
				break
			}
		}
		f.Refs = append(f.Refs, Ref{Kind: r.kind, From: from, Name: r.name, Qualifier: r.qualifier, QualifierType: r.qualType, Line: x.lineOf(r.off)})
	}
}

// assignParents sets each def's parent to the innermost def containing it
// (defs must be sorted). Go methods are re-parented to their receiver type.
func (x *extractor) assignParents() {
	var stack []int
	for i, d := range x.defs {
		for len(stack) > 0 {
			top := x.defs[stack[len(stack)-1]]
			if d.ownStart >= top.ownStart && d.end <= top.end && !(d.ownStart == top.ownStart && d.end == top.end && top.kind == KindBlock) {
				break
			}
			stack = stack[:len(stack)-1]
		}
		d.parent = -1
		if len(stack) > 0 {
			d.parent = stack[len(stack)-1]
		}
		d.nested = d.parent >= 0
		stack = append(stack, i)
	}
	owners := map[string]int{}
	for i, d := range x.defs {
		switch d.kind {
		case KindStruct, KindInterface, KindType, KindClass, KindVar, KindConst, KindFunction:
			if d.parent < 0 {
				if _, dup := owners[d.name]; !dup {
					owners[d.name] = i
				}
			}
		}
	}
	for i, d := range x.defs {
		if d.owner != "" && !d.nested {
			if p, ok := owners[d.owner]; ok && p != i {
				d.parent = p
			}
		}
	}
}

// headerEnd returns the last line of the file header (the leading run of
// package clauses, imports, directives and comments, but not a comment that
// documents the first definition) and the header's doc text: its comments,
// or the Python module docstring.
func (x *extractor) headerEnd() (int, string) {
	firstDef := len(x.src) + 1
	for _, d := range x.defs {
		firstDef = min(firstDef, d.start)
	}
	last := 0
	var comments []string
	doc := ""
	for _, ch := range x.topLevel() {
		if x.isComment(&ch) {
			if int(ch.EndByte()) <= firstDef {
				last = max(last, x.endLineOf(int(ch.StartByte()), int(ch.EndByte())))
				comments = append(comments, x.text(&ch))
			}
			continue
		}
		if !x.h.headerNode(x, &ch) {
			break
		}
		if doc == "" && x.kind(&ch) == "expression_statement" {
			if s := ch.NamedChild(0); s != nil && x.kind(s) == "string" {
				doc = cleanDocstring(x.stringContent(s))
			}
		}
		last = max(last, x.endLineOf(int(ch.StartByte()), int(ch.EndByte())))
	}
	if doc == "" {
		doc = cleanComments(comments)
	}
	return last, doc
}

// addTopLevelBlocks covers top-level statements that no definition covers
// with "block" chunks, so that scripts, test suites and main guards are
// searchable too. Runs of such statements (no definition between them) form
// one block; comment-only runs and header statements are skipped.
func (x *extractor) addTopLevelBlocks() {
	tops := append([]span(nil), x.covered...)
	for _, d := range x.defs {
		if !d.nested {
			tops = append(tops, span{d.start, d.end})
		}
	}
	// tops are sorted by start; covered iff a top starting at or before s
	// reaches e (prefix maximum of the ends).
	sort.Slice(tops, func(i, j int) bool { return tops[i].start < tops[j].start })
	reach := make([]int, len(tops))
	for i, t := range tops {
		reach[i] = t.end
		if i > 0 {
			reach[i] = max(reach[i], reach[i-1])
		}
	}
	covered := func(s, e int) bool {
		i := sort.Search(len(tops), func(i int) bool { return tops[i].start > s }) - 1
		return i >= 0 && reach[i] >= e
	}
	inHeader := true
	var recovered []*def
	var run []sitter.Node
	var blocks []span
	flush := func() {
		code := false
		for i := range run {
			if !x.isComment(&run[i]) {
				code = true
			}
		}
		if code {
			// Drop leading comments that are not directly above the code.
			s := int(run[0].StartByte())
			for i := range run {
				if !x.isComment(&run[i]) {
					s, _ = x.attachDocs(int(run[i].StartByte()))
					break
				}
			}
			e := 0
			for i := range run {
				if !x.isComment(&run[i]) {
					e = int(run[i].EndByte())
				}
			}
			blocks = append(blocks, span{s, e})
		}
		run = run[:0]
	}
	for _, ch := range x.topLevel() {
		s, e := int(ch.StartByte()), int(ch.EndByte())
		if inHeader {
			if x.isComment(&ch) || x.h.headerNode(x, &ch) {
				continue
			}
			inHeader = false
		}
		if covered(s, e) {
			flush()
			continue
		}
		if d := x.errorDef(&ch); d != nil {
			flush()
			recovered = append(recovered, d)
			continue
		}
		if x.kind(&ch) == "ERROR" && e-s == 0 {
			continue
		}
		run = append(run, ch)
	}
	flush()
	x.defs = append(x.defs, recovered...)
	// Split long runs at blank lines so a block stays readable; oversized
	// single statements are split into parts later like any symbol.
	n := 0
	for _, b := range blocks {
		for _, sb := range x.splitBlock(b.start, b.end) {
			n++
			name := x.base + "#" + strconv.Itoa(n)
			d := &def{name: name, qual: name, kind: KindBlock, start: sb.start, ownStart: sb.start, end: sb.end, parent: -1}
			d.node, d.splittable = *x.root, true
			x.defs = append(x.defs, d)
		}
	}
	sort.SliceStable(x.defs, func(i, j int) bool {
		a, b := x.defs[i], x.defs[j]
		if a.ownStart != b.ownStart {
			return a.ownStart < b.ownStart
		}
		if a.end != b.end {
			return a.end > b.end
		}
		return a.kind == KindBlock && b.kind != KindBlock
	})
}

type blockSpan struct{ start, end int }

// errorKeywords are the keywords that start a definition, by kind.
var errorKeywords = map[string]Kind{"def": KindFunction, "function": KindFunction, "func": KindFunction, "class": KindClass}

// errorDef turns a top-level ERROR node that starts like a definition
// ("def name", "function name", "func name", "class name") into one, so a
// definition tree-sitter could not parse still gets its own chunk.
func (x *extractor) errorDef(n *sitter.Node) *def {
	if !n.IsError() || n.ChildCount() < 2 {
		return nil
	}
	kw, id := n.Child(0), n.Child(1)
	kind, ok := errorKeywords[x.kind(kw)]
	if !ok {
		return nil
	}
	switch x.kind(id) {
	case "identifier", "type_identifier", "property_identifier", "field_identifier":
	default:
		return nil
	}
	s, e := int(n.StartByte()), int(n.EndByte())
	d := &def{name: x.text(id), kind: kind, ownStart: s, end: e, node: *n, parent: -1}
	d.qual = d.name
	if _, isGo := x.h.(*goHandler); isGo && x.f.Package != "" {
		d.qual = x.f.Package + "." + d.name
	}
	d.start, d.doc = x.attachDocs(s)
	d.sig = x.signature(s, min(e, x.lineEndByte(x.lineOf(s))))
	return d
}

// splitBlock cuts a run of top-level code [start, end) at blank lines between
// statements into pieces of at most maxBlockLines lines where possible.
func (x *extractor) splitBlock(start, end int) []blockSpan {
	var stmts [][2]int
	for _, ch := range x.topLevel() {
		s, e := int(ch.StartByte()), int(ch.EndByte())
		if s >= start && e <= end && !x.isComment(&ch) {
			stmts = append(stmts, [2]int{s, e})
		}
	}
	if len(stmts) <= 1 {
		return []blockSpan{{start, end}}
	}
	var out []blockSpan
	cur := blockSpan{start: start, end: stmts[0][1]}
	for _, st := range stmts[1:] {
		gapBlank := false
		for l := x.endLineOf(cur.start, cur.end) + 1; l < x.lineOf(st[0]); l++ {
			if x.blank(l) {
				gapBlank = true
				break
			}
		}
		if gapBlank && x.endLineOf(st[0], st[1])-x.lineOf(cur.start)+1 > maxBlockLines {
			out = append(out, cur)
			s, _ := x.attachDocs(st[0])
			cur = blockSpan{start: s, end: st[1]}
			continue
		}
		cur.end = st[1]
	}
	return append(out, cur)
}

// addParts appends the parts of an oversized definition, cut at line
// boundaries between nested subtrees.
func (x *extractor) addParts(d *def) {
	sym := x.f.Symbols[d.sym]
	limit := x.opts.MaxSymbolBytes
	var cuts []int
	var collect func(n *sitter.Node, depth int)
	collect = func(n *sitter.Node, depth int) {
		if depth > 64 || int(n.EndByte()-n.StartByte()) <= limit {
			return
		}
		prevEnd := -1 // last line of the previous named sibling
		prevComment := false
		for _, ch := range x.named(n) {
			s, e := int(ch.StartByte()), int(ch.EndByte())
			if e <= sym.StartByte || s >= sym.EndByte {
				continue // outside the symbol (blocks are cut from the root)
			}
			sl, el := x.lineOf(s), x.endLineOf(s, e)
			comment := x.isComment(&ch)
			// A cut before ch is clean when ch starts on a line of its own
			// and does not directly follow a comment (which documents it).
			if sl > prevEnd && x.onlySpaceBefore(s) && !(prevComment && sl == prevEnd+1) {
				cuts = append(cuts, sl)
			}
			if e-s > limit {
				collect(&ch, depth+1)
			}
			prevEnd = max(prevEnd, el)
			prevComment = comment
		}
	}
	n := d.node
	collect(&n, 0)
	parts := x.splitLines(sym.StartLine, sym.EndLine, cuts, limit)
	for i, p := range parts {
		s := x.symbol(p[0], p[1])
		s.Name = sym.Name + "#" + strconv.Itoa(i+1)
		s.QualifiedName = sym.QualifiedName + "#" + strconv.Itoa(i+1)
		s.Kind = KindPart
		s.Parent = d.sym
		s.Receiver = sym.Receiver
		s.Signature = sym.Signature
		s.Exported = sym.Exported
		x.f.Symbols = append(x.f.Symbols, s)
	}
}
