package parse

import (
	"fmt"
	"strings"
	"testing"
)

func TestCSharpDefinitions(t *testing.T) {
	src := `using System;

namespace Acme.Orders
{
    namespace Lines
    {
        /// <summary>
        /// An order line. See <see cref="Order"/>.
        /// </summary>
        /// <param name="sku">The SKU.</param>
        [Serializable, DebuggerDisplay("{Sku}")]
        public sealed partial class Line : Base, ILine, IEquatable<Line>
        {
            public string Sku { get; init; }
            public int this[int i] => i;
            public event EventHandler Changed { add { } remove { } }
            public static Line operator +(Line a, Line b) => a;
            public static explicit operator string(Line l) => l.Sku;
            ~Line() { }
            public Line() : base(1) { }
            internal void Touch() { int Twice(int x) => x * 2; Twice(1); }
            public struct Key { }
            private interface IHidden { void Run(); }
        }

        public record struct Money(decimal Amount);
        public record Receipt(string Id) : Document(Id);
        delegate void Handler(Line l);
        enum State : byte { Open, Closed }
    }
}
`
	f := mustParse(t, "src/Acme.Orders/Lines/Line.cs", src, Options{})
	want := `Line class 7-24
Line.Sku method 14-14 <Line
Line.this[] method 15-15 <Line
Line.Changed method 16-16 <Line
Line.operator + method 17-17 <Line
Line.operator string method 18-18 <Line
Line.~Line method 19-19 <Line
Line.constructor method 20-20 <Line
Line.Touch method 21-21 <Line
Line.Touch.Twice function 21-21 <Line.Touch
Line.Key struct 22-22 <Line
Line.IHidden interface 23-23 <Line
Line.IHidden.Run method 23-23 <Line.IHidden
Money struct 26-26
Receipt class 27-27
Handler type 28-28
State enum 29-29
`
	if got := symbolsOf(f); got != want {
		t.Errorf("symbols:\n%s\nwant:\n%s", got, want)
	}
	if f.Package != "Acme.Orders.Lines" {
		t.Errorf("package %q", f.Package)
	}
	line := f.Symbols[1]
	if line.Doc != "An order line. See Order.\nThe SKU." || !line.Exported ||
		line.Signature != "public sealed partial class Line : Base, ILine, IEquatable<Line>" ||
		!strings.HasPrefix(line.Content, "        /// <summary>\n") {
		t.Errorf("class: doc %q sig %q exported %v", line.Doc, line.Signature, line.Exported)
	}
	for _, s := range f.Symbols {
		if s.Kind == KindBlock {
			t.Errorf("namespace lines became a block: %+v", s)
		}
		if (s.Name == "Run" || s.Name == "Touch" || s.Name == "IHidden") && s.Exported {
			t.Errorf("%s exported", s.QualifiedName)
		}
	}
	heritage := refsOf(f, RefInherits) + refsOf(f, RefImplements)
	wantHeritage := `Line Base  
Receipt Document  
Line ILine  
Line IEquatable  
`
	if heritage != wantHeritage {
		t.Errorf("heritage:\n%s\nwant:\n%s", heritage, wantHeritage)
	}
	if len(f.Fields) != 2 || f.Fields[0].QualifiedName != "State.Open" {
		t.Errorf("fields: %+v", f.Fields)
	}
}

func TestCSharpFileScopedNamespaceAndPartials(t *testing.T) {
	a := "namespace Acme.Orders;\n\npublic partial class Order\n{\n    public void Submit() { Validate(); }\n}\n"
	b := "namespace Acme.Orders;\n\npublic partial class Order\n{\n    private void Validate() { }\n}\n"
	fa := mustParse(t, "Order.cs", a, Options{})
	fb := mustParse(t, "Order.Validation.cs", b, Options{})
	if fa.Package != "Acme.Orders" || fa.Symbols[0].EndLine != 1 {
		t.Errorf("package %q, header %d-%d", fa.Package, fa.Symbols[0].StartLine, fa.Symbols[0].EndLine)
	}
	if got := symbolsOf(fa) + symbolsOf(fb); got != "Order class 3-6\nOrder.Submit method 5-5 <Order\nOrder class 3-6\nOrder.Validate method 5-5 <Order\n" {
		t.Errorf("symbols:\n%s", got)
	}
	// The other part's method: the class is the one known here.
	if got := refsOf(fa, RefCalls); got != "Order.Submit Validate  Order\n" {
		t.Errorf("calls: %s", got)
	}
}

func TestCSharpQualifierTypes(t *testing.T) {
	src := `using Alias = Acme.Store.Repository;

class Svc : BaseSvc
{
    private readonly Repo _repo;
    public Cache Cache { get; }

    public Svc(Repo repo, Cache cache) { _repo = repo; }

    public void Run<T>(Param p, T t, Func<int> cb)
    {
        var l = new Local();
        l.A();
        p.B();
        t.C();
        _repo.D();
        this._repo.E();
        this.F();
        base.G();
        H();
        Util.I();
        Cache.J();
        cb();
        p?.K();
        Alias a = new Alias();
        a.L();
        if (p is Sub s) s.M();
        foreach (Item it in p.Items) it.N();
        Parse("1", out Num n); n.O();
        void Inner() { }
        Inner();
        nameof(p);
    }

    void H() { }
}
`
	f := mustParse(t, "Svc.cs", src, Options{})
	want := `Svc.Run Local  
Svc.Run A l Local
Svc.Run B p Param
Svc.Run C t 
Svc.Run D _repo Repo
Svc.Run E this._repo Repo
Svc.Run F this Svc
Svc.Run G base BaseSvc
Svc.Run H  Svc
Svc.Run I Util Util
Svc.Run J Cache Cache
Svc.Run cb  
Svc.Run K p Param
Svc.Run Repository  
Svc.Run L a Repository
Svc.Run M s Sub
Svc.Run N it Item
Svc.Run Parse  Svc
Svc.Run O n Num
Svc.Run Inner  
`
	if got := refsOf(f, RefCalls); got != want {
		t.Errorf("calls:\n%s\nwant:\n%s", got, want)
	}
}

func TestCSharpUsings(t *testing.T) {
	src := "using System;\nglobal using System.Linq;\nusing static System.Math;\nusing IO = System.IO;\nusing global::Acme.Core;\nclass X {}\n"
	f := mustParse(t, "X.cs", src, Options{})
	got := fmt.Sprint(f.Imports)
	want := "[{System  [] 1} {System.Linq  [] 2} {System.Math  [{* }] 3} {System.IO IO [] 4} {Acme.Core  [] 5}]"
	if got != want {
		t.Errorf("imports:\n%s\nwant\n%s", got, want)
	}
	if f.Symbols[0].EndLine != 5 {
		t.Errorf("header ends at %d", f.Symbols[0].EndLine)
	}
}

// TestCSharpTopLevelStatements: statements outside any type are blocks.
func TestCSharpTopLevelStatements(t *testing.T) {
	src := "using System;\n\nvar x = new Thing();\nx.Go();\n\nstatic int Helper() => 1;\n"
	f := mustParse(t, "Program.cs", src, Options{})
	if got := symbolsOf(f); got != "Program.cs#1 block 3-4\nHelper function 6-6\n" {
		t.Errorf("symbols:\n%s", got)
	}
	if got := refsOf(f, RefCalls); got != "Program.cs#1 Thing  \nProgram.cs#1 Go x Thing\n" {
		t.Errorf("calls:\n%s", got)
	}
}

// TestCSharpPreprocessor: directives where the grammar allows none (a switch
// section, an if/else chain, a base list) do not break the file: the parser
// reads each #if's first branch, and the chunks keep every line.
func TestCSharpPreprocessor(t *testing.T) {
	src := "\ufeff#if NET\nusing System.Buffers;\n#endif\nnamespace N\n{\n    public class C : Base\n#if NET\n        , IExtra\n#endif\n" +
		"    {\n        public int M(int x)\n        {\n            switch (x)\n            {\n                case 1:\n                    return 1;\n" +
		"#if NET\n                case 2:\n                    return 2;\n#else\n                case 2:\n                    return 3;\n#endif\n" +
		"            }\n#if NET\n            if (x > 3) { return 4; } else\n#endif\n            { return 5; }\n        }\n\n" +
		"#region Helpers\n        /// <summary>After the region.</summary>\n        public void N() { M(1); }\n#endregion\n    }\n}\n"
	f := mustParse(t, "C.cs", src, Options{})
	if f.Partial {
		t.Errorf("partial: %v", f.Notes)
	}
	if got := symbolsOf(f); got != "C class 6-35\nC.M method 11-29 <C\nC.N method 32-33 <C\n" {
		t.Errorf("symbols:\n%s", got)
	}
	if got := refsOf(f, RefImplements) + refsOf(f, RefInherits); got != "C IExtra  \nC Base  \n" {
		t.Errorf("bases:\n%s", got)
	}
	if m := f.Symbols[2]; !strings.Contains(m.Content, "#else\n                case 2:\n                    return 3;\n#endif") {
		t.Errorf("M lost the skipped branch:\n%s", m.Content)
	}
	if f.Symbols[0].EndLine != 2 || len(f.Imports) != 1 {
		t.Errorf("header %d-%d, imports %v", f.Symbols[0].StartLine, f.Symbols[0].EndLine, f.Imports)
	}
}

func TestCSharpIncludedRanges(t *testing.T) {
	src := "a\n#if X\nb\n#elif Y\nc\n  #if Z\nd\n  #endif\n#else\ne\n#endif\nf\n"
	var kept strings.Builder
	for _, r := range csIncludedRanges([]byte(src)) {
		kept.WriteString(src[r.StartByte:r.EndByte])
	}
	if got := kept.String(); got != "a\n\nb\n\n\n\n\n\n\n\n\nf\n" {
		t.Errorf("kept %q", got)
	}
	if csIncludedRanges([]byte("class A {}\n")) != nil {
		t.Error("ranges for a file without directives")
	}
}

func TestCSharpFieldAccesses(t *testing.T) {
	src := `using System;

class Acct
{
    private int _balance;
    private Log _log;
    public int Total { get; set; }

    void Deposit(int n)
    {
        _balance += n;
        this._balance++;
        _log.Add(n);
        Total = n;
        other.Count = State.Open;
        Console.WriteLine(System.Math.PI);
        var flag = !other.Done;
    }
}
enum State { Open }
`
	f := mustParse(t, "Acct.cs", src, Options{})
	got := refsOf(f, RefReads) + "--\n" + refsOf(f, RefWrites)
	want := `Acct.Deposit _log  Acct
Acct.Deposit Open State State
Acct.Deposit Done other 
--
Acct.Deposit _balance  Acct
Acct.Deposit _balance this Acct
Acct.Deposit Count other 
`
	if got != want {
		t.Errorf("accesses:\n%s\nwant:\n%s", got, want)
	}
}
