; C# definitions, references and imports for spelunk.
;
; Capture conventions: see go.scm and java.scm. Namespaces are not chunks:
; they give File.Package (csharp.go). `this` and `base` are anonymous nodes,
; hence the bare `_` where a qualifier may be one.

(namespace_declaration name: (_) @name) @namespace
(file_scoped_namespace_declaration name: (_) @name) @namespace
(using_directive) @import

(class_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.record
(delegate_declaration name: (identifier) @name) @definition.delegate

(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(destructor_declaration name: (identifier) @name) @definition.method
(property_declaration name: (identifier) @name) @definition.method
(event_declaration name: (identifier) @name) @definition.method
(operator_declaration) @definition.method
(conversion_operator_declaration) @definition.method
(indexer_declaration) @definition.method
(local_function_statement name: (identifier) @name) @definition.method

; Calls: M(x), M<T>(x), obj.M(x), this.M(x), base.M(x), obj?.M(x).
(invocation_expression
  function: (identifier) @name) @reference.call
(invocation_expression
  function: (generic_name . (identifier) @name)) @reference.call
(invocation_expression
  function: (member_access_expression
    expression: _ @qualifier
    name: [(identifier) @name (generic_name . (identifier) @name)])) @reference.call
(invocation_expression
  function: (conditional_access_expression
    condition: _ @qualifier
    (member_binding_expression
      name: [(identifier) @name (generic_name . (identifier) @name)]))) @reference.call

; new Foo(), new a.b.Foo<T>(): a call of the type (its constructor).
(object_creation_expression type: (_) @name) @reference.new

(base_list) @reference.bases

; Declarations that give a name a type (classscope.go): @name, its type as
; @value, an initializer as @key. Fields and events are members of their
; class (and File.Fields); the others are visible from their name on.
(field_declaration
  (variable_declaration type: (_) @value (variable_declarator name: (identifier) @name))) @local.field
(event_field_declaration
  (variable_declaration type: (_) @value (variable_declarator name: (identifier) @name))) @local.field
(local_declaration_statement
  (variable_declaration type: (_) @value (variable_declarator name: (identifier) @name (_)? @key))) @local.var
(using_statement
  (variable_declaration type: (_) @value (variable_declarator name: (identifier) @name (_)? @key))) @local.stmt
(for_statement
  (variable_declaration type: (_) @value (variable_declarator name: (identifier) @name (_)? @key))) @local.stmt
(fixed_statement
  (variable_declaration type: (_) @value (variable_declarator name: (identifier) @name))) @local.stmt
(enum_member_declaration name: (identifier) @name) @local.enum
(property_declaration type: (_) @value name: (identifier) @name) @local.member
(parameter type: (_) @value name: (identifier) @name) @local.param
(parameter !type name: (identifier) @name) @local.param
(catch_declaration type: (_) @value name: (identifier) @name) @local.catch
(foreach_statement type: (_) @value left: (identifier) @name) @local.for
(lambda_expression parameters: (implicit_parameter) @name) @local.lambda
(declaration_expression type: (_) @value name: (identifier) @name) @local.out
(declaration_pattern type: (_) @value name: (identifier) @name) @local.out
(type_parameter name: (identifier) @name) @local.tparam

; Field accesses (classfields.go): obj.F, this.F, Type.F, not a call's callee;
; the assignments and increments that write them.
(member_access_expression expression: _ @qualifier name: (identifier) @name) @access.read
(assignment_expression left: (member_access_expression) @name) @access.write
(postfix_unary_expression (member_access_expression) @name) @access.write
(prefix_unary_expression (member_access_expression) @name) @access.write
(assignment_expression left: (identifier) @name) @access.assign
(postfix_unary_expression (identifier) @name) @access.assign
(prefix_unary_expression (identifier) @name) @access.assign
