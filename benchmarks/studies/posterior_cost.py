"""Issue 62, part 3: where the extra time of ``--method posterior`` goes, beside ``--method
greedy`` on the same series and settings.

Each run is what ``abcd report DATA.csv`` does, in this process and serially (``jobs=1``, so
that one profiler sees every call): the search, the report's context with its figures (the
decomposition, the forecast, the posterior's forecast and findings) written as HTML, then the
predictive table ``abcd predict`` gives on the report's forecast grid. The whole runs under
cProfile; the table gives each stage's cumulative seconds (a function's time with everything
it calls, so the rows nest and do not sum), under the profiler's overhead, which inflates
Python-heavy stages (the chains) more than BLAS-heavy ones (the fits): read the shares, not
the absolute seconds.

    .venv/bin/python -m benchmarks.studies.posterior_cost --depth 2 --restarts 2 \\
        --out benchmarks/studies/outputs/posterior_cost.md 01-airline 07-call-centre
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import tempfile
import time
from pathlib import Path

import numpy as np

import abcd_cli
from abcd_cli.prediction import predictive_table
from abcd_cli.reports import write_reports
from benchmarks.common import DATASETS, machine_line, publish, python_command

#: The stages timed: (label, module path ending, function name). Nested rows are indented.
STAGES = (
    ("search (everything before the report)", "abcd_cli/api.py", "search"),
    ("  greedy's search (levels)", "kernel_search/greedy.py", "run_searches"),
    ("  pool weighing", "kernel_search/weighing.py", "weigh_pool"),
    ("    Laplace (Hessians)", "kernel_search/evidence.py", "laplace"),
    ("    chains", "kernel_search/parameter_chain.py", "posterior_draws"),
    ("  backtest (the band's calibration)", "kernel_search/backtest.py", "run_backtest"),
    ("    conditioning the origins' particles", "kernel_search/backtest.py", "origin_moments"),
    ("  posterior's features", "abcd_cli/fitted.py", "posterior_features"),
    ("report (decomposition, context, figures, HTML)", "abcd_cli/reports.py", "write_reports"),
    ("  decomposition of the chosen model", "decompose/components.py", "decompose"),
    ("  posterior's forecast", "decompose/averaged.py", "posterior_forecast"),
    ("    conditioning the particles", "abcd_cli/model.py", "particle_models"),
    ("  posterior's findings", "decompose/certainty.py", "posterior_facts"),
    ("predict on the forecast grid", "abcd_cli/fitted.py", "posterior_mixture"),
)


#: What is counted: (label, module path ending, function name), its calls.
COUNTS = (
    ("chains run", "kernel_search/parameter_chain.py", "posterior_draws"),
    ("models conditioned on the data", "abcd_cli/model.py", "posterior"),
)


def calls(stats: pstats.Stats, path: str, name: str) -> int:
    """How many times the functions ``name`` in files ending with ``path`` were called."""
    return sum(
        row[1]
        for (filename, _, function), row in stats.stats.items()  # type: ignore[attr-defined]
        if function == name and filename.endswith(path)
    )


def cumulative(stats: pstats.Stats, path: str, name: str) -> float:
    """The cumulative seconds of the functions ``name`` in files ending with ``path`` (0 when
    it was not called)."""
    total = 0.0
    for (filename, _, function), row in stats.stats.items():  # type: ignore[attr-defined]
        if function == name and filename.endswith(path):
            total += row[3]
    return total


def run(data: Path, method: str, depth: int, restarts: int) -> tuple[float, dict[str, float]]:
    """The wall time of one profiled run and each stage's cumulative seconds."""
    profile = cProfile.Profile()
    began = time.perf_counter()
    profile.enable()
    found = abcd_cli.search(
        str(data), depth=depth, restarts=restarts, method=method, jobs=1, progress=False
    )
    with tempfile.TemporaryDirectory() as folder:
        write_reports(found, {"html": Path(folder) / "report.html"})
    grid = found.decomposition().series.x_grid  # cached: the report's
    models, weights, _ = found.predictive_models(False, "evidence", "")
    predictive_table(models, np.asarray(grid), weights)
    profile.disable()
    wall = time.perf_counter() - began
    stats = pstats.Stats(profile)
    seconds = {label: cumulative(stats, path, name) for label, path, name in STAGES}
    counts = {label: float(calls(stats, path, name)) for label, path, name in COUNTS}
    return wall, seconds | counts


def table(series: list[str], results: dict[tuple[str, str], tuple[float, dict[str, float]]]) -> str:
    """One column per series and method, one row per stage."""
    runs = [(s, m) for s in series for m in ("greedy", "posterior")]
    head = "| stage | " + " | ".join(f"{s} {m}" for s, m in runs) + " |"
    rule = "|---|" + "---:|" * len(runs)
    lines = [head, rule]
    lines.append(
        "| wall time under the profiler (s) | "
        + " | ".join(f"{results[r][0]:.1f}" for r in runs)
        + " |"
    )
    for label, _, _ in STAGES:
        cells = [f"{results[r][1][label]:.1f}" for r in runs]
        lines.append(f"| {label.replace('  ', '&nbsp;&nbsp;')} | " + " | ".join(cells) + " |")
    for label, _, _ in COUNTS:
        cells = [f"{results[r][1][label]:.0f}" for r in runs]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("series", nargs="+", help="dataset names, e.g. 01-airline")
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--restarts", type=int, default=2)
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--append", action="store_true", help="add the table to --out as a section of its own"
    )
    args = parser.parse_args(argv)
    results = {}
    for name in args.series:
        for method in ("greedy", "posterior"):
            results[(name, method)] = run(
                DATASETS / f"{name}.csv", method, args.depth, args.restarts
            )
            print(f"{name} {method}: {results[(name, method)][0]:.1f} s", flush=True)
    command = python_command(
        "benchmarks.studies.posterior_cost",
        [
            "--depth",
            str(args.depth),
            "--restarts",
            str(args.restarts),
            *(["--out", str(args.out)] if args.out else []),
            *(["--append"] if args.append else []),
            *args.series,
        ],
    )
    title = "Where the time of `--method posterior` goes"
    if args.append:
        title = f"## {title} at depth {args.depth}, restarts {args.restarts}"
    else:
        title = f"# {title}"
    text = "\n\n".join(
        [
            title,
            f"`{command}`",
            "Serial (`jobs=1`) under cProfile: each stage's cumulative seconds (nested rows"
            " are part of the row above; rows do not sum).",
            table(args.series, results),
            machine_line(),
        ]
    )
    if args.append and args.out is not None and args.out.exists():
        text = args.out.read_text().rstrip("\n") + "\n\n" + text
    publish(text + "\n", args.out)


if __name__ == "__main__":
    main()
