; Java definitions, references and imports for spelunk.
;
; Capture conventions: see go.scm. Members (@definition.method) are handled
; after every type, so their class is known (java.go). Declarations for
; qualifier types (@local.*, classscope.go) capture the declared @name, its
; type as @value and an initializer as @key.

(package_declaration) @package
(import_declaration) @import

(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.record
(annotation_type_declaration name: (identifier) @name) @definition.annotation

(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(compact_constructor_declaration name: (identifier) @name) @definition.method
(annotation_type_element_declaration name: (identifier) @name) @definition.method

; An anonymous class body: `this` inside it is the class it extends.
(object_creation_expression
  type: (_) @name
  (class_body) @value) @scope.anon

; Calls: m(x), obj.m(x), this.m(x), super.m(x), a.b.m(x).
(method_invocation
  !object
  name: (identifier) @name) @reference.call

(method_invocation
  object: (_) @qualifier
  name: (identifier) @name) @reference.call

; new Foo(), new a.b.Foo<T>(): a call of the type (its constructor).
(object_creation_expression type: (_) @name) @reference.new

; Foo::bar, this::bar, Foo::new.
(method_reference . (_) @qualifier . (identifier) @name) @reference.call
(method_reference . (_) @name . "new") @reference.new

(superclass (_) @name) @reference.inherits
(super_interfaces (type_list (_) @name @reference.implements))
(extends_interfaces (type_list (_) @name @reference.inherits))

; Declarations that give a name a type. Fields and record components are
; members of their class; the others are visible from where they are written
; to the end of their block.
(field_declaration
  type: (_) @value
  declarator: (variable_declarator name: (identifier) @name)) @local.member
(constant_declaration
  type: (_) @value
  declarator: (variable_declarator name: (identifier) @name)) @local.member
(enum_constant name: (identifier) @name) @local.enum
(local_variable_declaration
  type: (_) @value
  declarator: (variable_declarator name: (identifier) @name value: (_)? @key)) @local.var
(formal_parameter type: (_) @value name: (identifier) @name) @local.param
(spread_parameter (_) @value (variable_declarator name: (identifier) @name)) @local.param
(catch_formal_parameter (catch_type) @value name: (identifier) @name) @local.param
(enhanced_for_statement type: (_) @value name: (identifier) @name) @local.for
(resource type: (_) @value name: (identifier) @name value: (_)? @key) @local.resource
(lambda_expression parameters: (identifier) @name) @local.lambda
(lambda_expression parameters: (inferred_parameters (identifier) @name)) @local.lambda
(instanceof_expression right: (_) @value name: (identifier) @name) @local.pattern
(type_pattern (_) @value (identifier) @name) @local.pattern
(type_parameter (type_identifier) @name) @local.tparam

; Field accesses (classfields.go): obj.f, this.f, Type.f; the assignments
; and increments that write them.
(field_access object: (_) @qualifier field: (identifier) @name) @access.read
(assignment_expression left: (field_access) @name) @access.write
(update_expression (field_access) @name) @access.write
(assignment_expression left: (identifier) @name) @access.assign
(update_expression (identifier) @name) @access.assign
