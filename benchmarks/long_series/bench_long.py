"""Long series (issue 30): the default user command on synthetic and real series of 10⁴-10⁵
points, its wall time, peak memory and per-level numbers, and whether the chosen model found
the structure each series is known to have.

Full run, from the project folder (hours on two cores; interrupt it at any time, with Ctrl-C or
SIGTERM, and run the same command again to continue):

    .venv/bin/python -m benchmarks.long_series.bench_long [--series NAME ...] \\
        [--out benchmarks/long_series/outputs/long_series.md] [--time-limit S] [--head K] \\
        [--args OPTION ...]

Each series (``benchmarks.long_series.data``: written once to ``results/long_series/data/``,
outside git) runs ``abcd report DATA.csv -o OUT.pdf --json OUT.json`` followed by the options
after ``--args`` (last on the line: ``--args --engine skc --inducing 320``), as its own process;
its outputs and a timed log go to ``results/long_series/runs/LABEL/``. The row of a finished
run is appended at once to the CSV beside ``--out`` (``long_series.csv``, levels in
``long_series_levels.csv``); a series already there with the same options is skipped (delete
its row to run it again; a failed run is tried again). Then ``--out`` is written from all the
rows, with notes written by hand in ``long_series_notes.md`` copied in at its end;
``--report-only`` only rewrites it.
``--head K`` runs the first K points of each series instead (a smoke test: ``NAME-headK``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shlex
import sys
from pathlib import Path

from abcd_cli.cli.errors import sigterm_as_interrupt
from abcd_cli.files import write_output
from benchmarks.common import ROOT, python_command
from benchmarks.long_series import OUTPUTS
from benchmarks.long_series.bundled import Unavailable
from benchmarks.long_series.data import SERIES, Prepared, prepare
from benchmarks.long_series.runs import (
    label,
    read_levels,
    read_rows,
    record,
    run_series,
    shown_command,
)
from benchmarks.long_series.tables import markdown
from benchmarks.long_series.truth import Truth

OUT = OUTPUTS / "long_series.md"
#: rows that are kept on a new run; a failed run is tried again (its new row replaces it)
FINISHED = ("ok", "timeout")
WORK = ROOT / "results" / "long_series"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--series", nargs="+", default=list(SERIES), choices=list(SERIES))
    p.add_argument("--out", type=Path, default=OUT, help="the markdown; CSVs beside it")
    p.add_argument("--work", type=Path, default=WORK, help="data and run outputs (not in git)")
    p.add_argument("--head", type=int, default=None, help="only the first K points")
    p.add_argument(
        "--time-limit", type=float, default=0.0, help="stop a run after S seconds (0: never)"
    )
    p.add_argument("--no-fetch", action="store_true", help="download nothing")
    p.add_argument("--report-only", action="store_true", help="rewrite --out only")
    p.add_argument(
        "--args",
        nargs=argparse.REMAINDER,
        default=[],
        help="options passed on to abcd report (last on the line)",
    )
    return p.parse_args(argv)


def csv_paths(out: Path) -> tuple[Path, Path]:
    return out.with_suffix(".csv"), out.with_name(out.stem + "_levels.csv")


def prepared_series(
    names: list[str], work: Path, fetch: bool, head: int | None
) -> tuple[list[Prepared], dict[str, str]]:
    """The series on disk, and those that could not be had, with the reason."""
    ready, missing = [], {}
    for name in names:
        try:
            ready.append(prepare(name, work / "data", fetch=fetch, head=head))
        except Unavailable as exc:
            missing[name] = str(exc)
    return ready, missing


def truths_on_disk(work: Path) -> dict[str, str]:
    """Every series' description (and the package it came from) from ``work/data``."""
    out = {}
    for path in sorted((work / "data").glob("*.truth.json")):
        truth = Truth.read(path)
        package = truth.source.get("package")
        out[path.name.removesuffix(".truth.json")] = truth.description + (
            f" (from {package})" if package else ""
        )
    return out


def write_markdown(args: argparse.Namespace, command: str, unavailable: dict[str, str]) -> None:
    results, levels = csv_paths(args.out)
    rows = list(read_rows(results).values())
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    header = [
        "# Long series: the whole report from 10⁴ to 10⁵ points",
        "",
        f"Made by `{command}` on {dt.date.today()} (two cores; load average when written"
        f" {load}; each row's own load and commit are in `{results.name}`). Each series ran"
        f" `{shown_command([])}` plus the options in its section's heading, as a new user"
        " would, in a process of its own; rows in"
        f" [`{results.name}`]({results.name})"
        + (f", levels in [`{levels.name}`]({levels.name})." if levels.exists() else "."),
    ]
    notes_file = args.out.with_name(args.out.stem + "_notes.md")
    notes = notes_file.read_text() if notes_file.exists() else ""
    text = markdown(
        rows, read_levels(levels), truths_on_disk(args.work), header, unavailable, notes
    )
    write_output(args.out, text)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    results, levels = csv_paths(args.out)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    read_rows(results)  # refuse a file of another layout before running anything
    kept = [a for a in (sys.argv[1:] if argv is None else argv) if a != "--report-only"]
    command = python_command("benchmarks.long_series.bench_long", kept)
    series, unavailable = prepared_series(args.series, args.work, not args.no_fetch, args.head)
    for name, why in unavailable.items():
        print(f"{name}: not available: {why}", flush=True)
    interrupted = False
    try:
        with sigterm_as_interrupt():
            if not args.report_only:
                run_all(series, args, results, levels)
    except KeyboardInterrupt:
        interrupted = True
        print("interrupted: finished runs are kept; run the same command to continue", flush=True)
    write_markdown(args, command, unavailable)
    print(f"wrote {args.out}", flush=True)
    if interrupted:
        sys.exit(130)


def run_all(series: list[Prepared], args: argparse.Namespace, results: Path, levels: Path) -> None:
    done = read_rows(results)
    folder = args.work / "runs" / label(args.args)
    for prepared in series:
        key = (prepared.name, shlex.join(args.args))
        if key in done and done[key]["status"] in FINISHED:
            print(f"{prepared.name}: already in {results.name}, skipped", flush=True)
            continue
        print(f"{prepared.name}: {prepared.n:,} points ...", flush=True)
        outcome = run_series(prepared, args.args, folder, args.time_limit)
        record(outcome, results, levels)
        r = outcome.row
        print(
            f"{prepared.name}: {r['status']} in {float(str(r['seconds'])) / 60:.1f} min,"
            f" largest process {r['largest_mib']} MiB, {r['structure'] or r['note']};"
            f" {r['found']}",
            flush=True,
        )


if __name__ == "__main__":
    main()
