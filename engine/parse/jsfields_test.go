package parse

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// jsFieldCase is a JS/TS source with every field and every field access it
// must give, rendered by jsFieldView and jsAccessView; nil checks nothing.
type jsFieldCase struct {
	name, path, src string
	fields          []string
	accesses        []string
}

// jsFieldView renders a field as "Owner.name type lines exported".
func jsFieldView(f *File, fl Field) string {
	s := fmt.Sprintf("%s %q %d-%d", fl.QualifiedName, fl.Type, fl.StartLine, fl.EndLine)
	if f.Symbols[fl.Owner].Kind != KindClass {
		s += " owner:" + string(f.Symbols[fl.Owner].Kind)
	}
	if fl.Exported {
		s += " exported"
	}
	return s
}

// jsAccessView renders an access as "line kind qualifier.name type from".
func jsAccessView(f *File, r Ref) string {
	return fmt.Sprintf("%d %s %s.%s %q %s", r.Line, r.Kind, r.Qualifier, r.Name, r.QualifierType, f.Symbols[r.From].QualifiedName)
}

func runJSFieldCases(t *testing.T, cases []jsFieldCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.TrimPrefix(c.src, "\n")
			f := mustParse(t, c.path, src, Options{})
			if c.fields != nil {
				var got []string
				for _, fl := range f.Fields {
					got = append(got, jsFieldView(f, fl))
				}
				if !slices.Equal(got, c.fields) {
					t.Errorf("fields:\ngot  %s\nwant %s", strings.Join(got, "\n     "), strings.Join(c.fields, "\n     "))
				}
			}
			if c.accesses != nil {
				var got []string
				for _, r := range f.Refs {
					if r.Kind == RefReads || r.Kind == RefWrites {
						got = append(got, jsAccessView(f, r))
					}
				}
				if !slices.Equal(got, c.accesses) {
					t.Errorf("accesses:\ngot  %s\nwant %s", strings.Join(got, "\n     "), strings.Join(c.accesses, "\n     "))
				}
			}
		})
	}
}

func TestJSClassFields(t *testing.T) {
	runJSFieldCases(t, []jsFieldCase{
		{name: "javascript", path: "lib/a.js", src: `
class A {
  count = 0;
  static registry = new Map();
  #secret = makeSecret();
  handler = () => this.count;
  ['computed'] = 1;
  constructor(db) {
    this.db = db;
    this.conn = new Conn();
    this.count = 5;
    const later = () => { this.viaArrow = 1; };
    function nested() { this.notField = 1; }
    this.onClick = this.onClick.bind(this);
    this.a = this.b = 2;
    this.cb = () => {};
  }
  onClick() {}
  other() { this.notInCtor = 1; }
}
const B = class { x = 1; };
register(class { y = 1; });
function Old() { this.z = 1; }
`, fields: []string{
			`A.count "" 2-2 exported`,
			`A.registry "Map" 3-3 exported`,
			`A.#secret "()makeSecret" 4-4`,
			`A.db "" 8-8 exported`,
			`A.conn "Conn" 9-9 exported`,
			`A.viaArrow "" 11-11 exported`,
			`A.a "" 14-14 exported`,
			`A.b "" 14-14 exported`,
			`B.x "" 20-20 exported`,
		}},
		{name: "typescript", path: "src/s.ts", src: `
export class S {
  private db: DB;
  protected cache = new Cache();
  public name: string;
  readonly id: Id;
  declare later: L | null;
  static #n = 0;
  constructor(private readonly repo: Repo, public opt?: Opt, plain: P, protected p2: P2) {
    this.db = makeDB();
    this.extra = plain;
  }
}
namespace NS {
  export class T { x: X; }
}
`, fields: []string{
			`S.db "DB" 2-2`,
			`S.cache "Cache" 3-3`,
			`S.name "" 4-4 exported`,
			`S.id "Id" 5-5 exported`,
			`S.later "L" 6-6 exported`,
			`S.#n "" 7-7`,
			`S.repo "Repo" 8-8`,
			`S.opt "Opt" 8-8 exported`,
			`S.p2 "P2" 8-8`,
			`S.extra "P" 10-10 exported`,
			`NS.T.x "X" 14-14 exported`,
		}},
		{name: "tsx class expression and default export", path: "src/c.tsx", src: `
export default class Panel extends Base {
  state = { open: false };
  constructor(props: Props) { super(props); this.ref = createRef(); }
}
module.exports.Other = class { n: number = 1; };
`, fields: []string{
			`Panel.state "" 2-2 exported`,
			`Panel.ref "()createRef" 3-3 exported`,
			`module.exports.Other.n "" 5-5 exported`,
		}},
	})
}

func TestJSFieldAccesses(t *testing.T) {
	runJSFieldCases(t, []jsFieldCase{
		{name: "reads and writes", path: "lib/a.js", src: `
class A {
  m(o, k) {
    this.n++;
    --this.m2;
    delete this.cache[k];
    delete o.gone;
    this.items[k] = 1;
    this.grid[k][k] = 2;
    this.total += o.price;
    this.a.b = o.c.d;
    this.a.b = 2;
    this.#priv = 1; this.#priv;
    o.x; o.x; o.x = 1; o.x = 2;
    this.p.q.r;
    o?.opt;
    this
      .spaced
      .chain;
  }
}
`, accesses: []string{
			`3 writes this.n "A" A.m`,
			`4 writes this.m2 "A" A.m`,
			`5 writes this.cache "A" A.m`,
			`6 writes o.gone "" A.m`,
			`7 writes this.items "A" A.m`,
			`8 writes this.grid "A" A.m`,
			`9 writes this.total "A" A.m`,
			`9 reads o.price "" A.m`,
			`10 reads this.a "A" A.m`,
			`10 writes this.a.b "" A.m`,
			`10 reads o.c "" A.m`,
			`10 reads o.c.d "" A.m`,
			`12 writes this.#priv "A" A.m`,
			`12 reads this.#priv "A" A.m`,
			`13 reads o.x "" A.m`,
			`13 writes o.x "" A.m`,
			`14 reads this.p "A" A.m`,
			`14 reads this.p.q "" A.m`,
			`14 reads this.p.q.r "" A.m`,
			`15 reads o.opt "" A.m`,
			`17 reads this.spaced "A" A.m`,
			`18 reads this.spaced.chain "" A.m`,
		}},
		{name: "calls, constructors and definitions are not accesses", path: "lib/b.js", src: `
function f(o) {
  this.save();
  o.run();
  new o.Thing();
  o.list.push(1);
  o.handler.call(this, 1);
  super.method(); super.prop;
  g().prop; o[k]; o[k].p; "s".length;
  X.prototype.count = 0;
  this.constructor.name;
  o?.maybe(); o.opt?.(); o["k"] = 1;
}
res.send = function send() {};
a.x = a.y = function y() {};
X.prototype.m = function () {};
app.handler = () => {};
app.port = 80;
`, accesses: []string{
			`5 reads o.list "" f`,
			`6 reads o.handler "" f`,
			`17 writes app.port "" b.js#1`,
		}},
		{name: "destructuring assignment", path: "lib/c.js", src: `
function f(o) {
  [this.p1, o.p2, ...this.rest] = xs;
  ({ a: this.p3, b: this.p4 = 1, ...o.more } = o);
}
`, accesses: []string{
			`2 writes this.p1 "" f`,
			`2 writes o.p2 "" f`,
			`2 writes this.rest "" f`,
			`3 writes this.p3 "" f`,
			`3 writes this.p4 "" f`,
			`3 writes o.more "" f`,
		}},
		{name: "imports and globals are skipped", path: "lib/d.js", src: `
import React from 'react';
import * as path from 'path';
import { helper, other as alias } from './h';
const fs = require('fs');
const { readFile } = require('fs/promises');
function f(local) {
  React.version; path.sep; helper.y; alias.z; fs.constants; readFile.x;
  process.env.HOME; window.x; document.title; console.x; Math.PI; JSON.x; Object.x;
  Array.x; module.exports.x = 1; exports.y = 2; globalThis.q; import.meta.url;
  local.kept;
}
`, accesses: []string{
			`10 reads local.kept "" f`,
		}},
		{name: "qualifier types", path: "src/q.ts", src: `
class S {
  cache = new Cache();
  constructor(private db: DB) {}
  run(r: Repo) {
    this.db.conn.open = true;
    r.items[0] = 1;
    this.cache.size;
    const local = new Local();
    local.v;
    const cb = () => this.n;
    function inner() { return this.nope; }
    this.db!.skipped; (this as any).skipped;
  }
}
`, accesses: []string{
			`5 reads this.db "S" S.run`,
			`5 reads this.db.conn "DB" S.run`,
			`5 writes this.db.conn.open "" S.run`,
			`6 writes r.items "Repo" S.run`,
			`7 reads this.cache "S" S.run`,
			`7 reads this.cache.size "Cache" S.run`,
			`9 reads local.v "Local" S.run`,
			`10 reads this.n "S" S.run.cb`,
			`11 reads this.nope "" S.run.inner`,
		}},
		{name: "tsx", path: "src/v.tsx", src: `
import { Item } from './item';
const ctx = createContext(null);
export function View(props: ViewProps) {
  return <ctx.Provider value={1}><Item.Row name={props.name} onClick={() => props.onPick(props.id)} /></ctx.Provider>;
}
`, accesses: []string{
			`4 reads ctx.Provider "()createContext" View`,
			`4 reads props.name "ViewProps" View`,
			`4 reads props.id "ViewProps" View`,
		}},
	})
}

// A syntax error in the middle: what follows is re-parsed, and its accesses
// and fields come from the new tree only.
func TestJSFieldsAfterSyntaxError(t *testing.T) {
	runJSFieldCases(t, []jsFieldCase{
		{name: "broken", path: "lib/e.js", src: `
function broken(a {
  return a.x;
}

class C {
  constructor() { this.v = 1; }
  get() { return this.v; }
}
`, fields: []string{
			`C.v "" 6-6 exported`,
		}},
	})
}

// TestJSFieldsRealWorld checks fields and accesses on the npm corpus, when the
// machine has one: each field lies in its class, each access names a
// property through a chain of names.
func TestJSFieldsRealWorld(t *testing.T) {
	paths, srcs, _ := corpus(t, "/usr/lib/node_modules/npm", ".js", 2<<20)
	var fields, reads, writes int
	for i, src := range srcs {
		f, err := Parse(paths[i], src, Options{})
		if err != nil {
			t.Fatalf("%s: %v", paths[i], err)
		}
		for _, fl := range f.Fields {
			o := f.Symbols[fl.Owner]
			if o.Kind != KindClass || fl.StartLine < o.StartLine || fl.EndLine > o.EndLine ||
				fl.Content != string(src[fl.StartByte:fl.EndByte]) || fl.QualifiedName != o.QualifiedName+"."+fl.Name {
				t.Errorf("%s: field %+v outside its class %s %d-%d", paths[i], fl, o.QualifiedName, o.StartLine, o.EndLine)
			}
			fields++
		}
		for _, r := range f.Refs {
			if r.Kind != RefReads && r.Kind != RefWrites {
				continue
			}
			if q, root := jsChain(r.Qualifier + "."); root == "" || q != r.Qualifier || !plainIdent(strings.TrimPrefix(r.Name, "#")) {
				t.Errorf("%s: odd access %+v", paths[i], r)
			}
			if r.Kind == RefReads {
				reads++
			} else {
				writes++
			}
		}
	}
	t.Logf("%d files: %d fields, %d reads, %d writes", len(srcs), fields, reads, writes)
}
