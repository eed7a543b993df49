"""Predictive accuracy on the 13 series: the papers' extrapolation and interpolation experiment.

Full run, from the project folder (many hours on two cores; interrupt it at any time and run the
same command again to continue):

    .venv/bin/python -m benchmarks.accuracy.bench_accuracy --jobs 0 \\
        --out-dir benchmarks/accuracy/outputs

Options: ``--series NAME ...`` (default: every ``datasets/*.csv``), ``--methods M ...``,
``--tasks extrap interp``, ``--jobs N`` (0: one process per core, 1: serial), ``--depth D``,
``--restarts R``, ``--seed S``, ``--patience P`` (0: every level; defaults: those of
``SearchSettings``), ``--report-only``
(rewrite the tables from ``results.csv``, e.g. after editing ``NOTES.md``, running nothing),
``--merge CSV ...`` (first put the rows of runs made into other ``--out-dir`` folders, e.g. one
single-core process per core, into ``OUT/results.csv``, replacing rows of the same run),
``--merge-seeds CSV ...`` (the same for runs made with another ``--seed``: they go into
``OUT/other_seeds.csv``, and RESULTS.md gains a table of how much the seed moves the results).

For every series, task and method it searches the training file with ``run_search`` and predicts
the test x with ``abcd_cli.prediction.predictive_table`` (the numbers ``abcd predict`` writes).
Tasks: ``extrap`` trains on ``datasets/splits/extrap_9010/NAME-train.csv`` (the first 90% of the
range) and tests on ``NAME-test.csv``; ``interp`` uses ``datasets/splits/interp_5050`` (a random
half). Methods: ``abcd`` (the full search), ``abcd-int`` (the full search with
``interpretable=True``) and the restricted languages ``se linear mkl tci spectral changepoint``.

Each finished run is appended at once to ``OUT/results.csv`` (test RMSE, mean log predictive
density of the test y under the Gaussian predictive, BIC and structure of the chosen model, wall
seconds, settings); runs already there are skipped (a failed run too: delete its row to retry).
Then ``OUT/RESULTS.md`` is written from every row of the CSV, beside the original system's
published RMSEs (``benchmarks/reference/``), with standardised RMSE (each RMSE divided by the best
on its series among our methods and the nine published ones), box plots
``OUT/boxplot_extrap.png`` / ``OUT/boxplot_interp.png`` and the tables ``OUT/rmse_extrap.csv`` /
``OUT/rmse_interp.csv``. Runs not yet done are shown as "—"; nothing is filled in. Notes written
by hand in ``OUT/NOTES.md`` (why a series misses, what its report shows) are copied in at the end.

This file holds the command and puts RESULTS.md together; the parts, beside it, are ``runs.py``
(running, the CSV files), ``tables.py`` (standardised RMSE, targets and tables), ``seeds.py``
(the runs with other seeds) and ``figures.py`` (box plots, forecasts and the tables of rebuilt
models); the published numbers come from ``benchmarks/reference.py``.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path

from abcd_cli.files import write_output
from abcd_cli.kernel_search.settings import PRIOR_MEANS, SearchSettings
from benchmarks.accuracy import OUTPUTS
from benchmarks.accuracy.figures import (
    FORECASTS_PNG,
    bias_section,
    boxplot,
    forecast_figure,
    interp_error_section,
    rebuilt_runs,
)
from benchmarks.accuracy.runs import (
    METHODS,
    SEED_KEY,
    SEEDS_CSV,
    TASKS,
    Key,
    all_series,
    merge_results,
    read_results,
    run_all,
)
from benchmarks.accuracy.seeds import seed_section
from benchmarks.accuracy.tables import (
    Grid,
    header_lines,
    median_target,
    models_section,
    per_method_section,
    published_basis_line,
    rmse_grid,
    rmse_section,
    standardise,
    standardised_section,
    wins_target,
)
from benchmarks.common import python_command
from benchmarks.reference import REFERENCE_METHODS, reference_rmse

TASK_TITLES = {
    "extrap": "Extrapolation (train on the first 90%)",
    "interp": "Interpolation (50/50)",
}

# the `SearchSettings` fields this script takes as options, with their help
SEARCH_OPTIONS = {
    "depth": None,
    "restarts": None,
    "seed": None,
    "patience": "stop a search after this many levels without a better BIC (0: run all --depth "
    "levels, as the original system did)",
}


def write_rmse_csv(grid: Grid, path: Path) -> None:
    cols = list(next(iter(grid.values())))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["series", *cols])
    for s, cells in grid.items():
        writer.writerow([s, *("" if cells[c] is None else repr(cells[c]) for c in cols)])
    write_output(path, out.getvalue())


def task_section(
    rows: dict[Key, dict[str, str]],
    task: str,
    series: list[str],
    out_dir: Path,
    seed_rows: dict[tuple[str, ...], dict[str, str]],
) -> tuple[list[str], Grid, Grid]:
    ref = reference_rmse(task)
    ref_cols = REFERENCE_METHODS
    grid = rmse_grid(rows, task, series, ref, ref_cols)
    std = standardise(grid)
    write_rmse_csv(grid, out_dir / f"rmse_{task}.csv")
    png = out_dir / f"boxplot_{task}.png"
    title = f"{TASK_TITLES[task]}: standardised test RMSE on {len(series)} series"
    plotted = boxplot(std, list(METHODS) + list(ref_cols), title, png)
    lines = [f"## {TASK_TITLES[task]}", ""]
    lines += rmse_section(rows, task, grid) + [""]
    lines += standardised_section(task, std) + [""]
    lines += [f"![box plot]({png.name})" if plotted else "(no RMSE yet: no box plot)", ""]
    lines.append(
        f"Raw RMSE table: [{f'rmse_{task}.csv'}](rmse_{task}.csv). Box plot: median and"
        " quartiles, whiskers to 1.5 IQR, every series as a point (ours blue, published grey),"
        " methods ordered by median."
    )
    lines += [""] + per_method_section(
        rows,
        task,
        series,
        "### Mean log predictive density of the test y (higher is better)",
        "mlpd",
        ".4g",
        "mean",
    )
    lines += [""] + models_section(rows, task, series)
    seeds = seed_section(rows, seed_rows, task, grid)
    if seeds:
        lines += [""] + seeds
    rebuilt = rebuilt_runs(rows, "abcd", task)
    if task == "interp":
        lines += [""] + interp_error_section(rebuilt, "abcd")
    elif forecast_figure(rebuilt, "abcd", out_dir / FORECASTS_PNG):
        lines += [
            "",
            "What the full search's models forecast (rebuilt from the kernels in `results.csv`):",
            "",
            f"![abcd forecasts]({FORECASTS_PNG})",
        ]
        lines += [""] + bias_section(rebuilt, "abcd")
    lines += [""] + per_method_section(
        rows,
        task,
        series,
        "### Wall time (seconds: search and prediction)",
        "seconds",
        ".1f",
        "total",
    )
    return lines, grid, std


def markdown(
    rows: dict[Key, dict[str, str]], base: SearchSettings, command: str, out_dir: Path
) -> str:
    series = all_series()
    lines = header_lines(rows, base, command, series)
    sections, grids, stds = [], {}, {}
    seed_rows = read_results(out_dir / SEEDS_CSV, SEED_KEY)
    for task in TASKS:
        body, grids[task], stds[task] = task_section(rows, task, series, out_dir, seed_rows)
        sections += [""] + body
    has_ref = "ABCD_acc" in next(iter(grids["extrap"].values()))
    lines += [
        "",
        "## Targets (from the issue), on the completed rows",
        "",
        "- `abcd` extrapolation RMSE no worse than the published ABCD-accuracy: "
        + wins_target(rows, grids["extrap"], has_ref),
        "- median standardised RMSE of `abcd`, extrapolation: "
        + median_target("extrap", stds["extrap"], series),
        "- median standardised RMSE of `abcd`, interpolation: "
        + median_target("interp", stds["interp"], series),
    ]
    if has_ref:
        lines.append(published_basis_line(grids))
    lines += sections
    lines += [
        "",
        "## Notes",
        "",
        "- Reference: the original system's published RMSEs (Lloyd et al., AAAI 2014), from"
        " `benchmarks/reference/`; its README lists the data caveats (03-mauna is stored"
        " mean-centred; the original ran a zero-mean GP on raw y with a constant kernel, we"
        " centre and scale y internally). Far from the training data our predictions revert to"
        " the training mean, the original's to zero, so a baseline such as SE can differ from its"
        " published RMSE for that reason alone.",
        "- Standardised RMSE of a series depends on which of our runs on it are complete, so"
        " medians are provisional until every run of the series is done.",
        "- Wall times were measured on this machine while other jobs may have been running; the"
        " 1-minute load average at the start of each run is in `results.csv`.",
    ]
    notes = out_dir / "NOTES.md"  # written by hand after looking at the runs; kept on rewrites
    if notes.exists():
        lines += ["", "## Notes written by hand (`NOTES.md`)", "", notes.read_text().strip()]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------
# Command line
# ------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    defaults = SearchSettings()
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--series", nargs="+", default=None, metavar="NAME")
    p.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    p.add_argument("--tasks", nargs="+", default=list(TASKS), choices=list(TASKS))
    p.add_argument("--jobs", type=int, default=0, help="0: one process per core; 1: serial")
    p.add_argument("--out-dir", type=Path, default=OUTPUTS)
    for name, help_text in SEARCH_OPTIONS.items():
        p.add_argument(f"--{name}", type=int, default=getattr(defaults, name), help=help_text)
    p.add_argument(
        "--prior-mean",
        choices=PRIOR_MEANS,
        default=defaults.prior_mean,
        help="the GP's prior mean: the training mean of y (data) or zero, as the original system",
    )
    p.add_argument("--quiet", action="store_true", help="no line per search level")
    p.add_argument(
        "--merge",
        nargs="+",
        type=Path,
        default=[],
        metavar="CSV",
        help="first put the rows of these results.csv files into OUT/results.csv, replacing "
        "the rows of the same series, task and method (runs made in other folders)",
    )
    p.add_argument(
        "--merge-seeds",
        nargs="+",
        type=Path,
        default=[],
        metavar="CSV",
        help=f"first put the rows of these results.csv files, runs made with another --seed,"
        f" into OUT/{SEEDS_CSV} (one row per series, task, method and seed); RESULTS.md then"
        " shows how much the seed moves the full search",
    )
    p.add_argument(
        "--report-only",
        action="store_true",
        help="rewrite RESULTS.md and the tables from results.csv without running anything",
    )
    return p.parse_args(argv)


def this_command(args: list[str]) -> str:
    """The command line that produces these results from the options ``args``: ``--report-only``
    and ``--merge CSV ...`` left out, since they run nothing."""
    kept: list[str] = []
    merging = False
    for arg in args:
        if arg.startswith("-"):
            merging = arg in ("--merge", "--merge-seeds")
        if not merging and arg != "--report-only":
            kept.append(arg)
    return python_command("benchmarks.accuracy.bench_accuracy", kept)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    known = all_series()
    series = args.series or known
    unknown = [s for s in series if s not in known]
    if unknown:
        raise SystemExit(f"unknown series {unknown}; choose from {known}")
    base = SearchSettings(
        **{name: getattr(args, name) for name in SEARCH_OPTIONS}, prior_mean=args.prior_mean
    )
    args.out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = args.out_dir / "results.csv"
    refs = {task: reference_rmse(task) for task in TASKS}
    # Method by method, in the order given: partial results are whole methods.
    keys = [(s, t, m) for m in args.methods for t in args.tasks for s in series]
    read_results(csv_path)  # refuse a results.csv of another layout before running anything
    if args.merge:
        taken = merge_results(csv_path, args.merge)
        print(f"merged {taken} rows into {csv_path}", flush=True)
    if args.merge_seeds:
        seeds_path = args.out_dir / SEEDS_CSV
        taken = merge_results(seeds_path, args.merge_seeds, SEED_KEY)
        print(f"merged {taken} rows into {seeds_path}", flush=True)
    interrupted = False
    try:
        if not args.report_only:
            run_all(keys, csv_path, base, args.jobs, refs, args.quiet)
    except KeyboardInterrupt:
        interrupted = True
        print("interrupted: finished runs are kept; run the same command to continue", flush=True)
    report = args.out_dir / "RESULTS.md"
    text = markdown(read_results(csv_path), base, this_command(sys.argv[1:]), args.out_dir)
    write_output(report, text)
    print(f"wrote {report}", flush=True)
    if interrupted:
        sys.exit(130)


if __name__ == "__main__":
    main()
