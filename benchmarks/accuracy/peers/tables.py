"""RESULTS.md of the peer comparison: a summary per task, the per-split tables and the check of
every 95% interval, from the rows of ``results.csv``."""

from __future__ import annotations

import platform
import statistics
import sys
from collections.abc import Callable
from datetime import datetime, timezone

from benchmarks.accuracy.peers.runs import Key
from benchmarks.accuracy.peers.scores import coverage_verdict
from benchmarks.accuracy.tables import standardise

Rows = dict[Key, dict[str, str]]
TASK_TITLES = {
    "extrap": "Extrapolation (train on the first 90% of the time range, forecast the rest)",
    "interp": "Interpolation (a random half held out)",
}
VERDICT_MARKS = {"about right": "", "too narrow": " ↓", "too wide": " ↑"}


def ok_cells(rows: Rows, task: str) -> dict[tuple[str, str], dict[str, str]]:
    """The finished runs of ``task`` by (series, method)."""
    return {(s, m): r for (s, t, m), r in rows.items() if t == task and r["status"] == "ok"}


def complete_series(rows: Rows, task: str, series: list[str], methods: list[str]) -> list[str]:
    """The series of ``task`` on which every one of ``methods`` has a finished run."""
    cells = ok_cells(rows, task)
    return [s for s in series if all((s, m) in cells for m in methods)]


def standardised(rows: Rows, task: str, series: list[str], methods: list[str]) -> dict:
    """RMSE / the lowest RMSE among ``methods`` on the series, by (series, method)."""
    cells = ok_cells(rows, task)
    grid = {s: {m: float(cells[s, m]["rmse"]) for m in methods if (s, m) in cells} for s in series}
    return {
        (s, m): value
        for s, by_method in standardise(grid).items()
        for m, value in by_method.items()
        if value is not None
    }


def summary_table(rows: Rows, task: str, series: list[str], methods: list[str]) -> list[str]:
    """One line per method over ``series`` (on which all ``methods`` ran)."""
    cells = ok_cells(rows, task)
    std = standardised(rows, task, series, methods)
    lines = [
        "| method | median standardised RMSE | series won | 95% interval covers (pooled)"
        " | splits covered at about 95% | median MLPD rank | median time (s) |",
        "|---|---|---|---|---|---|---|",
    ]
    ranks = mlpd_ranks(cells, series, methods)
    for m in methods:
        own = [cells[s, m] for s in series]
        covered = sum(int(r["covered"]) for r in own)
        n = sum(int(r["n_test"]) for r in own)
        right = sum(
            coverage_verdict(int(r["covered"]), int(r["n_test"])) == "about right" for r in own
        )
        won = sum(std[s, m] == 1.0 for s in series)
        rank = f"{statistics.median(ranks[m]):g}" if ranks.get(m) else "—"
        lines.append(
            f"| {m} | {statistics.median(std[s, m] for s in series):.2f} | {won} of {len(series)}"
            f" | {covered / n:.1%} ({covered} of {n}) | {right} of {len(series)} | {rank}"
            f" | {statistics.median(float(r['seconds']) for r in own):.1f} |"
        )
    return lines


def mlpd_ranks(cells: dict, series: list[str], methods: list[str]) -> dict[str, list[int]]:
    """Each method's rank by MLPD (1 = highest) on each series, among the methods with one."""
    ranks: dict[str, list[int]] = {m: [] for m in methods}
    for s in series:
        have = [m for m in methods if cells[s, m]["mlpd"]]
        order = sorted(have, key=lambda m: -float(cells[s, m]["mlpd"]))
        for i, m in enumerate(order, 1):
            ranks[m].append(i)
    return ranks


def per_split_table(
    rows: Rows,
    task: str,
    series: list[str],
    methods: list[str],
    cell: Callable[[dict[str, str]], str],
) -> list[str]:
    """A series × method table of ``cell(row)``; "—" where the run is missing, its status
    (``failed``, ``timeout``) where it did not finish."""
    cells = ok_cells(rows, task)
    lines = ["| series | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
    for s in series:
        values = [
            cell(cells[s, m]) if (s, m) in cells else rows.get((s, task, m), {}).get("status", "—")
            for m in methods
        ]
        lines.append(f"| {s} | " + " | ".join(values) + " |")
    return lines


def rmse_cell(row: dict[str, str]) -> str:
    return f"{float(row['rmse']):.5g}"


def mae_cell(row: dict[str, str]) -> str:
    return f"{float(row['mae']):.5g}"


def coverage_cell(row: dict[str, str]) -> str:
    covered, n = int(row["covered"]), int(row["n_test"])
    mark = VERDICT_MARKS[coverage_verdict(covered, n)]
    return f"{covered}/{n}{mark} ×{float(row['width_factor']):.2g}"


def mlpd_cell(row: dict[str, str]) -> str:
    return f"{float(row['mlpd']):.4g}" if row["mlpd"] else "n/a"


def crps_cell(row: dict[str, str]) -> str:
    return f"{float(row['crps']):.4g}" if row.get("crps") else "n/a"


def seconds_cell(row: dict[str, str]) -> str:
    return f"{float(row['seconds']):.1f}"


def abcd_interval_lines(rows: Rows, tasks: list[str], series: list[str]) -> list[str]:
    """Where abcd's 95% intervals miss the stated rate, and by how much."""
    lines: list[str] = []
    for task in tasks:
        cells = ok_cells(rows, task)
        for s in series:
            r = cells.get((s, "abcd"))
            if r is None:
                continue
            covered, n = int(r["covered"]), int(r["n_test"])
            verdict = coverage_verdict(covered, n)
            factor = float(r["width_factor"])
            if verdict != "about right" or not 0.5 <= factor <= 2.0:
                lines.append(
                    f"- {task} {s}: {covered} of {n} inside ({verdict}); the interval would"
                    f" have to be {factor:.2g} times as wide to hold 95% of the test points"
                )
    return lines or ["- none of the finished `abcd` runs"]


def versions_line(rows: Rows, methods: list[str]) -> str:
    """The tool versions recorded in the rows, per method."""
    seen = {
        m: sorted({r["tool_version"] for (_, _, mm), r in rows.items() if mm == m}) for m in methods
    }
    return "; ".join(f"{m}: {', '.join(v) or '—'}" for m, v in seen.items())


def header_lines(rows: Rows, command: str, methods: list[str], expected: list[Key]) -> list[str]:
    """Date, command, machine, versions and which runs are done or missing."""
    missing = [k for k in expected if k not in rows]
    failed = [k for k in expected if k in rows and rows[k]["status"] != "ok"]
    lines = [
        "# `abcd` beside the tools users pick instead",
        "",
        f"- date: {datetime.now(timezone.utc).isoformat(timespec='seconds')}",
        f"- command: `{command}`",
        f"- machine: {platform.platform()}, {_cores()} cores, Python {sys.version.split()[0]}",
        f"- versions that ran: {versions_line(rows, methods)}",
        f"- runs complete: **{len(expected) - len(missing) - len(failed)} of {len(expected)}**,"
        f" {len(failed)} failed",
    ]
    for method in methods:
        gone = [f"{s} {t}" for s, t, m in missing if m == method]
        if gone:
            lines.append(f"- **`{method}` not yet run on {len(gone)} splits**: {', '.join(gone)}")
    for s, t, m in failed:
        lines.append(f"- failed: {s} {t} {m}: {rows[s, t, m]['note']}")
    return lines


def _cores() -> int:
    import os

    return os.cpu_count() or 0
