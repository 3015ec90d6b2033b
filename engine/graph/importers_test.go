package graph_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/spelunkhq/spelunk/engine/graph"
	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// Importers in test code are listed after the rest, left out, or alone, as the
// walks' tests option says; an excluded test is not walked through (issue 37).
func TestImportersTests(t *testing.T) {
	dir := t.TempDir()
	for p, s := range map[string]string{
		"shop/money.py":            "def add(a, b):\n    return a + b\n",
		"shop/cart.py":             "from shop.money import add\n\n\ndef total(xs):\n    return add(xs[0], xs[1])\n",
		"tests/test_money.py":      "from shop.money import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
		"tests/helpers.py":         "from tests.test_money import test_add\n",
		"zz_report.py":             "from shop.cart import total\n",
		"tests/test_zz_helpers.py": "from tests.helpers import test_add\n",
	} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	indextest.Git(t, dir, "init", "-q")
	indextest.Git(t, dir, "add", "-A")
	indextest.Git(t, dir, "commit", "-q", "-m", "shop")
	db := pgtest.Open(t)
	sum, err := index.New(db, indextest.Embedder()).Index(context.Background(), dir, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tests graph.Tests
		want  string
	}{
		{graph.TestsInclude, "[1 shop/cart.py 1 tests/test_money.py 2 zz_report.py 2 tests/helpers.py]"},
		{graph.TestsExclude, "[1 shop/cart.py 2 zz_report.py]"},
		{graph.TestsOnly, "[1 tests/test_money.py 2 tests/helpers.py]"},
	} {
		links, err := graph.Importers(context.Background(), db, sum.RepositoryID, "shop/money.py", 2, c.tests)
		if err != nil {
			t.Fatal(err)
		}
		var got []any
		for _, l := range links {
			got = append(got, l.Depth, l.Path)
		}
		if fmt.Sprint(got) != c.want {
			t.Errorf("importers of shop/money.py with tests %s = %v, want %s", c.tests, got, c.want)
		}
	}
}
