; Go definitions, references and imports for spelunk.
;
; Capture conventions (read by golang.go):
;   @definition.<kind>  the node a chunk is built from, with @name
;   @reference.<kind>   a reference site, with @name and an optional @qualifier
;   @import, @package   decoded in Go code

(package_clause (package_identifier) @package)

(import_spec) @import

(function_declaration
  name: (identifier) @name) @definition.function

(method_declaration
  name: (field_identifier) @name) @definition.method

; Only package-level declarations become chunks.
(source_file
  (type_declaration
    (type_spec name: (type_identifier) @name) @definition.type))

(source_file
  (type_declaration
    (type_alias name: (type_identifier) @name) @definition.type))

(source_file (var_declaration) @definition.var)
(source_file (const_declaration) @definition.const)

; Calls: f(x), pkg.F(x), v.M(x), a.b.c(x), generic F[T](x).
(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (selector_expression
    operand: (_) @qualifier
    field: (field_identifier) @name)) @reference.call

(call_expression
  function: (parenthesized_expression (identifier) @name)) @reference.call

(call_expression
  function: (index_expression
    operand: (identifier) @name)) @reference.call

(call_expression
  function: (index_expression
    operand: (selector_expression
      operand: (_) @qualifier
      field: (field_identifier) @name))) @reference.call

(type_conversion_expression
  type: (generic_type type: (type_identifier) @name)) @reference.call

(type_conversion_expression
  type: (generic_type
    type: (qualified_type
      package: (package_identifier) @qualifier
      name: (type_identifier) @name))) @reference.call

; Field accesses: every selector; golang.go drops callees and package members.
(selector_expression
  operand: (_) @qualifier
  field: (field_identifier) @name) @reference.field

; Composite literals reference their type: Invoice{...}, &billing.Cart{...}.
(composite_literal
  type: (type_identifier) @name) @reference.type

(composite_literal
  type: (qualified_type
    package: (package_identifier) @qualifier
    name: (type_identifier) @name)) @reference.type

(composite_literal
  type: (generic_type type: (type_identifier) @name)) @reference.type

; Embedding: struct fields without a name and interface type elements.
(field_declaration_list
  (field_declaration !name type: (_) @name) @reference.embed)

(interface_type
  (type_elem . (_) @name .) @reference.embed)

; Variable declarations, for qualifier types (gotypes.go, goscope.go):
; every construct that declares a name, typed or not, since an untyped one
; still shadows an outer name; function literals for their parameters (a
; top-level function's are read from it, and a pattern for every parameter
; matched interface methods and function types too). Single-node patterns: one with a parent
; (statement_list (short_var_declaration)) keeps a query state alive over
; the whole subtree and doubled the query time. Here rather than in a query
; of their own: a second pass over the tree cost a fifth of the parse.
(func_literal) @local.fn
(short_var_declaration) @local.short
(var_spec) @local.var
(const_spec) @local.var
(range_clause) @local.range
(receive_statement) @local.recv
(type_switch_statement alias: (_)) @local.tswitch
; Assignment targets, for field writes (gofields.go).
(assignment_statement) @local.assign
(inc_statement) @local.incdec
(dec_statement) @local.incdec
