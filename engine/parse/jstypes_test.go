package parse

import "testing"

func TestTypeScriptQualifierTypes(t *testing.T) {
	runTypeCases(t, "src/svc.ts", []typeCase{
		{name: "this and super", src: `
class A extends B {
  m() {
    this.g();
    super.h();
    const cb = () => this.k();
    function inner() { this.nope(); }
  }
  f = () => this.g();
}
const api = { list() { this.x(); } };
function free() { this.y(); }
const K = class { m() { this.z(); } };
`, calls: map[string]string{
			"3:this.g": "A", "4:super.h": "A", "5:this.k": "A", "6:this.nope": "",
			"8:this.g": "A", "10:this.x": "", "11:this.y": "", "12:this.z": "K",
		}},
		{name: "locals and annotations", src: `
function f(a: C, b: C | null | undefined, c: C[], d: A | B, e, g: R<T>, h: ns.N, {p}: O, ...rest: C[]) {
  a.m(); b.m(); c.m(); d.m(); e.m(); g.m(); h.m(); p.m(); rest.m();
  const x = new C();
  x.m();
  const y = new ns.D();
  y.m();
  const z = makeC();
  z.m();
  let w: W<T>;
  w.m();
  const v = api.make();
  v.m();
  const u = await load();
  u.m();
  const s = other as S;
  s.m();
  const fs = require("fs");
  fs.read();
}
`, calls: map[string]string{
			"2:a.m": "C", "2:b.m": "C", "2:c.m": "", "2:d.m": "", "2:e.m": "", "2:g.m": "R",
			"2:h.m": "ns.N", "2:p.m": "", "2:rest.m": "",
			"4:x.m": "C", "6:y.m": "ns.D", "8:z.m": "()makeC", "10:w.m": "W", "12:v.m": "()api.make",
			"14:u.m": "", "16:s.m": "S", "18:fs.read": "",
		}},
		{name: "fields and constructor", src: `
class S {
  private db: DB;
  cache = new Cache();
  #log = makeLog();
  declare twice: A;
  constructor(private readonly repo: Repo, store: Store, other, public opt?: O) {
    this.store = store;
    this.other = other;
    this.q = new Q();
    this.twice = new B();
  }
  run() {
    this.db.query(); this.cache.get(); this.#log.info(); this.repo.find();
    this.store.put(); this.other.go(); this.q.push(); this.opt.o(); this.twice.t(); this.later.l();
  }
  setup() { this.later = new L(); }
}
`, calls: map[string]string{
			"13:this.db.query": "DB", "13:this.cache.get": "Cache", "13:this.#log.info": "()makeLog",
			"13:this.repo.find": "Repo", "14:this.store.put": "Store", "14:this.other.go": "",
			"14:this.q.push": "Q", "14:this.opt.o": "O", "14:this.twice.t": "A", "14:this.later.l": "",
		}},
		{name: "shadowing", src: `
const db = new DB();
function uses() { db.q(); }
function param(db) { db.q(); }
function blocks(c) {
  const x = new X();
  if (c) {
    const x = new Y();
    x.m();
  }
  x.m();
  let v = new V();
  if (c) { v = new W(); }
  v.m();
  let r = new R();
  r = new Q();
  r.m();
  for (const db of items) { db.q(); }
  db.q();
  try { } catch (db) { db.q(); }
  var h = new H();
  { var h = other(); } // the same variable, always assigned
  h.m();
  items.map(db => db.q());
}
`, calls: map[string]string{
			"2:db.q": "DB", "3:db.q": "", "8:x.m": "Y", "10:x.m": "X", "13:v.m": "", "16:r.m": "Q",
			"17:db.q": "", "18:db.q": "DB", "19:db.q": "", "22:h.m": "()other", "23:db.q": "",
		}},
		{name: "result types", src: `
function a(): C { return null; }
function b(): C | undefined { return null; }
function c(): string { return ""; }
function d(): C[] { return []; }
const e = (): ns.E => null;
function g() {}
class K {
  me(): this { return this; }
  other(): Promise<P> { return null; }
  overload(x: string): O;
  overload(x: any): O { return null; }
}
`, results: map[string]string{
			"a": "C", "b": "C", "c": "", "d": "", "e": "ns.E", "g": "",
			"K.me": "K", "K.other": "Promise", "K.overload": "O",
		}},
	})
}

func TestJavaScriptQualifierTypes(t *testing.T) {
	runTypeCases(t, "lib/a.js", []typeCase{
		{name: "fields and locals", src: `
class A {
  db = new DB();
  constructor(store = 1) { this.conn = new Conn(); this.store = store; }
  m(x) {
    this.db.q(); this.conn.send(); this.store.put(); x.m();
    const c = new C();
    c.m();
  }
}
`, calls: map[string]string{
			"5:this.db.q": "DB", "5:this.conn.send": "Conn", "5:this.store.put": "", "5:x.m": "",
			"7:c.m": "C",
		}},
	})
}
