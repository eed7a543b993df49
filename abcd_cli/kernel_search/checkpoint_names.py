"""Names of the search's checkpoint files: a default name that tells the data apart, and no
name longer than the file system takes.

* The default checkpoint of a command with an output file is ``OUT.ckpt.json`` beside it; of a
  command without one, ``.STEM-DIGEST.abcd.ckpt.json`` in the current folder, where DIGEST is
  the first 8 hexadecimal digits of SHA-256 over the data file's absolute path (``stdin`` for
  standard input) and the search settings: two ``data.csv`` of different folders, or one file
  searched with other settings, keep their states apart, and the same command finds its own
  state again with ``--resume``.
* Beside the file itself, a checkpoint has a part file while it is written
  (``files.py``: ``.NAME.PID.RANDOM.abcd.part``) and a lock file (``NAME.lock``), so its name
  may take ``PART_EXTRA`` bytes fewer than the folder's limit (255 on most file systems). A
  default name that would be longer is shortened (its stem cut, a digest of the whole name
  added); a name the user gave is refused with one line.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

from abcd_cli.errors import InputError
from abcd_cli.files import PART_EXTRA, name_limit

#: What a default checkpoint's name ends with, with no output file.
DEFAULT_SUFFIX = ".abcd.ckpt.json"
OUTPUT_SUFFIX = ".ckpt.json"


def _size(name: str) -> int:
    return len(os.fsencode(name))


def refuse_long_names(paths: Sequence[Path]) -> None:
    """InputError naming ``--checkpoint`` when a checkpoint's name leaves no room for its
    part and lock files' (``PART_EXTRA`` bytes more)."""
    for path in paths:
        limit = name_limit(path.parent) - PART_EXTRA
        if _size(path.name) > limit:
            shown = path.name if len(path.name) <= 60 else path.name[:57] + "..."
            raise InputError(
                f"the checkpoint name {shown!r} is too long for its folder's file system"
                f" ({_size(path.name)} bytes; at most {limit}, leaving room for its part and"
                " lock files): give --checkpoint a shorter name"
            )


def digest(*parts: object) -> str:
    """The first 8 hexadecimal digits of SHA-256 over the parts as JSON."""
    text = json.dumps([str(p) if isinstance(p, Path) else p for p in parts], sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def default_name(stem: str, suffix: str, folder: Path, extra: int) -> str:
    """``stem + suffix`` when it fits ``folder`` with ``extra`` bytes to spare (the names
    derived from it: ``.seedK``, ``.joint``) and a part file's; otherwise the stem cut and
    followed by ``-`` and a digest of the whole stem, so that names stay distinct."""
    limit = name_limit(folder) - PART_EXTRA - extra
    if _size(stem + suffix) <= limit:
        return stem + suffix
    tail = f"-{digest(stem)}{suffix}"
    room = max(limit - _size(tail), 1)
    cut = os.fsencode(stem)[:room].decode("utf-8", errors="ignore")  # no half character
    return cut + tail


def data_checkpoint(data: str | None, settings: dict[str, object], extra: int) -> Path:
    """The default checkpoint without an output file: ``.STEM-DIGEST.abcd.ckpt.json`` in the
    current folder (module docstring); ``data`` None: standard input."""
    folder = Path.cwd()
    if data is None:
        stem, where = "stdin", "-"
    else:
        stem, where = Path(data).stem, os.path.realpath(data)
    return folder / default_name(
        f".{stem}-{digest(where, settings)}", DEFAULT_SUFFIX, folder, extra
    )


def output_checkpoint(out: str, extra: int) -> Path:
    """The default checkpoint beside the output ``out``: ``OUT.ckpt.json``, shortened if need
    be."""
    path = Path(out)
    return path.with_name(default_name(path.name, OUTPUT_SUFFIX, path.parent, extra))


def derived_extra(seed: int, seeds: int, joint: bool) -> int:
    """The most bytes ``checkpoint_paths`` adds to a checkpoint's name: ``.seedK`` for the
    last seed with several, ``.joint`` for a joint weighing."""
    if seeds <= 1:
        return 0
    return max(len(f".seed{seed + seeds - 1}"), len(".joint") if joint else 0)
