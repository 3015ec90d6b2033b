; TypeScript (and TSX) additions to javascript.scm.

(abstract_class_declaration
  name: (_) @name) @definition.class

(interface_declaration
  name: (_) @name) @definition.interface

(type_alias_declaration
  name: (_) @name) @definition.type

(enum_declaration
  name: (_) @name) @definition.enum

(internal_module
  name: (_) @name) @definition.namespace

(module
  name: (_) @name) @definition.namespace

; function f(a: string): number;  (overloads and ambient declarations)
(function_signature
  name: (_) @name) @definition.signature

; Class members: overload signatures, abstract methods, arrow-function fields.
(class_body
  (method_signature name: (_) @name) @definition.signature)

(class_body
  (abstract_method_signature name: (_) @name) @definition.method)

(class_body
  (public_field_definition
    name: (_) @name
    value: [(function_expression) (arrow_function) (generator_function)]) @definition.method)

; class A extends B<T> implements C, D<T>
(extends_clause
  value: (_) @name @reference.inherits)

(implements_clause
  [(type_identifier) (generic_type) (nested_type_identifier)] @name @reference.implements)

; interface A extends B, C<T>
(extends_type_clause
  type: (_) @name @reference.inherits)

; import fs = require("fs")
(import_require_clause
  source: (string) @key) @import.require

; Qualifier types (jstypes.go): typed fields.
(class_body (public_field_definition name: (_) @name) @bind.field)
