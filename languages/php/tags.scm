; PHP: Sextant's own query. Definitions, references and `use` imports.

; ---- namespace: `namespace App\Models;` prefixes every name of the file; a braced
; `namespace App { ... }` block is a namespace definition.
(namespace_definition name: (namespace_name) @package.name !body)
(namespace_definition name: (namespace_name) @name body: (_) @body) @definition.namespace

; ---- types
(class_declaration name: (name) @name body: (_) @body) @definition.class
(interface_declaration name: (name) @name body: (_) @body) @definition.interface
(trait_declaration name: (name) @name body: (_) @body) @definition.trait
(enum_declaration name: (name) @name body: (_) @body) @definition.enum
(enum_case name: (name) @name) @definition.enum_member

; ---- functions and methods (`__construct` becomes the constructor)
(function_definition name: (name) @name body: (_) @body) @definition.function
(method_declaration name: (name) @name body: (_) @body) @definition.method
(method_declaration name: (name) @name) @definition.method

; ---- properties. A declaration with one element is the definition itself (its signature
; keeps the modifiers and the type); with several, each element is one definition and the
; declaration (a doc wrapper) lends it its PHPDoc, modifiers and attributes.
((property_declaration
   (_) @_prev . (property_element name: (variable_name (name) @name)) .) @definition.property
 (#not-match? @_prev "^\\$"))
(property_declaration
  (property_element name: (variable_name (name) @name)) @definition.property
  . (property_element))
(property_declaration
  (property_element)
  . (property_element name: (variable_name (name) @name)) @definition.property)

; promoted constructor parameters: `private readonly Hasher $hasher`
(property_promotion_parameter name: (variable_name (name) @name)) @definition.property

; ---- constants: class constants, interface constants, namespace-level `const X = 1;`
((const_declaration
   (_) @_prev . (const_element (name) @name) .) @definition.constant
 (#not-match? @_prev "^[A-Za-z_][A-Za-z0-9_]*\\s*="))
(const_declaration . (const_element (name) @name) .) @definition.constant
(const_declaration
  (const_element (name) @name) @definition.constant
  . (const_element))
(const_declaration
  (const_element)
  . (const_element (name) @name) @definition.constant)

; ---- references: calls
(function_call_expression function: (name) @name) @reference.call
(function_call_expression
  function: (qualified_name (namespace_name) @receiver (name) @name)) @reference.call
(function_call_expression
  function: (qualified_name (name) @name)) @reference.call
; `$this->repo->find()`, `$user?->displayName()`
(member_call_expression object: (_) @receiver name: (name) @name) @reference.call
(nullsafe_member_call_expression object: (_) @receiver name: (name) @name) @reference.call
; `User::find()`, `parent::__construct()`, `static::query()`
(scoped_call_expression scope: (_) @receiver name: (name) @name) @reference.call

; ---- references: instantiation
; (`new static` / `new self` / `new parent` are the enclosing classes: not references)
(object_creation_expression (name) @name
  (#not-any-of? @name "static" "self" "parent")) @reference.instantiate
(object_creation_expression
  (qualified_name (namespace_name) @receiver (name) @name)) @reference.instantiate
(object_creation_expression (qualified_name (name) @name)) @reference.instantiate

; ---- references: attributes `#[Route('/users')]`
(attribute (name) @name) @reference.decorate
(attribute (qualified_name (namespace_name) @receiver (name) @name)) @reference.decorate
(attribute (qualified_name (name) @name)) @reference.decorate

; ---- references: inheritance. `extends` of a class or an interface, `implements`, and
; `use SomeTrait;` inside a class body.
(base_clause (name) @name @reference.inherit)
(base_clause
  (qualified_name (namespace_name) @receiver (name) @name) @reference.inherit)
(base_clause (qualified_name (name) @name) @reference.inherit)
(class_interface_clause (name) @name @reference.implement)
(class_interface_clause
  (qualified_name (namespace_name) @receiver (name) @name) @reference.implement)
(class_interface_clause (qualified_name (name) @name) @reference.implement)
(use_declaration (name) @name @reference.inherit)
(use_declaration
  (qualified_name (namespace_name) @receiver (name) @name) @reference.inherit)
(use_declaration (qualified_name (name) @name) @reference.inherit)

; ---- references: types in parameters, returns, properties, catch clauses, `instanceof`.
; `self`, `static` and `parent` are the enclosing classes, not references.
(named_type (name) @name
  (#not-any-of? @name "self" "static" "parent")) @reference.type
(named_type (qualified_name (namespace_name) @receiver (name) @name)) @reference.type
(named_type (qualified_name (name) @name)) @reference.type
(binary_expression
  operator: "instanceof"
  right: [(name) (qualified_name)] @name) @reference.type

; ---- references: `User::class` is the class; `Role::Admin`, `self::PER_PAGE` read a constant
(class_constant_access_expression
  . [(name) (qualified_name)] @name
  . (name) @_c
  (#eq? @_c "class")) @reference.type
(class_constant_access_expression
  . (_) @receiver
  . (name) @name
  (#not-eq? @name "class")) @reference.read

; ---- imports: `use App\Models\User;`, `use X\Y as Z;`, `use function x\y;`, `use Foo;`
(namespace_use_declaration
  (namespace_use_clause
    (qualified_name (namespace_name) @import.source (name) @import.name)
    alias: (name)? @import.alias) @import)
(namespace_use_declaration
  (namespace_use_clause
    . (name) @import.source
    alias: (name)? @import.alias) @import)
; grouped: `use App\Services\{UserService, Mailer as MailService};`
(namespace_use_declaration
  (namespace_name) @import.source
  body: (namespace_use_group
    (namespace_use_clause
      . (name) @import.name
      alias: (name)? @import.alias) @import))
(namespace_use_declaration
  (namespace_name) @import.source
  body: (namespace_use_group
    (namespace_use_clause
      . (qualified_name) @import.name
      alias: (name)? @import.alias) @import))
