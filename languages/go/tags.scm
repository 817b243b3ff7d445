; Go: Sextant's own query. Definitions, references and imports.
;
; Only package-level declarations are definitions: `var`, `const` and `type` inside function
; bodies are locals, and the fields of anonymous structs written in a function (table-driven
; tests) are not members of anything.
;
; A declaration with one spec (`type T struct`, `const X = 1`) is the definition itself: its
; signature keeps the keyword and the doc comment above it is found. In a grouped declaration
; (`const ( ... )`) each spec is a definition with the comment above the spec. A spec or field
; declaration with several names (`a, b int`) makes each name a definition; the spec lends it
; its doc comment (see `[doc] wrapper_kinds`).

; ---- package (recorded only: the package directory is the module prefix)
(package_clause (package_identifier) @package.name)

; ---- functions and methods
(function_declaration name: (identifier) @name body: (block) @body) @definition.function
; body-less declarations (implemented in assembly)
(function_declaration name: (identifier) @name) @definition.function

; `func (s *Server) Start()` is `Server.Start`: the receiver's base type is the owner
; (value, pointer, generic `*Cache[K, V]` receivers).
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @owner
        (pointer_type (type_identifier) @owner)
        (generic_type type: (type_identifier) @owner)
        (pointer_type (generic_type type: (type_identifier) @owner))
      ]))
  name: (field_identifier) @name
  body: (block) @body) @definition.method
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @owner
        (pointer_type (type_identifier) @owner)
        (generic_type type: (type_identifier) @owner)
        (pointer_type (generic_type type: (type_identifier) @owner))
      ]))
  name: (field_identifier) @name) @definition.method

; ---- types: `type T struct {}`, `type T interface {}`, `type ID int`, `type F func()`,
; `type A = B`. Structs and interfaces first (the first pattern of a node wins).
(source_file
  (type_declaration
    (type_spec
      name: (type_identifier) @name
      type: (struct_type (field_declaration_list) @body))) @definition.struct @_decl
  (#not-match? @_decl "^type\\s*\\("))
(source_file
  (type_declaration
    (type_spec
      name: (type_identifier) @name
      type: (interface_type . (_) @body))) @definition.interface @_decl
  (#not-match? @_decl "^type\\s*\\("))
(source_file
  (type_declaration
    (type_spec
      name: (type_identifier) @name
      type: (interface_type))) @definition.interface @_decl
  (#not-match? @_decl "^type\\s*\\("))
(source_file
  (type_declaration
    [
      (type_spec name: (type_identifier) @name)
      (type_alias name: (type_identifier) @name)
    ]) @definition.type_alias @_decl
  (#not-match? @_decl "^type\\s*\\("))

; grouped: `type ( A struct{}; B = int )`
(source_file
  (type_declaration
    "("
    (type_spec
      name: (type_identifier) @name
      type: (struct_type (field_declaration_list) @body)) @definition.struct))
(source_file
  (type_declaration
    "("
    (type_spec
      name: (type_identifier) @name
      type: (interface_type . (_) @body)) @definition.interface))
(source_file
  (type_declaration
    "("
    (type_spec
      name: (type_identifier) @name
      type: (interface_type)) @definition.interface))
(source_file
  (type_declaration
    "("
    [
      (type_spec name: (type_identifier) @name)
      (type_alias name: (type_identifier) @name)
    ] @definition.type_alias))

; ---- struct fields: of package-level struct types, and of anonymous structs nested in them
; (`DB struct { Host string }` gives `Config.DB.Host`). Embedded fields are inherit references.
; A field whose type is an anonymous struct has the signature `DB struct`.
(source_file
  (type_declaration
    (type_spec
      type: (struct_type
        (field_declaration_list
          (field_declaration
            . name: (field_identifier) @name
            type: (struct_type (field_declaration_list) @body)) @definition.field @_field
          (#not-match? @_field "^\\w+\\s*,"))))))
(source_file
  (type_declaration
    (type_spec
      type: (struct_type
        (field_declaration_list
          (field_declaration . name: (field_identifier) @name) @definition.field @_field
          (#not-match? @_field "^\\w+\\s*,"))))))
(source_file
  (type_declaration
    (type_spec
      type: (struct_type
        (field_declaration_list
          (field_declaration name: (field_identifier) @name @definition.field) @_field
          (#match? @_field "^\\w+\\s*,"))))))
(source_file
  (type_declaration
    (type_spec
      type: (struct_type
        (field_declaration_list
          (field_declaration
            type: (struct_type
              (field_declaration_list
                (field_declaration . name: (field_identifier) @name) @definition.field @_field
                (#not-match? @_field "^\\w+\\s*,")))))))))
(source_file
  (type_declaration
    (type_spec
      type: (struct_type
        (field_declaration_list
          (field_declaration
            type: (struct_type
              (field_declaration_list
                (field_declaration name: (field_identifier) @name @definition.field) @_field
                (#match? @_field "^\\w+\\s*,")))))))))

; ---- interface elements: methods, and embedded interfaces (inherit references below)
(source_file
  (type_declaration
    (type_spec
      type: (interface_type
        (method_elem name: (field_identifier) @name) @definition.method))))

; ---- constants (`iota` blocks included) and package-level variables. `_` names nothing.
; (The grammar puts the commas of `const a, b = 1, 2` in the `name` field too, so the names are
; matched as the spec's bare identifiers: values sit in an expression_list.)
(source_file
  (const_declaration
    (const_spec . (identifier) @name) @_spec
    (#not-match? @_spec "^\\w+\\s*,")
    (#not-eq? @name "_")) @definition.constant @_decl
  (#not-match? @_decl "^const\\s*\\("))
(source_file
  (const_declaration
    "("
    (const_spec . (identifier) @name) @definition.constant
    (#not-match? @definition.constant "^\\w+\\s*,")
    (#not-eq? @name "_")))
(source_file
  (const_declaration
    (const_spec (identifier) @name @definition.constant) @_spec
    (#match? @_spec "^\\w+\\s*,")
    (#not-eq? @name "_")))

(source_file
  (var_declaration
    (var_spec . name: (identifier) @name) @_spec
    (#not-match? @_spec "^\\w+\\s*,")
    (#not-eq? @name "_")) @definition.variable)
(source_file
  (var_declaration
    (var_spec_list
      (var_spec . name: (identifier) @name) @definition.variable
      (#not-match? @definition.variable "^\\w+\\s*,")
      (#not-eq? @name "_"))))
(source_file
  (var_declaration
    (var_spec name: (identifier) @name @definition.variable) @_spec
    (#match? @_spec "^\\w+\\s*,")
    (#not-eq? @name "_")))
(source_file
  (var_declaration
    (var_spec_list
      (var_spec name: (identifier) @name @definition.variable) @_spec
      (#match? @_spec "^\\w+\\s*,")
      (#not-eq? @name "_"))))

; ---- references: embedding (struct fields without a name, interface type elements)
(source_file
  (type_declaration
    (type_spec
      type: (struct_type
        (field_declaration_list
          (field_declaration
            .
            type: [
              (type_identifier) @name
              (generic_type type: (type_identifier) @name)
              (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name)
              (generic_type
                type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
              (pointer_type (type_identifier) @name)
              (pointer_type (generic_type type: (type_identifier) @name))
              (pointer_type
                (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
              (pointer_type
                (generic_type
                  type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name)))
            ]) @reference.inherit)))))
(source_file
  (type_declaration
    (type_spec
      type: (interface_type
        (type_elem
          .
          [
            (type_identifier) @name
            (generic_type type: (type_identifier) @name)
            (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name)
            (generic_type
              type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
          ]
          .) @reference.inherit))))

; ---- references: calls. Conversions to predeclared types (`string(b)`) are not calls.
(call_expression
  function: (identifier) @name
  (#not-any-of? @name
    "bool" "byte" "complex64" "complex128" "error" "float32" "float64" "int" "int8" "int16"
    "int32" "int64" "rune" "string" "uint" "uint8" "uint16" "uint32" "uint64" "uintptr" "any")) @reference.call
(call_expression
  function: (selector_expression operand: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression
  function: (parenthesized_expression (identifier) @name)) @reference.call
(call_expression
  function: (parenthesized_expression
    (selector_expression operand: (_) @receiver field: (field_identifier) @name))) @reference.call
; explicit instantiation of a generic function: `pkg.Make[int]()`, `Make[int, string]()`
(call_expression
  function: (index_expression operand: (identifier) @name)) @reference.call
(call_expression
  function: (index_expression
    operand: (selector_expression operand: (_) @receiver field: (field_identifier) @name))) @reference.call

; `pkg.Make[int](x)` is parsed as a conversion to a generic type; it is far more often a call of
; a generic function with explicit type arguments.
(type_conversion_expression
  type: (generic_type type: (type_identifier) @name)) @reference.call
(type_conversion_expression
  type: (generic_type
    type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))) @reference.call

; ---- references: instantiation. `Foo{}`, `&pkg.Foo{}`, `Cache[K, V]{}`, `new(Foo)`
(composite_literal
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name)
    (generic_type
      type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  ]) @reference.instantiate
(call_expression
  function: (identifier) @_new
  arguments: (argument_list
    .
    [
      (type_identifier) @name
      (generic_type type: (type_identifier) @name)
      (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name)
      (generic_type
        type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
    ]
    .)
  (#eq? @_new "new")) @reference.instantiate

; ---- references: types, wherever a type is written. A qualified type (`http.Server`) is one
; reference with the package as receiver. Predeclared types are not references, nor are type
; parameters (`@generic` below).
(qualified_type
  package: (package_identifier) @receiver
  name: (type_identifier) @name) @reference.type
((type_identifier) @name @reference.type
  (#not-any-of? @name
    "bool" "byte" "complex64" "complex128" "error" "float32" "float64" "int" "int8" "int16"
    "int32" "int64" "rune" "string" "uint" "uint8" "uint16" "uint32" "uint64" "uintptr" "any"
    "comparable"))

; ---- declared types (`@typed` adds them to the definitions matched above)
; a function's or method's result type: the single result (`*Server`), or the first of a list
; (`(*Store, error)`, `(s *Store, err error)`)
((function_declaration result: (_) @type) @typed
  (#not-match? @type "^\\("))
(function_declaration result: (parameter_list . (parameter_declaration type: (_) @type))) @typed
((method_declaration result: (_) @type) @typed
  (#not-match? @type "^\\("))
(method_declaration result: (parameter_list . (parameter_declaration type: (_) @type))) @typed
((method_elem result: (_) @type) @typed
  (#not-match? @type "^\\("))
(method_elem result: (parameter_list . (parameter_declaration type: (_) @type))) @typed
; struct fields (the field declaration is the definition; with several names, each name is);
; anonymous struct types are not kept as types
((field_declaration type: (_) @type) @typed
  (#not-match? @type "^struct\\b"))
((field_declaration name: (field_identifier) @typed type: (_) @type)
  (#not-match? @type "^struct\\b"))
; package-level variables and constants written with a type (`var X T`, `const Y T = 1`)
(var_declaration (var_spec type: (_) @type)) @typed
(var_spec type: (_) @type) @typed
(var_spec name: (identifier) @typed type: (_) @type)
(const_declaration (const_spec type: (_) @type)) @typed
(const_spec type: (_) @type) @typed
(const_spec name: (identifier) @typed type: (_) @type)

; ---- bindings (receiver typing)
; parameters, method receivers (`func (s *Server)` binds `s` in the method) and named results
((parameter_declaration name: (identifier) @binding.name type: (_) @binding.type) @binding
  (#not-eq? @binding.name "_"))
(variadic_parameter_declaration name: (identifier) @binding.name) @binding
; `var x T`
((var_spec name: (identifier) @binding.name type: (_) @binding.type) @binding
  (#not-eq? @binding.name "_"))
; `x := NewServer(..)`, `x, err := pkg.Open(..)`, `var x = s.store.Get(..)`, `x := Make[T](..)`:
; the first name takes the call's (first) result. The name is bound from the next statement on:
; `version := version()` calls the function and `store := store.Open()` names the package, so
; such a statement binds nothing.
((short_var_declaration
  left: (expression_list . (identifier) @binding.name)
  right: (expression_list
    .
    (call_expression
      function: [
        (identifier) @binding.value
        (index_expression operand: (identifier) @binding.value)
      ]))) @binding
  (#not-eq? @binding.name @binding.value))
((short_var_declaration
  left: (expression_list . (identifier) @binding.name)
  right: (expression_list
    .
    (call_expression
      function: [
        (selector_expression operand: (_) @_head) @binding.value
        (index_expression operand: (selector_expression operand: (_) @_head) @binding.value)
      ]))) @binding
  (#not-eq? @binding.name @_head))
((var_spec
  .
  name: (identifier) @binding.name
  value: (expression_list
    .
    (call_expression
      function: [
        (identifier) @binding.value
        (index_expression operand: (identifier) @binding.value)
      ]))) @binding
  (#not-eq? @binding.name @binding.value))
((var_spec
  .
  name: (identifier) @binding.name
  value: (expression_list
    .
    (call_expression
      function: [
        (selector_expression operand: (_) @_head) @binding.value
        (index_expression operand: (selector_expression operand: (_) @_head) @binding.value)
      ]))) @binding
  (#not-eq? @binding.name @_head))
; `x := Server{..}`, `x := &pkg.Server{..}`, `x := new(Server)`: the literal's type
((short_var_declaration
  left: (expression_list . (identifier) @binding.name)
  right: (expression_list
    .
    [
      (composite_literal type: [(type_identifier) (qualified_type) (generic_type)] @binding.type)
      (unary_expression
        operand: (composite_literal type: [(type_identifier) (qualified_type) (generic_type)] @binding.type))
    ])) @binding
  (#not-eq? @binding.name "_"))
((short_var_declaration
  left: (expression_list . (identifier) @binding.name)
  right: (expression_list
    .
    (call_expression
      function: (identifier) @_new
      arguments: (argument_list . [(type_identifier) (qualified_type) (generic_type)] @binding.type .)))) @binding
  (#not-eq? @binding.name "_")
  (#eq? @_new "new"))
((var_spec
  .
  name: (identifier) @binding.name
  value: (expression_list
    .
    [
      (composite_literal type: [(type_identifier) (qualified_type) (generic_type)] @binding.type)
      (unary_expression
        operand: (composite_literal type: [(type_identifier) (qualified_type) (generic_type)] @binding.type))
    ])) @binding
  (#not-eq? @binding.name "_"))
; untyped local names: `:=` and `var` names (except, as above, a name the value starts with),
; `range` variables, type switch aliases
((short_var_declaration
  left: (expression_list (identifier) @binding.name)
  right: (expression_list . (_) @_value)) @binding
  (#not-eq? @binding.name "_")
  (#not-match? @_value "^[a-z_][A-Za-z0-9_]*\\s*[.(\\[]"))
((short_var_declaration
  left: (expression_list (identifier) @binding.name)
  right: (expression_list
    .
    [
      (call_expression
        function: [
          (identifier) @_head
          (selector_expression operand: [(identifier) @_head (selector_expression operand: (identifier) @_head)])
          (index_expression operand: [(identifier) @_head (selector_expression operand: (identifier) @_head)])
        ])
      (selector_expression operand: [(identifier) @_head (selector_expression operand: (identifier) @_head)])
      (index_expression operand: [(identifier) @_head (selector_expression operand: (identifier) @_head)])
      (slice_expression operand: [(identifier) @_head (selector_expression operand: (identifier) @_head)])
      (type_assertion_expression
        operand: [(identifier) @_head (selector_expression operand: (identifier) @_head)])
    ])) @binding
  (#not-eq? @binding.name "_")
  (#not-eq? @binding.name @_head))
((var_spec name: (identifier) @binding.name !value) @binding
  (#not-eq? @binding.name "_"))
((var_spec name: (identifier) @binding.name value: (expression_list . (_) @_value)) @binding
  (#not-eq? @binding.name "_")
  (#not-match? @_value "^[a-z_][A-Za-z0-9_]*\\s*[.(\\[]"))
((range_clause left: (expression_list (identifier) @binding.name)) @binding
  (#not-eq? @binding.name "_"))
(type_switch_statement alias: (expression_list (identifier) @binding.name)) @binding

; ---- imports: `import "fmt"`, `import ( f "fmt"; . "strings"; _ "embed" )`
(import_spec . path: (_) @import.source) @import
(import_spec name: (package_identifier) @import.alias path: (_) @import.source) @import
(import_spec name: (blank_identifier) @import.alias path: (_) @import.source) @import
(import_spec name: (dot) @import.wildcard path: (_) @import.source) @import

; ---- type parameters: their names are in scope over the generic declaration (the list's parent)
(type_parameter_list (type_parameter_declaration name: (identifier) @generic.name)) @generic
; a method of a generic type names the type's parameters in its receiver: `func (l *List[T]) Push(v T)`
(method_declaration receiver: (parameter_list (parameter_declaration type: [
  (generic_type type_arguments: (type_arguments (type_elem (type_identifier) @generic.name)))
  (pointer_type (generic_type type_arguments: (type_arguments (type_elem (type_identifier) @generic.name))))]))) @generic.scope
