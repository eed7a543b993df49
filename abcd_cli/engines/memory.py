"""Keep the likelihood's N×N temporaries on the reused heap (glibc only).

glibc serves every allocation above its mmap threshold (128 KiB at start: a 128×128 float64
matrix) with fresh pages from the kernel and hands them back when freed, so each temporary of a
likelihood evaluation pays one page fault per 4 KiB the first time it is written. A kernel with
19 parameters on 250 points (02-solar's search subset) took 41-48 ms per evaluation that way and
18-25 ms with the thresholds below (``benchmarks/studies/outputs/PROFILE.md``).

Raising the mmap threshold to glibc's largest allowed value (32 MiB, an N = 2048 matrix) and the
trim threshold above it keeps such blocks in the process's heap for reuse. Elsewhere (macOS,
musl), or when the environment sets ``ABCD_GLIBC_MALLOC_DEFAULTS=1`` (to compare), nothing is
changed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 * 2**20  # glibc's maximum on 64-bit systems
TRIM_THRESHOLD = 128 * 2**20

_done = False


def keep_temporaries_on_heap() -> bool:
    """Raise glibc's mmap and trim thresholds once per process; True when they were set."""
    global _done
    if _done:
        return True
    if os.environ.get("ABCD_GLIBC_MALLOC_DEFAULTS") == "1":
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    _done = (
        mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
        and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
    )
    return _done
