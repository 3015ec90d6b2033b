; JavaScript-only patterns (node types the TypeScript grammar renames).

; Class fields holding functions: handle = () => {}
(class_body
  (field_definition
    property: (_) @name
    value: [(function_expression) (arrow_function) (generator_function)]) @definition.method)

; class A extends B, class A extends ns.B
(class_heritage
  (identifier) @name @reference.inherits)

(class_heritage
  (member_expression
    object: (_) @qualifier
    property: (_) @name) @reference.inherits)

; Qualifier types (jstypes.go): class fields.
(class_body (field_definition property: (_) @name) @bind.field)
