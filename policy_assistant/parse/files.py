"""Reading files of a corpus safely: regular files only, bounded in size, names made printable."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from policy_assistant.errors import DocumentError
from policy_assistant.text import printable as printable  # re-exported

DEFAULT_MAX_FILE_SIZE = 256 * 1024 * 1024
"""Largest file read as a document, in bytes (256 MiB: the biggest real manuals fit)."""


def is_utf8_name(name: str) -> bool:
    """Return whether a file name decoded from the OS is valid UTF-8 (no escaped bytes)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _size_text(size: int) -> str:
    """Return a byte count as a short human figure (MiB above one)."""
    mib = size / (1024 * 1024)
    return f"{mib:.1f}".rstrip("0").rstrip(".") + " MiB" if mib >= 1 else f"{size} bytes"


def file_kind(mode: int) -> str:
    """Return what kind of file a stat mode describes, for a message."""
    kinds = (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a folder"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def read_regular(path: str | Path, source: str, max_size: int = DEFAULT_MAX_FILE_SIZE) -> bytes:
    """Read a regular file of at most `max_size` bytes; anything else is a DocumentError."""
    try:
        # O_NONBLOCK: a FIFO swapped in after discovery must not hang the open.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise DocumentError(source, f"cannot read: {exc.strerror or exc}") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise DocumentError(source, f"{file_kind(info.st_mode)}, not a regular file")
        if info.st_size > max_size:
            raise DocumentError(source, _too_big(info.st_size, max_size))
        data = _read_all(fd, source, max_size + 1)
    finally:
        os.close(fd)
    if len(data) > max_size:  # the file grew while it was read
        raise DocumentError(source, _too_big(len(data), max_size))
    return data


def _read_all(fd: int, source: str, limit: int) -> bytes:
    """Read up to `limit` bytes from `fd`, however many calls it takes."""
    parts: list[bytes] = []
    left = limit
    try:
        while left > 0:
            part = os.read(fd, min(left, 16 * 1024 * 1024))
            if not part:
                break
            parts.append(part)
            left -= len(part)
    except OSError as exc:
        raise DocumentError(source, f"cannot read: {exc.strerror or exc}") from exc
    return b"".join(parts)


def _too_big(size: int, limit: int) -> str:
    return f"{_size_text(size)}, over the limit of {_size_text(limit)} (--max-file-size)"
