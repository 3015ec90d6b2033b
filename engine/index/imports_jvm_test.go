package index

import "testing"

func TestResolveJavaImports(t *testing.T) {
	r := newImportResolver([]string{
		"core/src/main/java/com/acme/core/Order.java",
		"core/src/main/java/com/acme/core/Line.java",
		"core/src/test/java/com/acme/core/OrderTest.java",
		"web/src/main/java/com/acme/web/Handler.java",
		"web/src/main/java/com/acme/core/Line.java", // the same class in two modules
		"legacy/Line.java",
		"README.md",
	}, nil)
	for _, tc := range []struct{ from, imp, want string }{
		{"web/src/main/java/com/acme/web/Handler.java", "com.acme.core.Order", "core/src/main/java/com/acme/core/Order.java"},
		{"web/src/main/java/com/acme/web/Handler.java", "com.acme.core.Order.Status", "core/src/main/java/com/acme/core/Order.java"},
		{"web/src/main/java/com/acme/web/Handler.java", "com.acme.core.Line", "web/src/main/java/com/acme/core/Line.java"},
		{"core/src/main/java/com/acme/core/Order.java", "com.acme.core.Line", "core/src/main/java/com/acme/core/Line.java"},
		{"legacy/Main.java", "com.acme.core.Line", ""}, // two candidates, neither under its root
		{"web/src/main/java/com/acme/web/Handler.java", "com.acme.web", "web/src/main/java/com/acme/web"},
		{"web/src/main/java/com/acme/web/Handler.java", "java.util.List", ""},
		{"web/src/main/java/com/acme/web/Handler.java", "me.core.Order", ""}, // not whole path elements
	} {
		if got := r.resolve("java", tc.from, tc.imp); got != tc.want {
			t.Errorf("resolve(%s, %s) = %q, want %q", tc.from, tc.imp, got, tc.want)
		}
	}
}

func TestResolveCSharpUsings(t *testing.T) {
	r := newImportResolver([]string{
		"src/Acme.Orders/Order.cs",
		"src/Acme.Orders/Lines/Line.cs",
		"src/Acme.Web/Startup.cs",
		"tests/Acme.Web/StartupTests.cs", // Acme.Web twice: ambiguous
		"src/Tools/Orders/Report.cs",
		"docs/Orders.md",
	}, nil)
	for _, tc := range []struct{ imp, want string }{
		{"Acme.Orders", "src/Acme.Orders"},
		{"Acme.Orders.Lines", "src/Acme.Orders/Lines"},
		{"Acme.Orders.Order", "src/Acme.Orders/Order.cs"}, // using static / an alias of a type
		{"Acme.Web", ""},
		{"Orders", "src/Tools/Orders"}, // not src/Acme.Orders: whole elements only
		{"Tools.Orders", "src/Tools/Orders"},
		{"System.Collections.Generic", ""},
		{"Lines", "src/Acme.Orders/Lines"},
	} {
		if got := r.resolve("csharp", "src/Acme.Web/Startup.cs", tc.imp); got != tc.want {
			t.Errorf("resolve(%s) = %q, want %q", tc.imp, got, tc.want)
		}
	}
}

func TestIsTestCSharp(t *testing.T) {
	for p, want := range map[string]bool{
		"Src/Newtonsoft.Json.Tests/Linq/JObjectTests.cs": true,
		"Src/Acme.Orders.Tests/Fixture.cs":               true,
		"src/Acme/OrderTest.cs":                          true,
		"src/Acme/Latest.cs":                             false,
		"src/Acme.Testing.Tools/Helpers.cs":              false,
		"src/main/java/a/StoreTest.java":                 true,
	} {
		if got := IsTest(p); got != want {
			t.Errorf("IsTest(%s) = %v, want %v", p, got, want)
		}
	}
}
