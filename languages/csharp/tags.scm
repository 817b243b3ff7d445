; C#: Sextant's own query. Definitions, references and using directives.
;
; A written type name is one of (identifier) (generic_name) (qualified_name)
; (alias_qualified_name); it is captured whole as @name: the extractor drops type arguments
; (`List<Order>` → `List`) and splits the qualifier into the receiver (`Shop.Domain.Order` →
; `Order`, receiver `Shop.Domain`).

; ---- file-scoped namespace: the package of the whole file
(file_scoped_namespace_declaration name: (_) @package.name)

; ---- definitions: namespaces and types
(namespace_declaration
  name: (_) @name
  body: (_) @body) @definition.namespace

(class_declaration
  name: (identifier) @name
  body: (_) @body) @definition.class
(class_declaration
  name: (identifier) @name) @definition.class

(struct_declaration
  name: (identifier) @name
  body: (_) @body) @definition.struct
(struct_declaration
  name: (identifier) @name) @definition.struct

(interface_declaration
  name: (identifier) @name
  body: (_) @body) @definition.interface

(record_declaration
  name: (identifier) @name
  body: (_) @body) @definition.record
(record_declaration
  name: (identifier) @name) @definition.record

(enum_declaration
  name: (identifier) @name
  body: (_) @body) @definition.enum

(enum_member_declaration
  name: (identifier) @name) @definition.enum_member

(delegate_declaration
  name: (identifier) @name) @definition.delegate

; positional record parameters are properties of the record
(record_declaration
  (parameter_list
    (parameter
      name: (identifier) @name) @definition.property))

; top-level statements (`Program.cs`): their local functions are the file's functions
(global_statement
  (local_function_statement
    name: (identifier) @name
    body: (_) @body) @definition.function)

; ---- definitions: members
(method_declaration
  name: (identifier) @name
  body: (_) @body) @definition.method
(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name
  body: (_) @body) @definition.constructor
(constructor_declaration
  name: (identifier) @name) @definition.constructor

; `~Order()`: a method named like its type
(destructor_declaration
  name: (identifier) @name
  body: (_) @body) @definition.method

; `operator +`: named by the operator token
(operator_declaration
  operator: _ @name
  body: (_) @body) @definition.method
(operator_declaration
  operator: _ @name) @definition.method

; `implicit operator decimal(Money m)`: named by the target type
(conversion_operator_declaration
  type: (_) @name
  body: (_) @body) @definition.method
(conversion_operator_declaration
  type: (_) @name) @definition.method

(property_declaration
  name: (identifier) @name
  accessors: (_) @body) @definition.property
(property_declaration
  name: (identifier) @name
  value: (arrow_expression_clause) @body) @definition.property

; `this[int index]`: a property named `this`
(indexer_declaration
  "this" @name
  accessors: (_) @body) @definition.property
(indexer_declaration
  "this" @name
  value: (_) @body) @definition.property

(event_declaration
  name: (identifier) @name
  accessors: (_) @body) @definition.event

; Fields, constants and field-like events. A declaration with one declarator is the
; definition itself (signature `private readonly List<OrderLine> _lines`, constants keep their
; value); with several declarators (`int a, b;`) each declarator is one (the declaration is its
; wrapper and owns modifiers, attributes and doc). A field initializer is the @body, so it stays
; out of the signature.
(field_declaration
  (modifier "const")
  (variable_declaration
    type: (_) .
    (variable_declarator name: (identifier) @name) .)
  ";" @body) @definition.constant
(field_declaration
  (modifier "const")
  (variable_declaration
    (variable_declarator name: (identifier) @name) @definition.constant
    .
    (variable_declarator)))
(field_declaration
  (modifier "const")
  (variable_declaration
    (variable_declarator)
    .
    (variable_declarator name: (identifier) @name) @definition.constant))

(field_declaration
  (variable_declaration
    type: (_) .
    (variable_declarator name: (identifier) @name . (_) @body) .)) @definition.field
(field_declaration
  (variable_declaration
    type: (_) .
    (variable_declarator name: (identifier) @name) .)
  ";" @body) @definition.field
(field_declaration
  (variable_declaration
    (variable_declarator name: (identifier) @name . (_) @body) @definition.field
    .
    (variable_declarator)))
(field_declaration
  (variable_declaration
    (variable_declarator)
    .
    (variable_declarator name: (identifier) @name . (_) @body) @definition.field))
(field_declaration
  (variable_declaration
    (variable_declarator name: (identifier) @name) @definition.field
    .
    (variable_declarator)))
(field_declaration
  (variable_declaration
    (variable_declarator)
    .
    (variable_declarator name: (identifier) @name) @definition.field))

(event_field_declaration
  (variable_declaration
    type: (_) .
    (variable_declarator name: (identifier) @name) .)
  ";" @body) @definition.event
(event_field_declaration
  (variable_declaration
    (variable_declarator name: (identifier) @name) @definition.event
    .
    (variable_declarator)))
(event_field_declaration
  (variable_declaration
    (variable_declarator)
    .
    (variable_declarator name: (identifier) @name) @definition.event))

; ---- declared types (receiver typing): return types, property, indexer and field types
((method_declaration returns: (_) @type) @typed
  (#not-eq? @type "void"))
((local_function_statement type: (_) @type) @typed
  (#not-eq? @type "void"))
(property_declaration type: (_) @type) @typed
(indexer_declaration type: (_) @type) @typed
(field_declaration (variable_declaration type: (_) @type)) @typed
(field_declaration (variable_declaration type: (_) @type (variable_declarator) @typed))
(record_declaration (parameter_list (parameter type: (_) @type) @typed))

; ---- bindings (receiver typing). Fields and properties are also bindings of their type (a
; bare `_repo` is `this._repo`); a `var` local is typed by its `new`, call, cast or `as`.
(parameter type: (_) @binding.type name: (identifier) @binding.name) @binding
(parameter !type name: (identifier) @binding.name) @binding
(implicit_parameter) @binding.name @binding
(property_declaration type: (_) @binding.type name: (identifier) @binding.name) @binding
(catch_declaration type: (_) @binding.type name: (identifier) @binding.name) @binding
(declaration_pattern type: (_) @binding.type name: (identifier) @binding.name) @binding
(tuple_pattern name: (identifier) @binding.name @binding)
((foreach_statement type: (_) @binding.type left: (identifier) @binding.name) @binding
  (#not-eq? @binding.type "var"))
(foreach_statement type: (implicit_type) left: (identifier) @binding.name) @binding
((declaration_expression type: (_) @binding.type name: (identifier) @binding.name) @binding
  (#not-eq? @binding.type "var"))
(declaration_expression type: (implicit_type) name: (identifier) @binding.name) @binding
; `Store s;`, `Store s = new Store()`, `IList<Store> all = new List<Store>()` (the declared
; type first, the created class when the declared type is not the repository's)
((variable_declaration
  type: (_) @binding.type
  (variable_declarator
    name: (identifier) @binding.name
    [
      (object_creation_expression type: [
        (identifier) @binding.value
        (qualified_name) @binding.value
        (alias_qualified_name) @binding.value
        (generic_name (identifier) @binding.value)])
      (invocation_expression function: [
        (identifier) @binding.value
        (generic_name (identifier) @binding.value)
        (member_access_expression name: (identifier)) @binding.value
        (conditional_access_expression (member_binding_expression name: (identifier))) @binding.value])
      (await_expression (invocation_expression function: [
        (identifier) @binding.value
        (generic_name (identifier) @binding.value)
        (member_access_expression name: (identifier)) @binding.value
        (conditional_access_expression (member_binding_expression name: (identifier))) @binding.value]))
    ]?) @binding)
  (#not-eq? @binding.type "var"))
; `var s = new Store()`, `var s = repo.Find(id)`, `var s = (Store)o`, `var s = o as Store`
(variable_declaration
  type: (implicit_type)
  (variable_declarator
    name: (identifier) @binding.name
    [
      (object_creation_expression type: [
        (identifier) @binding.value
        (qualified_name) @binding.value
        (alias_qualified_name) @binding.value
        (generic_name (identifier) @binding.value)])
      (invocation_expression function: [
        (identifier) @binding.value
        (generic_name (identifier) @binding.value)
        (member_access_expression name: (identifier)) @binding.value
        (conditional_access_expression (member_binding_expression name: (identifier))) @binding.value])
      (await_expression (invocation_expression function: [
        (identifier) @binding.value
        (generic_name (identifier) @binding.value)
        (member_access_expression name: (identifier)) @binding.value
        (conditional_access_expression (member_binding_expression name: (identifier))) @binding.value]))
      (cast_expression type: (_) @binding.type)
      (as_expression right: (_) @binding.type)
    ]?) @binding)

; ---- references: calls
((invocation_expression
  function: (identifier) @name) @reference.call
  (#not-eq? @name "nameof"))
(invocation_expression
  function: (generic_name (identifier) @name)) @reference.call
(invocation_expression
  function: (member_access_expression
    expression: _ @receiver
    name: [(identifier) @name (generic_name (identifier) @name)])) @reference.call
; `handler?.Invoke(...)`
(invocation_expression
  function: (conditional_access_expression
    condition: (_) @receiver
    (member_binding_expression
      name: [(identifier) @name (generic_name (identifier) @name)]))) @reference.call

; ---- references: instantiation
(object_creation_expression
  type: [(identifier) (generic_name) (qualified_name) (alias_qualified_name)] @name) @reference.instantiate

; ---- references: attributes
(attribute
  name: [(identifier) (generic_name) (qualified_name) (alias_qualified_name)] @name) @reference.decorate

; ---- references: base lists (base class and interfaces cannot be told apart syntactically,
; except in structs, which only implement interfaces)
(struct_declaration
  (base_list
    [(identifier) (generic_name) (qualified_name) (alias_qualified_name)] @name @reference.implement))
(record_declaration
  "struct"
  (base_list
    [(identifier) (generic_name) (qualified_name) (alias_qualified_name)] @name @reference.implement))
(class_declaration
  (base_list
    [(identifier) (generic_name) (qualified_name) (alias_qualified_name)] @name @reference.inherit))
(record_declaration
  (base_list
    [(identifier) (generic_name) (qualified_name) (alias_qualified_name)] @name @reference.inherit))
(interface_declaration
  (base_list
    [(identifier) (generic_name) (qualified_name) (alias_qualified_name)] @name @reference.inherit))
; `record Child(int X) : Parent(X)`
(base_list
  (primary_constructor_base_type
    type: [(identifier) (generic_name) (qualified_name) (alias_qualified_name)] @name) @reference.inherit)

; `int IComparable<Order>.CompareTo(...)`
(explicit_interface_specifier
  [(identifier) (generic_name) (qualified_name) (alias_qualified_name)] @name) @reference.implement

; ---- references: types, only in type positions (declared types, return types, type
; arguments, constraints, casts, typeof, patterns, catch clauses, nullable/array elements)
(_
  type: [(identifier) (generic_name) (qualified_name) (alias_qualified_name)] @name) @reference.type
(_
  returns: [(identifier) (generic_name) (qualified_name) (alias_qualified_name)] @name) @reference.type
(type_argument_list
  [(identifier) (generic_name) (qualified_name) (alias_qualified_name)] @name @reference.type)
(as_expression
  right: [(identifier) (generic_name) (qualified_name) (alias_qualified_name)] @name) @reference.type
(is_expression
  right: [(identifier) (generic_name) (qualified_name) (alias_qualified_name)] @name) @reference.type

; ---- imports
; `using System.Text;` brings every type of the namespace into scope, `using static X.Y;`
; every static member of the type: both are wildcard imports of their source.
(using_directive
  !name
  [(identifier) (qualified_name) (alias_qualified_name)] @import.source @import.wildcard) @import
; `using Json = System.Text.Json.JsonSerializer;` (a generic target `List<int>` imports `List`)
(using_directive
  name: (identifier) @import.alias
  (qualified_name
    qualifier: (_) @import.source
    name: [(identifier) @import.name (generic_name (identifier) @import.name)])) @import
(using_directive
  name: (identifier) @import.alias
  [(identifier) (generic_name) (alias_qualified_name)] @import.source) @import

; ---- type parameters: their names are in scope over the generic declaration (the list's parent)
(type_parameter_list (type_parameter name: (identifier) @generic.name)) @generic
