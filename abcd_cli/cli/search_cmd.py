"""``abcd search`` and ``abcd report``: find a model for a series, print it or report on it."""

from __future__ import annotations

import functools
from typing import Any

import click

from abcd_cli.api import REPORT_FORMATS
from abcd_cli.cli.options import search_options
from abcd_cli.cli.output import echo
from abcd_cli.cli.running import prepare_search, run_search_command
from abcd_cli.files import is_standard_stream, shown
from abcd_cli.found import EXTRAPOLATE, MAX_EXTRAPOLATE
from abcd_cli.kernel_search.records import summary_line
from abcd_cli.reports import check_title, report_format, write_reports


@click.command(short_help="Find the kernel structure that best explains a series.")
@search_options
@click.option("--json", "json_out", metavar="OUT.json", help="Write the model and its trace here.")
def search(json_out: str | None, **opts: Any) -> None:
    """Search for a Gaussian-process model of DATA.csv and print the chosen kernel.

    The search starts from white noise and greedily grows the kernel, scoring every candidate
    by BIC. Progress goes to stderr, one line per level.
    """
    checkpoint = prepare_search(opts, {"DATA.csv": opts["data"]}, {"--json": json_out})
    found = run_search_command(opts, checkpoint)
    say = functools.partial(echo, err=is_standard_stream(json_out))  # stdout: the JSON
    say(summary_line(found.search_result))
    say(f"kernel: {found.model.kernel_text(digits=6)}")
    for note in found.notes:
        say(f"note: {note}")
    if json_out:
        found.save(json_out)
        say(f"wrote {shown(json_out)}")
    found.discard_checkpoints()


@click.command(short_help="Search a model and write the report (PDF, HTML or JSON).")
@functools.partial(search_options, data_required=False)
@click.option("-o", "--output", required=True, metavar="REPORT", help="report.pdf, .html or .json")
@click.option("--format", "fmt", type=click.Choice(REPORT_FORMATS), help="Else from the suffix.")
@click.option(
    "--extrapolate",
    type=click.FloatRange(0.0, MAX_EXTRAPOLATE),
    default=EXTRAPOLATE,
    show_default=True,
    help="How far past the data to forecast, as a fraction of its range.",
)
@click.option(
    "--from-model",
    "from_model",
    metavar="MODEL.json",
    help="Report on a saved search (abcd search --json) without searching again.",
)
@click.option("--title", help="Title of the report.")
@click.option(
    "--json",
    "json_out",
    metavar="OUT.json",
    help="Also write the model and its search trace here (as abcd search --json).",
)
def report(
    output: str,
    fmt: str | None,
    extrapolate: float,
    from_model: str | None,
    title: str | None,
    json_out: str | None,
    **opts: Any,
) -> None:
    """Analyse DATA.csv and write an automatic report to REPORT.

    The report explains each additive component of the chosen model in plain English, with
    figures, a table of how much each one explains, a forecast, model checks and an appendix.
    The file is written atomically: on any failure no partial file is left.
    """
    import abcd_cli
    from abcd_cli.destinations import check_destinations
    from abcd_cli.errors import InputError
    from abcd_cli.found import read_model

    fmt = report_format(output, fmt)
    check_title(title, "--title")
    outputs = {"-o": output, "--json": json_out}
    if from_model:
        check_destinations({"--from-model": from_model}, outputs)
        found = read_model(from_model)
    else:
        if not opts["data"]:
            raise InputError("give DATA.csv to analyse, or --from-model MODEL.json")
        checkpoint = prepare_search(opts, {"DATA.csv": opts["data"]}, outputs)
        series = abcd_cli.load(opts["data"], x=opts["x"], y=opts["y"])
        found = run_search_command({**opts, "data": series}, checkpoint)
    source = found.data.get("source") or opts.get("data") or from_model
    if not opts["quiet"]:
        click.echo("decomposing the model and writing the report", err=True)
    write_reports(
        found,
        {fmt: output},
        title=title,
        extrapolate=extrapolate,
        seed=opts["seed"],
        source=source,
    )
    say = functools.partial(echo, err=any(map(is_standard_stream, outputs.values())))
    say(f"wrote {shown(output)}")
    if json_out:
        found.save(json_out)
        say(f"wrote {shown(json_out)}")
    found.discard_checkpoints()
