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

import functools
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from abcd_cli import __version__
from abcd_cli.errors import AbcdError
from abcd_cli.kernel_search.grammar import LANGUAGES
from abcd_cli.kernel_search.loop import PRIOR_MEANS, SearchSettings, prior_mean_warning

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
    from abcd_cli.data.reader import load_series

    series = load_series(data, x=x, y=y)
    for warning in series.warnings:
        click.echo(f"Warning: {warning}", err=True)
    click.echo(series.description())


# ------------------------------------------------------------------------------------------
# Search
# ------------------------------------------------------------------------------------------


def _setting_options() -> list[Any]:
    """The options that become the SearchSettings (and --jobs, which does not change results)."""
    return [
        click.option(
            "--depth",
            type=click.IntRange(0, 50),
            default=DEFAULTS.depth,
            show_default=True,
            help="Levels of the greedy search.",
        ),
        click.option(
            "--restarts",
            type=click.IntRange(1, 100),
            default=DEFAULTS.restarts,
            show_default=True,
            help="Random starts per candidate model.",
        ),
        click.option(
            "--seed",
            type=int,
            default=0,
            show_default=True,
            help="Seed of every random choice: one seed, one result.",
        ),
        click.option(
            "--seeds",
            type=click.IntRange(1, 20),
            default=DEFAULTS.seeds,
            show_default=True,
            help="Run this many searches (seeds SEED, SEED+1, ...) and keep the lowest BIC;"
            " the time grows in proportion.",
        ),
        click.option(
            "--jobs",
            type=click.IntRange(0, 512),
            default=0,
            help="Worker processes (0: one per core, 1: serial).",
        ),
        click.option(
            "--beam",
            type=click.IntRange(1, 20),
            default=DEFAULTS.beam,
            show_default=True,
            help="Models kept and expanded at each of the first --beam-levels levels (1: greedy).",
        ),
        click.option(
            "--beam-levels",
            type=click.IntRange(0, 50),
            default=DEFAULTS.beam_levels,
            show_default=True,
            help="Levels that keep --beam models; later levels keep the best one (0: all).",
        ),
        click.option(
            "--language",
            type=click.Choice(sorted(LANGUAGE_NAMES)),
            default=DEFAULTS.language,
            show_default=True,
            help="Space of models to search.",
        ),
        click.option(
            "--interpretable",
            is_flag=True,
            help="Distribute products over sums during the search (ABCD-interpretability).",
        ),
        click.option(
            "--subset-size",
            type=click.IntRange(20, 100000),
            default=DEFAULTS.subset_size,
            show_default=True,
            help="Above this many points, optimise on a subset and refine on all.",
        ),
        click.option(
            "--patience",
            type=click.IntRange(0, 50),
            default=DEFAULTS.patience,
            show_default=True,
            help="Stop after this many levels without a better BIC (0: never).",
        ),
        click.option(
            "--prior-mean",
            type=click.Choice(PRIOR_MEANS),
            default=DEFAULTS.prior_mean,
            show_default=True,
            help="What the model expects before seeing data: the series' mean; zero (as the"
            " original system did; a constant component then carries the level); or 'constant', a"
            " level of unknown value estimated with each model.",
        ),
    ]


QUIET_OPTION = click.option("--quiet", is_flag=True, help="No progress lines on stderr.")


def _decorate(fn: Any, options: list[Any]) -> Any:
    """fn with the options applied so that --help lists them in this order."""
    for option in reversed(options):
        fn = option(fn)
    return fn


def search_options(fn: Any, data_required: bool = True) -> Any:
    """The options shared by every command that searches one series."""
    return _decorate(
        fn,
        [
            click.argument("data", metavar="DATA.csv", required=data_required),
            click.option(
                "--x", "x", metavar="COL", help="Column holding time (name or 1-based number)."
            ),
            click.option(
                "--y", "y", metavar="COL", help="Column holding the values (name or number)."
            ),
            *_setting_options(),
            click.option(
                "--checkpoint",
                metavar="PATH",
                help="Where to keep the search state (default: beside the output).",
            ),
            click.option("--resume", is_flag=True, help="Continue an interrupted search."),
            QUIET_OPTION,
        ],
    )


def batch_search_options(fn: Any) -> Any:
    """The search options of a batch over many series (each keeps its own checkpoint)."""
    return _decorate(fn, [*_setting_options(), QUIET_OPTION])


LANGUAGE_NAMES = tuple(LANGUAGES)
DEFAULTS = SearchSettings()


def run_search_command(opts: dict[str, Any], default_checkpoint: str):
    """Load the data, run the search with progress and checkpoints.

    Returns (series, result, checkpoints): the files holding the search state (one per seed),
    which the caller removes once its output is written."""
    import signal

    from abcd_cli.data.reader import load_series
    from abcd_cli.execution.pool import make_executor
    from abcd_cli.kernel_search.loop import (
        SearchSettings,
        checkpoint_paths,
        lost_candidate,
        run_search,
    )

    series = load_series(opts["data"], x=opts["x"], y=opts["y"])
    quiet = opts["quiet"]
    for warning in series.warnings:
        click.echo(f"Warning: {warning}", err=True)
    settings = SearchSettings(
        depth=opts["depth"],
        restarts=opts["restarts"],
        seed=opts["seed"],
        seeds=opts["seeds"],
        beam=opts["beam"],
        beam_levels=opts["beam_levels"],
        language=opts["language"],
        interpretable=opts["interpretable"],
        subset_size=opts["subset_size"],
        patience=opts["patience"],
        prior_mean=opts["prior_mean"],
    )
    far = prior_mean_warning(series.y, settings)
    if far:
        click.echo(f"Warning: {far}", err=True)
    checkpoint = opts["checkpoint"] or default_checkpoint
    _check_writable(checkpoint)
    checkpoints = checkpoint_paths(checkpoint, settings)
    progress = None if quiet else (lambda msg: click.echo(msg, err=True))

    def terminate(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, terminate)
    executor = make_executor(opts["jobs"], on_lost=lost_candidate)
    interrupted = False
    try:
        result = run_search(
            series.x, series.y, settings, executor, progress, checkpoint, resume=opts["resume"]
        )
    except KeyboardInterrupt:
        interrupted = True
        saved = [str(path) for path in checkpoints if path.exists()]
        if saved:
            click.echo(
                "Interrupted. The search state after the last finished level is in"
                f" {', '.join(saved)}; run the same command with --resume to continue.",
                err=True,
            )
        else:
            click.echo("Interrupted before the first level finished; nothing was saved.", err=True)
        raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
        executor.shutdown(wait=not interrupted, cancel_futures=interrupted)
    return series, result, checkpoints


def _remove(paths: list[Path]) -> None:
    for path in paths:
        path.unlink(missing_ok=True)


def _default_checkpoint(data: str, out: str | None) -> str:
    if out:
        return str(Path(out).with_name(Path(out).name + ".ckpt.json"))
    return str(Path.cwd() / f".{Path(data).stem}.abcd.ckpt.json")


@main.command(short_help="Find the kernel structure that best explains a series.")
@search_options
@click.option("--json", "json_out", metavar="OUT.json", help="Write the model and its trace here.")
def search(json_out: str | None, **opts: Any) -> None:
    """Search for a Gaussian-process model of DATA.csv and print the chosen kernel.

    The search starts from white noise and greedily grows the kernel, scoring every candidate
    by BIC. Progress goes to stderr, one line per level.
    """
    import json

    from abcd_cli.files import atomic_write
    from abcd_cli.kernel_search.loop import summary_line

    if json_out:
        _check_writable(json_out)
    series, result, checkpoints = run_search_command(
        opts, _default_checkpoint(opts["data"], json_out)
    )
    model = result.model
    click.echo(summary_line(result))
    click.echo(f"kernel: {model.user_kernel.to_text(digits=6)}")
    for note in result.notes + ([result.stopped_early] if result.stopped_early else []):
        click.echo(f"note: {note}")
    if json_out:
        atomic_write(json_out, json.dumps(_search_document(series, result), indent=1))
        click.echo(f"wrote {json_out}")
    _remove(checkpoints)


def _search_document(series: Any, result: Any) -> dict[str, Any]:
    """The search's JSON: the model, its trace and settings, and the data with its names."""
    doc = result.to_dict()
    doc["data"].update(
        {
            "x_name": series.x_name,
            "y_name": series.y_name,
            "x_kind": series.x_kind,
            "source": series.source,
            "n_dropped": series.n_dropped,
        }
    )
    return doc


REPORT_FORMATS = ("pdf", "html", "json")
EXTRAPOLATE = 0.2  # how far past the data a report forecasts, as a fraction of its range


def _report_format(output: str, fmt: str | None) -> str:
    from abcd_cli.errors import InputError

    if fmt:
        return fmt
    suffix = Path(output).suffix.lower().lstrip(".")
    if suffix in ("htm",):
        return "html"
    if suffix not in REPORT_FORMATS:
        raise InputError(
            f"cannot tell the report format from {output!r}: use a .pdf, .html or .json name"
            " or --format"
        )
    return suffix


@main.command(short_help="Search a model and write the report (PDF, HTML or JSON).")
@functools.partial(search_options, data_required=False)
@click.option("-o", "--output", required=True, metavar="REPORT", help="report.pdf, .html or .json")
@click.option("--format", "fmt", type=click.Choice(REPORT_FORMATS), help="Else from the suffix.")
@click.option(
    "--extrapolate",
    type=click.FloatRange(0.0, 5.0),
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
def report(
    output: str,
    fmt: str | None,
    extrapolate: float,
    from_model: str | None,
    title: str | None,
    **opts: Any,
) -> None:
    """Analyse DATA.csv and write an automatic report to REPORT.

    The report explains each additive component of the chosen model in plain English, with
    figures, a table of how much each one explains, a forecast, model checks and an appendix.
    The file is written atomically: on any failure no partial file is left.
    """
    from abcd_cli.errors import InputError
    from abcd_cli.model import Model

    fmt = _report_format(output, fmt)
    _check_writable(output)
    checkpoints: list[Path] = []
    if from_model:
        doc = _read_model_file(from_model)
        model = Model.from_dict(doc)
    else:
        if not opts["data"]:
            raise InputError("give DATA.csv to analyse, or --from-model MODEL.json")
        series, result, checkpoints = run_search_command(
            opts, _default_checkpoint(opts["data"], output)
        )
        doc = _search_document(series, result)
        model = result.model
    source = doc["data"].get("source") or opts.get("data") or from_model
    if not opts["quiet"]:
        click.echo("decomposing the model and writing the report", err=True)
    _write_reports(model, doc, {fmt: output}, extrapolate, opts["seed"], title, source)
    click.echo(f"wrote {output}")
    _remove(checkpoints)


def _write_reports(
    model: Any,
    doc: dict[str, Any],
    outputs: dict[str, str],
    extrapolate: float,
    seed: int,
    title: str | None,
    source: str,
) -> None:
    """Decompose the model once and write the report in each format ({format: path})."""
    from abcd_cli.decompose.components import decompose
    from abcd_cli.decompose.facts import Axis
    from abcd_cli.reporting.context import build_context
    from abcd_cli.reporting.render import write_report

    info = doc["data"]
    axis = Axis(info.get("x_kind", "number"), info.get("x_name", "x"), info.get("y_name", "y"))
    dec = decompose(model, axis, extrapolate=extrapolate, seed=seed)
    title = title or f"Analysis of {Path(source).stem}"
    context = build_context(dec, title, source, doc, int(info.get("n_dropped", 0)))
    for fmt, path in outputs.items():
        write_report(context, path, fmt)


def _read_model_file(path: str) -> dict[str, Any]:
    import json

    from abcd_cli.errors import InputError

    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise InputError(f"model file {path} does not exist") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"cannot read model file {path}: {exc}") from None
    if not isinstance(doc, dict):
        raise InputError(f"model file {path} is not a model saved by 'abcd search --json'")
    return doc


def _check_writable(path: str) -> None:
    """Fail before a long run when the output cannot be written."""
    import os

    from abcd_cli.errors import InputError

    folder = Path(path).parent
    if not folder.is_dir():
        raise InputError(f"cannot write {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise InputError(f"cannot write {path}: folder {folder} is not writable")
    if Path(path).is_dir():
        raise InputError(f"cannot write {path}: it is a folder")


@main.command(short_help="Predict y at new x from a saved model.")
@click.argument("model_file", metavar="MODEL.json")
@click.argument("inputs", metavar="X.csv")
@click.option("-o", "--output", required=True, metavar="OUT.csv", help="Where to write the table.")
@click.option("--x", "x", metavar="COL", help="Column of X.csv holding x (name or number).")
@click.option(
    "--average-seeds",
    is_flag=True,
    help="MODEL.json from `abcd search --seeds K`: predict with the mixture of all K searches'"
    " models instead of the lowest-BIC one.",
)
@click.option(
    "--seed-weights",
    type=click.Choice(["evidence", "equal"]),
    help="With --average-seeds: weigh each model by its evidence exp(-BIC/2) (the default), or"
    " all equally.",
)
def predict(
    model_file: str,
    inputs: str,
    output: str,
    x: str | None,
    average_seeds: bool,
    seed_weights: str | None,
) -> None:
    """Write the predictive mean, standard deviation and 2.5/10/50/90/97.5% quantiles of y at
    every x of X.csv, in the data's units. MODEL.json comes from `abcd search --json`."""
    from abcd_cli.data.reader import load_inputs
    from abcd_cli.errors import InputError
    from abcd_cli.files import atomic_write
    from abcd_cli.model import Model, seed_models
    from abcd_cli.prediction import describe_weights, evidence_weights, predictive_table, to_csv

    _check_writable(output)
    if seed_weights and not average_seeds:
        raise InputError("--seed-weights only applies with --average-seeds")
    doc = _read_model_file(model_file)
    models, weights, mixed = [Model.from_dict(doc)], None, ""
    if average_seeds:
        by_seed = seed_models(doc)
        if len(by_seed) < 2:
            raise InputError(
                f"{model_file} holds one search's model; --average-seeds needs a file from"
                " 'abcd search --seeds K --json' with K > 1"
            )
        models = list(by_seed.values())
        mixed = f"; the mixture of {len(models)} seeds' models"
        if seed_weights == "equal":
            mixed += ", equally weighted"
        else:
            weights = evidence_weights([m.bic for m in models])
            mixed += f" weighted by evidence: {describe_weights(list(by_seed), weights)}"
    values, cells, name, kind = load_inputs(inputs, x)
    trained = doc.get("data", {}).get("x_kind", kind)
    if (trained == "number") != (kind == "number"):
        kinds = {True: "plain numbers", False: "dates or years"}
        raise InputError(
            f"{inputs}: column {name!r} holds {kinds[kind == 'number']} but the model was"
            f" fitted to {kinds[trained == 'number']}"
        )
    atomic_write(output, to_csv(name, cells, predictive_table(models, values, weights)))
    click.echo(f"wrote {output} ({len(cells)} rows{mixed})")


@main.command(short_help="Reports for every series of a folder (the 13-series benchmark).")
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
        series, result, checkpoints = run_search_command(one, checkpoint)
        doc = _search_document(series, result)
        _write_reports(result.model, doc, outputs, EXTRAPOLATE, opts["seed"], None, str(path))
        _remove(checkpoints)
        click.echo(
            f"{path.stem}: {result.model.kernel.structure}  BIC {result.model.bic:.2f}"
            f"  ({result.elapsed_seconds:.0f} s)"
        )
