; C: Sextant's own query. Definitions, references, imports.
;
; How declarations are captured:
; - A declaration with one declarator is captured whole (its signature is the whole declaration).
;   With several (`int a, b;`), or when its type is a named struct with a body
;   (`struct point {...} origin;`, whose struct is its own definition), each declarator is captured
;   and the enclosing declaration is a [doc] wrapper, so docs and specifiers still come from it.
; - A definition capture without @name is dropped by the extractor after deduplication, where the
;   first pattern matching a node wins. The first patterns below use that to say what is NOT a
;   definition: local declarations (also inside `#if` blocks in function bodies), include guards,
;   whole declarations that are captured per declarator, K&R parameter declarations.

; ---- not definitions
(compound_statement (declaration) @definition.variable)
(compound_statement (declaration declarator: (_) @definition.variable))
(compound_statement (_ (declaration) @definition.variable))
(compound_statement (_ (declaration declarator: (_) @definition.variable)))
(compound_statement (_ (_ (declaration) @definition.variable)))
(compound_statement (_ (_ (declaration declarator: (_) @definition.variable))))
(compound_statement (_ (_ (_ (declaration) @definition.variable))))
(compound_statement (_ (_ (_ (declaration declarator: (_) @definition.variable)))))
(function_definition (declaration) @definition.variable)
(function_definition (declaration declarator: (_) @definition.variable))
(declaration declarator: (_) declarator: (_)) @definition.variable
(declaration type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_))]) @definition.variable
(field_declaration declarator: (_) declarator: (_)) @definition.field
(field_declaration type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_))]) @definition.field
(type_definition declarator: (_) declarator: (_)) @definition.type_alias
(type_definition type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_))]) @definition.type_alias
(preproc_ifdef
  name: (identifier) @_guard
  (preproc_def name: (identifier) @_macro !value) @definition.macro
  (#eq? @_macro @_guard))
(preproc_ifdef
  name: (identifier) @_guard
  (preproc_def name: (identifier) @_macro) @definition.macro
  (#eq? @_macro @_guard)
  (#match? @_macro "_(H|HH|HPP|HXX|H_|HPP_|INCLUDED|INCLUDED_)$"))

; ---- functions: definitions and prototypes (`char *name(void)`, `static inline`)
(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (_ (function_declarator declarator: (identifier) @name))
    (_ (_ (function_declarator declarator: (identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (_ (function_declarator declarator: (identifier) @name))))
  ]
  body: (_)? @body) @definition.function

(declaration
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (_ (function_declarator declarator: (identifier) @name))
    (_ (_ (function_declarator declarator: (identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (_ (function_declarator declarator: (identifier) @name))))
  ]) @definition.function

; ---- types
(struct_specifier name: (type_identifier) @name body: (_) @body) @definition.struct
(union_specifier name: (type_identifier) @name body: (_) @body) @definition.union
(enum_specifier name: (type_identifier) @name body: (_) @body) @definition.enum
(enumerator name: (identifier) @name) @definition.enum_member

; ---- type aliases (`typedef struct {...} name;` is one alias, its members nest under it)
(type_definition declarator: [
    (type_identifier) @name
    (_ declarator: (type_identifier) @name)
    (_ declarator: (_ declarator: (type_identifier) @name))
    (_ declarator: (parenthesized_declarator (_ declarator: (type_identifier) @name)))
    (_ declarator: (_ declarator: (parenthesized_declarator (_ declarator: (type_identifier) @name))))
    (primitive_type) @name
  ]) @definition.type_alias

(type_definition declarator: (_) declarator: [
    (type_identifier) @name
    (_ declarator: (type_identifier) @name)
    (_ declarator: (_ declarator: (type_identifier) @name))
    (_ declarator: (parenthesized_declarator (_ declarator: (type_identifier) @name)))
    (_ declarator: (_ declarator: (parenthesized_declarator (_ declarator: (type_identifier) @name))))
    (primitive_type) @name
  ] @definition.type_alias)

(type_definition declarator: [
    (type_identifier) @name
    (_ declarator: (type_identifier) @name)
    (_ declarator: (_ declarator: (type_identifier) @name))
    (_ declarator: (parenthesized_declarator (_ declarator: (type_identifier) @name)))
    (_ declarator: (_ declarator: (parenthesized_declarator (_ declarator: (type_identifier) @name))))
    (primitive_type) @name
  ] @definition.type_alias declarator: (_))

(type_definition type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_))] declarator: [
    (type_identifier) @name
    (_ declarator: (type_identifier) @name)
    (_ declarator: (_ declarator: (type_identifier) @name))
    (_ declarator: (parenthesized_declarator (_ declarator: (type_identifier) @name)))
    (_ declarator: (_ declarator: (parenthesized_declarator (_ declarator: (type_identifier) @name))))
    (primitive_type) @name
  ] @definition.type_alias)

; ---- fields (an anonymous struct's members nest under the field or variable it types)
(field_declaration declarator: [
    (field_identifier) @name
    (_ declarator: (field_identifier) @name)
    (_ declarator: (_ declarator: (field_identifier) @name))
    (_ declarator: (parenthesized_declarator (_ declarator: (field_identifier) @name)))
    (_ declarator: (_ declarator: (parenthesized_declarator (_ declarator: (field_identifier) @name))))
  ]) @definition.field

(field_declaration declarator: (_) declarator: [
    (field_identifier) @name
    (_ declarator: (field_identifier) @name)
    (_ declarator: (_ declarator: (field_identifier) @name))
    (_ declarator: (parenthesized_declarator (_ declarator: (field_identifier) @name)))
    (_ declarator: (_ declarator: (parenthesized_declarator (_ declarator: (field_identifier) @name))))
  ] @definition.field)

(field_declaration declarator: [
    (field_identifier) @name
    (_ declarator: (field_identifier) @name)
    (_ declarator: (_ declarator: (field_identifier) @name))
    (_ declarator: (parenthesized_declarator (_ declarator: (field_identifier) @name)))
    (_ declarator: (_ declarator: (parenthesized_declarator (_ declarator: (field_identifier) @name))))
  ] @definition.field declarator: (_))

(field_declaration type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_))] declarator: [
    (field_identifier) @name
    (_ declarator: (field_identifier) @name)
    (_ declarator: (_ declarator: (field_identifier) @name))
    (_ declarator: (parenthesized_declarator (_ declarator: (field_identifier) @name)))
    (_ declarator: (_ declarator: (parenthesized_declarator (_ declarator: (field_identifier) @name))))
  ] @definition.field)

; ---- variables and constants at file level (locals are excluded above)
(declaration
  (type_qualifier) @_const
  declarator: [
    (identifier) @name (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])
  ]
  (#any-of? @_const "const" "constexpr")) @definition.constant

(declaration
  declarator: [
    (pointer_declarator (type_qualifier) @_const declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])
    (init_declarator declarator: (pointer_declarator (type_qualifier) @_const declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)]))
  ]
  (#eq? @_const "const")) @definition.constant

(declaration declarator: [
    (identifier) @name
    (_ declarator: (identifier) @name)
    (_ declarator: (_ declarator: (identifier) @name))
    (_ declarator: (parenthesized_declarator (_ declarator: (identifier) @name)))
    (_ declarator: (_ declarator: (parenthesized_declarator (_ declarator: (identifier) @name))))
  ]) @definition.variable

(declaration declarator: (_) declarator: [
    (identifier) @name
    (_ declarator: (identifier) @name)
    (_ declarator: (_ declarator: (identifier) @name))
    (_ declarator: (parenthesized_declarator (_ declarator: (identifier) @name)))
    (_ declarator: (_ declarator: (parenthesized_declarator (_ declarator: (identifier) @name))))
  ] @definition.variable)

(declaration declarator: [
    (identifier) @name
    (_ declarator: (identifier) @name)
    (_ declarator: (_ declarator: (identifier) @name))
    (_ declarator: (parenthesized_declarator (_ declarator: (identifier) @name)))
    (_ declarator: (_ declarator: (parenthesized_declarator (_ declarator: (identifier) @name))))
  ] @definition.variable declarator: (_))

(declaration type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_))] declarator: [
    (identifier) @name
    (_ declarator: (identifier) @name)
    (_ declarator: (_ declarator: (identifier) @name))
    (_ declarator: (parenthesized_declarator (_ declarator: (identifier) @name)))
    (_ declarator: (_ declarator: (parenthesized_declarator (_ declarator: (identifier) @name))))
  ] @definition.variable)

; ---- macros
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name value: (_)? @body) @definition.macro

; ---- references
(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (field_expression argument: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression
  function: (parenthesized_expression (pointer_expression argument: (identifier) @name))) @reference.call

(type_identifier) @name @reference.type

; ---- imports: #include "x.h" and #include <x.h>
(preproc_include path: (_) @import.source) @import
