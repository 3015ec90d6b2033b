package parse

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// mustParse parses src and checks the invariants every result must hold.
func mustParse(t *testing.T, path, src string, opts Options) *File {
	t.Helper()
	f, err := Parse(path, []byte(src), opts)
	if err != nil {
		t.Fatalf("Parse(%s): %v", path, err)
	}
	checkInvariants(t, f, []byte(src))
	return f
}

// find returns the first symbol with the qualified name.
func find(t *testing.T, f *File, qname string) Symbol {
	t.Helper()
	for _, s := range f.Symbols {
		if s.QualifiedName == qname {
			return s
		}
	}
	var have []string
	for _, s := range f.Symbols {
		have = append(have, s.QualifiedName)
	}
	t.Fatalf("%s: no symbol %q; have %q", f.Path, qname, have)
	return Symbol{}
}

// symWant is what a test expects of one symbol; zero fields are not checked.
type symWant struct {
	qname    string
	name     string
	kind     Kind
	aliases  []string
	parent   string // parent's qualified name; "-" for the file header
	receiver string
	lines    [2]int
	exported *bool
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

func checkSymbols(t *testing.T, f *File, wants []symWant) {
	t.Helper()
	for _, w := range wants {
		s := find(t, f, w.qname)
		if w.name != "" && s.Name != w.name {
			t.Errorf("%s: Name = %q, want %q", w.qname, s.Name, w.name)
		}
		if w.kind != "" && s.Kind != w.kind {
			t.Errorf("%s: Kind = %q, want %q", w.qname, s.Kind, w.kind)
		}
		if w.aliases != nil && !slices.Equal(s.Aliases, w.aliases) {
			t.Errorf("%s: Aliases = %q, want %q", w.qname, s.Aliases, w.aliases)
		}
		if w.parent != "" {
			got := "-"
			if s.Parent > 0 {
				got = f.Symbols[s.Parent].QualifiedName
			}
			if got != w.parent {
				t.Errorf("%s: parent = %q, want %q", w.qname, got, w.parent)
			}
		}
		if w.receiver != "" && s.Receiver != w.receiver {
			t.Errorf("%s: Receiver = %q, want %q", w.qname, s.Receiver, w.receiver)
		}
		if w.lines != [2]int{} && (s.StartLine != w.lines[0] || s.EndLine != w.lines[1]) {
			t.Errorf("%s: lines %d-%d, want %d-%d", w.qname, s.StartLine, s.EndLine, w.lines[0], w.lines[1])
		}
		if w.exported != nil && s.Exported != *w.exported {
			t.Errorf("%s: Exported = %v, want %v", w.qname, s.Exported, *w.exported)
		}
	}
}

func TestJavaScriptBindings(t *testing.T) {
	src := `'use strict';
const helpers = require('./helpers');

/**
 * Build the app.
 */
module.exports = function createApp() {
  return helpers.make();
};

res.format = function (obj) {
  return obj;
};

a.x = a.y = function y() {};

// The client address.
defineGetter(req, 'ip', function ip() {
  return this.socket.remoteAddress;
});

defineGetter(req, 'host', function () {
  return this.headers.host;
});

exports.applyCoupon = (cents, pct) => cents - pct;

Cart.prototype.add = function (item) {
  this.items.push(item);
};

class Basket extends Base {
  get total() {
    return 1;
  }
  set total(v) {}
  static empty() {}
  #secret() {}
}

const api = {
  list() {},
  remove: function () {},
};

app.get('/users', function listUsers(req, res) {});
it('works', function () {});
`
	f := mustParse(t, "lib/app.js", src, Options{})
	checkSymbols(t, f, []symWant{
		{qname: "createApp", kind: KindFunction, lines: [2]int{4, 9}, parent: "-", exported: yes()},
		{qname: "res.format", name: "format", kind: KindFunction, lines: [2]int{11, 13}},
		{qname: "a.y", name: "y", aliases: []string{"x"}, lines: [2]int{15, 15}},
		{qname: "req.ip", name: "ip", lines: [2]int{17, 20}},
		{qname: "req.host", name: "host", lines: [2]int{22, 24}},
		{qname: "exports.applyCoupon", name: "applyCoupon", exported: yes(), lines: [2]int{26, 26}},
		{qname: "Cart.add", name: "add", kind: KindMethod, receiver: "Cart", lines: [2]int{28, 30}},
		{qname: "Basket", kind: KindClass, lines: [2]int{32, 39}, exported: no()},
		{qname: "Basket.total", kind: KindMethod, receiver: "Basket", parent: "Basket", lines: [2]int{33, 35}},
		{qname: "Basket.empty", kind: KindMethod, lines: [2]int{37, 37}},
		{qname: "Basket.#secret", kind: KindMethod, lines: [2]int{38, 38}},
		{qname: "api", kind: KindConst, lines: [2]int{41, 44}},
		{qname: "api.list", parent: "api", lines: [2]int{42, 42}},
		{qname: "api.remove", parent: "api", lines: [2]int{43, 43}},
		{qname: "listUsers", kind: KindFunction, lines: [2]int{46, 46}},
	})
	// A getter and its setter are two chunks with the same name.
	n := 0
	for _, s := range f.Symbols {
		if s.QualifiedName == "Basket.total" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("Basket.total: %d chunks, want 2 (getter and setter)", n)
	}
	// A test callback is not named after its description.
	for _, s := range f.Symbols {
		if s.Name == "works" {
			t.Errorf("it('works', function () {}) became a symbol")
		}
	}
	// The definer call is made at the top level, not by ip itself.
	for _, r := range f.Refs {
		if r.Name == "defineGetter" && f.Symbols[r.From].Name == "ip" {
			t.Errorf("defineGetter attributed to ip")
		}
	}
	if len(f.Imports) != 1 || f.Imports[0].Path != "./helpers" || f.Imports[0].Alias != "helpers" {
		t.Errorf("Imports = %+v", f.Imports)
	}
}

func TestJavaScriptAnonymousModuleExports(t *testing.T) {
	f := mustParse(t, "lib/router.js", "module.exports = function (req, res) {\n  res.end();\n};\n", Options{})
	checkSymbols(t, f, []symWant{{qname: "router", kind: KindFunction, lines: [2]int{1, 3}, exported: yes()}})

	f = mustParse(t, "lib/index.mjs", "export default function () {\n  return 1;\n}\n\nexport default class {}\n", Options{})
	checkSymbols(t, f, []symWant{{qname: "index", lines: [2]int{1, 3}, exported: yes()}})
}

func TestJavaScriptHeader(t *testing.T) {
	src := "#!/usr/bin/env node\r\n'use strict';\r\nexport * from './x';\r\nexport { a as b } from './y';\r\n\r\nmain();\r\n"
	f := mustParse(t, "bin/cli.js", src, Options{})
	h := f.Symbols[0]
	if h.EndLine != 4 || len(f.Symbols) != 2 || f.Symbols[1].Kind != KindBlock || f.Symbols[1].StartLine != 6 {
		t.Errorf("header %d-%d, symbols %+v", h.StartLine, h.EndLine, f.Symbols)
	}
	want := "[{./x  [] 3} {./y  [{a b}] 4}]"
	if got := fmt.Sprint(f.Imports); got != want {
		t.Errorf("Imports = %s, want %s", got, want)
	}
}

func TestTypeScriptOverloadsAndDeclarations(t *testing.T) {
	src := `import { Money } from "./money";

/** Format money. */
export function fmt(cents: number): string;
export function fmt(m: Money): string;
export function fmt(a: number | Money): string {
  return String(a);
}

declare function ambient(a: string): void;
declare function ambient(a: number): void;

export interface Gateway extends Base<Money> {
  charge(m: Money): Promise<void>;
}

export abstract class Card extends Base implements Gateway, ns.Other {
  abstract charge(m: Money): Promise<void>;
  run(a: string): void;
  run(a: number): void;
  run(a: any): void {}
  handler = () => 1;
}

export enum Status { Open, Closed }
export type ID = string;
namespace Billing {
  export function total() {}
}
`
	f := mustParse(t, "src/fmt.ts", src, Options{})
	checkSymbols(t, f, []symWant{
		{qname: "fmt", kind: KindFunction, lines: [2]int{3, 8}, exported: yes()},
		{qname: "ambient", kind: KindFunction, lines: [2]int{10, 11}},
		{qname: "Gateway", kind: KindInterface, lines: [2]int{13, 15}},
		{qname: "Card", kind: KindClass, lines: [2]int{17, 23}},
		{qname: "Card.charge", kind: KindMethod, lines: [2]int{18, 18}},
		{qname: "Card.run", kind: KindMethod, lines: [2]int{19, 21}},
		{qname: "Card.handler", kind: KindMethod, lines: [2]int{22, 22}},
		{qname: "Status", kind: KindEnum, lines: [2]int{25, 25}},
		{qname: "ID", kind: KindType, lines: [2]int{26, 26}},
		{qname: "Billing", kind: KindNamespace, lines: [2]int{27, 29}},
		{qname: "Billing.total", parent: "Billing", lines: [2]int{28, 28}},
	})
	if s := find(t, f, "fmt"); s.Doc != "Format money." || !strings.HasPrefix(s.Signature, "export function fmt(cents: number): string") {
		t.Errorf("fmt: Doc %q Signature %q", s.Doc, s.Signature)
	}
	count := 0
	for _, s := range f.Symbols {
		if s.Name == "fmt" || s.Name == "run" {
			count++
		}
	}
	if count != 2 {
		t.Errorf("overloads: %d chunks named fmt/run, want one each", count)
	}
	wantRefs := []string{"inherits Base", "inherits Base", "implements Gateway", "implements ns.Other"}
	var got []string
	for _, r := range f.Refs {
		if r.Kind == RefInherits || r.Kind == RefImplements {
			name := r.Name
			if r.Qualifier != "" {
				name = r.Qualifier + "." + name
			}
			got = append(got, string(r.Kind)+" "+name)
		}
	}
	if !slices.Equal(got, wantRefs) {
		t.Errorf("heritage refs = %q, want %q", got, wantRefs)
	}
}

func TestGoGroupedDeclarations(t *testing.T) {
	src := `// Package shop sells things.
package shop

import "errors"

// Limits.
const (
	MaxItems = 10
	minItems = 1
)

var ErrFull = errors.New("full")

var a, b = 1, 2

// Shapes.
type (
	// Cart holds items.
	Cart struct{ items []int }
	// Pricer prices things.
	Pricer interface{ Price() int }
	ID = string
)

// Len counts items.
func (c *Cart) Len() int { return len(c.items) }

func (o *Other[T]) Do() {}
`
	f := mustParse(t, "shop/cart.go", src, Options{})
	if f.Package != "shop" {
		t.Errorf("Package = %q", f.Package)
	}
	checkSymbols(t, f, []symWant{
		{qname: "shop.MaxItems", name: "MaxItems", kind: KindConst, aliases: []string{"minItems"}, lines: [2]int{6, 10}, exported: yes()},
		{qname: "shop.ErrFull", kind: KindVar, lines: [2]int{12, 12}},
		{qname: "shop.a", kind: KindVar, aliases: []string{"b"}, lines: [2]int{14, 14}, exported: no()},
		{qname: "shop.Cart", kind: KindStruct, lines: [2]int{16, 19}},
		{qname: "shop.Pricer", kind: KindInterface, lines: [2]int{20, 21}},
		{qname: "shop.ID", kind: KindType, lines: [2]int{22, 23}},
		{qname: "Cart.Len", kind: KindMethod, receiver: "Cart", parent: "shop.Cart", lines: [2]int{25, 26}},
		{qname: "Other.Do", kind: KindMethod, receiver: "Other", parent: "-", lines: [2]int{28, 28}},
	})
	h := f.Symbols[0]
	if h.StartLine != 1 || h.EndLine != 4 || h.Doc != "Package shop sells things." || !strings.Contains(h.Content, "// Symbols: MaxItems, ErrFull, a, Cart, Pricer, ID, Other.Do") {
		t.Errorf("header = %d-%d doc %q content:\n%s", h.StartLine, h.EndLine, h.Doc, h.Content)
	}
	if s := find(t, f, "shop.Cart"); s.Doc != "Shapes.\nCart holds items." || s.Signature != "type Cart struct" {
		t.Errorf("Cart: Doc %q Signature %q", s.Doc, s.Signature)
	}
	if s := find(t, f, "Cart.Len"); s.Signature != "func (c *Cart) Len() int" {
		t.Errorf("Cart.Len: Signature %q", s.Signature)
	}
}

func TestPythonDecoratedAndNested(t *testing.T) {
	src := `"""Orders."""
import functools
from .models import Order as O, Line
from . import tax

RATE = 3

class Cart(Base, metaclass=Meta):
    """A cart."""

    # Cached total.
    @functools.cached_property
    @other
    def total(self):
        def add(a, b):
            return a + b
        return add(1, 2)

    async def _load(self): ...

@app.route("/x")
def view():
    pass
`
	f := mustParse(t, "py/shop/orders.py", src, Options{})
	if f.Package != "py.shop.orders" {
		t.Errorf("Package = %q", f.Package)
	}
	checkSymbols(t, f, []symWant{
		{qname: "RATE", kind: KindConst, lines: [2]int{6, 6}},
		{qname: "Cart", kind: KindClass, lines: [2]int{8, 19}, exported: yes()},
		{qname: "Cart.total", kind: KindMethod, receiver: "Cart", parent: "Cart", lines: [2]int{11, 17}, exported: yes()},
		{qname: "Cart.total.add", kind: KindFunction, parent: "Cart.total", lines: [2]int{15, 16}, exported: no()},
		{qname: "Cart._load", kind: KindMethod, lines: [2]int{19, 19}, exported: no()},
		{qname: "view", kind: KindFunction, lines: [2]int{21, 23}},
	})
	if s := find(t, f, "Cart"); s.Doc != "A cart." {
		t.Errorf("Cart.Doc = %q", s.Doc)
	}
	if s := find(t, f, "Cart.total"); s.Doc != "Cached total." || s.Signature != "def total(self)" {
		t.Errorf("Cart.total: Doc %q Signature %q", s.Doc, s.Signature)
	}
	wantImports := []Import{
		{Path: "functools", Line: 2},
		{Path: ".models", Names: []ImportName{{Name: "Order", Alias: "O"}, {Name: "Line"}}, Line: 3},
		{Path: ".", Names: []ImportName{{Name: "tax"}}, Line: 4},
	}
	if fmt.Sprint(f.Imports) != fmt.Sprint(wantImports) {
		t.Errorf("Imports = %+v\nwant %+v", f.Imports, wantImports)
	}
}

func TestBrokenSyntax(t *testing.T) {
	tests := []struct {
		path, src string
		want      []symWant
	}{
		{"py/broken.py", "def ok():\n    return 1\n\ndef bad(x:\n    return x\n\nclass After:\n    def m(self):\n        pass\n",
			[]symWant{{qname: "ok", lines: [2]int{1, 2}}, {qname: "bad", lines: [2]int{4, 5}}, {qname: "After", lines: [2]int{7, 9}}, {qname: "After.m", lines: [2]int{8, 9}}}},
		{"js/broken.js", "function ok() { return 1; }\nfunction bad(a {\n  return a;\n}\nclass After { m() {} }\n",
			[]symWant{{qname: "ok", lines: [2]int{1, 1}}, {qname: "After", lines: [2]int{5, 5}}, {qname: "After.m"}}},
		{"go/broken.go", "package x\n\nfunc ok() int { return 1 }\n\nfunc bad( {\n}\n\nfunc After() {}\n",
			[]symWant{{qname: "x.ok", lines: [2]int{3, 3}}, {qname: "x.After", lines: [2]int{8, 8}}}},
	}
	for _, tt := range tests {
		f := mustParse(t, tt.path, tt.src, Options{})
		if !f.Partial || len(f.Notes) == 0 || !strings.Contains(f.Notes[0], "syntax error") {
			t.Errorf("%s: Partial = %v, Notes = %q", tt.path, f.Partial, f.Notes)
		}
		checkSymbols(t, f, tt.want)
	}
}

func TestInvalidUTF8(t *testing.T) {
	src := "# R\xe9sum\xe9 des remboursements\n\ndef total(orders):\n    \"\"\"Somme \xe0 payer.\"\"\"\n    return sum(orders)\n"
	f := mustParse(t, "report.py", src, Options{})
	if !slices.Contains(f.Notes, "invalid UTF-8 replaced with U+FFFD") {
		t.Errorf("Notes = %q", f.Notes)
	}
	s := find(t, f, "total")
	if s.StartLine != 3 || s.EndLine != 5 || !utf8.ValidString(s.Content) || !strings.Contains(s.Doc, "Somme \uFFFD payer") {
		t.Errorf("total: lines %d-%d doc %q content %q", s.StartLine, s.EndLine, s.Doc, s.Content)
	}
	if !utf8.ValidString(f.Symbols[0].Content) {
		t.Errorf("header content is not valid UTF-8")
	}
}

func TestEmptyAndTrivialFiles(t *testing.T) {
	for _, p := range []string{"a.go", "a.py", "a.js", "a.ts", "a.tsx", "a.md", "a.txt", "a.png"} {
		for _, src := range []string{"", "\n", "\n\n\n", "   "} {
			f := mustParse(t, p, src, Options{})
			if len(f.Symbols) != 1 || f.Symbols[0].StartLine != 1 || len(f.Refs) != 0 {
				t.Errorf("%s %q: %d symbols %+v", p, src, len(f.Symbols), f.Symbols)
			}
		}
	}
}

func TestLanguage(t *testing.T) {
	tests := map[string]string{
		"a/b.go": "go", "x.py": "python", "x.pyi": "python", "x.js": "javascript", "x.mjs": "javascript",
		"x.cjs": "javascript", "x.jsx": "javascript", "x.ts": "typescript", "x.d.ts": "typescript",
		"x.tsx": "tsx", "README.md": "text", "Makefile": "text", "a.yaml": "text", "logo.PNG": "",
		"font.woff2": "", "a.zip": "",
	}
	for p, want := range tests {
		if got := Language(p); got != want {
			t.Errorf("Language(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestTextBlocks(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Title\n\nIntro line.\n\n## Section A\n\n")
	for i := range 95 {
		fmt.Fprintf(&b, "line %d of a long paragraph\n", i)
	}
	b.WriteString("\n## Section B\nshort\n")
	f := mustParse(t, "docs/guide.md", b.String(), Options{})
	var names []string
	prevEnd := 0
	for _, s := range f.Symbols[1:] {
		names = append(names, fmt.Sprintf("%s:%d-%d", s.Name, s.StartLine, s.EndLine))
		if s.Kind != KindBlock || s.EndLine-s.StartLine+1 > maxBlockLines || s.StartLine <= prevEnd {
			t.Errorf("bad block %s %d-%d", s.Name, s.StartLine, s.EndLine)
		}
		prevEnd = s.EndLine
	}
	want := []string{"guide.md#1:1-3", "guide.md#2:5-44", "guide.md#3:45-84", "guide.md#4:85-101", "guide.md#5:103-104"}
	if !slices.Equal(names, want) {
		t.Errorf("blocks = %q, want %q", names, want)
	}
}

// bigGoFunc returns a Go file whose function body has n statements, some of
// them nested blocks, so that splitting has subtrees to cut between.
func bigGoFunc(n int) string {
	var b strings.Builder
	b.WriteString("package big\n\n// Big does a lot.\nfunc Big(x int) int {\n")
	for i := range n {
		if i%10 == 0 {
			fmt.Fprintf(&b, "\tif x > %d {\n\t\t// step %d\n\t\tx -= %d\n\t\tx *= 2\n\t}\n", i, i, i)
			continue
		}
		fmt.Fprintf(&b, "\tx += %d // accumulate %d\n", i, i)
	}
	b.WriteString("\treturn x\n}\n\nfunc Small() {}\n")
	return b.String()
}

func TestSplitOversized(t *testing.T) {
	tests := []struct {
		path, src string
		sym       string
		limit     int
	}{
		{"big/big.go", bigGoFunc(400), "big.Big", 2048},
		{"big/cls.py", bigPyClass(60), "Big", 1024},
		{"big/suite.test.js", bigJSSuite(50), "suite.test.js#1", 1024},
	}
	for _, tt := range tests {
		f := mustParse(t, tt.path, tt.src, Options{MaxSymbolBytes: tt.limit})
		idx := -1
		for i, s := range f.Symbols {
			if s.QualifiedName == tt.sym {
				idx = i
			}
		}
		if idx < 0 {
			t.Fatalf("%s: no %s", tt.path, tt.sym)
		}
		sym := f.Symbols[idx]
		if len(sym.Content) <= tt.limit {
			t.Fatalf("%s: test symbol is not oversized (%d bytes)", tt.path, len(sym.Content))
		}
		var parts []Symbol
		for _, s := range f.Symbols {
			if s.Kind == KindPart && s.Parent == idx {
				parts = append(parts, s)
			}
		}
		if len(parts) < 2 {
			t.Fatalf("%s: %d parts", tt.path, len(parts))
		}
		next := sym.StartLine
		for i, p := range parts {
			if want := sym.Name + "#" + fmt.Sprint(i+1); p.Name != want {
				t.Errorf("%s: part %d named %q, want %q", tt.path, i, p.Name, want)
			}
			if p.StartLine != next {
				t.Errorf("%s: part %s starts at %d, want %d (gap or overlap)", tt.path, p.Name, p.StartLine, next)
			}
			if len(p.Content) > tt.limit {
				t.Errorf("%s: part %s is %d bytes, limit %d", tt.path, p.Name, len(p.Content), tt.limit)
			}
			next = p.EndLine + 1
		}
		if next != sym.EndLine+1 {
			t.Errorf("%s: parts end at %d, symbol at %d", tt.path, next-1, sym.EndLine)
		}
		// Parts never cut a statement: every part boundary falls between
		// lines where no statement of the body continues.
		lines := strings.Split(tt.src, "\n")
		for _, p := range parts[1:] {
			first := strings.TrimSpace(lines[p.StartLine-1])
			if first == "}" || first == "})" || strings.HasPrefix(first, "x -=") || strings.HasPrefix(first, "x *=") || strings.HasPrefix(first, "return a") {
				t.Errorf("%s: part %s starts inside a statement: %q", tt.path, p.Name, first)
			}
		}
	}
}

func bigPyClass(n int) string {
	var b strings.Builder
	b.WriteString("class Big:\n    \"\"\"Many methods.\"\"\"\n\n")
	for i := range n {
		fmt.Fprintf(&b, "    # Method %d.\n    def m%d(self, a):\n        a += %d\n        return a * 2\n\n", i, i, i)
	}
	return b.String()
}

func bigJSSuite(n int) string {
	var b strings.Builder
	b.WriteString("const assert = require('assert');\n\ndescribe('suite', () => {\n")
	for i := range n {
		fmt.Fprintf(&b, "  it('case %d', () => {\n    assert.ok(%d);\n  });\n", i, i)
	}
	b.WriteString("});\n")
	return b.String()
}

func TestConcurrentParse(t *testing.T) {
	srcs := map[string]string{
		"a.go": bigGoFunc(50), "b.py": bigPyClass(20), "c.js": bigJSSuite(20),
		"d.ts": "export const f = (a: number): number => a * 2;\n", "e.tsx": "export const C = () => <div>{1}</div>;\n",
	}
	want := map[string]int{}
	for p, src := range srcs {
		want[p] = len(mustParse(t, p, src, Options{}).Symbols)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				for p, src := range srcs {
					f, err := Parse(p, []byte(src), Options{})
					if err != nil || len(f.Symbols) != want[p] {
						t.Errorf("%s: concurrent parse gave %v, %d symbols", p, err, len(f.Symbols))
					}
				}
			}
		})
	}
	wg.Wait()
}

func TestMinifiedAndBinary(t *testing.T) {
	min := strings.Repeat("function a(b){return b+1}var c={d:1};", 200)
	f := mustParse(t, "vendor.min.js", min, Options{})
	if len(f.Symbols) != 1 || f.Symbols[0].Content != "" || !strings.Contains(strings.Join(f.Notes, ";"), "minified") {
		t.Errorf("minified: %d symbols, notes %q", len(f.Symbols), f.Notes)
	}
	f = mustParse(t, "x.go", "package x\x00\x01\x02", Options{})
	if len(f.Symbols) != 1 || !strings.Contains(strings.Join(f.Notes, ";"), "NUL") {
		t.Errorf("NUL bytes: %d symbols, notes %q", len(f.Symbols), f.Notes)
	}
}
