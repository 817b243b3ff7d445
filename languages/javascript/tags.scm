; JavaScript: Sextant's own query. Definitions, references and imports.
;
; TypeScript and TSX inherit this file (their own patterns run first), so every node type and
; field named here must exist in the javascript, typescript and tsx grammars alike. Constructs the
; typescript grammar lacks (`field_definition`, JSX elements) are matched structurally below.

; ---- classes
(class_declaration name: (_) @name body: (_) @body) @definition.class

; `const Foo = class { ... }` at the top level
(program
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: (class body: (_) @body)) @definition.class))
(program
  (export_statement
    declaration: (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        value: (class body: (_) @body)) @definition.class)))

; ---- functions (nested in a class they become methods; `constructor` becomes a constructor)
(function_declaration name: (identifier) @name body: (_) @body) @definition.function
(generator_function_declaration name: (identifier) @name body: (_) @body) @definition.function
(method_definition name: (_) @name body: (_) @body) @definition.function

; class fields holding a function (`handle = async () => {}`): javascript `field_definition`
; (named by its `property` field; the typescript grammar has no such node, so it is matched by shape)
(class_body
  (_
    property: (_) @name
    value: [
      (arrow_function body: (_) @body)
      (function_expression body: (_) @body)
    ]) @definition.function)
; other javascript class fields (`static count = 0`, `#secret`)
(class_body
  (_ property: (_) @name) @definition.variable)

; top-level functions written as `const f = () => {}` / `const f = function () {}`
(program
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [
        (arrow_function body: (_) @body)
        (function_expression body: (_) @body)
        (generator_function body: (_) @body)
      ]) @definition.function))
(program
  (export_statement
    declaration: (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        value: [
          (arrow_function body: (_) @body)
          (function_expression body: (_) @body)
          (generator_function body: (_) @body)
        ]) @definition.function)))
(program
  (variable_declaration
    (variable_declarator
      name: (identifier) @name
      value: [
        (arrow_function body: (_) @body)
        (function_expression body: (_) @body)
        (generator_function body: (_) @body)
      ]) @definition.function))

; CommonJS: `exports.f = function () {}`, `module.exports.f = () => {}`
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        object: [(identifier) (member_expression)] @_exports
        property: (property_identifier) @name)
      right: [
        (arrow_function body: (_) @body)
        (function_expression body: (_) @body)
      ]) @definition.function)
  (#match? @_exports "^(module\\.)?exports$"))

; ---- top-level variables (`MAX_SIZE` becomes a constant); `require` bindings are imports
((program
  (lexical_declaration
    (variable_declarator name: (identifier) @name value: (_) @_value) @definition.variable))
  (#not-match? @_value "^require\\s*\\("))
((program
  (export_statement
    declaration: (lexical_declaration
      (variable_declarator name: (identifier) @name value: (_) @_value) @definition.variable)))
  (#not-match? @_value "^require\\s*\\("))
((program
  (variable_declaration
    (variable_declarator name: (identifier) @name value: (_) @_value) @definition.variable))
  (#not-match? @_value "^require\\s*\\("))
(program
  (lexical_declaration
    (variable_declarator name: (identifier) @name !value) @definition.variable))
(program
  (export_statement
    declaration: (lexical_declaration
      (variable_declarator name: (identifier) @name !value) @definition.variable)))
(program
  (variable_declaration
    (variable_declarator name: (identifier) @name !value) @definition.variable))
; destructured top-level bindings: `const { a, b } = config`
((program
  (lexical_declaration
    (variable_declarator
      name: (object_pattern
        (shorthand_property_identifier_pattern) @name @definition.variable)
      value: (_) @_value)))
  (#not-match? @_value "^require\\s*\\("))
((program
  (lexical_declaration
    (variable_declarator
      name: (object_pattern
        (pair_pattern value: (identifier) @name @definition.variable))
      value: (_) @_value)))
  (#not-match? @_value "^require\\s*\\("))

; ---- references
; decorators (before calls: `@Injectable()` is a decoration, not a call)
(decorator (identifier) @name) @reference.decorate
(decorator
  (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.decorate
(decorator (call_expression function: (identifier) @name)) @reference.decorate
(decorator
  (call_expression
    function: (member_expression
      object: (_) @receiver
      property: (property_identifier) @name))) @reference.decorate

; JSX patterns live in jsx.scm (the typescript grammar, which inherits this file, has no JSX).

; `require('x')` and `import('x')` are imports, not calls
((call_expression function: (identifier) @name) @reference.call
  (#not-eq? @name "require"))
(call_expression
  function: (member_expression
    object: (_) @receiver
    property: [(property_identifier) (private_property_identifier)] @name)) @reference.call

(new_expression constructor: (identifier) @name) @reference.instantiate
(new_expression
  constructor: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.instantiate

; member reads (`state.type_`, `ArchType.Map`); the call and `new` sites above win
(member_expression
  object: (_) @receiver
  property: [(property_identifier) (private_property_identifier)] @name) @reference.read
; names read as values (locals among them are told apart by the local bindings below)
(member_expression object: (identifier) @name @reference.read)
(subscript_expression object: (identifier) @name @reference.read)
(subscript_expression index: (identifier) @name @reference.read)
(arguments (identifier) @name @reference.read)
(return_statement (identifier) @name @reference.read)
(variable_declarator value: (identifier) @name @reference.read)
; default values of destructured and plain parameters (`{ getRowCanExpand = defaultGetRowCanExpand }`)
(object_assignment_pattern right: (identifier) @name @reference.read)
(assignment_pattern right: (identifier) @name @reference.read)
(assignment_expression right: (identifier) @name @reference.read)
(augmented_assignment_expression right: (identifier) @name @reference.read)
(binary_expression (identifier) @name @reference.read)
(unary_expression argument: (identifier) @name @reference.read)
(ternary_expression (identifier) @name @reference.read)
(array (identifier) @name @reference.read)
(pair value: (identifier) @name @reference.read)
(shorthand_property_identifier) @name @reference.read
(spread_element (identifier) @name @reference.read)
(arrow_function body: (identifier) @name @reference.read)
(parenthesized_expression (identifier) @name @reference.read)
(computed_property_name (identifier) @name @reference.read)
(await_expression (identifier) @name @reference.read)
(template_substitution (identifier) @name @reference.read)
(throw_statement (identifier) @name @reference.read)
(for_in_statement right: (identifier) @name @reference.read)
(export_statement value: (identifier) @name @reference.read)

; ---- bindings: typed receivers (`const x = new Store()`, `const x = make()`) and local names
(variable_declarator name: (identifier) @binding.name) @binding
(variable_declarator
  name: (identifier) @binding.name
  value: (new_expression constructor: (_) @binding.value)) @binding
(variable_declarator
  name: (identifier) @binding.name
  value: (call_expression function: (_) @binding.value)) @binding
(variable_declarator
  name: (identifier) @binding.name
  value: (await_expression (call_expression function: (_) @binding.value))) @binding
(assignment_expression
  left: (member_expression) @binding.name
  right: (new_expression constructor: (_) @binding.value)) @binding
(arrow_function parameter: (identifier) @binding.name) @binding
(for_in_statement left: (identifier) @binding.name) @binding
(catch_clause parameter: (identifier) @binding.name) @binding
(object_pattern (shorthand_property_identifier_pattern) @binding.name @binding)
(object_pattern (pair_pattern value: (identifier) @binding.name) @binding)
(array_pattern (identifier) @binding.name @binding)
(assignment_pattern left: (identifier) @binding.name) @binding
(object_assignment_pattern left: (shorthand_property_identifier_pattern) @binding.name) @binding

; `class A extends B`, `class A extends ns.B` (javascript grammar: the heritage is the expression
; itself; the typescript grammar wraps it in `extends_clause`, which its own query handles, so the
; child is matched by shape: a plain or dotted name)
((class_heritage (_) @name @reference.inherit)
  (#match? @name "^[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*$"))

; ---- imports
; import x from './a'
(import_statement
  (import_clause (identifier) @import.alias)
  source: (_) @import.source
  (#set! import.name "default")) @import
; import {a, b as c} from '../b'
(import_statement
  (import_clause
    (named_imports (import_specifier name: (_) @import.name !alias)))
  source: (_) @import.source) @import
(import_statement
  (import_clause
    (named_imports (import_specifier name: (_) @import.name alias: (_) @import.alias)))
  source: (_) @import.source) @import
; import * as ns from 'mod'
(import_statement
  (import_clause (namespace_import (identifier) @import.alias))
  source: (_) @import.source) @import
; import './side' (no clause: the source is the first named child)
(import_statement . source: (_) @import.source) @import

; re-exports: export {x, y as z} from './y'; export * from './z'; export * as ns from './n'
(export_statement
  (export_clause (export_specifier name: (_) @import.name !alias))
  source: (_) @import.source) @import
(export_statement
  (export_clause (export_specifier name: (_) @import.name alias: (_) @import.alias))
  source: (_) @import.source) @import
(export_statement
  "*" @import.wildcard
  source: (_) @import.source) @import
(export_statement
  (namespace_export (_) @import.alias)
  source: (_) @import.source) @import

; CommonJS: const fs = require('fs'); const { readFile, writeFile: write } = require('fs');
; require('./side')
((variable_declarator
  name: (identifier) @import.alias
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @import.source .))) @import
  (#eq? @_require "require"))
((variable_declarator
  name: (object_pattern (shorthand_property_identifier_pattern) @import.name)
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @import.source .))) @import
  (#eq? @_require "require"))
((variable_declarator
  name: (object_pattern
    (pair_pattern key: (_) @import.name value: (identifier) @import.alias))
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @import.source .))) @import
  (#eq? @_require "require"))
((expression_statement
  (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @import.source .))) @import
  (#eq? @_require "require"))
; dynamic import('./lazy')
(call_expression
  function: (import)
  arguments: (arguments . (string) @import.source)) @import

; ---- lexical scopes: a parameter or `const`/`let`/`var` (a @binding above) is local to the
; innermost one around its name
[(arrow_function) (function_expression) (function_declaration) (generator_function)
 (generator_function_declaration) (method_definition) (statement_block) (for_statement)
 (for_in_statement) (catch_clause)] @local.scope
