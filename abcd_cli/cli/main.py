"""The ``abcd`` command line: a thin click layer over the library (:mod:`abcd_cli.api`).

Each command is an options -> library call -> output function in a module of its own, added
to the group below. Commands need no error handling of their own: :class:`AbcdGroup` runs every
command inside :func:`~abcd_cli.cli.errors.handle_errors` (library errors become one-line
messages and exit codes) and shows the library's warnings as ``Warning:`` lines on stderr; it
flushes standard output, checked (``cli.output``), and closes the FIFOs the destination checks
held open.
"""

from __future__ import annotations

from typing import Any

import click

from abcd_cli import __version__
from abcd_cli.cli.benchmark_cmd import benchmark
from abcd_cli.cli.data_cmd import describe_data
from abcd_cli.cli.errors import EXIT_INTERRUPTED, handle_errors, warnings_to_stderr
from abcd_cli.cli.output import flush_stdout
from abcd_cli.cli.predict_cmd import predict
from abcd_cli.cli.search_cmd import report, search
from abcd_cli.cli.update_cmd import update
from abcd_cli.files import release_streams

__all__ = ["EXIT_INTERRUPTED", "AbcdGroup", "handle_errors", "main"]


class AbcdGroup(click.Group):
    """A click group that runs its commands inside :func:`handle_errors`."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            with handle_errors(bool(ctx.params.get("debug"))), warnings_to_stderr():
                result = super().invoke(ctx)
                flush_stdout()
                return result
        finally:
            release_streams()


@click.group(cls=AbcdGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="abcd", message="%(prog)s %(version)s")
@click.option(
    "--debug",
    is_flag=True,
    envvar="ABCD_DEBUG",
    help="Show the full traceback when something fails.",
)
def main(debug: bool) -> None:
    """Find a Gaussian-process model for a time series or a table; explain it in plain English."""


for command in (describe_data, search, report, predict, update, benchmark):
    main.add_command(command)
