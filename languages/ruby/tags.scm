; Ruby: Sextant's own query. Definitions, references and requires.
;
; Comments written between a class/module header and its first statement are children of the
; class/module node, not siblings of that first statement: `first_child_of` in language.toml
; makes them the first member's doc, and the patterns below capture the first of them as the
; container's @body, so that the container's signature stops before it.

; ---- modules
(module
  name: [(constant) @name (scope_resolution scope: (_) @owner name: (constant) @name)]
  . (comment) @body) @definition.module
(module
  name: [(constant) @name (scope_resolution scope: (_) @owner name: (constant) @name)])
  @definition.module

; ---- classes (`class Shop::Report` is `Report` inside `Shop`)
(class
  name: [(constant) @name (scope_resolution scope: (_) @owner name: (constant) @name)]
  superclass: (_) . (comment) @body) @definition.class
(class
  name: [(constant) @name (scope_resolution scope: (_) @owner name: (constant) @name)]
  . (comment) @body) @definition.class
(class
  name: [(constant) @name (scope_resolution scope: (_) @owner name: (constant) @name)])
  @definition.class

; `Point = Struct.new(:x, :y) do ... end`, `Value = Data.define(:amount)`, `Error = Class.new(Base)`
(assignment
  left: (constant) @name
  right: (call
    receiver: (constant) @_r
    method: (identifier) @_m
    block: (_) @body)
  (#any-of? @_r "Struct" "Class" "Data")
  (#any-of? @_m "new" "define")) @definition.class
(assignment
  left: (constant) @name
  right: (call
    receiver: (constant) @_r
    method: (identifier) @_m)
  (#any-of? @_r "Struct" "Class" "Data")
  (#any-of? @_m "new" "define")) @definition.class

; ---- methods: top-level `def` is a function; every other `def` is a method (of a class, a
; module, `class << self`, or the object a block runs on). `initialize` becomes the constructor.
(program (method name: (_) @name) @definition.function)
(method name: (_) @name) @definition.method

; `def self.find(id)`
(singleton_method name: (_) @name) @definition.method

; ---- constants: `MAX = 3` (Ruby forbids constant assignment inside methods)
(assignment left: (constant) @name) @definition.constant

; ---- attributes: `attr_accessor :name, :email` (one property per symbol)
(call
  !receiver
  method: (identifier) @_m
  arguments: (argument_list (simple_symbol) @name @definition.property)
  (#any-of? @_m "attr_accessor" "attr_reader" "attr_writer" "attr"))

; ---- class variables written in a class or module body: `@@count = 0`
(class body: (body_statement (assignment left: (class_variable) @name) @definition.variable))
(module body: (body_statement (assignment left: (class_variable) @name) @definition.variable))

; ---- references: inheritance and mixins
(superclass [(constant) (scope_resolution)] @name) @reference.inherit
(call
  !receiver
  method: (identifier) @_m
  arguments: (argument_list [(constant) (scope_resolution)] @name)
  (#any-of? @_m "include" "extend" "prepend")) @reference.inherit

; ---- references: instantiation `Order.new`, `Billing::Gateway.new` (the class is the name)
(call
  receiver: [(constant) (scope_resolution)] @name
  method: (identifier) @_m
  (#eq? @_m "new")) @reference.instantiate

; ---- references: calls
; `self.status = x`, `order.total = 3`: attribute writers
(assignment
  left: (call receiver: (_) @receiver method: (identifier) @name)) @reference.write
(operator_assignment
  left: (call receiver: (_) @receiver method: (identifier) @name)) @reference.write
; `klass.new(attrs)`: `new` on something that is not a constant
(call
  receiver: (_) @receiver
  method: (identifier) @name
  (#eq? @name "new")
  (#not-match? @receiver "^(::)?[A-Z][A-Za-z0-9_]*(::[A-Z][A-Za-z0-9_]*)*$")) @reference.call
(call
  receiver: (_) @receiver
  method: [(identifier) (constant) (operator)] @name
  (#not-eq? @name "new")) @reference.call
; receiver-less calls with arguments or parentheses (a bare `name` may be a local variable)
(call
  !receiver
  method: [(identifier) (constant)] @name
  (#not-any-of? @name
    "require" "require_relative" "include" "extend" "prepend"
    "attr_accessor" "attr_reader" "attr_writer" "attr"
    "private" "protected" "public" "module_function"
    "private_constant" "public_constant" "private_class_method" "public_class_method")) @reference.call

; ---- references: constants used as values (`raise NotFound`, `x = Billing::Stripe`)
(exceptions [(constant) (scope_resolution)] @name) @reference.type
(argument_list [(constant) (scope_resolution)] @name @reference.read)
(assignment right: [(constant) (scope_resolution)] @name @reference.read)
(pair value: [(constant) (scope_resolution)] @name @reference.read)
(binary [(constant) (scope_resolution)] @name @reference.read)
(pattern [(constant) (scope_resolution)] @name @reference.read)
(array [(constant) (scope_resolution)] @name @reference.read)
(conditional [(constant) (scope_resolution)] @name @reference.read)

; ---- requires
(call
  !receiver
  method: (identifier) @_m
  arguments: (argument_list . (string) @import.source)
  (#any-of? @_m "require" "require_relative" "load")) @import
