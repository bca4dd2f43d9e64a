"""The form a worker's Parsed crosses the pipe in: nested tuples, rebuilt into records here.

Pickling a frozen, slotted dataclass goes through its __getstate__ and __setstate__, a Python
loop per record; plain tuples of field values pickle in C and rebuild through each record's
own constructor. For the 2,150 files of bench_cores.py's corpus (2,150 documents, 12,910
blocks, 3,050 chunks) pickling the records took 0.076 s of CPU and unpickling them 0.096 s;
to_wire and pickling 0.022 s, unpickling and from_wire 0.054 s (best of 5 each). Every field
of every record is carried, in the order dataclasses.fields gives, so a field added to a
record travels without a change here.
"""

from __future__ import annotations

from dataclasses import fields
from operator import attrgetter
from typing import Any

from policy_assistant.parse.read_records import Parsed
from policy_assistant.records import Block, Chunk, Document, Dropped

Wire = tuple[Any, ...]
"""A Parsed as field values, its document and chunks as field values too."""


def _names(record: type) -> tuple[str, ...]:
    """Return the record's field names in declaration (constructor) order."""
    return tuple(f.name for f in fields(record))


_PARSED, _DOCUMENT = _names(Parsed), _names(Document)
_VALUES = {record: attrgetter(*_names(record)) for record in (Parsed, Document, Block, Dropped)}
_CHUNK_VALUES = attrgetter(*_names(Chunk))
_AT_DOCUMENT, _AT_CHUNKS = _PARSED.index("document"), _PARSED.index("chunks")
_AT_BLOCKS, _AT_DROPPED = _DOCUMENT.index("blocks"), _DOCUMENT.index("dropped")


def to_wire(parsed: Parsed) -> Wire:
    """Return parsed as nested tuples of field values (from_wire rebuilds it)."""
    values = list(_VALUES[Parsed](parsed))
    document, chunks = parsed.document, parsed.chunks
    if document is not None:
        fields_of = list(_VALUES[Document](document))
        fields_of[_AT_BLOCKS] = tuple(map(_VALUES[Block], document.blocks))
        fields_of[_AT_DROPPED] = tuple(map(_VALUES[Dropped], document.dropped))
        values[_AT_DOCUMENT] = tuple(fields_of)
    if chunks is not None:
        values[_AT_CHUNKS] = tuple(map(_CHUNK_VALUES, chunks))
    return tuple(values)


def from_wire(wire: Wire) -> Parsed:
    """Rebuild the Parsed that to_wire was given, equal to it field for field."""
    values = list(wire)
    document, chunks = values[_AT_DOCUMENT], values[_AT_CHUNKS]
    if document is not None:
        fields_of = list(document)
        fields_of[_AT_BLOCKS] = tuple([Block(*b) for b in fields_of[_AT_BLOCKS]])
        fields_of[_AT_DROPPED] = tuple([Dropped(*d) for d in fields_of[_AT_DROPPED]])
        values[_AT_DOCUMENT] = Document(*fields_of)
    if chunks is not None:
        values[_AT_CHUNKS] = [Chunk(*c) for c in chunks]
    return Parsed(*values)
