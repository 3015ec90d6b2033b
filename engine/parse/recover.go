package parse

// Error recovery: tree-sitter's recovery can swallow the rest of a file after a
// syntax error; these re-parse from the next line that starts a statement.

import (
	"fmt"
	"strings"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// parseTimeout is the time allowed to parse n bytes: far above the normal
// 1-5 MB per CPU-second, so only pathological input hits it. tree-sitter
// measures it on the wall clock, so it must also hold on a machine whose
// cores are busy with other work: at 1 s + 2 s/MiB, files of 50-300 kB timed
// out on a loaded 2-core machine (the C# of Newtonsoft.Json gave 11,395
// definitions in one run and 11,810 in the next).
var parseTimeout = func(n int) time.Duration {
	return 5*time.Second + time.Duration(n)*10*time.Second/(1<<20)
}

// maxResyncs bounds the re-parses error recovery may do for one file, and
// maxResyncBytes the bytes they parse (each parses the whole file again): a
// count of the work, never the clock, so that a file gives the same rows on
// a loaded machine as on an idle one (a wall-clock budget gave a broken
// 59 kB Go file two different module chunks in the soak, issue 36).
const (
	maxResyncs     = 8
	maxResyncBytes = 8 << 20
)

// recoverAfterErrors works around error recovery that swallows the rest of a
// file (an unclosed parenthesis in Python does). It looks for the first line
// after a syntax error that starts at column 0 inside the statement holding
// the error; if there is one, that statement is cut short there and the file
// is parsed again with the statement blanked out (same byte offsets, same
// lines), and everything found from that line on comes from the new tree.
// The returned trees must stay open until the extractor is done.
func (x *extractor) recoverAfterErrors(p *sitter.Parser, spoiled *bool) []*sitter.Tree {
	var trees []*sitter.Tree
	var masked []byte
	after := 0
	for range min(maxResyncs, max(1, maxResyncBytes/max(1, len(x.src)))) {
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
		x.refs = keepBefore(x.refs, cut, func(e rawRef) int { return e.off })
		x.fields = keepBefore(x.fields, cut, func(e rawField) int { return e.start })
		x.f.Imports = keepBefore(x.f.Imports, line, func(e Import) int { return e.Line })
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
			*spoiled = true // timed out: see parseCode
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
	tops := x.topLevel()
	if x.root.IsError() {
		tops = []sitter.Node{*x.root} // nothing parsed: the file is one broken statement
	}
	for _, top := range tops {
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

// continuationLine reports whether a column-0 line continues a statement: a
// continuation keyword, a label (C's `cleanup:`, gofmt's `Loop:`), or a
// preprocessor line or Python comment (#).
func continuationLine(txt string) bool {
	if strings.HasPrefix(txt, "#") {
		return true
	}
	if i := strings.IndexFunc(txt, func(r rune) bool { return r >= 0x80 || !isIdentByte(byte(r)) }); i > 0 &&
		strings.HasPrefix(txt[i:], ":") && !strings.HasPrefix(txt[i:], "::") && strings.TrimSpace(txt[i+1:]) == "" &&
		txt[:i] != "try" { // Python's try: starts a statement
		return true
	}
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

// keepBefore keeps, in place and in order, the items of s that start before
// cut (at gives an item's start: an offset, or a line with a line cut): what a resync that re-parses from cut on
// must drop from the state the first parse gathered.
func keepBefore[T any](s []T, cut int, at func(T) int) []T {
	out := s[:0]
	for _, e := range s {
		if at(e) < cut {
			out = append(out, e)
		}
	}
	return out
}
