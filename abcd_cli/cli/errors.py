"""How the command line reports failures, warnings and interrupts.

:func:`handle_errors` turns

* :class:`~abcd_cli.errors.InputError` into ``Error: <message>`` and exit code 2,
* :class:`~abcd_cli.errors.RunError` (any other :class:`AbcdError`) into ``Error: ...``, exit 1,
* any other exception into one ``Error: unexpected failure: ...`` line and exit code 1,
* a :class:`~abcd_cli.files.StandardOutputError` (standard output did not take the output)
  into its line and exit code 2, standard output then sent to /dev/null so that Python's exit
  does not fail on it again,
* ``KeyboardInterrupt`` into ``Interrupted.`` and exit code 130.

With the global ``--debug`` flag (or ``ABCD_DEBUG=1``) the traceback is printed as well.
click's own usage errors keep click's behaviour (exit code 2). The library's
:class:`~abcd_cli.api.AbcdWarning` s become ``Warning: <message>`` lines on stderr.
"""

from __future__ import annotations

import signal
import traceback
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from abcd_cli.api import AbcdWarning
from abcd_cli.errors import AbcdError
from abcd_cli.files import StandardOutputError

EXIT_INTERRUPTED = 130


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _fail(message: str, code: int, debug: bool) -> click.exceptions.Exit:
    """Print the traceback (in debug mode) and a one-line error; return the exit to raise."""
    if debug:
        click.echo(traceback.format_exc().rstrip(), err=True)
    click.echo(f"Error: {_one_line(message)}", err=True)
    return click.exceptions.Exit(code)


@contextmanager
def handle_errors(debug: bool = False) -> Iterator[None]:
    """Turn exceptions raised inside the block into one-line messages and exit codes."""
    try:
        yield
    except (click.ClickException, click.exceptions.Exit, click.Abort):
        raise
    except StandardOutputError as exc:
        from abcd_cli.cli.output import silence_stdout

        silence_stdout()
        raise _fail(exc.message, exc.exit_code, debug) from None
    except AbcdError as exc:
        raise _fail(exc.message, exc.exit_code, debug) from None
    except KeyboardInterrupt:
        if debug:
            click.echo(traceback.format_exc().rstrip(), err=True)
        click.echo("Interrupted.", err=True)
        raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
    except Exception as exc:
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        hint = "" if debug else " (run with --debug for the traceback)"
        raise _fail(f"unexpected failure: {detail}{hint}", 1, debug) from None


@contextmanager
def warnings_to_stderr() -> Iterator[None]:
    """Show every library warning issued inside the block at once, as ``Warning: ...``."""
    with warnings.catch_warnings():
        warnings.simplefilter("always", AbcdWarning)
        show_other = warnings.showwarning

        def show(message: Any, category: type[Warning], *args: Any, **kwargs: Any) -> None:
            if issubclass(category, AbcdWarning):
                click.echo(f"Warning: {message}", err=True)
            else:
                show_other(message, category, *args, **kwargs)

        warnings.showwarning = show
        yield


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Inside the block, SIGTERM stops the program as Ctrl-C does (a KeyboardInterrupt)."""

    def terminate(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
