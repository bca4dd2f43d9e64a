"""Context for a word budget: retrieval units below the chunk, their ranking, the assembler.

`units` cuts documents into sentences, items, rows and lines; `unit_segment` and
`unit_open` store and read them per segment; `unit_terms` and `unit_rank`
rank units by their own text, their section and their document; `assembler` grows hits into
passages that fit a budget; `passages` are what it returns.
"""
