package parse

import (
	"fmt"
	"strings"
	"testing"
)

// symbolsOf renders f's chunks as "qname kind lines parent" lines.
func symbolsOf(f *File) string {
	var b strings.Builder
	for _, s := range f.Symbols[1:] {
		parent := ""
		if s.Parent > 0 {
			parent = " <" + f.Symbols[s.Parent].QualifiedName
		}
		fmt.Fprintf(&b, "%s %s %d-%d%s\n", s.QualifiedName, s.Kind, s.StartLine, s.EndLine, parent)
	}
	return b.String()
}

// refsOf renders f's refs of kind k as "from name qual qtype" lines.
func refsOf(f *File, k RefKind) string {
	var b strings.Builder
	for _, r := range f.Refs {
		if r.Kind == k {
			fmt.Fprintf(&b, "%s %s %s %s\n", f.Symbols[r.From].QualifiedName, r.Name, r.Qualifier, r.QualifierType)
		}
	}
	return b.String()
}

func TestJavaDefinitions(t *testing.T) {
	src := `package a.b;

import java.util.List;

/** A shape. */
@Entity
@Table(name = "shapes")
public abstract class Shape<T> extends Base implements Comparable<Shape<T>>, java.io.Serializable {
    /** The area. */
    @Override
    public abstract double area();

    static class Inner {
        void run() {
            class Local {
                void go() {}
            }
        }
    }

    enum Kind { ROUND, SQUARE; Kind next() { return this; } }

    record Point(int x, int y) {
        Point {
            if (x < 0) throw new IllegalArgumentException();
        }
    }

    @interface Marker {}

    interface Visitor extends Base.Visitor, Other {
        void visit(Shape<?> s);
    }
}
`
	f := mustParse(t, "src/main/java/a/b/Shape.java", src, Options{})
	want := `Shape class 5-34
Shape.area method 9-11 <Shape
Shape.Inner class 13-19 <Shape
Shape.Inner.run method 14-18 <Shape.Inner
Shape.Inner.run.Local class 15-17 <Shape.Inner.run
Shape.Inner.run.Local.go method 16-16 <Shape.Inner.run.Local
Shape.Kind enum 21-21 <Shape
Shape.Kind.next method 21-21 <Shape.Kind
Shape.Point class 23-27 <Shape
Shape.Point.constructor method 24-26 <Shape.Point
Shape.Marker interface 29-29 <Shape
Shape.Visitor interface 31-33 <Shape
Shape.Visitor.visit method 32-32 <Shape.Visitor
`
	if got := symbolsOf(f); got != want {
		t.Errorf("symbols:\n%s\nwant:\n%s", got, want)
	}
	if f.Package != "a.b" || f.Language != "java" {
		t.Errorf("package %q language %q", f.Package, f.Language)
	}
	s := f.Symbols[1]
	if s.Signature != "public abstract class Shape<T> extends Base implements Comparable<Shape<T>>, java.io.Serializable" ||
		s.Doc != "A shape." || !s.Exported || !strings.HasPrefix(s.Content, "/** A shape. */\n@Entity\n") {
		t.Errorf("class: sig %q doc %q exported %v content %q", s.Signature, s.Doc, s.Exported, s.Content)
	}
	if a := f.Symbols[2]; a.Signature != "public abstract double area()" || a.Doc != "The area." || !a.Exported || a.ResultType != "" {
		t.Errorf("area: %+v", a)
	}
	if v := f.Symbols[len(f.Symbols)-1]; v.Exported {
		t.Errorf("a member of a package-private interface is exported: %+v", v)
	}
	heritage := refsOf(f, RefInherits) + refsOf(f, RefImplements)
	wantHeritage := `Shape Base  
Shape.Visitor Visitor Base 
Shape.Visitor Other  
Shape Comparable  
Shape Serializable java.io 
`
	if heritage != wantHeritage {
		t.Errorf("heritage:\n%s\nwant:\n%s", heritage, wantHeritage)
	}
}

func TestJavaQualifierTypes(t *testing.T) {
	src := `package p;

import static q.Util.helper;

class Outer extends Base {
    private Repo repo;
    private final java.util.List<Item> items = null;

    <T extends Item> void run(Param p, T t, int n) {
        Local l = new Local();
        l.a();
        p.b();
        t.c();
        repo.d();
        this.repo.e();
        this.f();
        super.g();
        h();
        helper();
        Util.i();
        new Maker().j();
        ((Caster) p).k();
        items.size();
        for (Elem e : items) { e.m(); }
        try (Res r = open()) { r.n(); } catch (Oops | Ugh x) { x.o(); }
        Runnable run = () -> { var v = new Vee(); v.p(); };
        String repo = "";
        repo.q();
    }

    void h() {}

    class Inner {
        void z() { h(); run(null, null, 0); zz(); }
    }
}
`
	f := mustParse(t, "p/Outer.java", src, Options{})
	want := `Outer Base  
Outer.run Local  
Outer.run a l Local
Outer.run b p Param
Outer.run c t 
Outer.run d repo Repo
Outer.run e this.repo Repo
Outer.run f this Outer
Outer.run g super Outer
Outer.run h  Outer
Outer.run helper  Util
Outer.run i Util Util
Outer.run Maker  
Outer.run j new Maker() Maker
Outer.run k ((Caster) p) Caster
Outer.run size items List
Outer.run m e Elem
Outer.run open  Outer
Outer.run n r Res
Outer.run o x 
Outer.run Vee  
Outer.run p v Vee
Outer.run q repo String
Outer.Inner.z h  Outer
Outer.Inner.z run  Outer
Outer.Inner.z zz  Inner
`
	got := refsOf(f, RefInherits) + refsOf(f, RefCalls)
	if got != want {
		t.Errorf("calls:\n%s\nwant:\n%s", got, want)
	}
	if len(f.Fields) != 2 || f.Fields[0].QualifiedName != "Outer.repo" || f.Fields[0].Type != "Repo" || f.Fields[1].Type != "java.util.List" {
		t.Errorf("fields: %+v", f.Fields)
	}
}

func TestJavaImports(t *testing.T) {
	src := `package p;
import a.b.C;
import a.b.*;
import static a.b.C.m;
import static a.b.C.*;
import a.b.C.Inner;
class X {}
`
	f := mustParse(t, "p/X.java", src, Options{})
	got := fmt.Sprint(f.Imports)
	want := "[{a.b.C C [] 2} {a.b  [{* }] 3} {a.b.C  [{m }] 4} {a.b.C  [{* }] 5} {a.b.C.Inner Inner [] 6}]"
	if got != want {
		t.Errorf("imports:\n%s\nwant\n%s", got, want)
	}
	if h := f.Symbols[0]; h.EndLine != 6 {
		t.Errorf("header ends at %d, want 6", h.EndLine)
	}
}

// TestJavaSplitsOversized: a class over the size limit is followed by parts
// that tile it at member boundaries; its members keep their own chunks.
func TestJavaSplitsOversized(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p;\n\npublic class Big {\n")
	for i := range 12 {
		fmt.Fprintf(&b, "    /** Method %d. */\n    public int m%d(int x) {\n        return x + %d;\n    }\n\n", i, i, i)
	}
	b.WriteString("}\n")
	f := mustParse(t, "p/Big.java", b.String(), Options{MaxSymbolBytes: 300})
	var parts []Symbol
	methods := 0
	for _, s := range f.Symbols {
		switch s.Kind {
		case KindPart:
			parts = append(parts, s)
		case KindMethod:
			methods++
		}
	}
	if len(parts) < 2 || methods != 12 {
		t.Fatalf("%d parts, %d methods:\n%s", len(parts), methods, symbolsOf(f))
	}
	cls := f.Symbols[1]
	if parts[0].StartLine != cls.StartLine || parts[len(parts)-1].EndLine != cls.EndLine {
		t.Errorf("parts %d-%d do not tile the class %d-%d", parts[0].StartLine, parts[len(parts)-1].EndLine, cls.StartLine, cls.EndLine)
	}
	for i := 1; i < len(parts); i++ {
		if parts[i].StartLine != parts[i-1].EndLine+1 {
			t.Errorf("gap or overlap between parts %d and %d", i-1, i)
		}
		if !strings.HasPrefix(strings.TrimSpace(parts[i].Content), "/**") {
			t.Errorf("part %d does not start at a member's doc comment: %q", i, parts[i].Content)
		}
	}
}

// TestJavaSyntaxError: the definitions after a broken one are still found.
func TestJavaSyntaxError(t *testing.T) {
	src := "class A {\n  void f() { g(; }\n  void h() { k(); }\n}\nclass B { void i() {} }\n"
	f := mustParse(t, "A.java", src, Options{})
	if !f.Partial {
		t.Error("not partial")
	}
	got := symbolsOf(f)
	for _, want := range []string{"A.h method 3-3 <A", "B.i method 5-5 <B"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}

func TestJavaFieldAccesses(t *testing.T) {
	src := `package p;

class Acct {
    private int balance;
    private Log log;
    static final int LIMIT = 10;

    void deposit(int n) {
        balance += n;
        this.balance++;
        log.add(n);
        int local = 0;
        local = n;
        other.count = Acct.LIMIT;
        System.out.println(java.util.List.of());
    }

    void shadow(int balance) { balance = 1; }
}
`
	f := mustParse(t, "p/Acct.java", src, Options{})
	got := refsOf(f, RefReads) + "--\n" + refsOf(f, RefWrites)
	want := `Acct.deposit log  Acct
Acct.deposit LIMIT Acct Acct
Acct.deposit out System System
--
Acct.deposit balance  Acct
Acct.deposit balance this Acct
Acct.deposit count other 
`
	if got != want {
		t.Errorf("accesses:\n%s\nwant:\n%s", got, want)
	}
}
