; Python: Sextant's own query. Definitions, references and imports.

; ---- definitions
(class_definition
  name: (identifier) @name
  body: (_) @body) @definition.class

(function_definition
  name: (identifier) @name
  return_type: (type)? @type
  body: (_) @body) @definition.function

; module-level and class-level assignments (not locals inside functions); `x: T = ...` keeps T
(module
  (expression_statement
    (assignment left: (identifier) @name type: (type)? @type) @definition.variable))
(class_definition
  body: (block
    (expression_statement
      (assignment left: (identifier) @name type: (type)? @type) @definition.variable)))

; ---- references
(call
  function: (identifier) @name) @reference.call
(call
  function: (attribute
    object: (_) @receiver
    attribute: (identifier) @name)) @reference.call

(decorator (identifier) @name) @reference.decorate
(decorator (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.decorate

(class_definition
  superclasses: (argument_list (identifier) @name @reference.inherit))
(class_definition
  superclasses: (argument_list
    (attribute object: (_) @receiver attribute: (identifier) @name) @reference.inherit))
; subscripted bases: `class Box(Generic[T])`, `class UTCDateTime(types.TypeDecorator[object])`
(class_definition
  superclasses: (argument_list
    (subscript value: (identifier) @name) @reference.inherit))
(class_definition
  superclasses: (argument_list
    (subscript
      value: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.inherit))

; attribute reads (`self.debug`, `request.blueprints`); call sites above win for the same name
(attribute object: (_) @receiver attribute: (identifier) @name) @reference.read
; names read as values (locals among them are told apart by the local bindings below)
((attribute object: (identifier) @name) @reference.read
  (#not-any-of? @name "self" "cls"))
(argument_list (identifier) @name @reference.read)
(keyword_argument value: (identifier) @name @reference.read)
(return_statement (identifier) @name @reference.read)
(assignment right: (identifier) @name @reference.read)
(comparison_operator (identifier) @name @reference.read)
(boolean_operator (identifier) @name @reference.read)
(not_operator argument: (identifier) @name @reference.read)
(if_statement condition: (identifier) @name @reference.read)
(subscript value: (identifier) @name @reference.read)
(list (identifier) @name @reference.read)
(tuple (identifier) @name @reference.read)
(set (identifier) @name @reference.read)
(expression_list (identifier) @name @reference.read)
(pair value: (identifier) @name @reference.read)
(for_statement right: (identifier) @name @reference.read)
(yield (identifier) @name @reference.read)
(await (identifier) @name @reference.read)
(raise_statement (identifier) @name @reference.read)
(list_splat (identifier) @name @reference.read)
(dictionary_splat (identifier) @name @reference.read)

(type (identifier) @name) @reference.type
(type (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.type
(type (generic_type (identifier) @name)) @reference.type
(type (subscript value: (identifier) @name)) @reference.type
; unions and subscripts inside annotations: `A | ft.B`, `Optional[A]`, `dict[str, A]`
(type (binary_operator [(identifier) @name
                        (attribute object: (_) @receiver attribute: (identifier) @name)])) @reference.type
(type (binary_operator (binary_operator [(identifier) @name
                        (attribute object: (_) @receiver attribute: (identifier) @name)]))) @reference.type
(type (subscript subscript: [(identifier) @name
                             (attribute object: (_) @receiver attribute: (identifier) @name)])) @reference.type
(type (generic_type (type_parameter (type [(identifier) @name
                        (attribute object: (_) @receiver attribute: (identifier) @name)])))) @reference.type

; ---- typed bindings (receiver typing)
(typed_parameter (identifier) @binding.name type: (type) @binding.type) @binding
(typed_default_parameter name: (identifier) @binding.name type: (type) @binding.type) @binding
(assignment left: [(identifier) (attribute)] @binding.name type: (type) @binding.type) @binding
(assignment
  left: [(identifier) (attribute)] @binding.name
  right: (call function: [(identifier) (attribute)] @binding.value)) @binding
(assignment
  left: [(identifier) (attribute)] @binding.name
  right: (await (call function: [(identifier) (attribute)] @binding.value))) @binding
; untyped local names: parameters, assignment and loop targets, `as` targets
(parameters (identifier) @binding.name @binding)
(default_parameter name: (identifier) @binding.name) @binding
(list_splat_pattern (identifier) @binding.name @binding)
(dictionary_splat_pattern (identifier) @binding.name @binding)
(assignment left: (identifier) @binding.name) @binding
(assignment left: (pattern_list (identifier) @binding.name) @binding)
(assignment left: (tuple_pattern (identifier) @binding.name) @binding)
(for_statement left: (identifier) @binding.name) @binding
(for_statement left: (pattern_list (identifier) @binding.name)) @binding
(for_in_clause left: (identifier) @binding.name) @binding
(for_in_clause left: (pattern_list (identifier) @binding.name)) @binding
(as_pattern alias: (as_pattern_target (identifier) @binding.name)) @binding
(except_clause (as_pattern alias: (as_pattern_target (identifier) @binding.name))) @binding
(named_expression name: (identifier) @binding.name) @binding
(with_item
  value: (as_pattern
    (call function: [(identifier) (attribute)] @binding.value)
    alias: (as_pattern_target (identifier) @binding.name))) @binding

; ---- imports
(import_statement
  name: (dotted_name) @import.source) @import
(import_statement
  name: (aliased_import
    name: (dotted_name) @import.source
    alias: (identifier) @import.alias)) @import
(import_from_statement
  module_name: (_) @import.source
  name: (dotted_name) @import.name) @import
(import_from_statement
  module_name: (_) @import.source
  name: (aliased_import
    name: (dotted_name) @import.name
    alias: (identifier) @import.alias)) @import
(import_from_statement
  module_name: (_) @import.source
  (wildcard_import) @import.wildcard) @import

; ---- type parameters: their names are in scope over the generic declaration (the list's parent)
; (PEP 695: `def f[T](x: T)`; a subscript in an annotation, `Optional[T]`, is a `type_parameter` too)
(function_definition type_parameters: (type_parameter (type (identifier) @generic.name)) @generic)
(class_definition type_parameters: (type_parameter (type (identifier) @generic.name)) @generic)
