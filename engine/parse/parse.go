// Package parse turns one source file into symbol-level chunks and raw graph
// references, using tree-sitter grammars and per-language queries that live in
// queries/*.scm.
//
// A File always starts with a file-header chunk (Symbols[0], Kind "module")
// followed by the definitions in source order. Each chunk's Content is cut from
// the source by whole lines (the header is the one exception: it carries a
// generated summary line). References are raw: names as written, resolution is
// the indexer's job.
//
// Decisions worth knowing when consuming the output:
//
//   - Byte offsets and Content refer to the source after invalid UTF-8 has been
//     replaced by U+FFFD; line numbers are the same as in the original file.
//   - An oversized symbol (more than Options.MaxSymbolBytes) stays whole and is
//     followed by its "part" chunks ("Foo#1", "Foo#2", ...). The parts tile the
//     symbol's line range exactly (no gaps, no overlap), cut only at line
//     boundaries between sibling subtrees, so each part is a run of whole
//     subtrees plus the lines around them.
//   - TypeScript overloads: the overload signatures directly above an
//     implementation (or a run of same-named ambient signatures) are merged into
//     one chunk that spans from the first signature to the implementation's end.
//   - Python `from a import b, c as d` gives one Import{Path: "a", Names: [b, c
//     as d]} and one "imports" Ref whose Name is "a"; `from . import x` gives
//     Path "." with Names [x], since x may be a module or a name.
//   - Top-level code that no definition covers (JS `describe(...)` blocks,
//     Python `if __name__ == "__main__":`, etc.) becomes "block" chunks named
//     "file.ext#N", so no code falls outside every chunk.
//   - TypeScript namespaces (`namespace X {}`, `declare module "x" {}`) are
//     chunks of Kind "namespace"; their members' QualifiedName is "X.member".
package parse

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"
)

// Kind is the kind of a chunk.
type Kind string

// Chunk kinds.
const (
	KindFunction  Kind = "function"
	KindMethod    Kind = "method"
	KindClass     Kind = "class"
	KindStruct    Kind = "struct"
	KindInterface Kind = "interface"
	KindType      Kind = "type"
	KindVar       Kind = "var"
	KindConst     Kind = "const"
	KindEnum      Kind = "enum"
	KindNamespace Kind = "namespace" // TypeScript namespace / ambient module
	KindModule    Kind = "module"    // the file-header chunk
	KindBlock     Kind = "block"     // a text block, or top-level code no definition covers
	KindPart      Kind = "part"      // a piece of an oversized symbol
	// KindField is a struct or class field. Fields are not chunks: they are in
	// File.Fields, not File.Symbols, and the indexer stores them as symbols of
	// this kind under their owner for the reads/writes graph.
	KindField Kind = "field"
)

// Symbol is one chunk of a file.
type Symbol struct {
	Name          string   // "Refund", "isEligible"; for the file header: the base file name
	QualifiedName string   // "billing.Refund", "Invoice.Total", "Cart.add", "res.send"
	Kind          Kind     //
	Aliases       []string // other names bound to the same definition
	Parent        int      // index of the enclosing symbol; 0 for top-level symbols; -1 for the header
	Receiver      string   // Go receiver type / enclosing class name for methods
	Signature     string   // the declaration up to its body, whitespace collapsed
	Doc           string   // doc comment or docstring text, comment markers removed
	StartLine     int      // 1-based, inclusive, including doc comment and decorators
	EndLine       int      // 1-based, inclusive
	StartByte     int      // offset of the first byte of StartLine
	EndByte       int      // offset just past EndLine (its newline included)
	Content       string   // the source of lines StartLine..EndLine
	Exported      bool     //
	// ResultType is a function's or method's first result type name when it is
	// a named type ("B" for func NewB() *B; "" for builtins, unnamed types and
	// unknown results), so that b := NewB(); b.M() can resolve M on B.
	ResultType string
	// Embeds are the types a Go struct or interface embeds ("Base", "io.Reader"),
	// whose methods it promotes.
	Embeds []string
}

// RefKind is the kind of a raw reference.
type RefKind string

// Reference kinds.
const (
	RefCalls      RefKind = "calls"
	RefImports    RefKind = "imports"
	RefInherits   RefKind = "inherits"
	RefImplements RefKind = "implements"
	RefReferences RefKind = "references"
	// RefReads and RefWrites are accesses to a field: Name is the field, Qualifier
	// and QualifierType the object as for a method call (s.balance, self.items,
	// this.#count). A write is an assignment, an augmented assignment, ++/--, or a
	// delete of the field or of an element of it (s.m[k] = v writes m). Each
	// definition gets one of each per (qualifier, field): the first, in source
	// order, so the graph says who reads or writes a field, not how often.
	RefReads  RefKind = "reads"
	RefWrites RefKind = "writes"
)

// Ref is a raw reference from a symbol to a name.
type Ref struct {
	Kind      RefKind
	From      int    // index of the innermost symbol containing the reference (0: file header / top level)
	Name      string // the target as written; for selector calls the last element
	Qualifier string // "fmt" in fmt.Println, "self"/"this" for calls on the receiver, "" for bare calls
	// QualifierType is the type the file says the qualifier has, when it says so
	// cheaply: a declared parameter, variable or field type, a composite literal,
	// the enclosing class for self/this/cls, a TypeScript annotation. It is a type
	// name as written ("B", "billing.Invoice"; pointers, references and generic
	// arguments dropped), or "()F" / "()pkg.F" for the result type of calling the
	// function F (b := NewB()), which the indexer looks up in F's ResultType,
	// or "T#f" (Go) for the type of field f of a struct T declared in another
	// file (s.db.Query() with s's struct elsewhere), chained as "T#f#g".
	// Empty when unknown: resolution then falls back to names, and says so.
	QualifierType string
	Line          int
}

// ImportName is one name imported from a module: `import { a as b }`, `from x import a as b`.
type ImportName struct {
	Name  string `json:"name"`            // the exported name ("default" for a JS default import)
	Alias string `json:"alias,omitempty"` // the local binding, "" when it is Name
}

// Import is one imported module.
type Import struct {
	Path  string       // as written: "./util", "os", "github.com/x/y", "..pkg.mod"
	Alias string       // the module's local binding: Go name, `import x as y`, `* as ns`, `const x = require()`
	Names []ImportName // names imported from the module (Python from-imports, JS named imports)
	Line  int
}

// Field is one struct or class field: a Go struct field (an embedded one is
// named after its type), a Python attribute declared in the class body or
// assigned to self in __init__, a JS/TS class field or this.x assigned in the
// constructor (a TypeScript parameter property too). A field declared twice
// in a class (a body declaration and an __init__ assignment) is the first.
type Field struct {
	Name          string // "balance", "#count"
	QualifiedName string // the owner's type name and the field: "Account.balance"
	Owner         int    // index in File.Symbols of the struct or class
	Type          string // the declared or evident type name as written, "" when unknown
	Signature     string // the declaration, whitespace collapsed
	StartLine     int    // 1-based, inclusive: the declaration's lines
	EndLine       int
	StartByte     int // offsets of StartLine's first byte and just past EndLine
	EndByte       int
	Content       string // the source of lines StartLine..EndLine
	Exported      bool
}

// File is the result of parsing one file.
type File struct {
	Path     string
	Language string // "go", "python", "javascript", "typescript", "tsx", "text"; "" for binary files
	Package  string // Go package name; Python dotted module path; "" otherwise
	Symbols  []Symbol
	Refs     []Ref
	Imports  []Import
	Fields   []Field  // struct and class fields, by owner then source order
	Partial  bool     // the tree had ERROR or MISSING nodes, or the parse timed out (Notes say which)
	Notes    []string // human-readable notes
}

// Options tune chunking.
type Options struct {
	MaxSymbolBytes int // a larger symbol is split into parts; default DefaultMaxSymbolBytes
}

// DefaultMaxSymbolBytes is the size above which a symbol is split into parts.
const DefaultMaxSymbolBytes = 16 << 10

// Language returns the language of path by its extension: one of the parsed
// languages, "text" for anything else, or "" for well-known binary formats.
func Language(p string) string {
	base := strings.ToLower(path.Base(strings.ReplaceAll(p, "\\", "/")))
	ext := path.Ext(base)
	switch ext {
	case ".go":
		return "go"
	case ".py", ".pyi", ".pyw":
		return "python"
	case ".js", ".mjs", ".cjs", ".jsx":
		return "javascript"
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "tsx"
	}
	if name, ok := byExt[ext]; ok {
		return name
	}
	if binaryExt[ext] {
		return ""
	}
	return "text"
}

var binaryExt = map[string]bool{}

func init() {
	for _, e := range strings.Fields(`.png .jpg .jpeg .gif .bmp .ico .icns .webp .tif .tiff .psd
		.pdf .zip .gz .tgz .bz2 .xz .zst .7z .rar .tar .jar .war .ear .class .o .a .so .dylib .dll
		.exe .bin .wasm .woff .woff2 .ttf .otf .eot .mp3 .mp4 .m4a .wav .ogg .flac .avi .mov .mkv
		.webm .sqlite .sqlite3 .db .pyc .pyo .node .dat .iso .dmg .deb .rpm .whl .egg .pack .idx`) {
		binaryExt[e] = true
	}
}

// Parse parses src as the file at path and returns its chunks, references and
// imports. It is safe for concurrent use and never panics: a panic inside is
// returned as an error.
func Parse(p string, src []byte, opts Options) (f *File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("parse %s: internal error: %v", p, r)
		}
	}()
	if opts.MaxSymbolBytes <= 0 {
		opts.MaxSymbolBytes = DefaultMaxSymbolBytes
	}
	lang := sniffLanguage(Language(p), p, src)
	f = &File{Path: p, Language: lang}
	binary := lang == "" || bytes.IndexByte(src[:min(len(src), 8000)], 0) >= 0
	if !binary && !utf8.Valid(src) {
		src = bytes.ToValidUTF8(src, []byte("\uFFFD"))
		f.Notes = append(f.Notes, "invalid UTF-8 replaced with U+FFFD")
	}
	c := newChunker(p, src, opts)
	switch {
	case binary:
		if lang == "" {
			f.Notes = append(f.Notes, "binary file: not chunked")
		} else {
			f.Notes = append(f.Notes, "NUL bytes: treated as binary, not chunked")
		}
		f.Symbols = []Symbol{c.emptyHeader()}
		return f, nil
	case lang == "text":
		c.textBlocks(f)
		return f, nil
	case (lang == "javascript" || lang == "typescript" || lang == "tsx") && looksMinified(src):
		f.Notes = append(f.Notes, "minified code: definitions not extracted")
		f.Symbols = []Symbol{c.emptyHeader()}
		return f, nil
	}
	if err := c.parseCode(f, lang); err != nil {
		return nil, fmt.Errorf("parse %s: %w", p, err)
	}
	return f, nil
}

// looksMinified reports whether src looks like a minified bundle: long lines
// on average, or one very long line in a file with few lines.
func looksMinified(src []byte) bool {
	if len(src) < 2048 {
		return false
	}
	lines := bytes.Count(src, []byte{'\n'}) + 1
	if len(src)/lines > 300 {
		return true
	}
	longest, start := 0, 0
	for i, b := range src {
		if b == '\n' {
			longest = max(longest, i-start)
			start = i + 1
		}
	}
	longest = max(longest, len(src)-start)
	return longest > 20000 && longest > len(src)/2
}
