; C++: Sextant's own query (complete, not inheriting C). Definitions, references, imports.
;
; Layout notes:
; - A declaration with ONE declarator is captured whole (signature = the whole declaration); a
;   declaration with several (`int a, b;`) is captured per declarator, its `declaration` /
;   `field_declaration` parent being a [doc] wrapper so docs, specifiers and access labels still
;   come from it.
; - Captures without @name are dropped by the extractor after "first pattern wins" deduplication:
;   the first patterns below use that to keep local declarations (also those inside `#if` blocks in
;   function bodies), friend declarations and include guards out of the definitions.
; - Out-of-line members (`void Shape::draw() {}`, `Shape::Shape()`) carry the class as @owner, so
;   they are qualified `Shape::draw` and become methods/constructors.

; ---- suppressed: locals, friend declarations, include guards

(compound_statement (declaration) @definition.variable)
(compound_statement (declaration declarator: (_) @definition.variable))
(compound_statement (_ (declaration) @definition.variable))
(compound_statement (_ (declaration declarator: (_) @definition.variable)))
(compound_statement (_ (_ (declaration) @definition.variable)))
(compound_statement (_ (_ (declaration declarator: (_) @definition.variable))))
(compound_statement (_ (_ (_ (declaration) @definition.variable))))
(compound_statement (_ (_ (_ (declaration declarator: (_) @definition.variable)))))
(friend_declaration (declaration) @definition.function)
(preproc_ifdef
  name: (identifier) @_guard
  (preproc_def name: (identifier) @_macro !value) @definition.macro
  (#eq? @_macro @_guard))
(preproc_ifdef
  name: (identifier) @_guard
  (preproc_def name: (identifier) @_macro) @definition.macro
  (#eq? @_macro @_guard)
  (#match? @_macro "_(H|HH|HPP|HXX|H_|HPP_|INCLUDED|INCLUDED_)$"))

; ---- constructors: no return type, in a class body or qualified out of line (`Shape::Shape`)
(field_declaration_list 
  (function_definition
    !type
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (function_declarator declarator: (template_function name: (identifier) @name))
    ]
    body: (_) @body) @definition.constructor)
(field_declaration_list 
  (function_definition
    !type
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (function_declarator declarator: (template_function name: (identifier) @name))
    ]) @definition.constructor)
(field_declaration_list 
  (declaration
    !type
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (function_declarator declarator: (template_function name: (identifier) @name))
    ]) @definition.constructor)

(field_declaration_list (template_declaration 
  (function_definition
    !type
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (function_declarator declarator: (template_function name: (identifier) @name))
    ]
    body: (_) @body) @definition.constructor))
(field_declaration_list (template_declaration 
  (function_definition
    !type
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (function_declarator declarator: (template_function name: (identifier) @name))
    ]) @definition.constructor))
(field_declaration_list (template_declaration 
  (declaration
    !type
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (function_declarator declarator: (template_function name: (identifier) @name))
    ]) @definition.constructor))

(function_definition
  !type
  declarator: [
    (function_declarator declarator: (qualified_identifier scope: (_) @owner name: (identifier) @name))
    (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: (identifier) @name)))
  ]
  body: (_) @body) @definition.constructor
(function_definition
  !type
  declarator: [
    (function_declarator declarator: (qualified_identifier scope: (_) @owner name: (identifier) @name))
    (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: (identifier) @name)))
  ]) @definition.constructor

; ---- functions and methods: definitions (also `= default`/`= delete`), in-class declarations,
;      prototypes; a function inside a class (or with an @owner) becomes a method
(function_definition
  declarator: [
    (function_declarator declarator: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)))))
    (function_declarator declarator: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name)))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name))))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name)))))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name))))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name))))))
    (qualified_identifier scope: (_) @owner name: (operator_cast) @name)
    (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)))))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))))))
    (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name))))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name)))))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name))))))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name)))))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name)))))))
    (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: (operator_cast) @name))
  ]
  body: (_) @body) @definition.function

(function_definition
  declarator: [
    (function_declarator declarator: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)))))
    (function_declarator declarator: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name)))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name))))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name)))))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name))))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name))))))
    (qualified_identifier scope: (_) @owner name: (operator_cast) @name)
    (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)))))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))))))
    (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name))))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name)))))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name))))))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name)))))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name)))))))
    (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: (operator_cast) @name))
  ]) @definition.function

(function_definition
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))))
    (function_declarator declarator: (template_function name: (identifier) @name))
    (pointer_declarator declarator: (function_declarator declarator: (template_function name: (identifier) @name)))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (template_function name: (identifier) @name))))
    (reference_declarator (function_declarator declarator: (template_function name: (identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: (template_function name: (identifier) @name)))))
    (operator_cast) @name
  ]
  body: (_) @body) @definition.function

(function_definition
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))))
    (function_declarator declarator: (template_function name: (identifier) @name))
    (pointer_declarator declarator: (function_declarator declarator: (template_function name: (identifier) @name)))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (template_function name: (identifier) @name))))
    (reference_declarator (function_declarator declarator: (template_function name: (identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: (template_function name: (identifier) @name)))))
    (operator_cast) @name
  ]) @definition.function

(field_declaration
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))))
    (function_declarator declarator: (template_function name: (identifier) @name))
    (pointer_declarator declarator: (function_declarator declarator: (template_function name: (identifier) @name)))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (template_function name: (identifier) @name))))
    (reference_declarator (function_declarator declarator: (template_function name: (identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: (template_function name: (identifier) @name)))))
    (operator_cast) @name
  ]) @definition.function

(declaration
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))))
    (function_declarator declarator: (template_function name: (identifier) @name))
    (pointer_declarator declarator: (function_declarator declarator: (template_function name: (identifier) @name)))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (template_function name: (identifier) @name))))
    (reference_declarator (function_declarator declarator: (template_function name: (identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: (template_function name: (identifier) @name)))))
    (operator_cast) @name
  ]) @definition.function

(declaration
  declarator: [
    (function_declarator declarator: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)))))
    (function_declarator declarator: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name)))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name))))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name)))))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name))))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name))))))
    (qualified_identifier scope: (_) @owner name: (operator_cast) @name)
    (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)))))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))))))
    (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name))))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name)))))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name))))))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name)))))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: (template_function name: (identifier) @name)))))))
    (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: (operator_cast) @name))
  ]) @definition.function

; ---- namespaces (`namespace a::b {}` is b owned by a; deeper nested names stay whole)
(namespace_definition name: (namespace_identifier) @name body: (_) @body) @definition.namespace
(namespace_definition
  name: (nested_namespace_specifier (namespace_identifier) @owner . (namespace_identifier) @name .)
  body: (_) @body) @definition.namespace
(namespace_definition name: (nested_namespace_specifier) @name body: (_) @body) @definition.namespace

; ---- types
(class_specifier name: (type_identifier) @name body: (_) @body) @definition.class
(class_specifier name: (template_type name: (type_identifier) @name) body: (_) @body) @definition.class
(class_specifier
  name: (qualified_identifier scope: (_) @owner name: [(type_identifier) @name (template_type name: (type_identifier) @name)])
  body: (_) @body) @definition.class
(struct_specifier name: (type_identifier) @name body: (_) @body) @definition.struct
(struct_specifier name: (template_type name: (type_identifier) @name) body: (_) @body) @definition.struct
(struct_specifier
  name: (qualified_identifier scope: (_) @owner name: [(type_identifier) @name (template_type name: (type_identifier) @name)])
  body: (_) @body) @definition.struct
(union_specifier name: (type_identifier) @name body: (_) @body) @definition.union
(union_specifier name: (template_type name: (type_identifier) @name) body: (_) @body) @definition.union
(union_specifier
  name: (qualified_identifier scope: (_) @owner name: [(type_identifier) @name (template_type name: (type_identifier) @name)])
  body: (_) @body) @definition.union
(enum_specifier name: (type_identifier) @name body: (_) @body) @definition.enum
(enum_specifier name: (template_type name: (type_identifier) @name) body: (_) @body) @definition.enum
(enum_specifier
  name: (qualified_identifier scope: (_) @owner name: [(type_identifier) @name (template_type name: (type_identifier) @name)])
  body: (_) @body) @definition.enum
(enumerator name: (identifier) @name) @definition.enum_member
(concept_definition name: (identifier) @name) @definition.trait

; ---- type aliases: `using X = Y;` and typedefs (a typedef of a named struct with a body is its
;      declarator, so the struct keeps its own name and members)
(alias_declaration name: (type_identifier) @name) @definition.type_alias
(type_definition
  type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_)) (class_specifier name: (_) body: (_))]
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (type_identifier) @name))
    (reference_declarator (type_identifier) @name)
    (array_declarator declarator: (type_identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (type_identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (type_identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (type_identifier) @name))))
    (primitive_type) @name
    (function_declarator declarator: (type_identifier) @name)
  ] @definition.type_alias)

(type_definition
  type: [(primitive_type) (type_identifier) (sized_type_specifier) (qualified_identifier) (template_type) (decltype) (dependent_type) (struct_specifier !body) (struct_specifier !name) (union_specifier !body) (union_specifier !name) (enum_specifier !body) (enum_specifier !name) (class_specifier !body) (class_specifier !name)]
  .
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (type_identifier) @name))
    (reference_declarator (type_identifier) @name)
    (array_declarator declarator: (type_identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (type_identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (type_identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (type_identifier) @name))))
    (primitive_type) @name
    (function_declarator declarator: (type_identifier) @name)
  ]
  .) @definition.type_alias

(type_definition
  declarator: (_)
  .
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (type_identifier) @name))
    (reference_declarator (type_identifier) @name)
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
    (reference_declarator (type_identifier) @name)
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

; ---- fields (one declarator: the whole field_declaration; several, or a named struct type with a
;      body: each declarator)
(field_declaration
  [(primitive_type) (type_identifier) (sized_type_specifier) (qualified_identifier) (template_type) (placeholder_type_specifier) (decltype) (dependent_type) (struct_specifier !body) (union_specifier !body) (enum_specifier !body) (class_specifier !body) (struct_specifier !name) (union_specifier !name) (enum_specifier !name) (class_specifier !name) (type_qualifier) (storage_class_specifier) (attribute_specifier) (attribute_declaration) (ms_declspec_modifier) (explicit_function_specifier)]
  .
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (reference_declarator (field_identifier) @name)
    (array_declarator declarator: (field_identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))))
  ]
  .) @definition.field

(field_declaration
  [(primitive_type) (type_identifier) (sized_type_specifier) (qualified_identifier) (template_type) (placeholder_type_specifier) (decltype) (dependent_type) (struct_specifier !body) (union_specifier !body) (enum_specifier !body) (class_specifier !body) (struct_specifier !name) (union_specifier !name) (enum_specifier !name) (class_specifier !name) (type_qualifier) (storage_class_specifier) (attribute_specifier) (attribute_declaration) (ms_declspec_modifier) (explicit_function_specifier)]
  .
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (reference_declarator (field_identifier) @name)
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
  [(primitive_type) (type_identifier) (sized_type_specifier) (qualified_identifier) (template_type) (placeholder_type_specifier) (decltype) (dependent_type) (struct_specifier !body) (union_specifier !body) (enum_specifier !body) (class_specifier !body) (struct_specifier !name) (union_specifier !name) (enum_specifier !name) (class_specifier !name) (type_qualifier) (storage_class_specifier) (attribute_specifier) (attribute_declaration) (ms_declspec_modifier) (explicit_function_specifier)]
  .
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (reference_declarator (field_identifier) @name)
    (array_declarator declarator: (field_identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))))
  ]
  .
  default_value: (_)
  .) @definition.field

(field_declaration
  declarator: (_)
  .
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (reference_declarator (field_identifier) @name)
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
    (reference_declarator (field_identifier) @name)
    (array_declarator declarator: (field_identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))))
  ] @definition.field
  .
  declarator: (_))

(field_declaration
  declarator: (_)
  .
  (bitfield_clause)
  .
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (reference_declarator (field_identifier) @name)
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
    (reference_declarator (field_identifier) @name)
    (array_declarator declarator: (field_identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))))
  ] @definition.field
  .
  (bitfield_clause)
  .
  declarator: (_))

(field_declaration
  declarator: (_)
  .
  default_value: (_)
  .
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (reference_declarator (field_identifier) @name)
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
    (reference_declarator (field_identifier) @name)
    (array_declarator declarator: (field_identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))))
  ] @definition.field
  .
  default_value: (_)
  .
  declarator: (_))

(field_declaration
  type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_)) (class_specifier name: (_) body: (_))]
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (reference_declarator (field_identifier) @name)
    (array_declarator declarator: (field_identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))))
  ] @definition.field)

; ---- namespace-level variables and constants (locals are suppressed above)
(declaration
  (type_qualifier) @_const
  [(primitive_type) (type_identifier) (sized_type_specifier) (qualified_identifier) (template_type) (placeholder_type_specifier) (decltype) (dependent_type) (struct_specifier !body) (union_specifier !body) (enum_specifier !body) (class_specifier !body) (struct_specifier !name) (union_specifier !name) (enum_specifier !name) (class_specifier !name) (type_qualifier) (storage_class_specifier) (attribute_specifier) (attribute_declaration) (ms_declspec_modifier) (explicit_function_specifier)]
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
  (#any-of? @_const "const" "constexpr" "constinit")) @definition.constant

(declaration
  [(primitive_type) (type_identifier) (sized_type_specifier) (qualified_identifier) (template_type) (placeholder_type_specifier) (decltype) (dependent_type) (struct_specifier !body) (union_specifier !body) (enum_specifier !body) (class_specifier !body) (struct_specifier !name) (union_specifier !name) (enum_specifier !name) (class_specifier !name) (type_qualifier) (storage_class_specifier) (attribute_specifier) (attribute_declaration) (ms_declspec_modifier) (explicit_function_specifier)]
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
  [(primitive_type) (type_identifier) (sized_type_specifier) (qualified_identifier) (template_type) (placeholder_type_specifier) (decltype) (dependent_type) (struct_specifier !body) (union_specifier !body) (enum_specifier !body) (class_specifier !body) (struct_specifier !name) (union_specifier !name) (enum_specifier !name) (class_specifier !name) (type_qualifier) (storage_class_specifier) (attribute_specifier) (attribute_declaration) (ms_declspec_modifier) (explicit_function_specifier)]
  .
  declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (reference_declarator (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))))
    (init_declarator declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
      (reference_declarator (identifier) @name)
      (array_declarator declarator: (identifier) @name)
      (array_declarator declarator: (array_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))))
    ])
    (qualified_identifier scope: (_) @owner name: (identifier) @name)
    (pointer_declarator declarator: (qualified_identifier scope: (_) @owner name: (identifier) @name))
    (array_declarator declarator: (qualified_identifier scope: (_) @owner name: (identifier) @name))
    (init_declarator declarator: [
      (qualified_identifier scope: (_) @owner name: (identifier) @name)
      (pointer_declarator declarator: (qualified_identifier scope: (_) @owner name: (identifier) @name))
      (array_declarator declarator: (qualified_identifier scope: (_) @owner name: (identifier) @name))
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
    (reference_declarator (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))))
    (init_declarator declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
      (reference_declarator (identifier) @name)
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
    (reference_declarator (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))))
    (init_declarator declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
      (reference_declarator (identifier) @name)
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
  type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_)) (class_specifier name: (_) body: (_))]
  declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (reference_declarator (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))))
    (init_declarator declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
      (reference_declarator (identifier) @name)
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
; calls: `f()`, `obj.m()`, `ptr->m()`, `ns::f()` / `Foo::create()` (the whole qualified name is the
; @name: the extractor splits it into receiver `ns` / `a::b` and name), `f<T>()`
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (qualified_identifier) @name) @reference.call
(call_expression function: (template_function name: (identifier) @name)) @reference.call
(call_expression
  function: (field_expression argument: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression
  function: (field_expression
    argument: (_) @receiver
    field: (template_method name: (field_identifier) @name))) @reference.call
(call_expression
  function: (field_expression argument: (_) @receiver field: (qualified_identifier) @name)) @reference.call
(call_expression
  function: (parenthesized_expression (pointer_expression argument: (identifier) @name))) @reference.call

; `new Foo(...)`, `new ns::Foo<T>{...}`, `Vec2{1, 2}`
(new_expression type: (_) @name) @reference.instantiate
(compound_literal_expression type: [(type_identifier) (qualified_identifier) (template_type)] @name) @reference.instantiate

; base classes
(base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @name @reference.inherit)

; types, wherever a `type:` field holds one (the qualified form is split into receiver and name)
(_ type: [(type_identifier) (qualified_identifier) (template_type)] @name @reference.type)
(_ base: [(type_identifier) (qualified_identifier)] @name @reference.type)
([(struct_specifier !body) (class_specifier !body) (union_specifier !body) (enum_specifier !body)]
  name: [(type_identifier) (qualified_identifier) (template_type)] @name @reference.type)
(friend_declaration [(type_identifier) (qualified_identifier) (template_type)] @name @reference.type)
(optional_type_parameter_declaration default_type: [(type_identifier) (qualified_identifier) (template_type)] @name @reference.type)

; ---- imports
(preproc_include path: (_) @import.source) @import

; `using namespace std;` (wildcard), `using std::swap;` (name), `namespace fs = std::filesystem;`
; (alias); not `using Base::f;` inside a class
(translation_unit (using_declaration "namespace" [(identifier) (qualified_identifier)] @import.source @import.wildcard) @import)
(translation_unit (using_declaration (qualified_identifier scope: (_) @import.source name: (identifier) @import.name)) @import)
(translation_unit (using_declaration (qualified_identifier name: (qualified_identifier scope: (_) @import.source name: (identifier) @import.name))) @import)
(declaration_list (using_declaration "namespace" [(identifier) (qualified_identifier)] @import.source @import.wildcard) @import)
(declaration_list (using_declaration (qualified_identifier scope: (_) @import.source name: (identifier) @import.name)) @import)
(declaration_list (using_declaration (qualified_identifier name: (qualified_identifier scope: (_) @import.source name: (identifier) @import.name))) @import)
(compound_statement (using_declaration "namespace" [(identifier) (qualified_identifier)] @import.source @import.wildcard) @import)
(compound_statement (using_declaration (qualified_identifier scope: (_) @import.source name: (identifier) @import.name)) @import)
(compound_statement (using_declaration (qualified_identifier name: (qualified_identifier scope: (_) @import.source name: (identifier) @import.name))) @import)
(preproc_if (using_declaration "namespace" [(identifier) (qualified_identifier)] @import.source @import.wildcard) @import)
(preproc_if (using_declaration (qualified_identifier scope: (_) @import.source name: (identifier) @import.name)) @import)
(preproc_if (using_declaration (qualified_identifier name: (qualified_identifier scope: (_) @import.source name: (identifier) @import.name))) @import)
(preproc_ifdef (using_declaration "namespace" [(identifier) (qualified_identifier)] @import.source @import.wildcard) @import)
(preproc_ifdef (using_declaration (qualified_identifier scope: (_) @import.source name: (identifier) @import.name)) @import)
(preproc_ifdef (using_declaration (qualified_identifier name: (qualified_identifier scope: (_) @import.source name: (identifier) @import.name))) @import)
(preproc_else (using_declaration "namespace" [(identifier) (qualified_identifier)] @import.source @import.wildcard) @import)
(preproc_else (using_declaration (qualified_identifier scope: (_) @import.source name: (identifier) @import.name)) @import)
(preproc_else (using_declaration (qualified_identifier name: (qualified_identifier scope: (_) @import.source name: (identifier) @import.name))) @import)
(preproc_elif (using_declaration "namespace" [(identifier) (qualified_identifier)] @import.source @import.wildcard) @import)
(preproc_elif (using_declaration (qualified_identifier scope: (_) @import.source name: (identifier) @import.name)) @import)
(preproc_elif (using_declaration (qualified_identifier name: (qualified_identifier scope: (_) @import.source name: (identifier) @import.name))) @import)
(namespace_alias_definition name: (_) @import.alias . (_) @import.source) @import
