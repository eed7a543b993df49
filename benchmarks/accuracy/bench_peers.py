"""Accuracy beside the tools a user would pick instead: Prophet, exponential smoothing, an
automatically ordered seasonal ARIMA and scikit-learn's GP, with ``abcd`` at its defaults, on
the accuracy benchmark's fixed splits (extrapolation 90/10 and interpolation 50/50 of the 13
series).

Full run, from the project folder (the peers take minutes; ``abcd`` about 2 hours on two cores;
interrupt it at any time, with Ctrl-C or SIGTERM, and run the same command again to
continue):

    .venv/bin/python -m benchmarks.accuracy.bench_peers --jobs 2 \\
        --out-dir benchmarks/accuracy/outputs/peers

The peer tools come from the optional ``bench`` extra (``pip install -e '.[bench]'``). Each
method forecasts the test x of ``datasets/splits/*/NAME-test.csv`` from ``NAME-train.csv``; the
row of each finished run (RMSE, mean absolute error, how many test points its 95% interval
holds, the factor by which that interval is too narrow or too wide, mean log predictive density
where the tool gives a Gaussian predictive, wall seconds, the tool's version) is appended at once
to ``OUT/results.csv``, and runs already there are skipped (a failed run too: delete its row to
retry). Then ``OUT/RESULTS.md`` is written from all the rows; notes written by hand in
``OUT/NOTES.md`` are copied in at its end. Options: ``--methods``, ``--series``, ``--tasks``,
``--jobs N`` (peer runs side by side; ``abcd`` always runs alone afterwards, with one worker
process per core), ``--time-limit S`` (a peer's run still going after S seconds, default 600,
is stopped and recorded as a timeout), ``--report-only`` (rewrite RESULTS.md, run nothing).

The parts: ``peers/`` (one module per tool, the time axis, the scores, the runs and the tables).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from abcd_cli.cli.errors import sigterm_as_interrupt
from abcd_cli.files import write_output
from benchmarks.accuracy import OUTPUTS
from benchmarks.accuracy.peers import PEERS
from benchmarks.accuracy.peers.runs import Key, read_rows, run_all
from benchmarks.accuracy.peers.tables import (
    TASK_TITLES,
    Rows,
    abcd_interval_lines,
    complete_series,
    coverage_cell,
    crps_cell,
    header_lines,
    mae_cell,
    mlpd_cell,
    per_split_table,
    rmse_cell,
    seconds_cell,
    summary_table,
)
from benchmarks.accuracy.runs import TASKS, all_series
from benchmarks.common import python_command

METHODS = list(PEERS)
OUT_DIR = OUTPUTS / "peers"
#: what each method runs, for RESULTS.md (the modules' docstrings say it at length)
SETTINGS = {
    "abcd": "`abcd_cli.search` with the default settings (seed 0, one seed, depth 10, patience 3,"
    " one worker per core), then `abcd_cli.predict`: mean, sd and the 2.5%/97.5% quantiles",
    "abcd-posterior": 'the same with `method="posterior"`: the 20 structures of lowest BIC'
    " weighed by their Laplace evidence, 32 parameter draws of each from a Metropolis chain;"
    " the predictive is their mixture (its quantiles, density and CRPS)",
    "abcd-calibrated": "the same posterior with its band past the training data widened by the"
    " calibration on the series' own past (a rolling-origin backtest inside the training data;"
    " `abcd_cli.calibration`), as `abcd_cli.predict` gives it",
    "prophet": "Prophet's defaults on the dates of x (`interval_width=0.95` so that its interval"
    " is the 95% one); intervals from its simulated futures, no density",
    "ets": "statsmodels' state-space `ExponentialSmoothing`: damped additive trend, additive"
    " seasonality with the known period (12 for monthly series, 7 for daily births, 24 for"
    " hourly internet; none for the annual series and the daily temperature), on the series'"
    " regular grid with missing cells; smoothed predictions",
    "arima": "pmdarima's `auto_arima` (defaults, seasonal with the same periods); where the grid"
    " has gaps, the order is chosen on the gap-filled values and that SARIMAX refitted on the"
    " grid with its gaps (state-space form, smoothed predictions)",
    "sklearn-gp": "scikit-learn's `GaussianProcessRegressor`, kernel"
    " `C*DotProduct*ExpSineSquared + C*RBF + WhiteKernel*DotProduct` (the engine benchmark's),"
    " `normalize_y=True`, 5 optimiser starts",
}


def task_section(rows: Rows, task: str, series: list[str], methods: list[str]) -> list[str]:
    """The summary and per-split tables of one task."""
    lines = [f"## {TASK_TITLES[task]}", ""]
    full = complete_series(rows, task, series, methods)
    lines.append(f"### Summary on the {len(full)} series where every method ran")
    lines.append("")
    lines += summary_table(rows, task, full, methods) if full else ["(none yet)"]
    peers = [m for m in methods if not m.startswith("abcd")]
    if peers != methods and len(full) < len(series):
        peer_full = complete_series(rows, task, series, peers)
        lines += ["", f"### The peers alone, on the {len(peer_full)} series where each ran", ""]
        lines += summary_table(rows, task, peer_full, peers) if peer_full else ["(none yet)"]
    tables = [
        ("Test RMSE (in the series' units)", rmse_cell),
        ("Mean absolute error", mae_cell),
        (
            "Test points inside the 95% interval (↓ too narrow, ↑ too wide by a binomial test at"
            " 5%), and the factor its width would need to hold 95% of them",
            coverage_cell,
        ),
        ("Mean log predictive density (higher is better; n/a: no density)", mlpd_cell),
        ("Mean CRPS (lower is better, in the series' units; n/a: not recorded)", crps_cell),
        ("Wall time (seconds: fit and predict)", seconds_cell),
    ]
    for title, cell in tables:
        lines += ["", f"### {title}", ""] + per_split_table(rows, task, series, methods, cell)
    return lines


def markdown(rows: Rows, command: str, methods: list[str], out_dir: Path) -> str:
    series = all_series()
    tasks = list(TASKS)
    expected: list[Key] = [(s, t, m) for m in methods for t in tasks for s in series]
    lines = header_lines(rows, command, methods, expected)
    lines += ["", "What ran:", ""] + [f"- `{m}`: {SETTINGS[m]}" for m in methods]
    lines += [
        "",
        "Standardised RMSE divides each method's RMSE on a series by the lowest of the methods"
        " in that table. *Splits covered at about 95%*: a two-sided binomial test does not"
        " reject 95% at the 5% level (it treats the test points as independent; extrapolation"
        " errors are correlated, so it is lenient there). *Width factor* (×): the 95th"
        " percentile over the test points of |y − mean| / (interval bound − mean), i.e. how many"
        " times as wide the interval would have to be to hold 95% of them (above 1: too narrow)."
        " MLPD rank: 1 = the highest mean log predictive density among the methods that give"
        " one (Prophet does not). Times: wall seconds on this machine, two cores shared.",
    ]
    for task in tasks:
        lines += [""] + task_section(rows, task, series, methods)
    if "abcd" in methods:
        lines += ["", "## Where `abcd`'s 95% intervals miss", ""]
        lines += abcd_interval_lines(rows, tasks, series)
    notes = out_dir / "NOTES.md"
    if notes.exists():
        lines += ["", "## Notes written by hand (`NOTES.md`)", "", notes.read_text().strip()]
    return "\n".join(lines) + "\n"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--methods", nargs="+", default=METHODS, choices=METHODS)
    p.add_argument("--series", nargs="+", default=None, metavar="NAME")
    p.add_argument("--tasks", nargs="+", default=list(TASKS), choices=list(TASKS))
    p.add_argument("--jobs", type=int, default=1, help="peer runs side by side (abcd: alone)")
    p.add_argument(
        "--time-limit",
        type=int,
        default=600,
        help="seconds after which a peer's run is stopped and recorded as a timeout (0: none;"
        " abcd has no limit)",
    )
    p.add_argument("--out-dir", type=Path, default=OUT_DIR)
    p.add_argument("--report-only", action="store_true", help="rewrite RESULTS.md only")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    known = all_series()
    series = args.series or known
    unknown = sorted(set(series) - set(known))
    if unknown:
        raise SystemExit(f"unknown series {unknown}; choose from {known}")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = args.out_dir / "results.csv"
    keys = [(s, t, m) for m in args.methods for t in args.tasks for s in series]
    read_rows(csv_path)  # refuse a file of another layout before running anything
    interrupted = False

    def say(line: str) -> None:
        print(line, flush=True)

    try:
        with sigterm_as_interrupt():  # kill -TERM stops it as Ctrl-C does, rows kept
            if not args.report_only:
                run_all(keys, csv_path, args.jobs, say, args.time_limit)
    except KeyboardInterrupt:
        interrupted = True
        print("interrupted: finished runs are kept; run the same command to continue", flush=True)
    kept = [a for a in sys.argv[1:] if a != "--report-only"]
    text = markdown(
        read_rows(csv_path),
        python_command("benchmarks.accuracy.bench_peers", kept),
        METHODS,
        args.out_dir,
    )
    write_output(args.out_dir / "RESULTS.md", text)
    print(f"wrote {args.out_dir / 'RESULTS.md'}", flush=True)
    if interrupted:
        sys.exit(130)


if __name__ == "__main__":
    main()
