"""Chunk retrieval: BM25 postings built into immutable segments, and search over them.

`bm25_build` counts rows into postings, `segment_build` writes a segment, `segment` reads
one memory-mapped, `segment_search` scores a query over the live segments with global
statistics, and `search` is `Index.search`, the one place access is enforced.
"""
