"""The index folder: generations, the lock, the writer, the merge plan, manifest and entries.

`build` decides what changed and makes the one write; `plan` chooses which segments a
generation keeps, deletes from and merges; `writer` holds the lock and publishes a generation
atomically; `reader` opens the live one; `manifest` and `entries` are what a generation
records; `units` writes and opens the retrieval-unit segments. The format: docs/index-format.md.
"""
