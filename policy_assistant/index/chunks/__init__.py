"""Chunk retrieval: BM25 postings built into immutable segments, and search over them.

`bm25_build` counts rows into postings, `segment_build` writes a segment, `segment` reads
one memory-mapped (or counts one in memory: eval's index), `segment_search` is the one chunk
ranker, over the live segments with global statistics, and `search` is `Index.search`, the
one place access is enforced.
"""
