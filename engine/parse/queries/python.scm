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
