"""One search at a time on a checkpoint: an exclusive lock on ``CHECKPOINT.lock``.

A search holds ``fcntl.flock(LOCK_EX)`` on the lock file beside each of its checkpoints while it
runs (the command line: until its outputs are written and its checkpoints removed). A second
search on the same checkpoint is refused at once, with one line naming the process that holds
it; an output that is a running search's checkpoint is refused too (``destinations``). The
kernel releases the lock when its process ends, however it ends, so the lock file a killed
search leaves behind blocks nothing: the next search takes it. The lock file is not the
checkpoint itself because the checkpoint is replaced by a rename at every level, and a lock
follows the replaced file. It holds its own first line (``HEADER``) and the holder's process
id; a file at its path without that line is left alone and refused.

Locks are counted per process, so that the command line and the search it calls can both
hold one. Where ``fcntl`` is missing (Windows), nothing is locked.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from abcd_cli.errors import InputError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

#: The first line of a lock file of this program.
HEADER = "abcd search checkpoint lock"
LOCK_SUFFIX = ".lock"


@dataclass
class _Held:
    fd: int  # the open lock file
    count: int = 1  # holds in this process


_HELD: dict[str, _Held] = {}  # by the lock file's absolute path


def lock_path(checkpoint: Path) -> Path:
    """The lock file of a checkpoint: ``NAME.lock`` beside it."""
    return checkpoint.with_name(checkpoint.name + LOCK_SUFFIX)


def _key(checkpoint: Path) -> str:
    path = lock_path(checkpoint)
    return os.path.join(os.path.realpath(path.parent), path.name)


@contextlib.contextmanager
def hold_checkpoints(checkpoints: Sequence[Path]) -> Iterator[None]:
    """Hold the lock of each checkpoint for the block; InputError at once when another
    search holds one, or its lock path holds a file of someone else's."""
    taken: list[str] = []
    try:
        for checkpoint in checkpoints:
            taken.append(_acquire(Path(checkpoint)))
        yield
    finally:
        for key in reversed(taken):
            _release(key)


def _acquire(checkpoint: Path) -> str:
    key = _key(checkpoint)
    if key in _HELD:
        _HELD[key].count += 1
        return key
    if fcntl is None:  # pragma: no cover - Windows
        return key
    while True:
        fd = _open(checkpoint, key)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder_text(fd)
            os.close(fd)
            raise InputError(
                f"another search{holder} is using the checkpoint {checkpoint}: wait for it to"
                " end, or give this search its own file with --checkpoint PATH"
            ) from None
        try:
            same = os.fstat(fd).st_ino == os.stat(key, follow_symlinks=False).st_ino
        except FileNotFoundError:  # its holder removed it as it let go: take a new one
            same = False
        if same:
            break
        os.close(fd)
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, f"{HEADER}\n{os.getpid()}\n".encode())
    _HELD[key] = _Held(fd)
    return key


def _open(checkpoint: Path, key: str) -> int:
    """The lock file opened for writing (created if missing); InputError for a link or a file
    of someone else's there."""
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(key, flags, 0o644)
    except OSError as exc:
        raise InputError(
            f"cannot lock the checkpoint {checkpoint} ({key}: {exc.strerror or exc}): give"
            " --checkpoint another path"
        ) from None
    text = os.read(fd, len(HEADER))
    if text and text != HEADER.encode():
        os.close(fd)
        raise InputError(
            f"the checkpoint's lock path {key} holds a file that is not an abcd lock; it is"
            " left as it is: remove it or give --checkpoint another path"
        )
    return fd


def _holder_text(fd: int) -> str:
    """ " (process N)" from a lock file's second line, '' when it does not say."""
    os.lseek(fd, 0, os.SEEK_SET)
    lines = os.read(fd, 200).decode("utf-8", errors="replace").splitlines()
    return f" (process {lines[1]})" if len(lines) > 1 and lines[1].isdigit() else ""


def _release(key: str) -> None:
    held = _HELD.get(key)
    if held is None:
        return
    held.count -= 1
    if held.count:
        return
    del _HELD[key]
    with contextlib.suppress(OSError):  # removed while held: gone already
        os.unlink(key)
    if fcntl is not None:  # also for forked workers that share the open file
        fcntl.flock(held.fd, fcntl.LOCK_UN)
    os.close(held.fd)


def running_search(checkpoint: Path) -> str | None:
    """Who holds the lock of ``checkpoint`` (" (process N)" or ""), None when no search
    does. This process's own locks count."""
    key = _key(checkpoint)
    if key in _HELD:
        return f" (process {os.getpid()})"
    if fcntl is None:  # pragma: no cover - Windows
        return None
    try:
        fd = os.open(key, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return _holder_text(fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    return None
