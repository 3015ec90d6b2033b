; JSX (JavaScript and TSX): rendering a component is a call of it.
; Lower-case names are HTML elements; javascript.go drops them.

(jsx_self_closing_element
  name: (identifier) @name) @reference.call

(jsx_opening_element
  name: (identifier) @name) @reference.call
