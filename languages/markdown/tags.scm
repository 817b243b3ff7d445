; Markdown: headings become sections nested by level. The body starts after the heading, so the
; signature is the heading line.
(section
  (atx_heading heading_content: (_) @name) . (_)? @body) @definition.doc_section
(section
  (setext_heading heading_content: (_) @name) . (_)? @body) @definition.doc_section
