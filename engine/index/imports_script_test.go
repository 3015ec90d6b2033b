package index

import "testing"

func TestResolvePHPImports(t *testing.T) {
	paths := []string{
		"composer.json", "src/Billing/Invoice.php", "src/helpers.php", "routes/web.php",
		"packages/log/composer.json", "packages/log/lib/Handler/Stream.php",
		"app/Models/User.php", "legacy/Acme/Old.php",
	}
	manifests := map[string][]byte{
		"composer.json":              []byte(`{"autoload": {"psr-4": {"Shop\\": "src/"}}, "autoload-dev": {"psr-4": {"Shop\\Tests\\": ["tests/", "spec/"]}}}`),
		"packages/log/composer.json": []byte(`{"autoload": {"psr-4": {"Log\\": "lib"}}}`),
	}
	r := newImportResolver(paths, manifests)
	for _, c := range []struct{ from, imp, want string }{
		{"routes/web.php", `Shop\Billing\Invoice`, "src/Billing/Invoice.php"},
		{"routes/web.php", `\Shop\Billing\Invoice`, "src/Billing/Invoice.php"},
		{"src/x.php", `Log\Handler\Stream`, "packages/log/lib/Handler/Stream.php"},
		{"src/x.php", `App\Models\User`, "app/Models/User.php"}, // no psr-4 entry: the app/ layout
		{"src/x.php", `Illuminate\Support\Str`, ""},
		{"src/x.php", `Shop\Missing`, ""},
		{"routes/web.php", "__DIR__/../src/helpers.php", "src/helpers.php"},
		{"src/Billing/Invoice.php", "__DIR__/../helpers.php", "src/helpers.php"},
		{"src/x.php", "helpers.php", "src/helpers.php"},
		{"other/x.php", "routes/web.php", "routes/web.php"},
		{"other/x.php", "/etc/config.php", ""},
		{"other/x.php", "__DIR__/../../outside.php", ""},
	} {
		if got := r.resolve("php", c.from, c.imp); got != c.want {
			t.Errorf("resolve(%s, %q) = %q, want %q", c.from, c.imp, got, c.want)
		}
	}
}

func TestResolveRubyImports(t *testing.T) {
	paths := []string{
		"lib/shop.rb", "lib/shop/cart.rb", "lib/shop/money.rb", "spec/spec_helper.rb", "app.rb",
		"gems/billing/lib/billing.rb", "gems/billing/lib/billing/invoice.rb", "gems/billing/test/helper.rb",
		"gems/runner/lib/shop/runner.rb", "a/lib/dup.rb", "b/lib/dup.rb",
	}
	r := newImportResolver(paths, nil)
	for _, c := range []struct{ from, imp, want string }{
		{"lib/shop/cart.rb", "./money", "lib/shop/money.rb"},
		{"lib/shop/cart.rb", "../shop", "lib/shop.rb"},
		{"app.rb", "./lib/shop", "lib/shop.rb"},
		{"spec/cart_spec.rb", "shop/cart", "lib/shop/cart.rb"},
		{"spec/cart_spec.rb", "spec_helper", "spec/spec_helper.rb"},
		{"gems/billing/lib/billing.rb", "billing/invoice", "gems/billing/lib/billing/invoice.rb"},
		{"gems/billing/test/invoice_test.rb", "billing", "gems/billing/lib/billing.rb"},
		{"gems/billing/test/invoice_test.rb", "helper", "gems/billing/test/helper.rb"},
		{"lib/shop.rb", "json", ""},
		{"spec/cart_spec.rb", "shop/runner", "gems/runner/lib/shop/runner.rb"}, // another gem of the repository
		{"spec/cart_spec.rb", "dup", ""},                                       // two gems have it
		{"lib/shop.rb", "./nothing", ""},
	} {
		if got := r.resolve("ruby", c.from, c.imp); got != c.want {
			t.Errorf("resolve(%s, %q) = %q, want %q", c.from, c.imp, got, c.want)
		}
	}
}
