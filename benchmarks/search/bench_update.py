"""Updating a model with new points against a new search of all of them (issue 50, new data).

For each bundled series the first ``--share`` (80%) of its points, in x order, are searched
(``--depth`` 3, ``--seed`` 0); that model is updated with the remaining points
(``abcd_cli.update``: its structure refitted from its values, no search), and all the points
are searched again with the same settings. Both models are of the same points, so their BICs
(2·NLL + p·log n, lower is better) compare. Reported per series: the seconds of the update and
of the new search (the first search's aside), both BICs and structures, and the share of the
new points outside the old model's one-step 95% predictive band (the check that warns when the
new data no longer fit: ``abcd_cli.misfit``). Run from the project folder::

    .venv/bin/python -m benchmarks.search.bench_update \\
        --out benchmarks/search/outputs/update.md [--series 01-airline ...] [--depth 3]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from dataclasses import dataclass, replace
from pathlib import Path

import abcd_cli
from benchmarks.common import DATASETS, machine_line, publish, python_command
from benchmarks.search import OUTPUTS

#: The series measured by default: four of the shorter bundled ones.
SERIES = ("01-airline", "07-call-centre", "08-radio", "11-unemployment")


@dataclass(frozen=True)
class Row:
    """One series measured: its points, the new ones, seconds, BICs and structures, and the
    update's check (new points outside the old band, of those checked; whether it warned)."""

    series: str
    n: int
    new: int
    first_seconds: float
    structure: str
    update_seconds: float
    update_bic: float
    search_seconds: float
    search_bic: float
    search_structure: str
    outside: str
    misfit: bool


def measure(name: str, share: float, settings: dict[str, int]) -> Row:
    """One series: the first ``share`` searched, updated with the rest, and searched whole."""
    series = abcd_cli.load(DATASETS / f"{name}.csv")
    cut = int(round(share * series.n))
    first = replace(series, x=series.x[:cut], y=series.y[:cut], warnings=())
    rest = replace(series, x=series.x[cut:], y=series.y[cut:], warnings=())
    started = time.perf_counter()
    found = abcd_cli.search(first, **settings)
    first_seconds = time.perf_counter() - started
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abcd_cli.AbcdWarning)  # the check is in the record
        updated = abcd_cli.update(found, rest, jobs=settings["jobs"])
    update_seconds = time.perf_counter() - started
    started = time.perf_counter()
    whole = abcd_cli.search(series, **settings)
    search_seconds = time.perf_counter() - started
    check = updated.document["updates"][-1]["check"] or {}
    outside = check.get("outside_band")
    return Row(
        name,
        series.n,
        series.n - cut,
        first_seconds,
        updated.structure,
        update_seconds,
        updated.bic,
        search_seconds,
        whole.bic,
        whole.structure,
        "" if outside is None else f"{outside}/{check['checked']}",
        bool(check.get("misfit")),
    )


def markdown(rows: list[Row], command: str, settings: dict[str, int], share: float) -> str:
    lines = [
        "# Updating a model with new points against a new search",
        "",
        f"Made by `{command}`.",
        "",
        f"- {machine_line()}",
        f"- settings of both searches: {settings}; the first {share:.0%} of each series"
        " searched, updated with the rest (`abcd_cli.update`), and all of it searched again."
        " The BICs are of the same points (lower is better). *Outside*: new points outside the"
        " old model's one-step 95% band (5% expected); *misfit*: the update warned.",
        "",
        "| series | n | new | update: structure | update s | update BIC | new search s |"
        " new search BIC | new search: structure | outside | misfit | first search s |",
        "|---|---:|---:|---|---:|---:|---:|---:|---|---:|---|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.series} | {r.n} | {r.new} | `{r.structure}` | {r.update_seconds:.1f} |"
            f" {r.update_bic:.1f} | {r.search_seconds:.1f} | {r.search_bic:.1f} |"
            f" `{r.search_structure}` | {r.outside} | {'yes' if r.misfit else 'no'} |"
            f" {r.first_seconds:.1f} |"
        )
    if rows:
        update_s = sum(r.update_seconds for r in rows)
        search_s = sum(r.search_seconds for r in rows)
        lower = sum(r.search_bic < r.update_bic for r in rows)
        lines += [
            "",
            f"In all: updates {update_s:.1f} s, new searches {search_s:.1f} s"
            f" ({search_s / max(update_s, 1e-9):.1f} times as long); the new search found a"
            f" lower BIC on {lower} of {len(rows)} series.",
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--series", nargs="*", help=f"bundled series (default: {SERIES})")
    parser.add_argument("--share", type=float, default=0.8, help="share of points searched first")
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=0, help="worker processes (0: per core)")
    parser.add_argument("--out", type=Path, default=OUTPUTS / "update.md")
    args = parser.parse_args(argv)
    settings = {"depth": args.depth, "seed": args.seed, "jobs": args.jobs}
    rows = []
    for name in args.series or SERIES:
        rows.append(measure(name, args.share, settings))
        print(
            f"  {name}: update {rows[-1].update_seconds:.1f} s,"
            f" new search {rows[-1].search_seconds:.1f} s",
            flush=True,
        )
    command = python_command(
        "benchmarks.search.bench_update", sys.argv[1:] if argv is None else argv
    )
    publish(markdown(rows, command, settings, args.share), args.out)


if __name__ == "__main__":
    main()
