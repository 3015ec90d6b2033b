package index_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// A package in the src layout, re-exporting a function from its __init__.py,
// with a class whose method has the function's name: the tests and examples
// reach the function, never the method (issue 37).
var srcLayoutFixture = map[string]string{
	"pyproject.toml":       "[project]\nname = \"shop\"\n",
	"src/shop/__init__.py": "from .pricing import total as total\nfrom .cart import Cart\n",
	"src/shop/pricing.py":  "def total(items):\n    return sum(items)\n",
	"src/shop/cart.py": `class Cart:
    def __init__(self):
        self.items = []

    def total(self):
        return len(self.items)
`,
	"tests/test_pricing.py": `import shop


def test_total():
    assert shop.total([1, 2]) == 3


def test_cart():
    c = shop.Cart()
    assert c.total() == 0
`,
	"examples/use.py": `from shop import total


def main():
    return total([2])
`,
}

func TestSrcLayoutPackage(t *testing.T) {
	db := pgtest.Open(t)
	repo := gitRepo(t, srcLayoutFixture)
	if _, err := index.New(db, hashing()).Index(context.Background(), repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, source, name string
		want               []callEdge
	}{
		{"tests/test_pricing.py", "test_total", "total", []callEdge{{"test_total", "total", "exact", []string{}}}},
		{"examples/use.py", "main", "total", []callEdge{{"main", "total", "inferred", []string{}}}},
		{"tests/test_pricing.py", "test_cart", "total", []callEdge{{"test_cart", "Cart.total", "inferred", []string{}}}},
	} {
		if got := callEdges(t, db, c.path, c.source, c.name); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %s -> %s: got %+v, want %+v", c.path, c.source, c.name, got, c.want)
		}
	}
	var target string
	if err := db.Pool.QueryRow(context.Background(), `SELECT coalesce(e.target_path, '') FROM edges e
		JOIN files f ON f.id = e.file_id WHERE e.kind = 'imports' AND f.path = 'tests/test_pricing.py'`).Scan(&target); err != nil {
		t.Fatal(err)
	}
	if target != "src/shop/__init__.py" {
		t.Errorf("import shop from tests/ = %q, want src/shop/__init__.py", target)
	}
}
