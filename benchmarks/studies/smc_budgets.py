"""The sampler's targets against its budget: the runs ``smc_forecasts`` made at each setting
(``smc_forecasts*.csv``), compared on the same series (issue 64: does spending up to 1.5
times the greedy search's time reach the targets?).

For each setting with all ``seeds``' runs on a series, over the series every listed setting
has: the series with the same facts (``smc_seed_table.same_facts``), the median and mean over
series of the seeds' TV by structure and by kinds of findings (the largest pair's) and the
series whose TV by kinds is within 0.2, the runs whose halves' TV by structure is within 0.2
and its median and mean, the pooled coverage and runs about right, and the median RMSE and
wall-time ratios to the greedy search (``smc_seed_table.series_line``'s tallies).

    .venv/bin/python -m benchmarks.studies.smc_budgets [--seeds 0 1 2]
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from abcd_cli.data.reader import load_series
from benchmarks.accuracy.runs import all_series, split_files
from benchmarks.common import publish, python_command
from benchmarks.studies import OUTPUTS
from benchmarks.studies.laplace_mixture import read_rows
from benchmarks.studies.smc_forecasts import greedy_rows, row_settings
from benchmarks.studies.smc_seed_table import AGREED_TV, seeds_tv, series_line

TABLE = OUTPUTS / "smc_budgets.md"


def complete(rows: list[dict[str, str]], seeds: list[int]) -> dict[str, dict[str, list]]:
    """Each setting's runs by series, only the series with a run at every seed."""
    out: dict[str, dict[str, list]] = {}
    for r in rows:
        if int(r["seed"]) in seeds:
            out.setdefault(row_settings(r), {}).setdefault(r["series"], []).append(r)
    return {
        label: {
            s: sorted(runs, key=lambda r: int(r["seed"]))
            for s, runs in by.items()
            if len(runs) == len(seeds)
        }
        for label, by in out.items()
    }


def spread(values: list[float]) -> str:
    """'1.00 / 0.97': the median and the mean (the median sits at 1 while a few fall)."""
    return f"{np.median(values):.2f} / {np.mean(values):.2f}"


def summary_cells(
    by_series: dict[str, list], series: list[str], width: dict[str, float]
) -> list[str]:
    """One setting's targets over ``series``."""
    greedy = greedy_rows()
    tallies = [series_line(s, by_series[s], greedy.get(s, {}), width[s])[1] for s in series]
    runs = [r for s in series for r in by_series[s]]
    tv_structure = [seeds_tv([json.loads(r["by_structure"]) for r in by_series[s]]) for s in series]
    halves = [float(r["halves_structures_tv"]) for r in runs]
    covered = sum(sum(t["covered"]) for t in tallies)
    n = sum(t["n"] * len(t["covered"]) for t in tallies)
    ratios = [x for t in tallies for x in t["ratios"]]
    times = [x for t in tallies for x in t["time_ratios"]]
    return [
        f"{sum(bool(t['agree']) for t in tallies)} of {len(series)}",
        spread(tv_structure),
        spread([t["tv_kinds"] for t in tallies])
        + f" ({sum(t['tv_kinds'] <= AGREED_TV for t in tallies)} ≤ {AGREED_TV})",
        spread(halves) + f" ({sum(h <= AGREED_TV for h in halves)} of {len(halves)} ≤ {AGREED_TV})",
        f"{covered}/{n} = {covered / n:.1%}",
        f"{sum(sum(t['right']) for t in tallies)} of {len(runs)}",
        f"{np.median(ratios):.3f}",
        f"{np.median(times):.2f}",
    ]


def table(rows: list[dict[str, str]], seeds: list[int], command: str) -> str:
    """The settings' rows over all the series each has, then over the series all share."""
    runs = complete(rows, seeds)
    labels = sorted(
        runs,
        key=lambda label: int(label.split()[0][1:]) * sum(int(p[1:]) for p in label.split()[2:]),
    )
    order = all_series()
    width = {}
    for s in order:
        x = load_series(split_files(s, "extrap")[0]).x
        width[s] = float(x.max() - x.min())
    head = (
        "| settings | series | same facts (target ≥ 10 of 13)"
        " | seeds' TV by structure, median / mean"
        " | seeds' TV by kinds, median / mean (series ≤ 0.2)"
        " | halves' TV by structure, median / mean (runs ≤ 0.2)"
        " | pooled coverage (target 90-97%) | runs about right | median RMSE ratio (target ≤ 1.05)"
        " | median wall time ratio (target ≤ 1.5) |"
    )
    rule = "|" + "---|" * (head.count(" | ") + 1)
    own = [
        f"| {label} | {len(runs[label])} | "
        + " | ".join(summary_cells(runs[label], [s for s in order if s in runs[label]], width))
        + " |"
        for label in labels
        if runs[label]
    ]
    shared = [s for s in order if all(s in runs[label] for label in labels)]
    common = (
        [
            f"| {label} | {len(shared)} | "
            + " | ".join(summary_cells(runs[label], shared, width))
            + " |"
            for label in labels
        ]
        if shared
        else []
    )
    return (
        "\n".join(
            [
                f"# The sampler's targets against its budget, seeds {', '.join(map(str, seeds))}",
                "",
                f"Made by `{command}` from `smc_forecasts*.csv` (settings: pP particles,"
                " tT data steps, sS structure and mM parameter moves per particle and step; the"
                " greedy search's numbers are the peers benchmark's). A series counts only with"
                " runs at every seed; the seeds' TV is the largest pair's.",
                "",
                "Each setting over every series it has:",
                "",
                head,
                rule,
                *own,
                "",
                f"Over the series every setting has ({', '.join(shared) or 'none'}):",
                "",
                head,
                rule,
                *common,
            ]
        )
        + "\n"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    args = parser.parse_args(argv)
    rows = [r for path in sorted(OUTPUTS.glob("smc_forecasts*.csv")) for r in read_rows(path)]
    command = python_command("benchmarks.studies.smc_budgets", ["--seeds", *map(str, args.seeds)])
    publish(table(rows, args.seeds, command), TABLE)


if __name__ == "__main__":
    main()
