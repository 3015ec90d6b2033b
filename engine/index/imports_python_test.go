package index

import "testing"

func TestResolvePythonPackageRoots(t *testing.T) {
	paths := []string{
		"src/shop/__init__.py", "src/shop/cart.py", "tests/test_cart.py", "docs/conf.py",
		"tools/lint/pyproject.toml", "tools/lint/lib/lintkit/__init__.py", "tools/lint/tests/test_x.py",
		"legacy/setup.cfg", "legacy/code/oldpkg/core.py",
	}
	manifests := map[string][]byte{
		"tools/lint/pyproject.toml": []byte("[tool.setuptools.packages.find]\nwhere = [\"lib\"]\n"),
		"legacy/setup.cfg":          []byte("[options]\npackage_dir =\n    =code\n"),
	}
	r := newImportResolver(paths, manifests)
	for _, c := range []struct{ from, imp, want string }{
		{"tests/test_cart.py", "shop", "src/shop/__init__.py"},
		{"tests/test_cart.py", "shop.cart", "src/shop/cart.py"},
		{"docs/conf.py", "shop.cart", "src/shop/cart.py"},
		{"src/shop/cart.py", ".", "src/shop/__init__.py"},
		{"tools/lint/tests/test_x.py", "lintkit", "tools/lint/lib/lintkit/__init__.py"},
		{"legacy/tests/t.py", "oldpkg.core", "legacy/code/oldpkg/core.py"},
		{"tests/test_cart.py", "lintkit", ""}, // another project's root
		{"tests/test_cart.py", "requests", ""},
	} {
		if got := r.resolve("python", c.from, c.imp); got != c.want {
			t.Errorf("resolve(%s, %q) = %q, want %q", c.from, c.imp, got, c.want)
		}
	}
}
