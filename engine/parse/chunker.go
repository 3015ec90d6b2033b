package parse

import (
	"path"
	"sort"
	"strconv"
	"strings"
)

// chunker holds one file's source and its line table. All offsets are into
// the (UTF-8 sanitised) source.
type chunker struct {
	path      string
	base      string // base file name
	src       []byte
	s         string // string(src), shared by every Content
	opts      Options
	lineStart []int // byte offset where each line starts; lineStart[0] == 0
}

func newChunker(p string, src []byte, opts Options) *chunker {
	c := &chunker{path: p, base: path.Base(strings.ReplaceAll(p, "\\", "/")), src: src, s: string(src), opts: opts}
	if c.base == "." || c.base == "/" {
		c.base = p
	}
	c.lineStart = make([]int, 1, len(src)/32+2)
	for i, b := range src {
		if b == '\n' && i+1 < len(src) {
			c.lineStart = append(c.lineStart, i+1)
		}
	}
	return c
}

// nLines is the number of lines; a trailing newline does not start a new line.
func (c *chunker) nLines() int { return len(c.lineStart) }

// lineOf returns the 1-based line holding byte offset off.
func (c *chunker) lineOf(off int) int {
	return sort.Search(len(c.lineStart), func(i int) bool { return c.lineStart[i] > off })
}

// endLineOf returns the line of the last byte of the range [start, end).
func (c *chunker) endLineOf(start, end int) int {
	if end > start {
		end--
	}
	return c.lineOf(end)
}

func (c *chunker) lineStartByte(line int) int {
	if line < 1 {
		return 0
	}
	if line > len(c.lineStart) {
		return len(c.src)
	}
	return c.lineStart[line-1]
}

// lineEndByte is the offset just past line's newline (or the end of the source).
func (c *chunker) lineEndByte(line int) int {
	if line >= len(c.lineStart) {
		return len(c.src)
	}
	return c.lineStart[line]
}

// lineText returns line without its newline.
func (c *chunker) lineText(line int) string {
	return strings.TrimRight(c.s[c.lineStartByte(line):c.lineEndByte(line)], "\r\n")
}

// blank reports whether the line holds only white space.
func (c *chunker) blank(line int) bool { return strings.TrimSpace(c.lineText(line)) == "" }

// onlySpaceBefore reports whether only white space precedes off on its line.
func (c *chunker) onlySpaceBefore(off int) bool {
	ls := c.lineStartByte(c.lineOf(off))
	return strings.TrimSpace(c.s[ls:off]) == ""
}

// onlySpaceAfter reports whether only white space follows off on its line.
func (c *chunker) onlySpaceAfter(off int) bool {
	if off <= 0 {
		return true
	}
	le := c.lineEndByte(c.lineOf(off - 1))
	if off > le {
		return true
	}
	return strings.TrimSpace(c.s[off:le]) == ""
}

// symbol returns a Symbol covering whole lines start..end.
func (c *chunker) symbol(startLine, endLine int) Symbol {
	if startLine < 1 {
		startLine = 1
	}
	if endLine < startLine {
		endLine = startLine
	}
	sb, eb := c.lineStartByte(startLine), c.lineEndByte(endLine)
	return Symbol{StartLine: startLine, EndLine: endLine, StartByte: sb, EndByte: eb, Content: c.s[sb:eb]}
}

// header builds the file-header chunk for header lines 1..lastLine (0: none,
// the chunk then still covers line 1) with a summary line naming symbols.
func (c *chunker) header(lastLine int, summary string) Symbol {
	h := c.symbol(1, max(lastLine, 1))
	h.Name = c.base
	h.QualifiedName = c.path
	h.Kind = KindModule
	h.Parent = -1
	h.Exported = true
	if h.EndByte-h.StartByte > c.opts.MaxSymbolBytes && h.EndLine == 1 {
		// One enormous first line (minified or generated code): keep the
		// range honest but do not copy the line into the header.
		h.Content = ""
	}
	if summary != "" {
		content := strings.TrimRight(h.Content, "\r\n")
		if content != "" {
			content += "\n\n"
		}
		h.Content = content + summary + "\n"
	}
	return h
}

// emptyHeader is the header of a file that is not chunked (binary,
// minified): it claims line 1 and holds no content.
func (c *chunker) emptyHeader() Symbol {
	h := c.header(1, "")
	h.EndByte, h.Content = 0, ""
	return h
}

// summaryLine lists names as an extractive summary, behind a comment marker.
func summaryLine(marker string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	const maxNames = 60
	var b strings.Builder
	if marker != "" {
		b.WriteString(marker)
		b.WriteByte(' ')
	}
	b.WriteString("Symbols: ")
	seen := map[string]bool{}
	n := 0
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		if n == maxNames {
			b.WriteString(", and more")
			break
		}
		if n > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name)
		n++
	}
	return b.String()
}

// Text files ---------------------------------------------------------------

const maxBlockLines = 40

// textBlocks chunks a file without a grammar into blank-line-separated blocks,
// merged up to maxBlockLines lines and MaxSymbolBytes bytes, never cut
// mid-line. In Markdown a heading starts a new block.
func (c *chunker) textBlocks(f *File) {
	md := strings.HasSuffix(strings.ToLower(c.base), ".md") || strings.HasSuffix(strings.ToLower(c.base), ".markdown")
	type para struct{ start, end int }
	var paras []para
	n := c.nLines()
	for l := 1; l <= n; l++ {
		if c.blank(l) {
			continue
		}
		start := l
		for l+1 <= n && !c.blank(l+1) && !(md && isMarkdownHeading(c.lineText(l+1))) {
			l++
		}
		// In Markdown a paragraph of headings only belongs to what follows.
		if k := len(paras) - 1; md && k >= 0 && c.onlyHeadings(paras[k].start, paras[k].end) {
			paras[k].end = l
			continue
		}
		paras = append(paras, para{start, l})
	}
	var blocks []para
	var headings []string
	for _, p := range paras {
		// Split a paragraph longer than the limits into line runs.
		for s := p.start; s <= p.end; {
			e := s
			for e+1 <= p.end && e+1-s+1 <= maxBlockLines &&
				c.lineEndByte(e+1)-c.lineStartByte(s) <= c.opts.MaxSymbolBytes {
				e++
			}
			blocks = append(blocks, para{s, e})
			s = e + 1
		}
	}
	// Merge neighbouring blocks while they fit. In Markdown a heading starts
	// a new block, unless the block so far holds nothing but headings.
	var merged []para
	for _, b := range blocks {
		if k := len(merged) - 1; k >= 0 {
			last := merged[k]
			if b.end-last.start+1 <= maxBlockLines &&
				c.lineEndByte(b.end)-c.lineStartByte(last.start) <= c.opts.MaxSymbolBytes &&
				!(md && isMarkdownHeading(c.lineText(b.start)) && !c.onlyHeadings(last.start, last.end)) {
				merged[k].end = b.end
				continue
			}
		}
		merged = append(merged, b)
	}
	for _, b := range merged {
		if md && isMarkdownHeading(c.lineText(b.start)) {
			headings = append(headings, strings.TrimSpace(strings.TrimLeft(c.lineText(b.start), "#")))
		}
	}
	summary := ""
	if len(headings) > 0 {
		summary = summaryLine("", headings)
		summary = "Sections:" + strings.TrimPrefix(summary, "Symbols:")
	}
	f.Symbols = append(f.Symbols, c.header(1, summary))
	for i, b := range merged {
		s := c.symbol(b.start, b.end)
		s.Name = c.base + "#" + strconv.Itoa(i+1)
		s.QualifiedName = s.Name
		s.Kind = KindBlock
		s.Exported = true
		f.Symbols = append(f.Symbols, s)
	}
}

// onlyHeadings reports whether lines a..b hold Markdown headings and blank lines only.
func (c *chunker) onlyHeadings(a, b int) bool {
	for l := a; l <= b; l++ {
		if !c.blank(l) && !isMarkdownHeading(c.lineText(l)) {
			return false
		}
	}
	return true
}

func isMarkdownHeading(line string) bool {
	t := strings.TrimLeft(line, "#")
	return len(t) < len(line) && len(line)-len(t) <= 6 && (t == "" || t[0] == ' ')
}

// Splitting ----------------------------------------------------------------

// splitLines partitions lines start..end into consecutive runs of whole lines,
// each at most limit bytes where the allowed cut lines permit. cuts holds the
// lines at which a new part may begin. It returns nil when the range cannot be
// cut into at least two parts.
func (c *chunker) splitLines(start, end int, cuts []int, limit int) [][2]int {
	sort.Ints(cuts)
	var valid []int
	for i, l := range cuts {
		if l > start && l <= end && (i == 0 || cuts[i-1] != l) {
			valid = append(valid, l)
		}
	}
	if len(valid) == 0 {
		return nil
	}
	size := func(a, b int) int { return c.lineEndByte(b) - c.lineStartByte(a) }
	var parts [][2]int
	cur := start
	i := 0
	for {
		if size(cur, end) <= limit {
			parts = append(parts, [2]int{cur, end})
			break
		}
		// Skip cuts at or before cur.
		for i < len(valid) && valid[i] <= cur {
			i++
		}
		if i == len(valid) {
			parts = append(parts, [2]int{cur, end})
			break
		}
		// The furthest cut that keeps the part within the limit, or else the
		// nearest cut (the part will be oversized: the tree allows no better).
		best := -1
		for j := i; j < len(valid) && size(cur, valid[j]-1) <= limit; j++ {
			best = j
		}
		if best < 0 {
			best = i
		}
		parts = append(parts, [2]int{cur, valid[best] - 1})
		cur = valid[best]
		i = best + 1
	}
	if len(parts) < 2 {
		return nil
	}
	return parts
}
