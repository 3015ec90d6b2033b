package index_test

import (
	"context"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

var jvmFixture = map[string]string{
	"core/src/main/java/com/acme/core/Store.java": `package com.acme.core;

public class Store extends Base {
    private int size;
    public static Store open(String name) { return new Store(); }
    public Store() { size = 0; }
    public void put(String k) { check(k); this.flush(); }
    void flush() { }
    void close() { super.release(); }
}
`,
	"core/src/main/java/com/acme/core/Base.java": `package com.acme.core;

public class Base {
    void check(String k) { }
    void release() { }
}
`,
	"core/src/main/java/com/acme/core/Mode.java": `package com.acme.core;

public enum Mode {
    FAST, SAFE;
    public Mode flip() { return this == FAST ? SAFE : FAST; }
}
`,
	"web/src/main/java/com/acme/web/Handler.java": `package com.acme.web;

import com.acme.core.Store;
import com.acme.core.Mode;
import static com.acme.core.Store.open;

class Handler {
    void handle(Mode m) {
        Store s = Store.open("x");
        s.put("k");
        m.flip();
        open("y");
        new Helper().help();
    }
}
`,
	"web/src/main/java/com/acme/web/Helper.java": `package com.acme.web;

class Helper {
    Helper() { }
    void help() { }
}
`,
	"src/Acme.Orders/Order.cs": `namespace Acme.Orders;

public class Order : Entity
{
    public Order() { }
    public int Lines;
    public void Submit() { Validate(); base.Save(); this.Lines++; }
    private void Validate() { }
    public override void Save() { }
}
`,
	"src/Acme.Orders/Entity.cs": `namespace Acme.Orders
{
    public abstract class Entity
    {
        public virtual void Save() { }
    }
}
`,
	"src/Acme.Web/Checkout.cs": `using Acme.Orders;

namespace Acme.Web
{
    public class Checkout
    {
        public void Run()
        {
            var o = new Order();
            o.Submit();
        }
    }
}
`,
}

// TestJVMResolution: Java and C# calls resolve by their declared types, a bare
// call through the class that defines it, super/base through the base class,
// and imports to the files (Java) or namespace directories (C#) they name.
func TestJVMResolution(t *testing.T) {
	db := pgtest.Open(t)
	repo := gitRepo(t, jvmFixture)
	if _, err := index.New(db, hashing()).Index(context.Background(), repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	store := "core/src/main/java/com/acme/core/Store.java"
	handler := "web/src/main/java/com/acme/web/Handler.java"
	cases := []struct {
		path, source, name string
		want               []callEdge
	}{
		{store, "Store.put", "check", []callEdge{{"Store.put", "Base.check", "inferred", []string{}}}},
		{store, "Store.put", "flush", []callEdge{{"Store.put", "Store.flush", "exact", []string{}}}},
		{store, "Store.close", "release", []callEdge{{"Store.close", "Base.release", "inferred", []string{}}}},
		{store, "Store.open", "Store", []callEdge{{"Store.open", "Store", "exact", []string{}}}},
		{handler, "Handler.handle", "open", []callEdge{
			{"Handler.handle", "Store.open", "exact", []string{}}, {"Handler.handle", "Store.open", "exact", []string{}}}},
		{handler, "Handler.handle", "put", []callEdge{{"Handler.handle", "Store.put", "exact", []string{}}}},
		{handler, "Handler.handle", "flip", []callEdge{{"Handler.handle", "Mode.flip", "exact", []string{}}}},
		{handler, "Handler.handle", "Helper", []callEdge{{"Handler.handle", "Helper", "inferred", []string{}}}},
		{handler, "Handler.handle", "help", []callEdge{{"Handler.handle", "Helper.help", "exact", []string{}}}},
		{"src/Acme.Orders/Order.cs", "Order.Submit", "Validate", []callEdge{{"Order.Submit", "Order.Validate", "exact", []string{}}}},
		{"src/Acme.Orders/Order.cs", "Order.Submit", "Save", []callEdge{{"Order.Submit", "Entity.Save", "exact", []string{}}}},
		{"src/Acme.Web/Checkout.cs", "Checkout.Run", "Submit", []callEdge{{"Checkout.Run", "Order.Submit", "exact", []string{}}}},
		{"src/Acme.Web/Checkout.cs", "Checkout.Run", "Order", []callEdge{{"Checkout.Run", "Order", "inferred", []string{}}}},
	}
	for _, c := range cases {
		got := callEdges(t, db, c.path, c.source, c.name)
		if g, w := render(got), render(c.want); g != w {
			t.Errorf("%s %s -> %s:\n got %s\nwant %s", c.path, c.source, c.name, g, w)
		}
	}
	for _, c := range []struct{ kind, source, field, want string }{
		{"writes", "Store.constructor", "size", "Store.size exact"},
		{"writes", "Order.Submit", "Lines", "Order.Lines exact"},
	} {
		var got string
		err := db.Pool.QueryRow(context.Background(), `SELECT coalesce(t.qualified_name, '') || ' ' || e.confidence
			FROM edges e JOIN symbols s ON s.id = e.source_id LEFT JOIN symbols t ON t.id = e.target_id
			WHERE e.kind = $1 AND s.qualified_name = $2 AND e.target_name = $3`, c.kind, c.source, c.field).Scan(&got)
		if err != nil || got != c.want {
			t.Errorf("%s %s %s: %q (%v), want %q", c.source, c.kind, c.field, got, err, c.want)
		}
	}
	imports := map[string]string{}
	rows, err := db.Pool.Query(context.Background(), `SELECT target_name, coalesce(target_path, '') FROM edges WHERE kind = 'imports'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name, target string
		if err := rows.Scan(&name, &target); err != nil {
			t.Fatal(err)
		}
		imports[name] = target
	}
	rows.Close()
	for imp, want := range map[string]string{
		"com.acme.core.Store": store, "com.acme.core.Mode": "core/src/main/java/com/acme/core/Mode.java",
		"Acme.Orders": "src/Acme.Orders",
	} {
		if imports[imp] != want {
			t.Errorf("import %s -> %q, want %q", imp, imports[imp], want)
		}
	}
}
