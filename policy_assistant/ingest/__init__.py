"""Ingest: read_corpus, then chunk, then index, doing again only what changed; and the watch.

`pipeline` is `ingest` (sticky settings, reuse of unchanged files, the write); `units`
builds retrieval units for the writer; `watch` runs a round for the files that changed;
`events` turns file system events into those files; `loop` runs rounds until stopped.
"""
