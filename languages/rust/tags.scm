; Rust: Sextant's own query. Definitions, impl scopes, references and use trees.

; ---- definitions
(function_item name: (identifier) @name body: (_) @body) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.union
(enum_item name: (type_identifier) @name body: (_) @body) @definition.enum
(enum_variant name: (identifier) @name) @definition.enum_member
(trait_item name: (type_identifier) @name body: (_) @body) @definition.trait
(mod_item name: (identifier) @name) @definition.module
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable
(type_item name: (type_identifier) @name) @definition.type_alias
(associated_type name: (type_identifier) @name) @definition.type_alias
(macro_definition name: (identifier) @name) @definition.macro
(field_declaration name: (field_identifier) @name) @definition.field

; impl blocks are scopes: their functions are members of the implemented type
(impl_item type: (_) @scope.name) @scope

; ---- references
(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (scoped_identifier path: (_) @receiver name: (identifier) @name)) @reference.call
(call_expression
  function: (field_expression value: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression
  function: (generic_function function: (identifier) @name)) @reference.call
(call_expression
  function: (generic_function
    function: (scoped_identifier path: (_) @receiver name: (identifier) @name))) @reference.call
(call_expression
  function: (generic_function
    function: (field_expression value: (_) @receiver field: (field_identifier) @name))) @reference.call
(macro_invocation macro: (identifier) @name) @reference.call
(macro_invocation macro: (scoped_identifier path: (_) @receiver name: (identifier) @name)) @reference.call

(struct_expression name: (type_identifier) @name) @reference.instantiate
(struct_expression
  name: (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)) @reference.instantiate

(impl_item trait: (type_identifier) @name type: (_) @implementor) @reference.implement
(impl_item
  trait: (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
  type: (_) @implementor) @reference.implement
(impl_item
  trait: (generic_type type: (type_identifier) @name)
  type: (_) @implementor) @reference.implement
(trait_item bounds: (trait_bounds (type_identifier) @name @reference.inherit))

(type_identifier) @name @reference.type
(scoped_type_identifier path: (_) @receiver name: (type_identifier) @name) @reference.type

; ---- imports
(use_declaration argument: (_) @import.tree) @import
(extern_crate_declaration name: (identifier) @import.source) @import
