; Java: Sextant's own query. Definitions, references and imports.

; ---- package (the module prefix of every name in the file)
(package_declaration [(scoped_identifier) (identifier)] @package.name)

; ---- types
(class_declaration name: (identifier) @name body: (_) @body) @definition.class
(interface_declaration name: (identifier) @name body: (_) @body) @definition.interface
(annotation_type_declaration name: (identifier) @name body: (_) @body) @definition.interface
(enum_declaration name: (identifier) @name body: (_) @body) @definition.enum
(record_declaration name: (identifier) @name body: (_) @body) @definition.record

(enum_constant name: (identifier) @name) @definition.enum_member

; record components are the record's fields
(record_declaration
  parameters: (formal_parameters
    (formal_parameter name: (identifier) @name) @definition.field))

; ---- methods and constructors
(method_declaration name: (identifier) @name) @definition.method
(annotation_type_element_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name body: (_) @body) @definition.constructor
(compact_constructor_declaration name: (identifier) @name body: (_) @body) @definition.constructor

; ---- fields and constants
; `static final` fields are constants. A declaration with one declarator is the definition
; itself (its signature keeps the type); with several, each declarator is one definition and
; the declaration (a doc wrapper) lends it its Javadoc, modifiers and annotations.
((field_declaration
  (modifiers) @_mods
  type: (_) . declarator: (variable_declarator name: (identifier) @name) .) @definition.constant
  (#match? @_mods "(^|\\s)static(\\s|$)")
  (#match? @_mods "(^|\\s)final(\\s|$)"))
(field_declaration
  (modifiers) @_mods
  declarator: (variable_declarator name: (identifier) @name) @definition.constant
  . declarator: (variable_declarator)
  (#match? @_mods "(^|\\s)static(\\s|$)")
  (#match? @_mods "(^|\\s)final(\\s|$)"))
(field_declaration
  (modifiers) @_mods
  declarator: (variable_declarator)
  . declarator: (variable_declarator name: (identifier) @name) @definition.constant
  (#match? @_mods "(^|\\s)static(\\s|$)")
  (#match? @_mods "(^|\\s)final(\\s|$)"))

(field_declaration
  type: (_) . declarator: (variable_declarator name: (identifier) @name) .) @definition.field
(field_declaration
  declarator: (variable_declarator name: (identifier) @name) @definition.field
  . declarator: (variable_declarator))
(field_declaration
  declarator: (variable_declarator)
  . declarator: (variable_declarator name: (identifier) @name) @definition.field)

; interface fields are implicitly `static final`
(constant_declaration
  type: (_) . declarator: (variable_declarator name: (identifier) @name) .) @definition.constant
(constant_declaration
  declarator: (variable_declarator name: (identifier) @name) @definition.constant
  . declarator: (variable_declarator))
(constant_declaration
  declarator: (variable_declarator)
  . declarator: (variable_declarator name: (identifier) @name) @definition.constant)

; ---- declared types (receiver typing): return types of methods, types of fields and constants
((method_declaration type: (_) @type) @typed
  (#not-eq? @type "void"))
(annotation_type_element_declaration type: (_) @type) @typed
(field_declaration type: (_) @type) @typed
(field_declaration type: (_) @type declarator: (variable_declarator) @typed)
(constant_declaration type: (_) @type) @typed
(constant_declaration type: (_) @type declarator: (variable_declarator) @typed)
(record_declaration
  parameters: (formal_parameters (formal_parameter type: (_) @type) @typed))

; ---- bindings (receiver typing). A field is also a binding of its class (a bare `store`
; is `this.store`); a local declared with `var` is typed by its `new` or unqualified call.
(formal_parameter
  type: (_) @binding.type
  name: (identifier) @binding.name) @binding
(spread_parameter
  (variable_declarator name: (identifier) @binding.name)) @binding
(catch_formal_parameter
  (catch_type) @binding.type
  name: (identifier) @binding.name) @binding
(lambda_expression parameters: (identifier) @binding.name) @binding
(inferred_parameters (identifier) @binding.name @binding)
(instanceof_expression
  right: (_) @binding.type
  name: (identifier) @binding.name) @binding
(type_pattern (_) @binding.type . (identifier) @binding.name) @binding
((enhanced_for_statement
  type: (_) @binding.type
  name: (identifier) @binding.name) @binding
  (#not-eq? @binding.type "var"))
((enhanced_for_statement
  type: (_) @_var
  name: (identifier) @binding.name) @binding
  (#eq? @_var "var"))
((resource
  type: (_) @binding.type
  name: (identifier) @binding.name) @binding
  (#not-eq? @binding.type "var"))
; `Store s;`, `Store s = new Store()`, `List<Store> all = new ArrayList<>()` (the declared type
; first, the created class when the declared type is not the repository's)
((_
  type: (_) @binding.type
  declarator: (variable_declarator
    name: (identifier) @binding.name
    value: [
      (object_creation_expression type: [
        (type_identifier) @binding.value
        (scoped_type_identifier) @binding.value
        (generic_type [(type_identifier) (scoped_type_identifier)] @binding.value)])
      (method_invocation !object name: (identifier) @binding.value)
      (method_invocation object: (this) name: (identifier) @binding.value)
    ]?) @binding)
  (#not-eq? @binding.type "var"))
; `var s = new Store()`, `var s = make()`, `var s = "x"`
((local_variable_declaration
  type: (_) @_var
  declarator: (variable_declarator
    name: (identifier) @binding.name
    value: [
      (object_creation_expression type: [
        (type_identifier) @binding.value
        (scoped_type_identifier) @binding.value
        (generic_type [(type_identifier) (scoped_type_identifier)] @binding.value)])
      (method_invocation !object name: (identifier) @binding.value)
      (method_invocation object: (this) name: (identifier) @binding.value)
      ; `var s = factory.make()`: the whole call (the resolver takes its callee)
      (method_invocation object: [(identifier) (field_access) (method_invocation)]) @binding.value
    ]?) @binding)
  (#eq? @_var "var"))

; ---- references: calls
(method_invocation
  object: (_) @receiver
  name: (identifier) @name) @reference.call
(method_invocation
  name: (identifier) @name) @reference.call

; `this::load`, `Entity::getId` (the method is passed, then called)
(method_reference (_) @receiver . (identifier) @name .) @reference.call
; `ArrayList::new`
(method_reference
  . [(identifier) (type_identifier) (scoped_type_identifier)] @name
  . "::" . "new") @reference.instantiate
(method_reference
  . (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  . "::" . "new") @reference.instantiate

; ---- references: instantiation
(object_creation_expression
  type: [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ]) @reference.instantiate

; ---- references: annotations
(marker_annotation name: [(identifier) (scoped_identifier)] @name) @reference.decorate
(annotation name: [(identifier) (scoped_identifier)] @name) @reference.decorate

; ---- references: inheritance
(superclass [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ]) @reference.inherit
(super_interfaces (type_list [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ])) @reference.implement
(extends_interfaces (type_list [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ])) @reference.inherit

; ---- references: types, wherever a type is written. A qualified type (`Map.Entry`,
; `java.util.List`) is one reference: its last segment, the rest as receiver. Type parameters
; are not references (`@generic` below).
((_ type: [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ]) @reference.type
  (#not-eq? @name "var"))
(instanceof_expression right: [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ]) @reference.type
(array_type element: [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ]) @reference.type
(type_arguments [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ]) @reference.type
(type_list [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ]) @reference.type
(type_bound [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ]) @reference.type
(throws [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ]) @reference.type
(catch_type [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ]) @reference.type
(class_literal [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ]) @reference.type
(wildcard [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ]) @reference.type
(annotated_type [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ]) @reference.type
(type_pattern [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ]) @reference.type
(record_pattern_component [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ]) @reference.type
(spread_parameter [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ]) @reference.type

; ---- imports
; `import java.util.List;`, `import static java.util.Objects.requireNonNull;`
(import_declaration
  (scoped_identifier
    scope: (_) @import.source
    name: (identifier) @import.name) .) @import
; `import java.util.*;`, `import static org.junit.Assert.*;`
(import_declaration
  [(scoped_identifier) (identifier)] @import.source
  (asterisk) @import.wildcard) @import

; ---- type parameters: their names are in scope over the generic declaration (the list's parent)
(type_parameters (type_parameter (type_identifier) @generic.name)) @generic
