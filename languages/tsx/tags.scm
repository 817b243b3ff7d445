; TSX: Sextant's own query for JSX. The typescript query and javascript's tags.scm are appended
; after this one (`inherits`; inheritance is not transitive, so both are listed).

; ---- references
; A capitalized tag is a component: `<Button />` and `<Layout.Main>` are calls of it
; (`<div>` is an intrinsic element; closing tags are not counted again).
((jsx_opening_element name: (identifier) @name) @reference.call
  (#match? @name "^[A-Z]"))
((jsx_self_closing_element name: (identifier) @name) @reference.call
  (#match? @name "^[A-Z]"))
(jsx_opening_element
  name: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call
(jsx_self_closing_element
  name: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call
