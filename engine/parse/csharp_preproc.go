package parse

import (
	"bytes"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// The C# grammar parses preprocessor directives only where a declaration or
// a statement may stand; one inside a switch section, an if/else chain or a
// base list makes an ERROR, and error recovery then resumes at the
// directive (a column-0 line), cutting the class around it short. So the C#
// parser skips the directive lines and the code of every #elif and #else
// branch: what it reads is the program as compiled with each #if true, which
// is whole code, and the skipped lines stay in the chunks around them (the
// chunks are cut from the source, not from what was parsed).

// includedRanges gives, per language, the ranges of a file its parser reads
// (nil: all of it).
var includedRanges = map[string]func(src []byte) []sitter.Range{
	"csharp": csIncludedRanges,
}

// setIncludedRanges restricts p to the ranges lang reads in src. Parsers are
// pooled per language, so a language with ranges sets them on every parse.
func setIncludedRanges(p *sitter.Parser, lang string, src []byte) {
	if f, ok := includedRanges[lang]; ok {
		_ = p.SetIncludedRanges(f(src)) // nil resets to the whole file
	}
}

// csIncludedRanges returns src without its preprocessor directive lines and
// inactive branches, or nil when it has none. Newlines stay in, so lines are
// lines for the parser too.
func csIncludedRanges(src []byte) []sitter.Range {
	if bytes.IndexByte(src, '#') < 0 {
		return nil
	}
	type cut struct{ start, end, row, col int } // excluded bytes [start, end) on line row
	var cuts []cut
	skipping := 0 // > 0: inside a skipped branch, at this #if depth
	depth := 0    // open #if directives
	row := 0
	for ls := 0; ls < len(src); row++ {
		le := bytes.IndexByte(src[ls:], '\n')
		if le < 0 {
			le = len(src)
		} else {
			le += ls
		}
		line := src[ls:le]
		if ls == 0 {
			line = bytes.TrimPrefix(line, []byte("\ufeff")) // a byte order mark, which the grammar skips
		}
		hash := le - ls - len(bytes.TrimLeft(line, " \t")) // from the line start
		directive := ""
		if ls+hash < le && src[ls+hash] == '#' {
			directive = csDirective(src[ls+hash+1 : le])
		}
		wasSkipping := skipping > 0
		switch directive {
		case "if":
			depth++
		case "elif", "else":
			if skipping == 0 && depth > 0 {
				skipping = depth // every branch after the first one
			}
		case "endif":
			if skipping == depth {
				skipping = 0
			}
			depth = max(depth-1, 0)
		}
		switch {
		case wasSkipping || skipping > 0:
			if le > ls {
				cuts = append(cuts, cut{ls, le, row, 0})
			}
		case directive != "":
			cuts = append(cuts, cut{ls + hash, le, row, hash})
		}
		ls = le + 1
	}
	if len(cuts) == 0 {
		return nil
	}
	var out []sitter.Range
	at, atRow, atCol := 0, 0, 0
	for _, c := range cuts {
		if c.start > at {
			out = append(out, sitter.Range{StartByte: uint(at), EndByte: uint(c.start),
				StartPoint: sitter.Point{Row: uint(atRow), Column: uint(atCol)},
				EndPoint:   sitter.Point{Row: uint(c.row), Column: uint(c.col)}})
		}
		at, atRow, atCol = c.end, c.row, c.col+c.end-c.start
	}
	if at < len(src) {
		endRow := bytes.Count(src, []byte{'\n'})
		endCol := len(src) - (bytes.LastIndexByte(src, '\n') + 1)
		out = append(out, sitter.Range{StartByte: uint(at), EndByte: uint(len(src)),
			StartPoint: sitter.Point{Row: uint(atRow), Column: uint(atCol)},
			EndPoint:   sitter.Point{Row: uint(endRow), Column: uint(endCol)}})
	}
	return out
}

// csDirective returns the directive after a '#': "if", "elif", "else",
// "endif", or "other" for the rest (#region, #pragma, #nullable, ...); ""
// when it is not one.
func csDirective(rest []byte) string {
	rest = bytes.TrimLeft(rest, " \t")
	n := 0
	for n < len(rest) && rest[n] >= 'a' && rest[n] <= 'z' {
		n++
	}
	switch w := string(rest[:n]); w {
	case "if", "elif", "else", "endif":
		return w
	case "region", "endregion", "pragma", "nullable", "define", "undef", "warning", "error", "line":
		return "other"
	}
	return ""
}
