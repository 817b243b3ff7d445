; TypeScript: Sextant's own query for what JavaScript lacks. The javascript query is appended
; after this one (`inherits`), so patterns here win over the generic JavaScript ones.

; ---- types
(abstract_class_declaration name: (_) @name body: (_) @body) @definition.class
(interface_declaration name: (_) @name body: (_) @body) @definition.interface
(type_alias_declaration name: (_) @name) @definition.type_alias
(enum_declaration name: (_) @name body: (_) @body) @definition.enum

(enum_body name: (property_identifier) @name @definition.enum_member)
(enum_body name: (string (string_fragment) @name) @definition.enum_member)
(enum_assignment name: (property_identifier) @name) @definition.enum_member
(enum_assignment name: (string (string_fragment) @name)) @definition.enum_member

; ---- namespaces and modules
(internal_module name: (_) @name body: (_) @body) @definition.namespace
(module name: (string (string_fragment) @name) body: (_) @body) @definition.module
(module name: [(identifier) (nested_identifier)] @name body: (_) @body) @definition.module

; ---- members of interfaces and object type aliases
(interface_body (method_signature name: (_) @name) @definition.function)
(interface_body (property_signature name: (_) @name) @definition.property)
(type_alias_declaration
  value: (object_type (method_signature name: (_) @name) @definition.function))
(type_alias_declaration
  value: (object_type (property_signature name: (_) @name) @definition.property))

; ---- class members
(abstract_method_signature name: (_) @name) @definition.function
; overload signatures written in a class body
(class_body (method_signature name: (_) @name) @definition.function)
; fields holding a function (`handle = async () => {}`) are methods
(public_field_definition
  name: (_) @name
  value: [
    (arrow_function body: (_) @body)
    (function_expression body: (_) @body)
  ]) @definition.function
(public_field_definition name: (_) @name) @definition.variable

; ---- functions: overloads and `declare function`
(function_signature name: (identifier) @name) @definition.function

; ---- variables of namespaces and modules (`namespace X { export const y = 1 }`)
(internal_module
  body: (statement_block
    (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.function)))
(internal_module
  body: (statement_block
    (export_statement
      declaration: (lexical_declaration
        (variable_declarator
          name: (identifier) @name
          value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.function))))
(internal_module
  body: (statement_block
    (lexical_declaration
      (variable_declarator name: (identifier) @name) @definition.variable)))
(internal_module
  body: (statement_block
    (export_statement
      declaration: (lexical_declaration
        (variable_declarator name: (identifier) @name) @definition.variable))))
(module
  body: (statement_block
    (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.function)))
(module
  body: (statement_block
    (export_statement
      declaration: (lexical_declaration
        (variable_declarator
          name: (identifier) @name
          value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.function))))
(module
  body: (statement_block
    (lexical_declaration
      (variable_declarator name: (identifier) @name) @definition.variable)))
(module
  body: (statement_block
    (export_statement
      declaration: (lexical_declaration
        (variable_declarator name: (identifier) @name) @definition.variable))))
; `declare const x: T`, `declare global { ... }`
(program
  (ambient_declaration
    (lexical_declaration
      (variable_declarator name: (identifier) @name) @definition.variable)))
(program
  (export_statement
    declaration: (ambient_declaration
      (lexical_declaration
        (variable_declarator name: (identifier) @name) @definition.variable))))
(ambient_declaration
  (statement_block
    (lexical_declaration
      (variable_declarator name: (identifier) @name) @definition.variable)))

; ---- inheritance
(extends_clause value: (identifier) @name @reference.inherit)
(extends_clause
  value: (member_expression object: (_) @receiver property: (property_identifier) @name) @reference.inherit)

(implements_clause (type_identifier) @name @reference.implement)
(implements_clause (generic_type name: (type_identifier) @name) @reference.implement)
(implements_clause
  (nested_type_identifier module: (_) @receiver name: (type_identifier) @name) @reference.implement)
(implements_clause
  (generic_type
    name: (nested_type_identifier module: (_) @receiver name: (type_identifier) @name)) @reference.implement)

(extends_type_clause type: (type_identifier) @name @reference.inherit)
(extends_type_clause type: (generic_type name: (type_identifier) @name) @reference.inherit)
(extends_type_clause
  type: (nested_type_identifier module: (_) @receiver name: (type_identifier) @name) @reference.inherit)
(extends_type_clause
  type: (generic_type
    name: (nested_type_identifier module: (_) @receiver name: (type_identifier) @name)) @reference.inherit)

; ---- type references (not the declared names of type parameters, mapped keys or `infer X`)
(nested_type_identifier module: (_) @receiver name: (type_identifier) @name) @reference.type
; every other type name written anywhere: the names a declaration gives are definitions (or type
; parameters, dropped by @generic below), and a more specific pattern above takes its node first
(type_identifier) @name @reference.type

; ---- names read as values (TypeScript expressions)
(as_expression (identifier) @name @reference.read)
(satisfies_expression (identifier) @name @reference.read)
(non_null_expression (identifier) @name @reference.read)
(type_query (identifier) @name @reference.read)
(type_query (member_expression object: (_) @receiver property: (property_identifier) @name) @reference.read)

; ---- declared types of the definitions the shared javascript patterns describe
(function_declaration return_type: (type_annotation (_) @type)) @typed
(function_signature return_type: (type_annotation (_) @type)) @typed
(method_definition return_type: (type_annotation (_) @type)) @typed
(method_signature return_type: (type_annotation (_) @type)) @typed
(abstract_method_signature return_type: (type_annotation (_) @type)) @typed
(public_field_definition type: (type_annotation (_) @type)) @typed
(property_signature type: (type_annotation (_) @type)) @typed
(variable_declarator type: (type_annotation (_) @type)) @typed

; ---- bindings: typed parameters and variables, untyped parameters as local names
(required_parameter pattern: (identifier) @binding.name type: (type_annotation (_) @binding.type)) @binding
(optional_parameter pattern: (identifier) @binding.name type: (type_annotation (_) @binding.type)) @binding
(required_parameter pattern: (identifier) @binding.name) @binding
; a parameter's default value (`limit = DEFAULT_LIMIT`) reads a name
(required_parameter value: (identifier) @name @reference.read)
(optional_parameter value: (identifier) @name @reference.read)
(optional_parameter pattern: (identifier) @binding.name) @binding
(variable_declarator name: (identifier) @binding.name type: (type_annotation (_) @binding.type)) @binding

; ---- type parameters: their names are in scope over the generic declaration (the list's parent),
; a mapped type's key over its index signature, `infer U` over the innermost conditional type
(type_parameters (type_parameter name: (type_identifier) @generic.name)) @generic
(mapped_type_clause name: (type_identifier) @generic.name) @generic
(infer_type (type_identifier) @generic.name)
(conditional_type) @generic.scope

; ---- imports
; import fs = require('fs')
(import_statement
  (import_require_clause (identifier) @import.alias source: (_) @import.source)) @import
