; JavaScript JSX: an opening or self-closing tag `<Component ...>` is a call of the component
; (`<div>` is an intrinsic element; closing tags are not counted again). Kept out of tags.scm so
; the typescript grammar, which has no JSX node types, can inherit tags.scm.
((jsx_opening_element name: (identifier) @name) @reference.call
  (#match? @name "^[A-Z]"))
((jsx_self_closing_element name: (identifier) @name) @reference.call
  (#match? @name "^[A-Z]"))
(jsx_opening_element
  name: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call
(jsx_self_closing_element
  name: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call
