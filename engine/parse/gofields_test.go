package parse

import (
	"slices"
	"strings"
	"testing"
)

// goAccessList renders f's field accesses as "kind qualifier.name:qualType".
func goAccessList(f *File) []string {
	var out []string
	for _, r := range f.Refs {
		if r.Kind == RefReads || r.Kind == RefWrites {
			out = append(out, string(r.Kind)+" "+r.Qualifier+"."+r.Name+":"+r.QualifierType)
		}
	}
	return out
}

func TestGoFields(t *testing.T) {
	src := `package bank

type Account struct {
	balance   int
	Owner, Nick string
	log       *Log
	Base
	*pkg.Embedded
}

type Log struct{ lines []string }

type Alias = Account
`
	f, err := Parse("bank.go", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fl := range f.Fields {
		got = append(got, fl.QualifiedName+" "+fl.Type+" "+f.Symbols[fl.Owner].Name+" "+
			strings.TrimSpace(fl.Content))
	}
	want := []string{
		"Account.balance  Account balance   int",
		"Account.Owner  Account Owner, Nick string",
		"Account.Nick  Account Owner, Nick string",
		"Account.log Log Account log       *Log",
		"Account.Base Base Account Base",
		"Account.Embedded pkg.Embedded Account *pkg.Embedded",
		"Log.lines  Log type Log struct{ lines []string }",
	}
	if !slices.Equal(got, want) {
		t.Errorf("fields:\n got %q\nwant %q", got, want)
	}
	if !f.Fields[1].Exported || f.Fields[0].Exported {
		t.Errorf("exported: %+v", f.Fields[:2])
	}
}

func TestGoFieldAccesses(t *testing.T) {
	const head = "package p\n\nimport \"fmt\"\n\ntype A struct{ n int; m map[string]int; l *L; f func() }\ntype L struct{ xs []int }\n\n"
	tests := []struct {
		name, body string
		want       []string
	}{
		{"read", `func (a *A) R() int { return a.n }`, []string{"reads a.n:A"}},
		{"write and augmented", `func (a *A) W() { a.n = 1; a.n += 2; a.n++ }`, []string{"writes a.n:A"}},
		{"read and write kept apart", `func (a *A) RW() { a.n = a.n + 1 }`, []string{"writes a.n:A", "reads a.n:A"}},
		{"index target writes the map", `func (a *A) I(k string) { a.m[k] = 1; delete(a.m, k) }`, []string{"writes a.m:A"}},
		{"delete writes", `func (a *A) D(k string) { delete(a.m, k) }`, []string{"writes a.m:A"}},
		{"index read", `func (a *A) G(k string) int { return a.m[k] }`, []string{"reads a.m:A"}},
		{"chain writes the last, reads the rest", `func (a *A) C() { a.l.xs = nil }`, []string{"reads a.l:A", "writes a.l.xs:L"}},
		{"index on the left is a read", `func (a *A) X(b []int) { b[a.n] = 1 }`, []string{"reads a.n:A"}},
		{"method calls are not accesses", `func (a *A) M() { a.l.Do(); a.f() }`, []string{"reads a.l:A"}},
		{"package members are not fields", `func F() { fmt.Println(fmt.Sprint); _ = fmt.Stringer(nil) }`, nil},
		{"range element", `func F(xs []A) { for _, x := range xs { x.n-- } }`, []string{"writes x.n:A"}},
		{"untyped qualifier", `func F(get func() A) { x := get(); x.n-- }`, []string{"writes x.n:"}},
		{"call results are not qualifiers", `func F() int { return mk().n }`, nil},
		{"multiple assignment", `func (a *A) S(b *A) { a.n, b.n = b.n, a.n }`,
			[]string{"writes a.n:A", "writes b.n:A", "reads b.n:A", "reads a.n:A"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("p.go", []byte(head+tt.body+"\n"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := goAccessList(f); !slices.Equal(got, tt.want) {
				t.Errorf("accesses:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
