"""``abcd describe-data``: check a CSV file and describe it in one line."""

from __future__ import annotations

import click

from abcd_cli.cli.options import X_OPTION, Y_OPTION
from abcd_cli.cli.output import echo


@click.command("describe-data", short_help="Check a CSV file and describe it in one line.")
@click.argument("data", metavar="DATA.csv")
@X_OPTION
@Y_OPTION
def describe_data(data: str, x: str | None, y: str | None) -> None:
    """Check DATA.csv and describe it in one line, as the model will read it.

    Warnings about the data (rows dropped, sorting, ...) go to stderr.
    """
    import abcd_cli

    series = abcd_cli.load(data, x=x, y=y)
    for warning in series.warnings:
        click.echo(f"Warning: {warning}", err=True)
    echo(series.description())
