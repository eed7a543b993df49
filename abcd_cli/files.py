"""How the program writes a file it was told to write.

* ``-`` is standard output: every byte is checked to have been taken (a short write that
  stops, a full disk, a closed pipe, an I/O error are a :class:`StandardOutputError`), flushed,
  and synced to disk when standard output is a regular file.
* A regular file, or a new one, is replaced atomically: the data go to a hidden part file
  beside it (``.NAME.PID.RANDOM.abcd.part``), are flushed to disk and renamed over it, so a
  reader sees the old file or the whole new one. An existing file keeps its permissions; a
  read-only one is refused.
* A symbolic link is followed: its target is written as above, the link stays.
* A FIFO or a character device (``/dev/null``, a terminal) is written to directly, never
  replaced; a FIFO that no process reads is refused rather than waited on. The destination
  checks open it before any work (:func:`hold_stream`) and keep it open until it is written,
  so that a FIFO without a reader is refused at once and a reader that is there waits for the
  output instead of seeing the end of a probe's empty write.
* A folder, a block device or a socket is refused.
* Part files left by a write of this program that was killed (its process no longer exists)
  are removed by the next write to the same path.

Which paths a command may write at all (not its inputs, not each other) is decided before it
starts, in :mod:`abcd_cli.destinations`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import sys
from pathlib import Path
from typing import Any, Protocol

from abcd_cli.errors import InputError

#: The name that means standard output (for outputs) or standard input (for inputs).
STANDARD_STREAM = "-"
PART_SUFFIX = ".abcd.part"
#: The bytes a part file's name adds to its target's: ".", ".PID" (at most 7 digits on Linux),
#: ".RANDOM" (8 hexadecimal digits) and the suffix.
PART_EXTRA = len(".." + "9" * 7 + "." + "0" * 8 + PART_SUFFIX)

#: FIFOs and devices opened by the destination checks, by (device, inode), until written.
_held_streams: dict[tuple[int, int], int] = {}


class StandardOutputError(InputError):
    """Standard output did not take what was written to it (a full disk, a closed pipe, an
    I/O error, a write that stopped short)."""


class _Writable(Protocol):
    def write(self, data: Any, /) -> int | None: ...


def is_standard_stream(path: str | Path | None) -> bool:
    return path is not None and str(path) == STANDARD_STREAM


def shown(path: str | Path) -> str:
    """A path as messages name it: ``-`` is "standard output"."""
    return "standard output" if is_standard_stream(path) else str(path)


def write_output(path: str | Path, data: str | bytes, what: str = "the output") -> None:
    """Write ``data`` (text as UTF-8) to ``path`` as the module docstring says; InputError
    with a one-line message when it cannot be written (``what``: how it names the data when
    ``path`` is standard output, "the report")."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    if is_standard_stream(path):
        _write_stdout(payload, what)
        return
    path = Path(path)
    kind = output_kind(path)
    if kind == "stream":
        _write_stream(path, payload)
    else:
        _replace(Path(os.path.realpath(path)), payload, shown=path)


def name_limit(folder: Path) -> int:
    """The longest file name, in bytes, that ``folder``'s file system takes (255 when it
    cannot be asked)."""
    try:
        return int(os.pathconf(folder if folder.is_dir() else ".", "PC_NAME_MAX"))
    except (OSError, ValueError):
        return 255


def _refuse_long_name(path: Path, target: Path) -> None:
    """InputError when ``target``'s part file (``PART_EXTRA`` bytes longer) would not fit its
    folder: refused before the work, not at the write after it."""
    size, limit = len(os.fsencode(target.name)), name_limit(target.parent) - PART_EXTRA
    if size > limit:
        raise InputError(
            f"cannot write {path}: its name is {size} bytes, too long for its folder's file"
            f" system (at most {limit}, leaving room for the part file it is written through):"
            " choose a shorter name"
        )


def output_kind(path: Path) -> str:
    """ "file" (a regular file, a new one, or a link to either) or "stream" (a FIFO or a
    character device, written in place); InputError for what cannot be written, a name too
    long for its part file included."""
    target = Path(os.path.realpath(path))
    try:
        st = path.stat()  # follows a symbolic link
    except FileNotFoundError:
        folder = target.parent
        if not folder.is_dir():
            raise InputError(f"cannot write {path}: folder {folder} does not exist") from None
        if not os.access(folder, os.W_OK):
            raise InputError(f"cannot write {path}: folder {folder} is not writable") from None
        _refuse_long_name(path, target)
        return "file"
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise InputError(
                f"cannot write {path}: its name is too long for its folder's file system:"
                " choose a shorter name"
            ) from None
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    mode = st.st_mode
    if stat.S_ISREG(mode):
        folder = target.parent
        if not mode & 0o222 or not os.access(path, os.W_OK):  # root passes access()
            raise InputError(f"cannot write {path}: the file is read-only")
        if not os.access(folder, os.W_OK):
            raise InputError(f"cannot write {path}: folder {folder} is not writable")
        _refuse_long_name(path, target)
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


def _write_stdout(payload: bytes, what: str = "the output") -> None:
    """Write ``payload`` to standard output, flushed (and synced when it is a regular file);
    StandardOutputError naming ``what`` and the reason when any of it is not taken."""
    out = sys.stdout
    try:
        if out is None:
            raise OSError(errno.EBADF, "there is no standard output")
        out.flush()
        buffer = getattr(out, "buffer", None)
        if buffer is None:  # a text stream without bytes underneath (a test's capture)
            _write_all(out, payload.decode("utf-8", errors="replace"))
            out.flush()
        else:
            _write_all(buffer, payload)
            buffer.flush()
            _sync_if_file(buffer)
    except OSError as exc:
        raise stdout_failure(what, exc) from None


def _write_all(stream: _Writable, data: bytes | str) -> None:
    """Write all of ``data`` to ``stream``, again after a partial write; OSError when a write
    takes nothing (a full disk, a file object that stopped taking data). A text stream that
    answers None (IPython's, in a worker) is taken at its word that it wrote everything."""
    done = 0
    while done < len(data):
        taken = stream.write(data[done:])
        if taken is None and isinstance(data, str):
            return
        if taken is None or taken <= 0:
            unit = "bytes" if isinstance(data, bytes) else "characters"
            raise OSError(errno.EIO, f"the write stopped after {done} of {len(data)} {unit}")
        done += taken


def stdout_failure(what: str | None, exc: OSError) -> StandardOutputError:
    """The one-line error of a failed write to standard output: "could not write the report
    to standard output: no space left on device"."""
    if exc.errno == errno.EPIPE:
        reason = "the program reading it closed the pipe"
    else:
        text = exc.strerror or str(exc)
        reason = text[:1].lower() + text[1:]
    target = f"{what} to standard output" if what else "to standard output"
    return StandardOutputError(f"could not write {target}: {reason}")


def _sync_if_file(stream: object) -> None:
    """fsync standard output when it is a regular file, so that a disk that fills late (or
    a network file system) fails here rather than after the command said it wrote."""
    try:
        fd = stream.fileno()  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return  # no descriptor: a test's capture
    if stat.S_ISREG(os.fstat(fd).st_mode):
        try:
            os.fsync(fd)
        except OSError as exc:
            if exc.errno not in (errno.EINVAL, errno.EOPNOTSUPP):  # cannot sync: not a loss
                raise


def _write_stream(path: Path, payload: bytes) -> None:
    """Write into a FIFO or device in place, through the descriptor the destination checks
    held (:func:`hold_stream`) or one opened now."""
    key = _identity(path)
    fd = _held_streams.pop(key, None) if key is not None else None
    if fd is None:
        fd = _open_stream(path)
    try:
        os.set_blocking(fd, True)
        view = memoryview(payload)
        while view:
            view = view[os.write(fd, view) :]
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def hold_stream(path: Path) -> None:
    """Open the FIFO or device ``path`` for writing now and keep it open until the output is
    written to it: a FIFO that nobody reads is refused before any work, and its reader waits
    for the output (a probe that closed again would hand it an empty file)."""
    key = _identity(path)
    if key is not None and key not in _held_streams:
        _held_streams[key] = _open_stream(path)


def release_streams() -> None:
    """Close the streams held by :func:`hold_stream` that were never written (the command
    failed): their readers see the end of an empty output."""
    while _held_streams:
        _, fd = _held_streams.popitem()
        with contextlib.suppress(OSError):
            os.close(fd)


def _open_stream(path: Path) -> int:
    """A FIFO or device opened for writing without waiting: ENXIO means that nobody reads the
    FIFO, which is refused instead of blocking forever."""
    try:
        return os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise InputError(
                f"cannot write {path}: no process is reading this FIFO; start its reader"
                " before abcd"
            ) from None
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


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
