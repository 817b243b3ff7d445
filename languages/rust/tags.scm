; Rust: Sextant's own query. Definitions, impl scopes, references and use trees.

; ---- definitions
; `@type`: a function's return type as written (`Self`, `Option<Store>`), a field's, constant's or
; static's declared type.
(function_item name: (identifier) @name return_type: (_)? @type body: (_) @body) @definition.function
(function_signature_item name: (identifier) @name return_type: (_)? @type) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.union
(enum_item name: (type_identifier) @name body: (_) @body) @definition.enum
(enum_variant name: (identifier) @name) @definition.enum_member
(trait_item name: (type_identifier) @name body: (_) @body) @definition.trait
(mod_item name: (identifier) @name) @definition.module
(const_item name: (identifier) @name type: (_)? @type) @definition.constant
(static_item name: (identifier) @name type: (_)? @type) @definition.variable
(type_item name: (type_identifier) @name) @definition.type_alias
(associated_type name: (type_identifier) @name) @definition.type_alias
(macro_definition name: (identifier) @name) @definition.macro
(field_declaration name: (field_identifier) @name type: (_)? @type) @definition.field

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
; calls inside macro arguments (`assert!(is_word(b))`, `assert_eq!(Parser::new(), x)`): to
; tree-sitter these are token trees, so a call is a name right before a parenthesized tree
((token_tree (identifier) @receiver . "::" . (identifier) @name . (token_tree) @_args) @reference.call
  (#match? @_args "^\\("))
((token_tree (identifier) @receiver . "." . (identifier) @name . (token_tree) @_args) @reference.call
  (#match? @_args "^\\("))
((token_tree (token_tree) @receiver . "." . (identifier) @name . (token_tree) @_args) @reference.call
  (#match? @_args "^\\("))
((token_tree (identifier) @name . (token_tree) @_args) @reference.call
  (#match? @_args "^\\("))
; path qualifiers that are types (`Parser::new()`, `Utf8Sequence::Two`)
((scoped_identifier path: (identifier) @name) @reference.type
  (#match? @name "^[A-Z]"))
((token_tree (identifier) @name . "::") @reference.type
  (#match? @name "^[A-Z]"))
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

; names used as values: a function passed, stored or returned, a constant or static read (the
; function's own locals among them are told apart by the local bindings below)
(arguments (identifier) @name @reference.read)
(let_declaration value: (identifier) @name @reference.read)
(assignment_expression right: (identifier) @name @reference.read)
(compound_assignment_expr right: (identifier) @name @reference.read)
(field_initializer value: (identifier) @name @reference.read)
(array_expression (identifier) @name @reference.read)
(tuple_expression (identifier) @name @reference.read)
(return_expression (identifier) @name @reference.read)
(reference_expression value: (identifier) @name @reference.read)
(type_cast_expression value: (identifier) @name @reference.read)
(binary_expression left: (identifier) @name @reference.read)
(binary_expression right: (identifier) @name @reference.read)
(block (identifier) @name @reference.read .)
(static_item value: (identifier) @name @reference.read)
(const_item value: (identifier) @name @reference.read)
; attribute arguments naming a function: `#[arg(value_parser = parse_duration)]`,
; `#[serde(serialize_with = ...)]` takes a string (a mention, not a reference)
(attribute arguments: (token_tree "=" . (identifier) @name @reference.read))
(type_identifier) @name @reference.type
(scoped_type_identifier path: (_) @receiver name: (type_identifier) @name) @reference.type

; ---- bindings (receiver typing). `self` needs none: it is a receiver name of the impl's type.
; typed parameters of functions and closures: `store: &Store`
(parameter pattern: (identifier) @binding.name type: (_) @binding.type) @binding
; `let x: T = ...`
(let_declaration pattern: (identifier) @binding.name type: (_) @binding.type) @binding
; `let x = make(..)`, `make::<T>(..)`, `Store::new(..)`, `a.b(..)`, also behind `?`, `.await`, `&`.
; A `let` name is bound from the next statement on: `let version = version(..)` calls the function
; and `let ast = ast::parse(..)` names the module, so such a statement binds nothing.
((let_declaration
  pattern: (identifier) @binding.name
  value: [
    (call_expression function: (identifier) @binding.value)
    (call_expression function: (generic_function function: (identifier) @binding.value))
    (try_expression (call_expression function: (identifier) @binding.value))
    (try_expression (call_expression function: (generic_function function: (identifier) @binding.value)))
    (await_expression (call_expression function: (identifier) @binding.value))
    (try_expression (await_expression (call_expression function: (identifier) @binding.value)))
    (reference_expression value: (call_expression function: (identifier) @binding.value))
  ]) @binding
  (#not-eq? @binding.name @binding.value))
((let_declaration
  pattern: (identifier) @binding.name
  value: [
    (call_expression function: (scoped_identifier path: (_) @_head) @binding.value)
    (call_expression
      function: (generic_function function: (scoped_identifier path: (_) @_head) @binding.value))
    (try_expression (call_expression function: (scoped_identifier path: (_) @_head) @binding.value))
    (try_expression
      (call_expression
        function: (generic_function function: (scoped_identifier path: (_) @_head) @binding.value)))
    (await_expression (call_expression function: (scoped_identifier path: (_) @_head) @binding.value))
    (try_expression
      (await_expression (call_expression function: (scoped_identifier path: (_) @_head) @binding.value)))
    (reference_expression
      value: (call_expression function: (scoped_identifier path: (_) @_head) @binding.value))
  ]) @binding
  (#not-eq? @binding.name @_head))
(let_declaration
  pattern: (identifier) @binding.name
  value: [
    (call_expression function: (field_expression) @binding.value)
    (try_expression (call_expression function: (field_expression) @binding.value))
    (await_expression (call_expression function: (field_expression) @binding.value))
    (try_expression (await_expression (call_expression function: (field_expression) @binding.value)))
    (reference_expression value: (call_expression function: (field_expression) @binding.value))
  ]) @binding
; `let x = Store { .. }` (`Self { .. }`, `m::Store { .. }`): the literal's type
(let_declaration
  pattern: (identifier) @binding.name
  value: [
    (struct_expression name: (type_identifier) @binding.type)
    (reference_expression value: (struct_expression name: (type_identifier) @binding.type))
  ]) @binding
((let_declaration
  pattern: (identifier) @binding.name
  value: [
    (struct_expression name: (scoped_type_identifier path: (_) @_head) @binding.type)
    (reference_expression
      value: (struct_expression name: (scoped_type_identifier path: (_) @_head) @binding.type))
  ]) @binding
  (#not-eq? @binding.name @_head))
; untyped local names: `let` patterns (except a value that starts by calling or naming the bound
; name, see above), parameter and closure patterns, `for` patterns, `match` / `if let` /
; `while let` bindings (lower-case names only: `None`, `Empty` are variants, not bindings)
(let_declaration pattern: (identifier) @binding.name !value) @binding
((let_declaration
  pattern: [
    (identifier) @binding.name
    (tuple_pattern (identifier) @binding.name)
    (tuple_struct_pattern "(" (identifier) @binding.name)
    (struct_pattern (field_pattern [(shorthand_field_identifier) (identifier)] @binding.name))
  ]
  value: (_) @_value) @binding
  (#match? @binding.name "^[a-z_]")
  (#not-match? @_value "^(&\\s*(mut\\s+)?)?[a-z_][A-Za-z0-9_]*\\s*(\\(|::)"))
((let_declaration
  pattern: [
    (tuple_pattern (identifier) @binding.name)
    (tuple_struct_pattern "(" (identifier) @binding.name)
    (struct_pattern (field_pattern [(shorthand_field_identifier) (identifier)] @binding.name))
  ]
  value: [
    (call_expression function: [(identifier) @_head (scoped_identifier path: (_) @_head)])
    (try_expression (call_expression function: [(identifier) @_head (scoped_identifier path: (_) @_head)]))
  ]) @binding
  (#match? @binding.name "^[a-z_]")
  (#not-eq? @binding.name @_head))
(parameter pattern: (tuple_pattern (identifier) @binding.name)) @binding
; names bound inside nested patterns wherever they are (`let (_, mut local) = ..`,
; `while let Some((bytes, addr)) = ..`, `|mut acc| ..`, `[first, rest @ ..]`, `ref x`): a name read
; in the function is then its local, not a definition elsewhere
((tuple_pattern (identifier) @binding.name) @binding (#match? @binding.name "^[a-z_]"))
((tuple_struct_pattern (identifier) @binding.name) @binding (#match? @binding.name "^[a-z_]"))
((slice_pattern (identifier) @binding.name) @binding (#match? @binding.name "^[a-z_]"))
((or_pattern (identifier) @binding.name) @binding (#match? @binding.name "^[a-z_]"))
(mut_pattern (identifier) @binding.name) @binding
(ref_pattern (identifier) @binding.name) @binding
(reference_pattern (identifier) @binding.name) @binding
(captured_pattern . (identifier) @binding.name) @binding
(field_pattern pattern: (identifier) @binding.name) @binding
(field_pattern name: (shorthand_field_identifier) @binding.name) @binding
(closure_parameters (identifier) @binding.name @binding)
(for_expression pattern: (identifier) @binding.name) @binding
(for_expression pattern: (tuple_pattern (identifier) @binding.name)) @binding
((match_pattern
  [
    (identifier) @binding.name
    (tuple_struct_pattern "(" (identifier) @binding.name)
    (struct_pattern (field_pattern [(shorthand_field_identifier) (identifier)] @binding.name))
    (captured_pattern . (identifier) @binding.name)
  ]) @binding
  (#match? @binding.name "^[a-z_]"))
((let_condition
  pattern: [
    (identifier) @binding.name
    (tuple_struct_pattern "(" (identifier) @binding.name)
    (struct_pattern (field_pattern [(shorthand_field_identifier) (identifier)] @binding.name))
  ]) @binding
  (#match? @binding.name "^[a-z_]"))

; ---- imports
(use_declaration argument: (_) @import.tree) @import
(extern_crate_declaration name: (identifier) @import.source) @import

; ---- type parameters: their names are in scope over the generic declaration (the list's parent)
(type_parameters (type_parameter name: (type_identifier) @generic.name)) @generic
