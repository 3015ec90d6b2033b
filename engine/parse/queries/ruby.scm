; Ruby definitions, references and imports for spelunk.
; Capture conventions: see go.scm. Owners, visibility, DSL blocks and which
; bare identifiers are method calls are worked out in ruby.go and rubyref.go.

(class name: (_) @name) @definition.class
(module name: (_) @name) @definition.module
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
(assignment left: (constant) @name) @definition.const

; Blocks handed to DSL calls: describe X do ... end, it "..." { }, get "/x" do
; ... end, RSpec.describe X do ... end.
(call
  !receiver
  method: (identifier) @callee
  arguments: (argument_list . (_) @key)
  block: (_) @value) @definition.dsl
(call
  receiver: (constant) @qualifier
  method: (identifier) @callee
  arguments: (argument_list . (_) @key)
  block: (_) @value) @definition.dsl

; Calls: f(x), f x, obj.m, C.m, C::m, self.m. require, include, attr_reader,
; private and friends are calls too, told apart in rubyref.go.
(call !receiver method: (_) @name) @reference.call
(call receiver: (_) @qualifier method: (_) @name) @reference.call

(superclass (_) @name) @reference.inherits

; A bare identifier is a method call of self unless a local variable of that
; name is bound before it in the same method (rubyref.go): the positions
; where such calls are written.
(body_statement (identifier) @name) @reference.ident
(block_body (identifier) @name) @reference.ident
(then (identifier) @name) @reference.ident
(else (identifier) @name) @reference.ident
(ensure (identifier) @name) @reference.ident
(parenthesized_statements (identifier) @name) @reference.ident
(program (identifier) @name) @reference.ident
(argument_list (identifier) @name) @reference.ident
(interpolation (identifier) @name) @reference.ident
(pair value: (identifier) @name) @reference.ident
(array (identifier) @name) @reference.ident
(binary left: (identifier) @name) @reference.ident
(binary right: (identifier) @name) @reference.ident
(unary operand: (identifier) @name) @reference.ident
(assignment right: (identifier) @name) @reference.ident
(operator_assignment right: (identifier) @name) @reference.ident
(if condition: (identifier) @name) @reference.ident
(unless condition: (identifier) @name) @reference.ident
(while condition: (identifier) @name) @reference.ident
(if_modifier condition: (identifier) @name) @reference.ident
(unless_modifier condition: (identifier) @name) @reference.ident
(conditional condition: (identifier) @name) @reference.ident
(element_reference object: (identifier) @name) @reference.ident

; Local variables: assignments and parameters.
(assignment left: (identifier) @name) @bind.assign
(assignment left: (instance_variable) @name) @bind.ivar
(operator_assignment left: (identifier) @name) @bind.local
(left_assignment_list (identifier) @name) @bind.local
(method_parameters (identifier) @name) @bind.local
(block_parameters (identifier) @name) @bind.local
(lambda_parameters (identifier) @name) @bind.local
(optional_parameter name: (identifier) @name) @bind.local
(keyword_parameter name: (identifier) @name) @bind.local
(splat_parameter name: (identifier) @name) @bind.local
(hash_splat_parameter name: (identifier) @name) @bind.local
(block_parameter name: (identifier) @name) @bind.local
(destructured_parameter (identifier) @name) @bind.local
(exception_variable (identifier) @name) @bind.local
(for pattern: (identifier) @name) @bind.local

; Instance variables (rubyfields.go): each is a read unless assigned.
(instance_variable) @access.ivar
(operator_assignment left: (instance_variable) @name) @access.ivarw
