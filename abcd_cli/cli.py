"""The ``abcd`` command line: a thin click layer over the library.

Commands are added with ``@main.command()`` (here or in another module imported below). They
need no error handling of their own: :class:`AbcdGroup` runs every command inside
:func:`handle_errors`, which turns

* :class:`~abcd_cli.errors.InputError` into ``Error: <message>`` and exit code 2,
* :class:`~abcd_cli.errors.RunError` (any other :class:`AbcdError`) into ``Error: ...``, exit 1,
* any other exception into one ``Error: unexpected failure: ...`` line and exit code 1,
* ``KeyboardInterrupt`` into ``Interrupted.`` and exit code 130.

With the global ``--debug`` flag (or ``ABCD_DEBUG=1``) the traceback is printed as well.
click's own usage errors keep click's behaviour (exit code 2).
"""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from abcd_cli import __version__
from abcd_cli.errors import AbcdError

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


def debug_enabled(ctx: click.Context | None = None) -> bool:
    """Whether the global ``--debug`` flag is on for the current invocation."""
    ctx = ctx or click.get_current_context(silent=True)
    return bool(ctx and ctx.find_root().params.get("debug"))


class AbcdGroup(click.Group):
    """A click group that runs its commands inside :func:`handle_errors`."""

    def invoke(self, ctx: click.Context) -> Any:
        with handle_errors(bool(ctx.params.get("debug"))):
            return super().invoke(ctx)


@click.group(cls=AbcdGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="abcd", message="%(prog)s %(version)s")
@click.option(
    "--debug",
    is_flag=True,
    envvar="ABCD_DEBUG",
    help="Show the full traceback when something fails.",
)
def main(debug: bool) -> None:
    """Find a Gaussian-process model for a time series and explain it in plain English."""


@main.command("describe-data", short_help="Check a CSV file and describe it in one line.")
@click.argument("data", metavar="DATA.csv")
@click.option("--x", "x", metavar="COL", help="Column holding time (name or 1-based number).")
@click.option("--y", "y", metavar="COL", help="Column holding the values (name or number).")
def describe_data(data: str, x: str | None, y: str | None) -> None:
    """Check DATA.csv and describe it in one line, as the model will read it.

    Warnings about the data (rows dropped, sorting, ...) go to stderr.
    """
    from abcd_cli.data import load_series

    series = load_series(data, x=x, y=y)
    for warning in series.warnings:
        click.echo(f"Warning: {warning}", err=True)
    click.echo(series.description())
