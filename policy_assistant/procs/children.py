"""Forked children that die with the process that forked them.

A BM25 build forks worker processes (bm25_build.py). A worker blocks reading its task pipe,
and it holds that pipe's write end too (inherited through fork), so a parent killed by
SIGKILL or SIGTERM never gives it end-of-file: without help it waits forever, holding its
memory and every descriptor it inherited. On Linux, prctl(PR_SET_PDEATHSIG) has the kernel
kill the child when the thread that forked it dies; workers are forked from the main thread
(a fork-context pool starts all of them at once, from the thread that submits).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1
"""prctl option from <linux/prctl.h>: the signal a child gets when its parent dies."""


def die_with_parent(parent: int) -> None:
    """In a forked child: be killed when parent dies; exit now if it already has."""
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
            error = ctypes.get_errno()
            raise OSError(error, f"prctl(PR_SET_PDEATHSIG): {os.strerror(error)}")
    # The parent may have died between fork and prctl: then nothing would ever signal us.
    if os.getppid() != parent:
        os._exit(1)
