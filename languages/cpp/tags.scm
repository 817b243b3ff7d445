; C++: Sextant's own query (complete, not inheriting C). Definitions, references, imports.
;
; How declarations are captured:
; - A declaration with one declarator is captured whole (its signature is the whole declaration).
;   With several (`int a, b;`), or when its type is a named struct with a body
;   (`struct point {...} origin;`, whose struct is its own definition), each declarator is captured
;   and the enclosing declaration is a [doc] wrapper, so docs and specifiers still come from it.
; - A definition capture without @name is dropped by the extractor after deduplication, where the
;   first pattern matching a node wins. The first patterns below use that to say what is NOT a
;   definition: local declarations (also inside `#if` blocks in function bodies), include guards,
;   whole declarations that are captured per declarator, friend declarations.

; ---- not definitions
(compound_statement (declaration) @definition.variable)
(compound_statement (declaration declarator: (_) @definition.variable))
(compound_statement (_ (declaration) @definition.variable))
(compound_statement (_ (declaration declarator: (_) @definition.variable)))
(compound_statement (_ (_ (declaration) @definition.variable)))
(compound_statement (_ (_ (declaration declarator: (_) @definition.variable))))
(compound_statement (_ (_ (_ (declaration) @definition.variable))))
(compound_statement (_ (_ (_ (declaration declarator: (_) @definition.variable)))))
(friend_declaration (declaration) @definition.function)
(declaration declarator: (_) declarator: (_)) @definition.variable
(declaration type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_)) (class_specifier name: (_) body: (_))]) @definition.variable
(field_declaration declarator: (_) declarator: (_)) @definition.field
(field_declaration type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_)) (class_specifier name: (_) body: (_))]) @definition.field
(type_definition declarator: (_) declarator: (_)) @definition.type_alias
(type_definition type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_)) (class_specifier name: (_) body: (_))]) @definition.type_alias
(preproc_ifdef
  name: (identifier) @_guard
  (preproc_def name: (identifier) @_macro !value) @definition.macro
  (#eq? @_macro @_guard))
(preproc_ifdef
  name: (identifier) @_guard
  (preproc_def name: (identifier) @_macro) @definition.macro
  (#eq? @_macro @_guard)
  (#match? @_macro "_(H|HH|HPP|HXX|H_|HPP_|INCLUDED|INCLUDED_)$"))

; ---- constructors: no return type, in a class body or out of line (`Shape::Shape`)
(field_declaration_list
  (function_definition !type declarator: (function_declarator declarator: [(identifier) @name (template_function name: (identifier) @name)]) body: (_)? @body) @definition.constructor)
(field_declaration_list
  (template_declaration
    (function_definition !type declarator: (function_declarator declarator: [(identifier) @name (template_function name: (identifier) @name)]) body: (_)? @body) @definition.constructor))
(field_declaration_list
  (declaration !type declarator: (function_declarator declarator: [(identifier) @name (template_function name: (identifier) @name)])) @definition.constructor)
(field_declaration_list
  (template_declaration (declaration !type declarator: (function_declarator declarator: [(identifier) @name (template_function name: (identifier) @name)])) @definition.constructor))
(function_definition
  !type
  declarator: [
    (function_declarator declarator: (qualified_identifier scope: (_) @owner name: (identifier) @name))
    (function_declarator declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: (identifier) @name)))
  ]
  body: (_)? @body) @definition.constructor

; ---- functions and methods (a function in a class, or with an @owner `Shape::`, is a method):
;      definitions (also `= default`), in-class declarations, prototypes
(function_definition
  declarator: [
    (function_declarator declarator: [
      (identifier) @name (field_identifier) @name (operator_name) @name (destructor_name) @name (template_function name: (identifier) @name)
      (qualified_identifier scope: (_) @owner name: [(identifier) @name (field_identifier) @name (operator_name) @name (destructor_name) @name (template_function name: (identifier) @name)])
      (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: [(identifier) @name (field_identifier) @name (operator_name) @name (destructor_name) @name (template_function name: (identifier) @name)]))
    ])
    (_ (function_declarator declarator: [
      (identifier) @name (field_identifier) @name (operator_name) @name (destructor_name) @name (template_function name: (identifier) @name)
      (qualified_identifier scope: (_) @owner name: [(identifier) @name (field_identifier) @name (operator_name) @name (destructor_name) @name (template_function name: (identifier) @name)])
      (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: [(identifier) @name (field_identifier) @name (operator_name) @name (destructor_name) @name (template_function name: (identifier) @name)]))
    ]))
    (_ (_ (function_declarator declarator: [
      (identifier) @name (field_identifier) @name (operator_name) @name (destructor_name) @name (template_function name: (identifier) @name)
      (qualified_identifier scope: (_) @owner name: [(identifier) @name (field_identifier) @name (operator_name) @name (destructor_name) @name (template_function name: (identifier) @name)])
      (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: [(identifier) @name (field_identifier) @name (operator_name) @name (destructor_name) @name (template_function name: (identifier) @name)]))
    ])))
    (operator_cast) @name
    (qualified_identifier scope: (_) @owner name: (operator_cast) @name)
  ]
  body: (_)? @body) @definition.function

(field_declaration
  declarator: [
    (function_declarator declarator: [(identifier) @name (field_identifier) @name (operator_name) @name (destructor_name) @name (template_function name: (identifier) @name)])
    (_ (function_declarator declarator: [(identifier) @name (field_identifier) @name (operator_name) @name (destructor_name) @name (template_function name: (identifier) @name)]))
    (_ (_ (function_declarator declarator: [(identifier) @name (field_identifier) @name (operator_name) @name (destructor_name) @name (template_function name: (identifier) @name)])))
    (operator_cast) @name
  ]) @definition.function

(declaration
  declarator: [
    (function_declarator declarator: [
      (identifier) @name (field_identifier) @name (operator_name) @name (destructor_name) @name (template_function name: (identifier) @name)
      (qualified_identifier scope: (_) @owner name: [(identifier) @name (field_identifier) @name (operator_name) @name (destructor_name) @name (template_function name: (identifier) @name)])
      (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: [(identifier) @name (field_identifier) @name (operator_name) @name (destructor_name) @name (template_function name: (identifier) @name)]))
    ])
    (_ (function_declarator declarator: [
      (identifier) @name (field_identifier) @name (operator_name) @name (destructor_name) @name (template_function name: (identifier) @name)
      (qualified_identifier scope: (_) @owner name: [(identifier) @name (field_identifier) @name (operator_name) @name (destructor_name) @name (template_function name: (identifier) @name)])
      (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: [(identifier) @name (field_identifier) @name (operator_name) @name (destructor_name) @name (template_function name: (identifier) @name)]))
    ]))
    (_ (_ (function_declarator declarator: [
      (identifier) @name (field_identifier) @name (operator_name) @name (destructor_name) @name (template_function name: (identifier) @name)
      (qualified_identifier scope: (_) @owner name: [(identifier) @name (field_identifier) @name (operator_name) @name (destructor_name) @name (template_function name: (identifier) @name)])
      (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @owner name: [(identifier) @name (field_identifier) @name (operator_name) @name (destructor_name) @name (template_function name: (identifier) @name)]))
    ])))
    (operator_cast) @name
    (qualified_identifier scope: (_) @owner name: (operator_cast) @name)
  ]) @definition.function

; ---- namespaces (`namespace a::b {}` is b owned by a; deeper nested names stay whole)
(namespace_definition name: (namespace_identifier) @name body: (_) @body) @definition.namespace
(namespace_definition
  name: (nested_namespace_specifier (namespace_identifier) @owner . (namespace_identifier) @name .)
  body: (_) @body) @definition.namespace
(namespace_definition name: (nested_namespace_specifier) @name body: (_) @body) @definition.namespace

; ---- types
(class_specifier
  name: [(type_identifier) @name (template_type name: (type_identifier) @name)
    (qualified_identifier scope: (_) @owner name: [(type_identifier) @name (template_type name: (type_identifier) @name)])]
  body: (_) @body) @definition.class
(struct_specifier
  name: [(type_identifier) @name (template_type name: (type_identifier) @name)
    (qualified_identifier scope: (_) @owner name: [(type_identifier) @name (template_type name: (type_identifier) @name)])]
  body: (_) @body) @definition.struct
(union_specifier
  name: [(type_identifier) @name (template_type name: (type_identifier) @name)
    (qualified_identifier scope: (_) @owner name: [(type_identifier) @name (template_type name: (type_identifier) @name)])]
  body: (_) @body) @definition.union
(enum_specifier
  name: [(type_identifier) @name (template_type name: (type_identifier) @name)
    (qualified_identifier scope: (_) @owner name: [(type_identifier) @name (template_type name: (type_identifier) @name)])]
  body: (_) @body) @definition.enum
(enumerator name: (identifier) @name) @definition.enum_member
(concept_definition name: (identifier) @name) @definition.trait

; ---- type aliases: `using X = Y;` and typedefs (`typedef struct {...} name;` is one alias, its members nest under it)
(alias_declaration name: (type_identifier) @name) @definition.type_alias
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

(type_definition type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_)) (class_specifier name: (_) body: (_))] declarator: [
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
    (reference_declarator (field_identifier) @name)
    (_ declarator: (reference_declarator (field_identifier) @name))
  ]) @definition.field

(field_declaration declarator: (_) declarator: [
    (field_identifier) @name
    (_ declarator: (field_identifier) @name)
    (_ declarator: (_ declarator: (field_identifier) @name))
    (_ declarator: (parenthesized_declarator (_ declarator: (field_identifier) @name)))
    (_ declarator: (_ declarator: (parenthesized_declarator (_ declarator: (field_identifier) @name))))
    (reference_declarator (field_identifier) @name)
    (_ declarator: (reference_declarator (field_identifier) @name))
  ] @definition.field)

(field_declaration declarator: [
    (field_identifier) @name
    (_ declarator: (field_identifier) @name)
    (_ declarator: (_ declarator: (field_identifier) @name))
    (_ declarator: (parenthesized_declarator (_ declarator: (field_identifier) @name)))
    (_ declarator: (_ declarator: (parenthesized_declarator (_ declarator: (field_identifier) @name))))
    (reference_declarator (field_identifier) @name)
    (_ declarator: (reference_declarator (field_identifier) @name))
  ] @definition.field declarator: (_))

(field_declaration type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_)) (class_specifier name: (_) body: (_))] declarator: [
    (field_identifier) @name
    (_ declarator: (field_identifier) @name)
    (_ declarator: (_ declarator: (field_identifier) @name))
    (_ declarator: (parenthesized_declarator (_ declarator: (field_identifier) @name)))
    (_ declarator: (_ declarator: (parenthesized_declarator (_ declarator: (field_identifier) @name))))
    (reference_declarator (field_identifier) @name)
    (_ declarator: (reference_declarator (field_identifier) @name))
  ] @definition.field)

; ---- variables and constants at file or namespace level (locals are excluded above)
(declaration
  (type_qualifier) @_const
  declarator: [
    (identifier) @name (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])
  ]
  (#any-of? @_const "const" "constexpr" "constinit")) @definition.constant

(declaration
  declarator: [
    (pointer_declarator (type_qualifier) @_const declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])
    (init_declarator declarator: (pointer_declarator (type_qualifier) @_const declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)]))
  ]
  (#eq? @_const "const")) @definition.constant

; `int Shape::count_ = 0;`: a static member defined out of line (a field of Shape)
(declaration declarator: [(qualified_identifier scope: (_) @owner name: (identifier) @name) (init_declarator declarator: (qualified_identifier scope: (_) @owner name: (identifier) @name))]) @definition.variable
(declaration declarator: [
    (identifier) @name
    (_ declarator: (identifier) @name)
    (_ declarator: (_ declarator: (identifier) @name))
    (_ declarator: (parenthesized_declarator (_ declarator: (identifier) @name)))
    (_ declarator: (_ declarator: (parenthesized_declarator (_ declarator: (identifier) @name))))
    (reference_declarator (identifier) @name)
    (_ declarator: (reference_declarator (identifier) @name))
  ]) @definition.variable

(declaration declarator: (_) declarator: [
    (identifier) @name
    (_ declarator: (identifier) @name)
    (_ declarator: (_ declarator: (identifier) @name))
    (_ declarator: (parenthesized_declarator (_ declarator: (identifier) @name)))
    (_ declarator: (_ declarator: (parenthesized_declarator (_ declarator: (identifier) @name))))
    (reference_declarator (identifier) @name)
    (_ declarator: (reference_declarator (identifier) @name))
  ] @definition.variable)

(declaration declarator: [
    (identifier) @name
    (_ declarator: (identifier) @name)
    (_ declarator: (_ declarator: (identifier) @name))
    (_ declarator: (parenthesized_declarator (_ declarator: (identifier) @name)))
    (_ declarator: (_ declarator: (parenthesized_declarator (_ declarator: (identifier) @name))))
    (reference_declarator (identifier) @name)
    (_ declarator: (reference_declarator (identifier) @name))
  ] @definition.variable declarator: (_))

(declaration type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_)) (class_specifier name: (_) body: (_))] declarator: [
    (identifier) @name
    (_ declarator: (identifier) @name)
    (_ declarator: (_ declarator: (identifier) @name))
    (_ declarator: (parenthesized_declarator (_ declarator: (identifier) @name)))
    (_ declarator: (_ declarator: (parenthesized_declarator (_ declarator: (identifier) @name))))
    (reference_declarator (identifier) @name)
    (_ declarator: (reference_declarator (identifier) @name))
  ] @definition.variable)

; ---- macros
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name value: (_)? @body) @definition.macro

; ---- references
; calls: `f()`, `obj.m()`, `ptr->m()`, `ns::f()` and `Foo::create()` (the qualified name is the @name:
; the extractor splits it into receiver `ns` / `a::b` and name), `f<T>()`, `obj.template m<T>()`
(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (qualified_identifier) @name
  (#not-match? @name "<")) @reference.call
; with template arguments (`std::make_unique<Foo>()`, `Foo<T>::create()`) the text cannot be split:
; the receiver is then the innermost scope (`std`, `chrono` in `std::chrono::duration_cast<T>()`)
(call_expression
  function: (qualified_identifier
    scope: (_) @receiver
    name: [(identifier) @name (template_function name: (identifier) @name)]) @_qualified
  (#match? @_qualified "<")) @reference.call
(call_expression
  function: (qualified_identifier
    name: (qualified_identifier
      scope: (_) @receiver
      name: [(identifier) @name (template_function name: (identifier) @name)])) @_qualified
  (#match? @_qualified "<")) @reference.call
(call_expression
  function: (qualified_identifier
    name: (qualified_identifier
      name: (qualified_identifier
        scope: (_) @receiver
        name: [(identifier) @name (template_function name: (identifier) @name)]))) @_qualified
  (#match? @_qualified "<")) @reference.call
(call_expression function: (template_function name: (identifier) @name)) @reference.call
(call_expression
  function: (field_expression
    argument: (_) @receiver
    field: [
      (field_identifier) @name
      (template_method name: (field_identifier) @name)
      (dependent_name (template_method name: (field_identifier) @name))
      (qualified_identifier) @name])) @reference.call
(call_expression
  function: (parenthesized_expression (pointer_expression argument: (identifier) @name))) @reference.call

; `new Foo(...)`, `new ns::Foo<T>{...}`, `Vec2{1, 2}`
(new_expression type: (_) @name) @reference.instantiate
(compound_literal_expression type: [(type_identifier) (qualified_identifier) (template_type)] @name) @reference.instantiate

; base classes
(base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @name @reference.inherit)

; types, wherever a `type:` field holds one (a qualified type is split into receiver and name)
(_ type: [(type_identifier) (qualified_identifier) (template_type)] @name @reference.type)
(_ base: [(type_identifier) (qualified_identifier)] @name @reference.type)
; an elaborated type without a body (`struct stat *st`, `class Foo;`)
[(struct_specifier !body name: [(type_identifier) (qualified_identifier) (template_type)] @name @reference.type)
 (class_specifier !body name: [(type_identifier) (qualified_identifier) (template_type)] @name @reference.type)
 (union_specifier !body name: [(type_identifier) (qualified_identifier) (template_type)] @name @reference.type)
 (enum_specifier !body name: [(type_identifier) (qualified_identifier) (template_type)] @name @reference.type)]
(friend_declaration [(type_identifier) (qualified_identifier) (template_type)] @name @reference.type)
(optional_type_parameter_declaration
  default_type: [(type_identifier) (qualified_identifier) (template_type)] @name @reference.type)

; ---- imports: `#include`, `using namespace std;` (wildcard), `using std::swap;` (a name),
;      `namespace fs = std::filesystem;` (an alias)
(preproc_include path: (_) @import.source) @import
(using_declaration "namespace" [(identifier) (qualified_identifier)] @import.source @import.wildcard) @import
((using_declaration
   (qualified_identifier scope: (_) @import.source name: (identifier) @import.name)) @import
  (#not-match? @import "^using[[:space:]]+namespace"))
((using_declaration
   (qualified_identifier
     name: (qualified_identifier scope: (_) @import.source name: (identifier) @import.name))) @import
  (#not-match? @import "^using[[:space:]]+namespace"))
(namespace_alias_definition name: (_) @import.alias . (_) @import.source) @import

; ---- type parameters: their names are in scope over the generic declaration (the list's parent)
(template_parameter_list [
  (type_parameter_declaration (type_identifier) @generic.name)
  (optional_type_parameter_declaration name: (type_identifier) @generic.name)
  (variadic_type_parameter_declaration (type_identifier) @generic.name)
  (template_template_parameter_declaration [
    (type_parameter_declaration (type_identifier) @generic.name)
    (optional_type_parameter_declaration name: (type_identifier) @generic.name)
    (variadic_type_parameter_declaration (type_identifier) @generic.name)])]) @generic
