"""What the commands print on standard output, checked: a line that standard output does not
take (a full disk, a closed pipe, an I/O error) is a one-line error and exit code 2, never a
silent truncation or Python's "Exception ignored" at exit.

A closed pipe (``abcd predict m.json X.csv -o - | head -1``) is such an error too: the output
was cut short, so the command says so in one line on stderr and exits with code 2.
"""

from __future__ import annotations

import contextlib
import os
import sys

import click

from abcd_cli.files import stdout_failure


def echo(message: str, err: bool = False) -> None:
    """``click.echo`` (a line on standard output, or on stderr with ``err``); a failed write
    to standard output raises :class:`~abcd_cli.files.StandardOutputError`."""
    if err:
        click.echo(message, err=True)
        return
    try:
        click.echo(message)
    except OSError as exc:
        raise stdout_failure(None, exc) from None


def flush_stdout() -> None:
    """Flush what is still buffered for standard output, checked as :func:`echo` is."""
    if sys.stdout is None:
        return
    try:
        sys.stdout.flush()
    except OSError as exc:
        raise stdout_failure(None, exc) from None


def silence_stdout() -> None:
    """After standard output failed: send its descriptor to /dev/null, so that the data still
    buffered for it are dropped at exit instead of failing again in Python's shutdown
    ("Exception ignored ...", exit code 120). A stream without a descriptor is left alone."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
