; Python definitions, references and imports for spelunk.
; Capture conventions: see go.scm. Structure (methods, nesting, decorators,
; docstrings) is worked out in python.go.

(function_definition
  name: (identifier) @name) @definition.function

(class_definition
  name: (identifier) @name) @definition.class

; Module-level assignments: NAME = ..., NAME: T = ...
(module
  (expression_statement
    (assignment left: (identifier) @name)) @definition.var)

; Calls: f(x), obj.m(x), self.m(x), a.b.c(x).
(call
  function: (identifier) @name) @reference.call

(call
  function: (attribute
    object: (_) @qualifier
    attribute: (identifier) @name)) @reference.call

; Base classes (keyword arguments such as metaclass= are not bases).
(class_definition
  superclasses: (argument_list
    (identifier) @name @reference.inherits))

(class_definition
  superclasses: (argument_list
    (attribute
      object: (_) @qualifier
      attribute: (identifier) @name) @reference.inherits))

(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import

; Scopes and bindings for qualifier types (pytypes.go). Functions and classes
; are scopes (and def parameters bindings) through their definition patterns
; above; each match costs, so only what is needed is matched.
(lambda) @scope.fn ; its parameters too
(list_comprehension) @scope.fn
(set_comprehension) @scope.fn
(dictionary_comprehension) @scope.fn
(generator_expression) @scope.fn

(assignment
  left: [(identifier) (attribute) (subscript) (pattern_list) (tuple_pattern) (list_pattern)] @name) @bind.assign
(named_expression name: (identifier) @name) @bind.assign
(for_statement left: (_) @name) @bind.untyped
(for_in_clause left: (_) @name) @bind.untyped
(with_item value: (as_pattern alias: (as_pattern_target) @name)) @bind.untyped
(except_clause value: (as_pattern alias: (as_pattern_target) @name)) @bind.except

; Field accesses (pyfields.go): every name.attr and a.b.attr is a read; the
; assignment pattern above and these tell writes, calls (the call patterns),
; decorators and bases apart.
(attribute
  object: [(identifier) (attribute)] @qualifier
  attribute: (identifier) @name) @access.read
(augmented_assignment left: [(attribute) (subscript)] @name) @access.write
(delete_statement) @access.del
(decorator (attribute attribute: (identifier) @name)) @access.skip
