; C: Sextant's own query. Definitions, references and #include imports.
;
; Layout notes:
; - A declaration with ONE declarator is captured whole (signature = the whole declaration); a
;   declaration with several (`int a, b;`) is captured per declarator, its `declaration` parent being
;   a [doc] wrapper so docs, visibility and modifiers still come from it.
; - Captures without @name are dropped by the extractor after "first pattern wins" deduplication:
;   the first patterns below use that to keep local declarations (also those inside `#if` blocks in
;   function bodies), K&R parameter declarations and include guards out of the definitions.

; ---- suppressed: locals, K&R parameter declarations, include guards

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
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))))
  ]
  body: (_) @body) @definition.function

(declaration
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))))
  ]) @definition.function

; ---- types
(struct_specifier name: (type_identifier) @name body: (_) @body) @definition.struct
(union_specifier name: (type_identifier) @name body: (_) @body) @definition.union
(enum_specifier name: (type_identifier) @name body: (_) @body) @definition.enum
(enumerator name: (identifier) @name) @definition.enum_member

; typedef of a named struct/union/enum with a body: the alias is its declarator, so the
; struct keeps its own name and members
(type_definition
  type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_))]
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (type_identifier) @name))
    (array_declarator declarator: (type_identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (type_identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (type_identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (type_identifier) @name))))
    (primitive_type) @name
    (function_declarator declarator: (type_identifier) @name)
  ] @definition.type_alias)

; any other typedef, including `typedef struct { ... } name;` (members nest under the alias)
(type_definition
  type: [(primitive_type) (type_identifier) (sized_type_specifier) (macro_type_specifier) (struct_specifier !body) (struct_specifier !name) (union_specifier !body) (union_specifier !name) (enum_specifier !body) (enum_specifier !name)]
  .
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (type_identifier) @name))
    (array_declarator declarator: (type_identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (type_identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (type_identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (type_identifier) @name))))
    (primitive_type) @name
    (function_declarator declarator: (type_identifier) @name)
  ]
  .) @definition.type_alias

; several names in one typedef (`typedef struct foo foo_t, *foo_p;`): each declarator
(type_definition
  declarator: (_)
  .
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (type_identifier) @name))
    (array_declarator declarator: (type_identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (type_identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (type_identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (type_identifier) @name))))
    (primitive_type) @name
    (function_declarator declarator: (type_identifier) @name)
  ] @definition.type_alias)

(type_definition
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (type_identifier) @name))
    (array_declarator declarator: (type_identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (type_identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (type_identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (type_identifier) @name))))
    (primitive_type) @name
    (function_declarator declarator: (type_identifier) @name)
  ] @definition.type_alias
  .
  declarator: (_))

; ---- fields (one declarator: the whole field_declaration, so an anonymous struct's members nest
;      under the field; several declarators, or a named struct type with a body: each declarator)
(field_declaration
  [(primitive_type) (type_identifier) (sized_type_specifier) (macro_type_specifier) (struct_specifier !body) (union_specifier !body) (enum_specifier !body) (struct_specifier !name) (union_specifier !name) (enum_specifier !name) (type_qualifier) (storage_class_specifier) (attribute_specifier) (attribute_declaration) (ms_declspec_modifier)]
  .
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (array_declarator declarator: (field_identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))))
  ]
  .) @definition.field

(field_declaration
  [(primitive_type) (type_identifier) (sized_type_specifier) (macro_type_specifier) (struct_specifier !body) (union_specifier !body) (enum_specifier !body) (struct_specifier !name) (union_specifier !name) (enum_specifier !name) (type_qualifier) (storage_class_specifier) (attribute_specifier) (attribute_declaration) (ms_declspec_modifier)]
  .
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (array_declarator declarator: (field_identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))))
  ]
  .
  (bitfield_clause)
  .) @definition.field

(field_declaration
  declarator: (_)
  .
  (bitfield_clause)?
  .
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (array_declarator declarator: (field_identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))))
  ] @definition.field)

(field_declaration
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (array_declarator declarator: (field_identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))))
  ] @definition.field
  .
  (bitfield_clause)?
  .
  declarator: (_))

(field_declaration
  type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_))]
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (array_declarator declarator: (field_identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))))
  ] @definition.field)

; ---- global variables and constants (locals are suppressed above)
(declaration
  (type_qualifier) @_const
  [(primitive_type) (type_identifier) (sized_type_specifier) (macro_type_specifier) (struct_specifier !body) (union_specifier !body) (enum_specifier !body) (struct_specifier !name) (union_specifier !name) (enum_specifier !name) (type_qualifier) (storage_class_specifier) (attribute_specifier) (attribute_declaration) (ms_declspec_modifier)]
  .
  declarator: [
    (identifier) @name
    (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: [
      (identifier) @name
      (array_declarator declarator: (identifier) @name)
    ])
  ]
  .
  (#any-of? @_const "const" "constexpr")) @definition.constant

(declaration
  [(primitive_type) (type_identifier) (sized_type_specifier) (macro_type_specifier) (struct_specifier !body) (union_specifier !body) (enum_specifier !body) (struct_specifier !name) (union_specifier !name) (enum_specifier !name) (type_qualifier) (storage_class_specifier) (attribute_specifier) (attribute_declaration) (ms_declspec_modifier)]
  .
  declarator: [
    (pointer_declarator (type_qualifier) @_const declarator: (identifier) @name)
    (pointer_declarator (type_qualifier) @_const declarator: (array_declarator declarator: (identifier) @name))
    (init_declarator declarator: [
      (pointer_declarator (type_qualifier) @_const declarator: (identifier) @name)
      (pointer_declarator (type_qualifier) @_const declarator: (array_declarator declarator: (identifier) @name))
    ])
  ]
  .
  (#eq? @_const "const")) @definition.constant

(declaration
  [(primitive_type) (type_identifier) (sized_type_specifier) (macro_type_specifier) (struct_specifier !body) (union_specifier !body) (enum_specifier !body) (struct_specifier !name) (union_specifier !name) (enum_specifier !name) (type_qualifier) (storage_class_specifier) (attribute_specifier) (attribute_declaration) (ms_declspec_modifier)]
  .
  declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (array_declarator declarator: (identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))))
    (init_declarator declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
      (array_declarator declarator: (identifier) @name)
      (array_declarator declarator: (array_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))))
    ])
  ]
  .) @definition.variable

(declaration
  declarator: (_)
  .
  declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (array_declarator declarator: (identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))))
    (init_declarator declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
      (array_declarator declarator: (identifier) @name)
      (array_declarator declarator: (array_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))))
    ])
  ] @definition.variable)

(declaration
  declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (array_declarator declarator: (identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))))
    (init_declarator declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
      (array_declarator declarator: (identifier) @name)
      (array_declarator declarator: (array_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))))
    ])
  ] @definition.variable
  .
  declarator: (_))

(declaration
  type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_))]
  declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (array_declarator declarator: (identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))))
    (init_declarator declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
      (array_declarator declarator: (identifier) @name)
      (array_declarator declarator: (array_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))))
    ])
  ] @definition.variable)

; ---- macros
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name value: (_) @body) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; ---- references
(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (field_expression argument: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression
  function: (parenthesized_expression (pointer_expression argument: (identifier) @name))) @reference.call

(type_identifier) @name @reference.type

; ---- imports: #include "x.h" and #include <x.h>
(preproc_include path: (_) @import.source) @import
