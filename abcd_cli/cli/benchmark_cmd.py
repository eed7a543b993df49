"""``abcd benchmark``: a search and PDF, HTML and JSON reports for every series of a folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from abcd_cli.cli.options import batch_search_options
from abcd_cli.cli.output import echo
from abcd_cli.errors import AbcdError
from abcd_cli.files import StandardOutputError

#: Failed series named in the closing error.
_LISTED = 10


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
@click.option(
    "--distribute",
    type=click.Choice(["candidates", "series"]),
    default="candidates",
    show_default=True,
    help="With --scheduler: send each level's candidate fits to the cluster, or whole series"
    " (one search per worker, all series at once).",
)
@batch_search_options
def benchmark(
    folder: str, out_dir: str, only: tuple[str, ...], distribute: str, **opts: Any
) -> None:
    """Search and write PDF, HTML and JSON reports for each CSV in DATASETS.

    The output folder is made if missing; a report or checkpoint that would land on a series
    file (through a link) or on another is refused before any search. Series whose three
    reports already exist are skipped, so an interrupted run resumes; a
    search interrupted mid-way continues from its checkpoint in the output folder. A series
    that cannot be read, searched or written is reported as 'NAME: failed: ...' and the others
    go on; the command then ends with an error naming the failed series.
    """
    from abcd_cli.cli.running import shared_executor
    from abcd_cli.destinations import output_folder
    from abcd_cli.errors import InputError

    if distribute == "series" and not opts["scheduler"]:
        raise InputError("--distribute series needs --scheduler (local or an address)")
    files = _series_files(folder, only)
    out = output_folder(out_dir, "-o")
    todo = []
    for path in files:
        if all(Path(p).exists() for p in _outputs(out, path).values()):
            echo(f"{path.stem}: reports already there, skipped")
        else:
            todo.append(path)
    _check_destinations(folder, todo, out, opts)
    failures: dict[str, AbcdError] = {}
    with shared_executor(opts) as executor:
        if distribute == "series":
            _whole_series(todo, out, executor, opts, failures)
        else:
            for path in todo:
                try:
                    _one_series(path, out, executor, opts)
                except StandardOutputError:
                    raise  # nothing more can be said: the command stops
                except AbcdError as exc:
                    _failed(path, exc, failures)
    if failures:
        raise _summary(failures, len(files))


def _check_destinations(folder: str, todo: list[Path], out: Path, opts: dict[str, Any]) -> None:
    """Refuse, before any search, a report or checkpoint of a series to do that would land on
    a series file of ``folder`` (any, not only those --series chose) or on another of them
    (``destinations.check_destinations``)."""
    from abcd_cli.api import search_settings
    from abcd_cli.cli.options import settings_of
    from abcd_cli.destinations import check_destinations
    from abcd_cli.kernel_search.checkpoint import checkpoint_paths

    settings = search_settings(settings_of(opts))
    outputs = {
        f"the {fmt.upper()} report of {path.stem}": report
        for path in todo
        for fmt, report in _outputs(out, path).items()
    }
    checkpoints = [
        checkpoint
        for path in todo
        for checkpoint in checkpoint_paths(_checkpoint(out, path), settings)
    ]
    series = {path.name: str(path) for path in sorted(Path(folder).glob("*.csv"))}
    check_destinations(series, outputs, checkpoints)


def _failed(path: Path, exc: AbcdError, failures: dict[str, AbcdError]) -> None:
    """Say at once that one series failed, and why; the others go on."""
    click.echo(f"{path.stem}: failed: {exc.message}", err=True)
    failures[path.stem] = exc


def _summary(failures: dict[str, AbcdError], total: int) -> AbcdError:
    """The command's error once every series had its turn: which failed (InputError, exit 2,
    when each failed on its input; else RunError, exit 1)."""
    from abcd_cli.data.table import capped
    from abcd_cli.errors import InputError, RunError

    names = capped(list(failures), _LISTED, pair=False)
    kind = InputError if all(isinstance(e, InputError) for e in failures.values()) else RunError
    return kind(f"{len(failures)} of {total} series failed: {names} (see the lines above)")


def _series_files(folder: str, only: tuple[str, ...]) -> list[Path]:
    from abcd_cli.errors import InputError

    files = sorted(Path(folder).glob("*.csv"))
    if only:
        files = [f for f in files if f.stem in only]
        missing = set(only) - {f.stem for f in files}
        if missing:
            raise InputError(f"no series named {sorted(missing)[0]!r} in {folder}")
    if not files:
        raise InputError(f"no CSV files in {folder}")
    return files


def _outputs(out: Path, path: Path) -> dict[str, str]:
    from abcd_cli.api import REPORT_FORMATS

    return {fmt: str(out / f"{path.stem}.{fmt}") for fmt in REPORT_FORMATS}


def _checkpoint(out: Path, path: Path) -> str:
    return str(out / f".{path.stem}.ckpt.json")


def _one_series(path: Path, out: Path, executor: Any, opts: dict[str, Any]) -> None:
    """One series searched here, its candidate fits on ``executor`` (or --jobs processes)."""
    from abcd_cli.cli.running import run_search_command

    checkpoint = _checkpoint(out, path)
    one = dict(opts, data=str(path), x=None, y=None, checkpoint=checkpoint, resume=True)
    _finish(path, out, run_search_command(one, checkpoint, executor))


def _finish(path: Path, out: Path, found: Any) -> None:
    """Write one series' reports (seed and source are the search's own), drop its
    checkpoints, and say what was found."""
    from abcd_cli.reports import write_reports

    write_reports(found, _outputs(out, path))
    found.discard_checkpoints()
    echo(f"{path.stem}: {found.structure}  BIC {found.bic:.2f}  ({found.elapsed_seconds:.0f} s)")


def _whole_series(
    todo: list[Path],
    out: Path,
    executor: Any,
    opts: dict[str, Any],
    failures: dict[str, AbcdError],
) -> None:
    """Every series' whole search on the cluster at once; reports written here, in order;
    a series that fails is added to ``failures``."""
    from abcd_cli.api import search_settings
    from abcd_cli.batch import search_many
    from abcd_cli.cli.options import settings_of

    if not todo:
        return
    if not opts["quiet"]:
        click.echo(f"searching {len(todo)} series on the cluster, one per worker", err=True)
    settings = search_settings(settings_of(opts))
    checkpoints = [_checkpoint(out, path) for path in todo]
    for path, found in search_many(todo, settings, executor, checkpoints):
        if found is None:
            echo(f"{path.stem}: skipped, the workers searching it kept dying")
            continue
        if isinstance(found, AbcdError):
            _failed(path, found, failures)
            continue
        try:
            _finish(path, out, found)
        except StandardOutputError:
            raise
        except AbcdError as exc:
            _failed(path, exc, failures)
