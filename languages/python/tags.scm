; Python: Sextant's own query. Definitions, references and imports.

; ---- definitions
(class_definition
  name: (identifier) @name
  body: (_) @body) @definition.class

(function_definition
  name: (identifier) @name
  body: (_) @body) @definition.function

; module-level and class-level assignments (not locals inside functions)
(module
  (expression_statement
    (assignment left: (identifier) @name) @definition.variable))
(class_definition
  body: (block
    (expression_statement
      (assignment left: (identifier) @name) @definition.variable)))

; ---- references
(call
  function: (identifier) @name) @reference.call
(call
  function: (attribute
    object: (_) @receiver
    attribute: (identifier) @name)) @reference.call

(decorator (identifier) @name) @reference.decorate
(decorator (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.decorate

(class_definition
  superclasses: (argument_list (identifier) @name @reference.inherit))
(class_definition
  superclasses: (argument_list
    (attribute object: (_) @receiver attribute: (identifier) @name) @reference.inherit))

(type (identifier) @name) @reference.type
(type (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.type
(type (generic_type (identifier) @name)) @reference.type
(type (subscript value: (identifier) @name)) @reference.type

; ---- imports
(import_statement
  name: (dotted_name) @import.source) @import
(import_statement
  name: (aliased_import
    name: (dotted_name) @import.source
    alias: (identifier) @import.alias)) @import
(import_from_statement
  module_name: (_) @import.source
  name: (dotted_name) @import.name) @import
(import_from_statement
  module_name: (_) @import.source
  name: (aliased_import
    name: (dotted_name) @import.name
    alias: (identifier) @import.alias)) @import
(import_from_statement
  module_name: (_) @import.source
  (wildcard_import) @import.wildcard) @import
