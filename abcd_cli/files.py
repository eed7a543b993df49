"""How the program writes a file it was told to write.

* ``-`` is standard output.
* A regular file, or a new one, is replaced atomically: the data go to a hidden part file
  beside it (``.NAME.PID.RANDOM.abcd.part``), are flushed to disk and renamed over it, so a
  reader sees the old file or the whole new one. An existing file keeps its permissions; a
  read-only one is refused.
* A symbolic link is followed: its target is written as above, the link stays.
* A FIFO or a character device (``/dev/null``, a terminal) is written to directly, never
  replaced; a FIFO that no process reads is refused rather than waited on.
* A folder, a block device or a socket is refused.
* Part files left by a write of this program that was killed (its process no longer exists)
  are removed by the next write to the same path.

Which paths a command may write at all (not its inputs, not each other) is decided before it
starts, in :mod:`abcd_cli.destinations`.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
import sys
from pathlib import Path

from abcd_cli.errors import InputError

#: The name that means standard output (for outputs) or standard input (for inputs).
STANDARD_STREAM = "-"
PART_SUFFIX = ".abcd.part"


def is_standard_stream(path: str | Path | None) -> bool:
    return path is not None and str(path) == STANDARD_STREAM


def shown(path: str | Path) -> str:
    """A path as messages name it: ``-`` is "standard output"."""
    return "standard output" if is_standard_stream(path) else str(path)


def write_output(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` as the module docstring says; InputError
    with a one-line message when it cannot be written."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    if is_standard_stream(path):
        _write_stdout(payload)
        return
    path = Path(path)
    kind = output_kind(path)
    if kind == "stream":
        _write_stream(path, payload)
    else:
        _replace(Path(os.path.realpath(path)), payload, shown=path)


def output_kind(path: Path) -> str:
    """ "file" (a regular file, a new one, or a link to either) or "stream" (a FIFO or a
    character device, written in place); InputError for what cannot be written."""
    try:
        st = path.stat()  # follows a symbolic link
    except FileNotFoundError:
        folder = Path(os.path.realpath(path)).parent
        if not folder.is_dir():
            raise InputError(f"cannot write {path}: folder {folder} does not exist") from None
        if not os.access(folder, os.W_OK):
            raise InputError(f"cannot write {path}: folder {folder} is not writable") from None
        return "file"
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    mode = st.st_mode
    if stat.S_ISREG(mode):
        folder = Path(os.path.realpath(path)).parent
        if not mode & 0o222 or not os.access(path, os.W_OK):  # root passes access()
            raise InputError(f"cannot write {path}: the file is read-only")
        if not os.access(folder, os.W_OK):
            raise InputError(f"cannot write {path}: folder {folder} is not writable")
        return "file"
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return "stream"
    what = (
        "a folder"
        if stat.S_ISDIR(mode)
        else "a block device"
        if stat.S_ISBLK(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "not a regular file"
    )
    raise InputError(f"cannot write {path}: it is {what}")


def _write_stdout(payload: bytes) -> None:
    out = sys.stdout
    out.flush()
    buffer = getattr(out, "buffer", None)
    if buffer is None:  # a text stream without bytes underneath (a test's capture)
        out.write(payload.decode("utf-8", errors="replace"))
    else:
        buffer.write(payload)
        buffer.flush()


def _write_stream(path: Path, payload: bytes) -> None:
    """Write into a FIFO or device in place. A FIFO is opened without waiting: ENXIO means
    that nobody reads it, which is refused instead of blocking forever."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == 6:  # ENXIO
            raise InputError(f"cannot write {path}: no process is reading this FIFO") from None
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        os.set_blocking(fd, True)
        view = memoryview(payload)
        while view:
            view = view[os.write(fd, view) :]
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _replace(target: Path, payload: bytes, shown: Path) -> None:
    """Write ``payload`` to a part file beside ``target`` and rename it over ``target``;
    on any failure the target is untouched and the part file removed."""
    remove_stale_parts(target)
    part = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}{PART_SUFFIX}")
    try:
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _mode_for(target))
    except OSError as exc:
        raise InputError(f"cannot write {shown}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(part, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(part)
        if isinstance(exc, OSError):
            raise InputError(f"cannot write {shown}: {exc.strerror or exc}") from None
        raise


def _mode_for(target: Path) -> int:
    """The existing file's permissions, else those of an ordinary new file (0666 − umask)."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _part_pattern(target: Path) -> re.Pattern[str]:
    return re.compile(
        re.escape(f".{target.name}.") + r"(\d+)\.[0-9a-f]{8}" + re.escape(PART_SUFFIX) + "$"
    )


def remove_stale_parts(target: Path) -> list[Path]:
    """Remove the part files of ``target`` that a killed write of this program left (those
    whose process is gone); returns them. Another running write's part file is kept."""
    pattern = _part_pattern(target)
    removed = []
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return removed
    for entry in entries:
        match = pattern.match(entry.name)
        if match and entry.is_file(follow_symlinks=False) and not _alive(int(match.group(1))):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` exists on this machine (ours included)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True
