"""``abcd benchmark``: a search and PDF, HTML and JSON reports for every series of a folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from abcd_cli.cli.options import batch_search_options


@click.command(short_help="Reports for every series of a folder (the 13-series benchmark).")
@click.argument("folder", metavar="DATASETS", default="datasets")
@click.option(
    "-o",
    "--out",
    "out_dir",
    default="results/benchmark",
    show_default=True,
    metavar="DIR",
    help="Where the PDF, HTML and JSON reports go.",
)
@click.option(
    "--series",
    "only",
    multiple=True,
    metavar="NAME",
    help="Only this series (file name without .csv); repeatable.",
)
@batch_search_options
def benchmark(folder: str, out_dir: str, only: tuple[str, ...], **opts: Any) -> None:
    """Search and write PDF, HTML and JSON reports for each CSV in DATASETS.

    Series whose three reports already exist are skipped, so an interrupted run resumes; a
    search interrupted mid-way continues from its checkpoint in the output folder.
    """
    from abcd_cli.api import REPORT_FORMATS, write_reports
    from abcd_cli.cli.running import run_search_command
    from abcd_cli.errors import InputError

    files = sorted(Path(folder).glob("*.csv"))
    if only:
        files = [f for f in files if f.stem in only]
        missing = set(only) - {f.stem for f in files}
        if missing:
            raise InputError(f"no series named {sorted(missing)[0]!r} in {folder}")
    if not files:
        raise InputError(f"no CSV files in {folder}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for path in files:
        outputs = {fmt: str(out / f"{path.stem}.{fmt}") for fmt in REPORT_FORMATS}
        if all(Path(p).exists() for p in outputs.values()):
            click.echo(f"{path.stem}: reports already there, skipped")
            continue
        checkpoint = str(out / f".{path.stem}.ckpt.json")
        one = dict(opts, data=str(path), x=None, y=None, checkpoint=checkpoint, resume=True)
        found = run_search_command(one, checkpoint)
        write_reports(found, outputs, seed=opts["seed"], source=str(path))
        found.discard_checkpoints()
        click.echo(
            f"{path.stem}: {found.structure}  BIC {found.bic:.2f}  ({found.elapsed_seconds:.0f} s)"
        )
