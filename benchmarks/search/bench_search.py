"""Default search on the 13 benchmark series, beside the original system's BIC.

Run from the project folder::

    .venv/bin/python -m benchmarks.search.bench_search --out benchmarks/search/outputs/search.md

Per series it records the chosen structure (and keeps the model as
``benchmarks/search/outputs/models/NAME.json``, usable with ``abcd report --from-model``), its
BIC (2·NLL + p·log n, NLL in the series' units) next to ``benchmarks/reference/abcd_bic.csv``,
and the wall time on this machine. Rows already in the CSV are kept (an interrupted run
resumes). ``--scaling`` also times one search level at growing N on one series; its rows are
kept in ``benchmarks/search/outputs/search_scaling.csv`` and shown again (with the date they
were measured) by later runs without ``--scaling``. Notes written by hand in
``benchmarks/search/outputs/search_notes.md`` (what changed between runs, why a series misses)
are copied to the end of the Markdown on every rewrite.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import platform
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from abcd_cli.data.reader import load_series
from abcd_cli.execution.pool import make_executor
from abcd_cli.files import write_output
from abcd_cli.kernel_search.candidate import lost_candidate
from abcd_cli.kernel_search.greedy import Search
from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.settings import SearchSettings
from benchmarks.common import DATASETS, python_command
from benchmarks.reference import reference_bics
from benchmarks.search import OUTPUTS

NOTES = OUTPUTS / "search_notes.md"
SCALING = OUTPUTS / "search_scaling.csv"
SCALING_FIELDS = ["series", "n", "candidates", "seconds", "measured"]
FIELDS = [
    "dataset",
    "n",
    "bic",
    "reference_bic",
    "n_params",
    "reference_n_params",
    "structure",
    "levels",
    "seconds",
]


def run_all(csv_path: Path, settings: SearchSettings, jobs: int, only: list[str]) -> list[dict]:
    done: dict[str, dict] = {}
    if csv_path.exists():
        with csv_path.open() as f:
            done = {row["dataset"]: row for row in csv.DictReader(f)}
    refs = reference_bics()
    names = only or sorted(p.stem for p in DATASETS.glob("*.csv"))
    for name in names:
        if name in done:
            continue
        series = load_series(DATASETS / f"{name}.csv")
        executor = make_executor(jobs, on_lost=lost_candidate)
        start = time.perf_counter()
        result = run_search(
            series.x,
            series.y,
            settings,
            executor,
            progress=lambda m, name=name: print(f"  {name}: {m}", flush=True),
        )
        seconds = time.perf_counter() - start
        executor.shutdown()
        doc = result.to_dict()
        doc["data"].update(
            {
                "x_name": series.x_name,
                "y_name": series.y_name,
                "x_kind": series.x_kind,
                "source": f"datasets/{name}.csv",
            }
        )
        models = csv_path.parent / "models"
        models.mkdir(exist_ok=True)
        write_output(models / f"{name}.json", json.dumps(doc))
        ref = refs.get(name, {})
        done[name] = {
            "dataset": name,
            "n": result.model.n,
            "bic": f"{result.model.bic:.2f}",
            "reference_bic": ref.get("abcd_bic_seed1", ""),
            "n_params": result.model.n_params,
            "reference_n_params": ref.get("abcd_n_params_seed1", ""),
            "structure": result.model.kernel.structure,
            "levels": len(result.trace) - 1,
            "seconds": f"{seconds:.1f}",
        }
        print(
            f"{name}: BIC {done[name]['bic']} (reference {done[name]['reference_bic']}),"
            f" {seconds:.0f} s",
            flush=True,
        )
        text = io.StringIO()
        writer = csv.DictWriter(text, FIELDS)
        writer.writeheader()
        writer.writerows(done[k] for k in sorted(done))
        write_output(csv_path, text.getvalue())
    return [done[k] for k in sorted(done)]


def level_scaling(name: str, sizes: list[int], jobs: int) -> list[tuple[int, int, float]]:
    """Seconds of level 2 (expanding the fitted level-1 model) on the first-n-points subsets."""
    series = load_series(DATASETS / f"{name}.csv")
    out = []
    for n in sizes:
        idx = np.unique(np.round(np.linspace(0, series.x.size - 1, n)).astype(int))
        settings = SearchSettings(depth=2, patience=0, subset_size=100000)
        executor = make_executor(jobs, on_lost=lost_candidate)
        search = Search(series.x[idx], series.y[idx], settings, executor)
        search.step()
        search.step()
        start = time.perf_counter()
        search.step()
        out.append((idx.size, search.trace[-1].candidates, time.perf_counter() - start))
        executor.shutdown()
        print(f"  level time at n={idx.size}: {out[-1][2]:.1f} s", flush=True)
    return out


def save_scaling(name: str, scaling: list[tuple[int, int, float]]) -> None:
    measured = datetime.now(timezone.utc).isoformat(timespec="seconds")
    text = io.StringIO()
    writer = csv.DictWriter(text, SCALING_FIELDS)
    writer.writeheader()
    for n, c, s in scaling:
        row = {"series": name, "n": n, "candidates": c, "seconds": f"{s:.1f}"}
        writer.writerow(dict(row, measured=measured))
    write_output(SCALING, text.getvalue())


def load_scaling() -> tuple[list[tuple[int, int, float]], str]:
    """The last measured level times and a line saying where and when they were measured."""
    if not SCALING.exists():
        return [], ""
    with SCALING.open() as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return [], ""
    table = [(int(r["n"]), int(r["candidates"]), float(r["seconds"])) for r in rows]
    return table, f"Series {rows[0]['series']}, measured {rows[0]['measured']}."


def markdown(
    rows: list[dict], scaling, command: str, settings: SearchSettings, scaling_note: str = ""
) -> str:
    better = [
        r for r in rows if r["reference_bic"] and float(r["bic"]) <= float(r["reference_bic"])
    ]
    times = [float(r["seconds"]) for r in rows]
    lines = [
        "# Search benchmark: the 13 series",
        "",
        f"- date: {datetime.now(timezone.utc).isoformat(timespec='seconds')}",
        f"- command: `{command}`",
        f"- machine: {platform.platform()}, {os.cpu_count()} cores; settings: {settings.to_dict()}",
        "- BIC = 2·NLL + p·log n with NLL in the series' own units; reference: the original"
        " system's seed-1 run (`benchmarks/reference/abcd_bic.csv`). Lower is better. Our NLL is"
        " that of y minus its mean (a zero-mean GP on centred data); the original ran a"
        " zero-mean GP on raw y with a constant kernel for the level.",
        "",
        "| dataset | n | BIC | reference BIC | p | ref. p | structure | levels | seconds |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['dataset']} | {r['n']} | {r['bic']} | {r['reference_bic']} | {r['n_params']} |"
            f" {r['reference_n_params']} | `{r['structure']}` | {r['levels']} | {r['seconds']} |"
        )
    if rows:
        lines += [
            "",
            f"BIC no worse than the original on {len(better)} of {len(rows)} series.",
            f"Wall time: median {statistics.median(times):.0f} s per series,"
            f" total {sum(times) / 60:.1f} min.",
        ]
    if scaling:
        lines += [
            "",
            "## Time of one search level against N",
            "",
            *([scaling_note, ""] if scaling_note else []),
            "| n | candidates | seconds |",
            "|---|---|---|",
        ]
        lines += [f"| {n} | {c} | {s:.1f} |" for n, c, s in scaling]
    if NOTES.exists():
        lines += ["", "## Notes written by hand (`search_notes.md`)", "", NOTES.read_text().strip()]
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=OUTPUTS / "search.md")
    p.add_argument("--csv", type=Path, default=OUTPUTS / "search.csv")
    p.add_argument("--jobs", type=int, default=0)
    p.add_argument("--series", nargs="*", default=[])
    p.add_argument("--scaling", default="", help="series whose level time is measured against N")
    p.add_argument("--sizes", type=int, nargs="+", default=[100, 250, 500, 1000])
    args = p.parse_args()
    settings = SearchSettings()
    rows = run_all(args.csv, settings, args.jobs, args.series)
    if args.scaling:
        save_scaling(args.scaling, level_scaling(args.scaling, args.sizes, args.jobs))
    scaling, scaling_note = load_scaling()
    command = python_command("benchmarks.search.bench_search", sys.argv[1:])
    write_output(args.out, markdown(rows, scaling, command, settings, scaling_note))
    print(args.out.read_text())


if __name__ == "__main__":
    main()
