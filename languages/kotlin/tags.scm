; Kotlin (tree-sitter-kotlin-ng): Sextant's own query. Definitions, references and imports.

; ---- package (the module prefix of every name in the file)
(package_header (qualified_identifier) @package.name)

; ---- types
; `interface I`, `fun interface I`
(class_declaration "interface" name: (identifier) @name (class_body)? @body) @definition.interface
; `enum class E`
(class_declaration
  (modifiers (class_modifier "enum"))
  name: (identifier) @name
  (enum_class_body)? @body) @definition.enum
; `class`, `data class`, `sealed class`, `abstract class`, `open class`, `annotation class`
(class_declaration
  name: (identifier) @name
  [(class_body) (enum_class_body)] @body) @definition.class
(class_declaration name: (identifier) @name) @definition.class

; `object O`: a singleton class
(object_declaration name: (identifier) @name (class_body) @body) @definition.class
(object_declaration name: (identifier) @name) @definition.class
; `companion object Factory`; an unnamed companion object is named by its `companion` keyword
(companion_object name: (identifier) @name (class_body)? @body) @definition.class
(companion_object "companion" @name (class_body)? @body) @definition.class

(enum_class_body (enum_entry (identifier) @name (class_body)? @body) @definition.enum_member)

(type_alias type: (identifier) @name) @definition.type_alias

; ---- functions (members, top level, extensions; never local functions)
; `fun String.shout()`: the receiver type owns the extension
(source_file
  (function_declaration
    [(user_type) (nullable_type) (parenthesized_type)] @owner
    . "." . name: (identifier) @name
    (function_body)? @body) @definition.method)
(class_body
  (function_declaration
    [(user_type) (nullable_type) (parenthesized_type)] @owner
    . "." . name: (identifier) @name
    (function_body)? @body) @definition.method)
(enum_class_body
  (function_declaration
    [(user_type) (nullable_type) (parenthesized_type)] @owner
    . "." . name: (identifier) @name
    (function_body)? @body) @definition.method)

(source_file
  (function_declaration name: (identifier) @name (function_body)? @body) @definition.function)
(class_body
  (function_declaration name: (identifier) @name (function_body)? @body) @definition.method)
(enum_class_body
  (function_declaration name: (identifier) @name (function_body)? @body) @definition.method)

; `constructor(db: Database) : this(db, clock)` is named by its keyword
(secondary_constructor "constructor" @name (block)? @body) @definition.constructor

; ---- properties (never local `val`s inside function bodies)
; `val String.lastChar: Char get() = ...`: an extension property
(source_file
  (property_declaration
    [(user_type) (nullable_type) (parenthesized_type)] @owner
    . "." . (variable_declaration (identifier) @name)) @definition.property)
(class_body
  (property_declaration
    [(user_type) (nullable_type) (parenthesized_type)] @owner
    . "." . (variable_declaration (identifier) @name)) @definition.property)
(enum_class_body
  (property_declaration
    [(user_type) (nullable_type) (parenthesized_type)] @owner
    . "." . (variable_declaration (identifier) @name)) @definition.property)

; `const val` is a constant wherever it is
(source_file
  (property_declaration
    (modifiers (property_modifier "const"))
    (variable_declaration (identifier) @name)) @definition.constant)
(class_body
  (property_declaration
    (modifiers (property_modifier "const"))
    (variable_declaration (identifier) @name)) @definition.constant)
(enum_class_body
  (property_declaration
    (modifiers (property_modifier "const"))
    (variable_declaration (identifier) @name)) @definition.constant)
(source_file
  (property_declaration (variable_declaration (identifier) @name)) @definition.variable)
(class_body
  (property_declaration (variable_declaration (identifier) @name)) @definition.property)
(enum_class_body
  (property_declaration (variable_declaration (identifier) @name)) @definition.property)

; primary constructor parameters declared with `val`/`var` are properties
(class_parameters
  (class_parameter ["val" "var"] (identifier) @name) @definition.property)

; ---- declared types (receiver typing): return types of functions, types of properties
((function_declaration (function_value_parameters) . [(user_type) (nullable_type) (non_nullable_type) (function_type) (parenthesized_type) "dynamic"] @type) @typed
  (#not-eq? @type "Unit"))
(property_declaration (variable_declaration (identifier) . [(user_type) (nullable_type) (non_nullable_type) (function_type) (parenthesized_type) "dynamic"] @type)) @typed
(class_parameter (identifier) . [(user_type) (nullable_type) (non_nullable_type) (function_type) (parenthesized_type) "dynamic"] @type) @typed

; ---- bindings (receiver typing). Properties and constructor parameters are also bindings of
; their class (a bare `db` is `this.db`); an untyped `val` is typed by its call (`Store()`,
; `factory.make()`) or its `as` cast. An extension property (`val Order.isLarge`) binds no name:
; its name must follow `val`/`var` directly.
(parameter (identifier) @binding.name . [(user_type) (nullable_type) (non_nullable_type) (function_type) (parenthesized_type) "dynamic"] @binding.type) @binding
(class_parameter (identifier) @binding.name . [(user_type) (nullable_type) (non_nullable_type) (function_type) (parenthesized_type) "dynamic"] @binding.type) @binding
(catch_block (identifier) @binding.name . [(user_type) (nullable_type) (non_nullable_type) (function_type) (parenthesized_type) "dynamic"] @binding.type) @binding
(lambda_parameters (variable_declaration (identifier) @binding.name . [(user_type) (nullable_type) (non_nullable_type) (function_type) (parenthesized_type) "dynamic"] @binding.type) @binding)
(lambda_parameters (variable_declaration (identifier) @binding.name .) @binding)
(multi_variable_declaration (variable_declaration (identifier) @binding.name . [(user_type) (nullable_type) (non_nullable_type) (function_type) (parenthesized_type) "dynamic"] @binding.type) @binding)
(multi_variable_declaration (variable_declaration (identifier) @binding.name .) @binding)
(for_statement (variable_declaration (identifier) @binding.name . [(user_type) (nullable_type) (non_nullable_type) (function_type) (parenthesized_type) "dynamic"] @binding.type)) @binding
(for_statement (variable_declaration (identifier) @binding.name .)) @binding
; `val s: Store = ...`, `lateinit var s: Store`, `val all: List<Store> = ArrayList()` (the declared
; type first, the called class when the declared type is not the repository's)
(property_declaration
  ["val" "var"] . (variable_declaration (identifier) @binding.name . [(user_type) (nullable_type) (non_nullable_type) (function_type) (parenthesized_type) "dynamic"] @binding.type)
  (call_expression . [(identifier) (navigation_expression)] @binding.value)?) @binding
(when_subject
  (variable_declaration (identifier) @binding.name . [(user_type) (nullable_type) (non_nullable_type) (function_type) (parenthesized_type) "dynamic"] @binding.type)) @binding
; `val s = Store()`, `val s = factory.make()`, `val s = o as Store`, `val s = "x"`
(property_declaration
  ["val" "var"] . (variable_declaration (identifier) @binding.name .)
  [
    (call_expression . [(identifier) (navigation_expression)] @binding.value)
    (as_expression right: [(user_type) (nullable_type) (non_nullable_type) (function_type) (parenthesized_type) "dynamic"] @binding.type)
  ]?) @binding
(when_subject
  (variable_declaration (identifier) @binding.name .)
  [
    (call_expression . [(identifier) (navigation_expression)] @binding.value)
    (as_expression right: [(user_type) (nullable_type) (non_nullable_type) (function_type) (parenthesized_type) "dynamic"] @binding.type)
  ]?) @binding

; ---- references: calls
; `repo.find(id)`, `this.listener.invoke(x)`, `db.query(id)?.let { }`
(call_expression
  (navigation_expression
    . (_) @receiver
    (identifier) @name .)) @reference.call
; `save(x)`, `SystemClock()` (a constructor call reads like any call), `listOf<Int>()`
(call_expression . (identifier) @name) @reference.call
; `::println`, `Repo::find`, `this::handle`
(callable_reference
  [(user_type) (identifier) (nullable_type)] @receiver
  . "::" . (identifier) @name) @reference.call
(callable_reference . "::" . (identifier) @name) @reference.call
; `Order::total` parses as a navigation with `::`
(navigation_expression
  . (_) @receiver
  . "::" . (identifier) @name .) @reference.call

; ---- references: annotations
(annotation (user_type) @name) @reference.decorate
(annotation (constructor_invocation (user_type) @name)) @reference.decorate
(file_annotation (user_type) @name) @reference.decorate
(file_annotation (constructor_invocation (user_type) @name)) @reference.decorate

; ---- references: supertypes (`: Base(x), Iface, Other by delegate`)
(delegation_specifier (constructor_invocation (user_type) @name)) @reference.inherit
(delegation_specifier (user_type) @name) @reference.inherit
(delegation_specifier (explicit_delegation (user_type) @name)) @reference.inherit

; ---- references: types. A qualified type (`Event.Placed`) is one reference: its last
; segment, the rest as receiver. Type parameters are not references (`@generic` below).
(user_type) @name @reference.type

; ---- imports: the path is kept whole and binds its last segment (or the alias)
; `import a.b.C`, `import a.b.C as D`
(import (qualified_identifier) @import.source . (identifier) @import.alias) @import
((import (qualified_identifier) @import.source .) @import
  (#not-match? @import "\\*$"))
; `import a.b.*`
(import (qualified_identifier) @import.source "*" @import.wildcard) @import

; ---- type parameters: their names are in scope over the generic declaration (the list's parent)
(type_parameters (type_parameter (identifier) @generic.name)) @generic
