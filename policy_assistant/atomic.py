"""Write files so a reader sees the old bytes or the new ones, never half of them."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to a temporary file beside `path`, fsync it, then rename it over `path`.

    A path that is a folder, or whose parent is a file, is an OSError naming `path`.
    """
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a folder; name a file to write", str(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        problem = f"cannot be written: {path.parent} is not a folder"
        raise NotADirectoryError(errno.ENOTDIR, problem, str(path)) from None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise _naming(exc, path) from None
    try:
        # mkstemp makes the file private (0600); a written report should read like any file.
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise _naming(exc, path) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _naming(exc: OSError, path: Path) -> OSError:
    """Return the error as it concerns path: the temporary file is no name the user gave."""
    if exc.errno is None:
        return exc
    return OSError(exc.errno, exc.strerror or str(exc), str(path))


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
