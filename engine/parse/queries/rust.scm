; Rust definitions, references and imports for spelunk.
; Capture conventions: see go.scm. Containers (impl, trait, mod), qualified
; names, attributes and doc comments are worked out in rust.go; the tags are
; Rust's own so none of them is deferred like the JS fallbacks.

(function_item name: (identifier) @name) @item.fn
(function_signature_item name: (identifier) @name) @item.fn
(struct_item name: (type_identifier) @name) @item.struct
(union_item name: (type_identifier) @name) @item.struct
(enum_item name: (type_identifier) @name) @item.enum
(trait_item name: (type_identifier) @name) @item.trait
(impl_item type: (_) @name) @item.impl
(type_item name: (type_identifier) @name) @item.type
(const_item name: (identifier) @name) @item.const
(static_item name: (identifier) @name) @item.static
(macro_definition name: (identifier) @name) @item.macro
; `mod a { ... }` is a definition, `mod a;` an import: rust.go tells them apart.
(mod_item name: (identifier) @name) @item.mod
(foreign_mod_item) @item.extern

; A definition error recovery could not parse: `fn name` directly inside an
; ERROR node (rust.go checks the keyword).
(ERROR (identifier) @name) @item.broken

(use_declaration) @import
(extern_crate_declaration) @import

; Calls: f(x), a::f(x), x.m(x), f::<T>(x); the callee is decoded in rust.go.
(call_expression function: (_) @callee) @reference.call
(macro_invocation macro: (_) @callee) @reference.macro
; Macro arguments are token trees, not expressions: a name directly followed
; by a parenthesised tree is a call (or, with `!` between, a macro).
(token_tree (identifier) @name . (token_tree) @value) @reference.tokens
; Attributes are token trees too (#[cfg(any(unix))]): no calls in them.
(attribute_item) @attribute
(inner_attribute_item) @attribute

; Struct literals reference their type: Point { x, y }, a::Point { .. }.
(struct_expression name: (_) @name) @reference.type

; Field accesses (rustfields.go): every a.f is a read until a call or an
; assignment says otherwise.
(field_expression value: (_) @qualifier field: (field_identifier) @name) @access.read
(assignment_expression left: (_) @name) @access.write
(compound_assignment_expr left: (_) @name) @access.write

; Bindings, for qualifier types (rusttypes.go): each one declares names, typed
; or not, since an untyped one still shadows an outer name.
(let_declaration) @local.let
(parameter) @local.param
(closure_parameters) @local.closure
(for_expression) @local.for
(let_condition) @local.cond
(match_arm) @local.arm
