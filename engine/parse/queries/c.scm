; C definitions, references and includes for spelunk; C++ reads this file too,
; with cpp.scm. Capture conventions: see go.scm. What a declarator declares,
; scopes, qualified names and declarations are worked out in c.go/cdefs.go.

(preproc_include path: (_) @name) @import

(function_definition) @definition.function

; Prototypes and variables at file scope, in #if branches and extern "C"
; blocks (and, in C++, namespaces). Local declarations are not matched.
(translation_unit (declaration) @definition.decl)
(preproc_ifdef (declaration) @definition.decl)
(preproc_if (declaration) @definition.decl)
(preproc_else (declaration) @definition.decl)
(preproc_elif (declaration) @definition.decl)
(preproc_elifdef (declaration) @definition.decl)
(declaration_list (declaration) @definition.decl)

; Struct and class members: fields, and C++ member function declarations.
(field_declaration) @definition.member

(struct_specifier body: (field_declaration_list)) @definition.struct
(union_specifier body: (field_declaration_list)) @definition.union
(enum_specifier body: (enumerator_list)) @definition.enum
(type_definition) @definition.typedef

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; Calls: f(x), s->cb(x), obj.m(x).
(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (field_expression
    argument: (_) @qualifier
    field: (field_identifier) @name)) @reference.call
