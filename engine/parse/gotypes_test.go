package parse

import (
	"fmt"
	"slices"
	"testing"
)

// qualTypes maps "qualifier.Name#k" (the k-th such call, from 1) to the
// call's QualifierType.
func qualTypes(t *testing.T, src string) map[string]string {
	t.Helper()
	f, err := Parse("p.go", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	seen := map[string]int{}
	for _, r := range f.Refs {
		if r.Kind != RefCalls || r.Qualifier == "" {
			continue
		}
		k := r.Qualifier + "." + r.Name
		seen[k]++
		got[fmt.Sprintf("%s#%d", k, seen[k])] = r.QualifierType
	}
	return got
}

func TestGoQualifierTypes(t *testing.T) {
	const head = "package p\n\nimport (\n\t\"fmt\"\n\t\"example.com/pkg\"\n\t\"example.com/billing\"\n)\n\n"
	tests := []struct {
		name string
		src  string
		want map[string]string
	}{
		{"receiver", `func (s *Server) Run() { s.handle() }
func (c Cart[T]) Add() { c.grow() }`,
			map[string]string{"s.handle#1": "Server", "c.grow#1": "Cart"}},
		{"parameters", `func Use(b B, p *B, q pkg.B, r *pkg.B, g List[int], xs ...B, ys []B, m map[string]B, f func() B, c chan B) {
	b.M(); p.M(); q.M(); r.M(); g.M(); xs.M(); ys.M(); m.M(); f.M(); c.M()
}`,
			map[string]string{"b.M#1": "B", "p.M#1": "B", "q.M#1": "pkg.B", "r.M#1": "pkg.B", "g.M#1": "List",
				"xs.M#1": "", "ys.M#1": "", "m.M#1": "", "f.M#1": "", "c.M#1": ""}},
		{"named results and builtins", `func F(n int, e error) (r *R, err error) { r.M(); err.Error(); e.Error(); n.M() }`,
			map[string]string{"r.M#1": "R", "err.Error#1": "", "e.Error#1": "", "n.M#1": ""}},
		{"locals", `func F() {
	var a B
	var b *B
	c := B{}
	d := &B{}
	e := new(B)
	f := NewB()
	g := pkg.NewB()
	h, err := NewB()
	var i, j = &pkg.B{}, x.(*C)
	k := f
	l := (*b)
	a.M(); b.M(); c.M(); d.M(); e.M(); f.M(); g.M(); h.M(); err.M(); i.M(); j.M(); k.M(); l.M()
}`,
			map[string]string{"a.M#1": "B", "b.M#1": "B", "c.M#1": "B", "d.M#1": "B", "e.M#1": "B",
				"f.M#1": "()NewB", "g.M#1": "()pkg.NewB", "h.M#1": "()NewB", "err.M#1": "",
				"i.M#1": "pkg.B", "j.M#1": "C", "k.M#1": "()NewB", "l.M#1": "B"}},
		{"calls as qualifiers", `type T struct{}
func F(o Obj) { NewB().M(); pkg.NewB().M(); T(x).M(); o.get().M(); (&B{}).M() }`,
			map[string]string{"NewB().M#1": "()NewB", "pkg.NewB().M#1": "()pkg.NewB", "T(x).M#1": "T",
				"o.get().M#1": "", "(&B{}).M#1": "B", "o.get#1": "Obj"}},
		{"shadowing", `func F(b B) {
	b.M()
	{
		b := NewC()
		b.M()
	}
	b.M()
	for _, b := range bs {
		b.M()
	}
	if b := (C{}); true {
		b.M()
	} else {
		b.M()
	}
	b.M()
	f := func(b D) { b.M() }
	b.M()
	b := b.Clone()
	b.M()
}`,
			map[string]string{"b.M#1": "B", "b.M#2": "()NewC", "b.M#3": "B", "b.M#4": "", "b.M#5": "C",
				"b.M#6": "C", "b.M#7": "B", "b.M#8": "D", "b.M#9": "B", "b.Clone#1": "B", "b.M#10": ""}},
		{"package-level vars", `var client = NewClient()
var cfg Config
func F() { client.Do(); cfg.Load() }
func G(client *Other) { client.Do() }`,
			map[string]string{"client.Do#1": "()NewClient", "cfg.Load#1": "Config", "client.Do#2": "Other"}},
		{"struct fields", `type S struct {
	Base
	*pkg.Other
	db  *DB
	log pkg.Logger
	xs  []DB
}
func NewS() *S { return nil }
func (s *S) F(t T) {
	s.db.Query(); s.log.Print(); s.Base.M(); s.Other.M(); s.xs.M(); s.nope.M(); t.db.Query(); NewS().db.Query()
}`,
			map[string]string{"s.db.Query#1": "DB", "s.log.Print#1": "pkg.Logger", "s.Base.M#1": "Base",
				"s.Other.M#1": "pkg.Other", "s.xs.M#1": "", "s.nope.M#1": "", "t.db.Query#1": "T#db",
				"NewS().db.Query#1": "DB"}},
		{"range elements", `type L struct{ items []*I; m map[string]I; n int }
func (l *L) F(xs []I, r *R) {
	ys := []I{}
	for _, a := range l.items { a.M() }
	for _, b := range l.m { b.M() }
	for _, c := range xs { c.M() }
	for _, d := range ys { d.M() }
	for _, e := range r.list { e.M() }
	for k := range xs { k.M() }
}`,
			map[string]string{"a.M#1": "I", "b.M#1": "I", "c.M#1": "I", "d.M#1": "I", "e.M#1": "R#list[]", "k.M#1": ""}},
		{"package selectors", `func F() { fmt.Println(); billing.Refund(); pkg.Default.Run() }`,
			map[string]string{"fmt.Println#1": "", "billing.Refund#1": "", "pkg.Default.Run#1": ""}},
		{"ambiguous method, untyped qualifiers", `type A struct{}
func (A) Close() {}
type B struct{}
func (B) Close() {}
func Use(b B, m map[string]A, as []A) { b.Close(); m["a"].Close(); as[0].Close(); <-ch.Close() }`,
			map[string]string{"b.Close#1": "B", `m["a"].Close#1`: "", "as[0].Close#1": ""}},
		{"type switch and select", `func F(x any) {
	switch v := x.(type) {
	case *B:
		v.M()
	case C, D:
		v.M()
	default:
		v.M()
	}
	select {
	case v := <-ch:
		v.M()
	}
}`,
			map[string]string{"v.M#1": "B", "v.M#2": "", "v.M#3": "", "v.M#4": ""}},
		{"type parameters", `func F[T Stringer](t T, u U) T { t.String(); u.String(); return t }
func (l *List[E]) Each(e E) { e.Visit() }`,
			map[string]string{"t.String#1": "", "u.String#1": "U", "e.Visit#1": ""}},
		{"function types do not declare", `var s S
func F(cb func(s *Other)) { s.M() }
type I interface{ Do(s *Other) }`,
			map[string]string{"s.M#1": "S"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := qualTypes(t, head+tt.src)
			for k, want := range tt.want {
				g, ok := got[k]
				if !ok {
					t.Errorf("no call %s; calls: %v", k, got)
					continue
				}
				if g != want {
					t.Errorf("%s: QualifierType = %q, want %q", k, g, want)
				}
			}
		})
	}
}

func TestGoResultType(t *testing.T) {
	src := `package p

import "example.com/pkg"

func NewB() *B                         { return nil }
func NewP() (*pkg.B, error)            { return nil, nil }
func Named() (b B, err error)          { return }
func Err() error                       { return nil }
func Str() string                      { return "" }
func Slice() []B                       { return nil }
func Fn() func() B                     { return nil }
func None()                            {}
func Gen[T any]() T                    { var t T; return t }
func List() *List[int]                 { return nil }
func (s *S) Clone() S                  { return *s }
func (l *L[E]) First() E               { var e E; return e }
`
	want := map[string]string{"NewB": "B", "NewP": "pkg.B", "Named": "B", "Err": "", "Str": "", "Slice": "",
		"Fn": "", "None": "", "Gen": "", "List": "List", "Clone": "S", "First": ""}
	f, err := Parse("p.go", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range f.Symbols {
		w, ok := want[s.Name]
		if !ok {
			continue
		}
		delete(want, s.Name)
		if s.ResultType != w {
			t.Errorf("%s: ResultType = %q, want %q", s.Name, s.ResultType, w)
		}
	}
	for name := range want {
		t.Errorf("no symbol %s", name)
	}
}

func TestGoEmbeds(t *testing.T) {
	src := `package p

type S struct {
	Base
	*pkg.Other
	Gen[int]
	name string
	inner struct{ Hidden }
}

type I interface {
	io.Reader
	error
	Close() error
	~int | string
	Named
}

type Plain int
`
	want := map[string][]string{"S": {"Base", "pkg.Other", "Gen"}, "I": {"io.Reader", "Named"}, "Plain": nil}
	f, err := Parse("p.go", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range f.Symbols {
		if w, ok := want[s.Name]; ok && !slices.Equal(s.Embeds, w) {
			t.Errorf("%s: Embeds = %q, want %q", s.Name, s.Embeds, w)
		}
	}
}
