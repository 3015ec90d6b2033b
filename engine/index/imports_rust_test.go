package index

import "testing"

func TestResolveRustImports(t *testing.T) {
	r := newImportResolver([]string{
		"Cargo.toml",
		"src/lib.rs",
		"src/billing.rs",
		"src/billing/invoice.rs",
		"src/store/mod.rs",
		"src/store/memory.rs",
		"src/bin/tool.rs",
		"src/bin/helper.rs",
		"tests/common/mod.rs",
		"tests/flow.rs",
		"crates/cli/Cargo.toml",
		"crates/cli/src/main.rs",
		"crates/cli/src/args.rs",
		"crates/core/main.rs", // a [[bin]] of the root Cargo.toml
		"crates/core/flags/mod.rs",
		"crates/core/flags/hiargs.rs",
		"crates/core/flags/parse.rs",
		"crates/core/index/mod.rs",
		"crates/core/index/disabled.rs",
	}, nil)
	for _, c := range []struct{ from, imp, want string }{
		// mod x; next to lib.rs and mod.rs, under a/ for a.rs
		{"src/lib.rs", "billing", "src/billing.rs"},
		{"src/lib.rs", "store", "src/store/mod.rs"},
		{"src/billing.rs", "invoice", "src/billing/invoice.rs"},
		{"src/store/mod.rs", "memory", "src/store/memory.rs"},
		{"src/bin/tool.rs", "helper", "src/bin/helper.rs"},
		{"tests/flow.rs", "common", "tests/common/mod.rs"},
		{"crates/core/index/mod.rs", "disabled.rs", "crates/core/index/disabled.rs"},
		{"crates/core/index/mod.rs", "enabled.rs", ""},
		// crate:: from the crate's src, the deepest module that exists
		{"src/store/memory.rs", "crate::billing::invoice::Invoice", "src/billing/invoice.rs"},
		{"src/store/memory.rs", "crate::billing::refund", "src/billing.rs"},
		{"src/store/memory.rs", "crate::Chargeable", "src/lib.rs"},
		{"crates/cli/src/args.rs", "crate::run", "crates/cli/src/main.rs"},
		{"crates/core/flags/parse.rs", "crate::flags::hiargs::HiArgs", "crates/core/flags/hiargs.rs"},
		{"crates/core/flags/parse.rs", "crate::flags::Flag", "crates/core/flags/mod.rs"},
		{"tests/flow.rs", "crate::common::setup", "tests/common/mod.rs"},
		// super:: and self:: from the file's module
		{"src/billing/invoice.rs", "super::refund", "src/billing.rs"},
		{"src/store/memory.rs", "super::Store", "src/store/mod.rs"},
		{"src/billing.rs", "super", "src/lib.rs"},
		{"src/billing.rs", "self::invoice::Invoice", "src/billing/invoice.rs"},
		{"src/billing.rs", "self::Local", "src/billing.rs"},
		{"src/lib.rs", "self", "src/lib.rs"},
		// 2018 relative paths and 2015 crate-relative ones
		{"src/lib.rs", "billing::invoice::Invoice", "src/billing/invoice.rs"},
		{"src/store/memory.rs", "billing::Invoice", "src/billing.rs"},
		// external crates
		{"src/lib.rs", "std::collections::HashMap", ""},
		{"src/lib.rs", "serde::Deserialize", ""},
		{"src/lib.rs", "cli", ""},
		{"src/lib.rs", "::core::fmt", ""},
	} {
		if got := r.resolve("rust", c.from, c.imp); got != c.want {
			t.Errorf("resolve(%s, %q) = %q, want %q", c.from, c.imp, got, c.want)
		}
	}
	// Odd paths never panic.
	for _, imp := range []string{"", "::", "*", "self", "super", "super::super::super::x", "crate", "::*", "a::::b"} {
		for _, from := range []string{"", "x.rs", "src/lib.rs", "a/b/c/d.rs"} {
			_ = r.resolve("rust", from, imp)
		}
	}
}
