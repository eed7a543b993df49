"""A file's bytes, read up to the size limit (:data:`abcd_cli.limits.FILE_BYTES`).

A file is read through one handle, at most the limit and one byte more, so that neither a huge
file nor an endless stream (a FIFO nobody closes short of the limit, ``/dev/zero``) can fill the
memory; a device (``/dev/zero``, ``/dev/urandom``, a terminal) is refused before any read, a
directory or a missing file too. Every refusal is an :class:`~abcd_cli.errors.InputError`
naming the file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from abcd_cli.errors import InputError
from abcd_cli.limits import FILE_BYTES, mib


def read_bounded(path: str | Path, source: str, noun: str = "file") -> bytes:
    """The bytes of the file at ``path`` (named ``source`` in messages, a ``noun`` such as
    "model file"), or an InputError saying why they cannot be had."""
    path = Path(path)
    try:
        if path.is_dir():
            raise InputError(f"{source}: is a directory, not a {noun}")
        if not path.exists():
            raise InputError(f"{source}: file not found")
        mode = os.stat(path).st_mode
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
            raise InputError(f"{source}: is a device, not a {noun}; give a file")
        with path.open("rb") as handle:
            return read_limited(handle, source)
    except PermissionError:
        raise InputError(f"{source}: permission denied: cannot read the {noun}") from None
    except (OSError, ValueError) as exc:  # ValueError: a path with a NUL character
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise InputError(f"{source}: cannot read the {noun}: {reason}") from None


def read_limited(stream: BinaryIO, source: str) -> bytes:
    """At most the size limit of ``stream``'s bytes; InputError when it holds more."""
    limit = FILE_BYTES.value()
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise InputError(
            f"{source}: larger than the {mib(limit)} a file may hold; {FILE_BYTES.raise_hint()}"
        )
    return data
