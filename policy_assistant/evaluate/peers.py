"""Chunkers we did not write, run inside eval as variants: LangChain, LlamaIndex, Chonkie.

Each peer splits the same parsed text (`Document.text`) our chunkers split, with its own code
and its own size unit, and each of its chunks is mapped back to exact offsets in that text: at
the peer's own start index when it gives one and the text lies there, else located in order
(exactly, then with whitespace collapsed, as `--chunks` records are). A chunk that cannot be
placed is kept, searched but relevant to nothing, and counted in the report. Peer chunks carry
no prefix: the body is what the peer made.

This is the one module that imports langchain_text_splitters, llama_index.core and chonkie,
each only when a variant of it is made (`pip install 'policy-assistant[peers]'`).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import Any, ClassVar

from policy_assistant.chunk.base import (
    NO_PREFIX,
    ChunkEmitter,
    Chunker,
    Prefix,
    check_not_negative,
    check_positive,
)
from policy_assistant.errors import UsageError
from policy_assistant.evaluate.chunk_records import Placer
from policy_assistant.evaluate.report import ChunkerRun
from policy_assistant.records import Chunk, Document
from policy_assistant.text import count_words

EXTRA = "peers"
"""The optional extra that installs every peer."""

Piece = tuple[str, int | None]
"""A peer's chunk: its text, and the start offset the peer gives for it (None if it gives none)."""
Split = Callable[[str], list[Piece]]
"""A configured peer: text in, chunks out."""


class PeerChunker(Chunker):
    """A chunker of another library behind our Chunker interface, its chunks placed in the text."""

    distribution: ClassVar[str]
    """The PyPI distribution of the peer: named in the spec and in the missing-extra error."""

    def __init__(self) -> None:
        self.unplaced = 0
        try:
            self._split = self.configure()
            self._library = f"{self.distribution} {metadata.version(self.distribution)}"
        except (ImportError, metadata.PackageNotFoundError):
            raise UsageError(
                f"{self.name} needs the {EXTRA} extra: pip install 'policy-assistant[{EXTRA}]' "
                f"({self.distribution} is not installed)"
            ) from None
        except ValueError as exc:
            raise UsageError(f"{self.name}: {exc}") from None

    @abstractmethod
    def configure(self) -> Split:
        """Import the peer and return its configured splitter (ImportError when not installed)."""

    def spec(self) -> dict[str, Any]:
        """Return the name, settings and the peer's version, as stored in every chunk."""
        return {**super().spec(), "library": self._library}

    def chunk(self, doc: Document) -> list[Chunk]:
        """Return the peer's chunks of one document, each placed in the document's text."""
        if not doc.text.strip():
            return []
        emitter = ChunkEmitter(doc, self.spec(), doc.blocks)
        placer = Placer(doc)
        for text, start in self._split(doc.text):
            if not text.strip():
                continue
            span = placer.place(text, start)
            if span is None:
                # Kept with an empty body so budgets fill as the peer's would; the text rides
                # in front of that empty body, which every chunk's text must end with.
                self.unplaced += 1
                emitter.emit(0, 0, Prefix(text, count_words(text)), 0)
            else:
                emitter.emit(span[0], span[1], NO_PREFIX)
        return emitter.chunks

    def report_spec(self) -> dict[str, Any]:
        """Return the spec as the report records it: with how many chunks could not be placed."""
        return {**self.spec(), "unplaced": self.unplaced}


def _check_overlap(size: int, overlap: int) -> None:
    """Raise UsageError unless the overlap is smaller than the size."""
    if overlap >= size:
        raise UsageError(f"chunk_overlap must be smaller than chunk_size, got {overlap} and {size}")


class LangChainRecursive(PeerChunker):
    """LangChain's RecursiveCharacterTextSplitter; sizes in characters (its `len`)."""

    name: ClassVar[str] = "langchain-recursive"
    setting_names: ClassVar[tuple[str, ...]] = ("chunk_size", "chunk_overlap")
    distribution: ClassVar[str] = "langchain-text-splitters"

    def __init__(self, chunk_size: int = 4000, chunk_overlap: int = 200) -> None:
        # The defaults are LangChain's own (TextSplitter: 4000 characters, 200 overlapping).
        self.chunk_size = check_positive("chunk_size", chunk_size)
        self.chunk_overlap = check_not_negative("chunk_overlap", chunk_overlap)
        _check_overlap(self.chunk_size, self.chunk_overlap)
        super().__init__()

    def configure(self) -> Split:
        """Return the splitter, asking LangChain for each chunk's start index."""
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        splitter = RecursiveCharacterTextSplitter(
            chunk_size=self.chunk_size, chunk_overlap=self.chunk_overlap, add_start_index=True
        )

        def split(text: str) -> list[Piece]:
            docs = splitter.create_documents([text])
            return [(d.page_content, _given_start(d.metadata.get("start_index"))) for d in docs]

        return split


class _LlamaIndexSentence(PeerChunker):
    """LlamaIndex's SentenceSplitter; sizes in its default tokenizer's tokens (cl100k_base)."""

    name: ClassVar[str] = "llamaindex-sentence"
    setting_names: ClassVar[tuple[str, ...]] = ("chunk_size", "chunk_overlap")
    distribution: ClassVar[str] = "llama-index-core"

    def __init__(self, chunk_size: int = 1024, chunk_overlap: int = 200) -> None:
        # The defaults are LlamaIndex's own (DEFAULT_CHUNK_SIZE, SENTENCE_CHUNK_OVERLAP).
        self.chunk_size = check_positive("chunk_size", chunk_size)
        self.chunk_overlap = check_not_negative("chunk_overlap", chunk_overlap)
        _check_overlap(self.chunk_size, self.chunk_overlap)
        super().__init__()

    def configure(self) -> Split:
        """Return the splitter; LlamaIndex places each node in the document itself, in order."""
        from llama_index.core import Document as LlamaDocument
        from llama_index.core.node_parser import SentenceSplitter

        splitter = SentenceSplitter(chunk_size=self.chunk_size, chunk_overlap=self.chunk_overlap)

        def split(text: str) -> list[Piece]:
            nodes = splitter.get_nodes_from_documents([LlamaDocument(text=text)])
            return [(n.get_content(), _given_start(n.start_char_idx)) for n in nodes]

        return split


class _ChonkieRecursive(PeerChunker):
    """Chonkie's RecursiveChunker; sizes in its default tokenizer's units (characters)."""

    name: ClassVar[str] = "chonkie-recursive"
    setting_names: ClassVar[tuple[str, ...]] = ("chunk_size",)
    distribution: ClassVar[str] = "chonkie"

    def __init__(self, chunk_size: int = 2048) -> None:
        # The default is Chonkie's own.
        self.chunk_size = check_positive("chunk_size", chunk_size)
        super().__init__()

    def configure(self) -> Split:
        """Return the chunker; Chonkie gives each chunk's start index."""
        from chonkie import RecursiveChunker

        chunker = RecursiveChunker(chunk_size=self.chunk_size)

        def split(text: str) -> list[Piece]:
            return [(c.text, _given_start(c.start_index)) for c in chunker.chunk(text)]

        return split


def _given_start(value: object) -> int | None:
    """Return a peer's start index if it is one (a whole number, not negative), else None."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


PEERS: dict[str, type[PeerChunker]] = {
    cls.name: cls for cls in (LangChainRecursive, _LlamaIndexSentence, _ChonkieRecursive)
}
"""Every peer by the name `--chunker` knows it by."""


def peer_warnings(runs: Sequence[ChunkerRun]) -> list[str]:
    """Return one line per peer variant some of whose chunks could not be placed."""
    return [
        f"{run.name}: {run.spec['unplaced']} of {len(run.chunks)} chunks could not be placed "
        "in their document's text; they are searched but relevant to nothing"
        for run in runs
        if run.spec.get("name") in PEERS and run.spec.get("unplaced")
    ]
