"""The PDF reader: a page's words into blocks with offsets, headings, tables and pages.

`reader` is the entry (parse_pdf); the steps it runs, one concern a module: `words` and
`lines` (text layer), `layout`, `order` and `aligned` (reading order and columns),
`structure` and `rules` (headings, lists, paragraphs), `tables`, `furniture` (running heads,
page numbers), `titlepage`, `turn` (rotated pages), `ocr` (scanned pages, Tesseract),
`coverage` and `bounds` (what was kept of the page), `assemble` (the Document).
"""
