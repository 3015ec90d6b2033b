; PHP definitions, references and imports for spelunk.
; Capture conventions: see go.scm. Names, parents, routes and qualifier types
; are worked out in php.go, phpref.go and phptypes.go.

(namespace_definition name: (namespace_name) @name) @namespace

(namespace_use_declaration) @import
(require_expression) @import.require
(require_once_expression) @import.require
(include_expression) @import.require
(include_once_expression) @import.require

(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(function_definition name: (name) @name) @definition.function

; Members, after their class (a deferred tag).
(method_declaration name: (name) @name) @definition.method
(property_declaration) @definition.method
(declaration_list (const_declaration) @definition.method)
(enum_declaration_list (enum_case name: (name) @name) @definition.method)

; File-level constants: const X = 1; in the file or a braced namespace.
(program (const_declaration) @definition.const)
(namespace_definition body: (compound_statement (const_declaration) @definition.const))

; Calls: f(), $o->m(), $o?->m(), C::m(), new C(). Route::get('/x', fn) and
; $app->get('/x', fn) are told apart from other calls in phpref.go.
(function_call_expression function: [(name) (qualified_name)] @name) @reference.call
(member_call_expression object: (_) @qualifier name: (name) @name) @reference.call
(nullsafe_member_call_expression object: (_) @qualifier name: (name) @name) @reference.call
(scoped_call_expression scope: (_) @qualifier name: (name) @name) @reference.call
(object_creation_expression [(name) (qualified_name)] @name) @reference.new

; extends, implements, and traits used in a class body.
(base_clause [(name) (qualified_name)] @name @reference.inherits)
(class_interface_clause [(name) (qualified_name)] @name @reference.implements)
(use_declaration [(name) (qualified_name)] @name @reference.inherits)

; Scopes and bindings for qualifier types (phptypes.go). Functions, methods
; and classes are scopes through their definitions; a closure keeps $this.
(anonymous_function) @scope.arrow
(arrow_function) @scope.arrow
(assignment_expression left: (variable_name) @name) @bind.assign
(catch_clause type: (_) @value name: (variable_name) @name) @bind.catch
(foreach_statement (_) . (variable_name) @name) @bind.untyped
(foreach_statement (pair (_) (variable_name) @name)) @bind.untyped
(anonymous_class) @scope.class
(assignment_expression
  left: (member_access_expression object: (variable_name) @qualifier name: (name) @name)) @bind.attr

; Property accesses (phpfields.go): every $o->p, $o?->p, C::$p and C::K is a read
; unless it is a write target: assigned, augmented, ++/--, unset, or an
; element of it assigned ($this->items[] = $x writes items).
(member_access_expression object: (_) @qualifier name: (name) @name) @access.read
(nullsafe_member_access_expression object: (_) @qualifier name: (name) @name) @access.read
(scoped_property_access_expression scope: (_) @qualifier name: (variable_name) @name) @access.read
(class_constant_access_expression . (_) @qualifier . (name) @name .) @access.read
(assignment_expression
  left: [(member_access_expression) (scoped_property_access_expression) (subscript_expression)] @value) @access.write
(augmented_assignment_expression
  left: [(member_access_expression) (scoped_property_access_expression) (subscript_expression)] @value) @access.write
(reference_assignment_expression
  left: [(member_access_expression) (scoped_property_access_expression) (subscript_expression)] @value) @access.write
(update_expression
  argument: [(member_access_expression) (scoped_property_access_expression) (subscript_expression)] @value) @access.write
(unset_statement [(member_access_expression) (scoped_property_access_expression) (subscript_expression)] @value) @access.write
