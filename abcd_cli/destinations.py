"""Where a command may write: the one place that decides it, before any work starts.

A command names its inputs (the data, a model file), its outputs (``-o``, ``--json``) and the
checkpoints its search keeps. :func:`check_destinations` refuses, with one line naming both
paths (an ``InputError``, exit code 2):

* an output that is one of the inputs (the same file by any name: a link, ``./``, ...; for
  ``-``, the regular file standard input was redirected from, by its device and inode);
* two outputs that are the same file (``-`` twice: both on standard output);
* a checkpoint that is an input or an output;
* a checkpoint path that holds something other than this program's checkpoint (a file without
  its header, a link, a folder or a special file): it would be overwritten and then removed;
* an output that is the checkpoint of a search running now (``checkpoint_lock``);
* an output that cannot be written (``files.output_kind``: no such folder, read-only, a folder,
  a block device or a socket), and a FIFO output that no process reads: a FIFO or device
  output is opened here and held open until it is written (``files.hold_stream``).

:func:`output_folder` checks (and makes) a folder a command writes its files into.

How each file is then written is :mod:`abcd_cli.files`'s job.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from abcd_cli.errors import InputError
from abcd_cli.files import hold_stream, is_standard_stream, output_kind
from abcd_cli.kernel_search.checkpoint import refuse_foreign_checkpoint
from abcd_cli.kernel_search.checkpoint_lock import running_search

#: A file a command names: what it is to the user (``DATA.csv``, ``-o``) and its path.
Named = tuple[str, str]


def check_destinations(
    inputs: Mapping[str, str | os.PathLike | None],
    outputs: Mapping[str, str | os.PathLike | None],
    checkpoints: Sequence[str | os.PathLike] = (),
) -> None:
    """Refuse (``InputError``) what the module docstring lists; entries that are None (an
    option not given, data that are not a file) are left out."""
    ins = _given(inputs)
    outs = _given(outputs)
    if sum(is_standard_stream(path) for _, path in ins) > 1:
        raise InputError(f"{_both(ins)} cannot both read standard input")
    for what, path in outs:
        if not is_standard_stream(path):
            _refuse_running_checkpoint(what, Path(path))
            if output_kind(Path(path)) == "stream":
                hold_stream(Path(path))
    for i, (what, path) in enumerate(outs):
        for other, other_path in outs[:i]:
            if _same(path, other_path):
                if is_standard_stream(path):
                    raise InputError(
                        f"{other} and {what} both write standard output (-); give one of them"
                        " a file name"
                    )
                raise InputError(
                    f"{other} {other_path} and {what} {path} are the same file; give each"
                    " output its own name"
                )
        _refuse_inputs(what, path, ins)
    named_checkpoints = [("the checkpoint", str(path)) for path in checkpoints]
    for what, path in named_checkpoints:
        if is_standard_stream(path):
            raise InputError("the checkpoint cannot be standard output: give it a file name")
        _refuse_inputs(what, path, ins)
        for other, other_path in outs:
            if _same(path, other_path):
                raise InputError(
                    f"the checkpoint {path} would overwrite the output {other} ({other_path});"
                    " give the search's state a file of its own with --checkpoint PATH"
                )
        refuse_foreign_checkpoint(Path(path))
        output_kind(Path(path))


def _refuse_running_checkpoint(what: str, path: Path) -> None:
    holder = running_search(path)
    if holder is not None:
        raise InputError(
            f"{what} {path} is the checkpoint of a search running now{holder}; it is left as"
            " it is: give the output another name"
        )


def _given(named: Mapping[str, str | os.PathLike | None]) -> list[Named]:
    return [(what, str(path)) for what, path in named.items() if path is not None]


def output_folder(path: str, what: str) -> Path:
    """The folder ``path`` a command writes its files into (``what``: its option), made if
    missing; InputError when it is not a folder or cannot be made or written in."""
    folder = Path(path)
    try:
        if not folder.exists():
            folder.mkdir(parents=True, exist_ok=True)
        mode = folder.stat().st_mode
    except OSError as exc:
        raise InputError(
            f"{what} {path}: cannot make or use this folder ({exc.strerror or exc}); give a"
            " folder that exists or can be made"
        ) from None
    if not stat.S_ISDIR(mode):
        raise InputError(f"{what} {path} is not a folder; give a folder for the reports")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"{what} {path}: the folder is not writable; give one that is")
    return folder


def _refuse_inputs(what: str, path: str, inputs: Iterable[Named]) -> None:
    for source, source_path in inputs:
        if is_standard_stream(path):
            continue
        if is_standard_stream(source_path) and _is_standard_input(path):
            raise InputError(
                f"{what} {path} would overwrite the input {source}: standard input is read"
                " from that file; choose another name"
            )
        if _same(path, source_path):
            raise InputError(
                f"{what} {path} would overwrite the input {source} ({source_path}); choose"
                " another name"
            )


def _is_standard_input(path: str) -> bool:
    """Whether ``path`` is the regular file standard input reads (``cmd - < FILE``), by the
    device and inode of its descriptor; False when standard input has none (a test's
    capture) or is a pipe, a terminal or a device."""
    try:
        stdin = os.fstat(sys.stdin.fileno())
        target = os.stat(path)
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError
        return False
    if not stat.S_ISREG(stdin.st_mode):
        return False
    return (stdin.st_dev, stdin.st_ino) == (target.st_dev, target.st_ino)


def _both(named: Sequence[Named]) -> str:
    return " and ".join(f"{what} {path}" for what, path in named if is_standard_stream(path))


def _same(a: str, b: str) -> bool:
    """Whether two paths name one file: ``-`` only equals ``-``; existing files by their
    device and inode (links, hard links, other spellings), others by their resolved paths."""
    if is_standard_stream(a) or is_standard_stream(b):
        return is_standard_stream(a) and is_standard_stream(b)
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))
