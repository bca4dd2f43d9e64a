"""Assemble a Document's normalized text and blocks, keeping offsets exact."""

from __future__ import annotations

from policy_assistant.records import Block, BlockKind, Document, DocumentMeta, PageBox

BLOCK_SEPARATOR = "\n\n"
"""Blocks are joined by one blank line in Document.text."""


class DocumentBuilder:
    """Append blocks in reading order; track the section path and page starts."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._offset = 0
        self._blocks: list[Block] = []
        self._headings: list[tuple[int, str]] = []
        self._page_starts: dict[int, int] = {}

    @property
    def offset(self) -> int:
        """Offset where the next block's text will start."""
        return self._offset + (len(BLOCK_SEPARATOR) if self._parts else 0)

    @property
    def blocks(self) -> list[Block]:
        """Blocks added so far (read-only use)."""
        return self._blocks

    def begin_page(self, page: int, offset: int | None = None) -> None:
        """Record that 1-based `page` starts at `offset` (default: the next block)."""
        self._page_starts.setdefault(page, self.offset if offset is None else offset)

    def section(self) -> tuple[str, ...]:
        """Return the current heading path, outermost first."""
        return tuple(text for _, text in self._headings)

    def heading(
        self, text: str, level: int, pages: tuple[int, ...] = (), boxes: tuple[PageBox, ...] = ()
    ) -> Block | None:
        """Add a heading block and make it the innermost section."""
        text = text.strip()
        if not text:
            return None
        while self._headings and self._headings[-1][0] >= level:
            self._headings.pop()
        self._headings.append((level, text))
        return self._append("heading", text, pages, level, boxes)

    def add(
        self,
        kind: BlockKind,
        text: str,
        pages: tuple[int, ...] = (),
        boxes: tuple[PageBox, ...] = (),
    ) -> Block | None:
        """Add a non-heading block under the current section; empty text is dropped."""
        text = text.strip("\n").rstrip()
        if not text.strip():
            return None
        return self._append(kind, text, pages, None, boxes)

    def _append(
        self,
        kind: BlockKind,
        text: str,
        pages: tuple[int, ...],
        level: int | None,
        boxes: tuple[PageBox, ...] = (),
    ) -> Block:
        start = self.offset
        if self._parts:
            self._parts.append(BLOCK_SEPARATOR)
        self._parts.append(text)
        self._offset = start + len(text)
        block = Block(kind, text, start, self._offset, pages, self.section(), level, boxes)
        self._blocks.append(block)
        return block

    def title(self) -> str | None:
        """Return the text of the first top-most heading, if any."""
        headings = [b for b in self._blocks if b.kind == "heading" and b.level is not None]
        if not headings:
            return None
        top = min(b.level for b in headings if b.level is not None)
        return next(b.text for b in headings if b.level == top)

    def build(self, source: str, sha256: str, meta: DocumentMeta, fallback_title: str) -> Document:
        """Return the finished document."""
        pages = tuple(self._page_starts[p] for p in sorted(self._page_starts))
        return Document(
            source=source,
            title=meta.title or self.title() or fallback_title,
            version=meta.version,
            access=meta.access,
            language=meta.language,
            sha256=sha256,
            text="".join(self._parts),
            pages=pages,
            blocks=tuple(self._blocks),
        )
