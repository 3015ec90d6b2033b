; C++ forms on top of c.scm (cpp.go in c.go/cdefs.go/crefs.go/ctypes.go).

(namespace_definition) @definition.namespace
(class_specifier body: (field_declaration_list)) @definition.class

; Constructor and destructor declarations in a class body are declarations,
; and so are template function declarations.
(field_declaration_list (declaration) @definition.decl)
(template_declaration (declaration) @definition.decl)

(alias_declaration name: (type_identifier) @name) @definition.alias
(concept_definition name: (identifier) @name) @definition.alias

; Calls: ns::f(x), Foo::make(), f<T>(x), obj.m<T>(x), new Foo(x).
(call_expression
  function: (qualified_identifier) @callee) @reference.scoped

(call_expression
  function: (template_function) @callee) @reference.scoped

(call_expression
  function: (field_expression
    argument: (_) @qualifier
    field: [(template_method) (dependent_name)] @callee)) @reference.call

(new_expression type: (_) @name) @reference.new

(base_class_clause) @reference.inherits

; Typed bindings for qualifier types (ctypes.go).
(parameter_declaration) @local.param
(optional_parameter_declaration) @local.param
(compound_statement (declaration) @local.decl)
(for_statement initializer: (declaration) @local.decl)
(for_range_loop) @local.range
