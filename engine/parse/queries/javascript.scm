; JavaScript definitions, references and imports for spelunk, shared by the
; three ECMAScript grammars: JavaScript adds javascript_only.scm, TypeScript
; and TSX add typescript.scm.
; Capture conventions: see go.scm. The many ways JavaScript binds a function
; to a name are sorted out in javascript.go.

(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

(class_declaration
  name: (_) @name) @definition.class

; Class members (object-literal methods are taken only through @definition.object).
(class_body
  (method_definition name: (_) @name) @definition.method)


; const f = () => {}, let g = function () {}, var C = class {}
(variable_declarator
  name: (identifier) @name
  value: [(function_expression) (arrow_function) (generator_function) (class)]) @definition.binding

; a.b = function b() {}, a.x = a.y = function y() {}, module.exports = function f() {},
; exports.f = () => {}, X.prototype.m = function () {}
(assignment_expression
  left: [(member_expression) (identifier)]
  right: [(function_expression) (arrow_function) (generator_function) (class)]) @definition.assignment

; Functions handed to a definer: defineGetter(req, 'ip', function ip() {})
(call_expression
  function: (_) @callee
  arguments: (arguments
    (string) @key .
    [(function_expression) (arrow_function)] @value)) @definition.definer

; Any other named function expression: register('x', function handler() {})
(function_expression
  name: (identifier) @name) @definition.named

; export default function () {}, export default class {}, export default { ... }
(export_statement
  value: [(function_expression) (arrow_function) (class) (object) (generator_function)] @value) @definition.default

; module.exports = { ... }, exports.api = { ... }
(assignment_expression
  left: [(member_expression) (identifier)]
  right: (object) @value) @definition.object

; Top-level variables: const TAX_RATE = 0.2, const api = { ... }
(program
  (lexical_declaration
    (variable_declarator name: (identifier) @name) @definition.var))

(program
  (variable_declaration
    (variable_declarator name: (identifier) @name) @definition.var))

(program
  (export_statement
    declaration: (lexical_declaration
      (variable_declarator name: (identifier) @name) @definition.var)))

(program
  (export_statement
    declaration: (variable_declaration
      (variable_declarator name: (identifier) @name) @definition.var)))

; Calls: f(x), obj.m(x), this.m(x), new Foo(), new ns.Foo().
(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (member_expression
    object: (_) @qualifier
    property: (_) @name)) @reference.call

(new_expression
  constructor: (identifier) @name) @reference.call

(new_expression
  constructor: (member_expression
    object: (_) @qualifier
    property: (_) @name)) @reference.call

; import ... from './x', export ... from './x', require('./x'), import('./x')
(import_statement) @import

(export_statement
  source: (string)) @import

(call_expression
  function: (identifier) @callee
  arguments: (arguments . (string) @key .)
  (#eq? @callee "require")) @import.require

(call_expression
  function: (import)
  arguments: (arguments . (string) @key)) @import.dynamic

; Names exported after their definition: export { a, b as c }; export default name;
(export_statement
  !source
  (export_clause
    (export_specifier name: (identifier) @name))) @export.local

(export_statement
  value: (identifier) @name) @export.local

; module.exports = createApp; exports = module.exports = createApp
(assignment_expression
  left: [(member_expression) (identifier)] @callee
  right: (identifier) @name) @export.assign

; Scopes and bindings for qualifier types (jstypes.go); a function's scope
; match also binds its parameters. Each match costs: only what is needed.
; Declared functions, classes and class methods are scopes through their
; definition patterns above.
(function_expression) @scope.fn
(generator_function) @scope.fn
(object (method_definition) @scope.fn)
(arrow_function) @scope.arrow
(class) @scope.class

(variable_declaration (variable_declarator name: (_) @name) @bind.var)
(lexical_declaration (variable_declarator name: (_) @name) @bind.let)
(assignment_expression left: (identifier) @name) @bind.assign
(assignment_expression left: (member_expression object: (this) property: (_) @name)) @bind.attr
(for_in_statement left: (_) @name) @bind.for
(catch_clause parameter: (_) @name) @bind.untyped

; Field accesses (jsfields.go): every o.p is a read unless it is called,
; constructed or written; write targets are matched on their own. A
; function assigned to a property is a definition, not a write. Each match
; costs: targets that cannot be fields (i++) are not matched.
(member_expression property: (_) @name) @access.member
(assignment_expression
  left: (member_expression object: (_) @qualifier property: (_) @name)
  right: (_) @value) @access.assign
(assignment_expression left: [(subscript_expression) (array_pattern) (object_pattern)] @value) @access.write
(augmented_assignment_expression left: [(member_expression) (subscript_expression)] @value) @access.write
(update_expression argument: [(member_expression) (subscript_expression)] @value) @access.write
(unary_expression operator: "delete" argument: [(member_expression) (subscript_expression)] @value) @access.write
