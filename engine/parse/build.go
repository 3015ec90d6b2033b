package parse

// Building the File from the extracted definitions: parents, the file header,
// top-level code blocks, and parts of oversized symbols.

import (
	"sort"
	"strconv"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

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
	f.Refs = dedupeAccesses(f.Refs)
	x.buildFields()
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
		case KindStruct, KindInterface, KindType, KindClass, KindVar, KindConst, KindFunction, KindEnum:
			if d.parent < 0 || x.defs[d.parent].kind == KindNamespace { // C++: beside its members in a namespace
				if _, dup := owners[d.name]; !dup {
					owners[d.name] = i
				}
			}
		}
	}
	for i, d := range x.defs {
		if d.owner == "" || d.nested && !d.ownerWins && x.defs[d.parent].kind != KindNamespace {
			continue
		}
		p, ok := owners[d.owner]
		if !ok || p == i {
			continue
		}
		// A Rust impl's members hang off a top-level type wherever they are;
		// others off an owner beside them (C++: in the same namespace).
		if d.ownerWins && x.defs[p].parent < 0 || !d.ownerWins && x.defs[p].parent == d.parent {
			d.parent = p
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
