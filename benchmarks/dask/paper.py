"""Scaling on paper: the expected wall time of a search on W workers, from measured
per-candidate fit times.

A level fits its candidates in stages (all candidates, then the finalists, then, on long
series, the refined ones), each stage waiting for the one before. A stage on W workers is
modelled as the scheduler handing each task, in order, to the first free worker; each task
costs its measured fit time plus the scheduler's per-task overhead. With many workers a stage
takes as long as its slowest candidate: that is the critical path.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

WORKERS = (2, 8, 32, 128)

#: One search's fit times: levels, each a list of stages, each a list of seconds per candidate.
Levels = list[list[list[float]]]


def stage_time(seconds: Sequence[float], workers: int, overhead: float) -> float:
    """Makespan of the tasks handed in order to the first free of ``workers`` workers."""
    if not seconds:
        return 0.0
    free = [0.0] * min(workers, len(seconds))
    for t in seconds:
        start = heapq.heappop(free)
        heapq.heappush(free, start + t + overhead)
    return max(free)


def level_time(stages: list[list[float]], workers: int, overhead: float) -> float:
    return sum(stage_time(s, workers, overhead) for s in stages)


def critical_path(stages: list[list[float]], overhead: float) -> float:
    """A level's time on unlimited workers: the slowest candidate of each stage."""
    return sum(max(s) + overhead for s in stages if s)


def search_time(levels: Levels, workers: int, overhead: float) -> float:
    return sum(level_time(stages, workers, overhead) for stages in levels)


def _fmt(seconds: float) -> str:
    return f"{seconds:.1f}"


def per_series_table(fits: dict[str, Levels], overhead: float) -> list[str]:
    """Markdown: each series' expected search time at each worker count, and the total."""
    head = " | ".join(f"{w} workers (s)" for w in WORKERS)
    lines = [
        f"| series | candidates | fit time, summed (s) | {head} | critical path (s) |",
        "|---|---:|---:|" + "---:|" * (len(WORKERS) + 1),
    ]
    totals = [0.0] * (len(WORKERS) + 2)
    all_count = 0
    for name, levels in fits.items():
        count = sum(len(s) for stages in levels for s in stages)
        summed = sum(sum(s) for stages in levels for s in stages)
        at = [search_time(levels, w, overhead) for w in WORKERS]
        path = sum(critical_path(stages, overhead) for stages in levels)
        row = [summed, *at, path]
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        all_count += count
        cells = " | ".join(_fmt(v) for v in row)
        lines.append(f"| {name} | {count} | {cells} |")
    cells = " | ".join(_fmt(v) for v in totals)
    lines.append(f"| **all** | {all_count} | {cells} |")
    return lines


def per_level_table(name: str, levels: Levels, overhead: float) -> list[str]:
    """Markdown: one series' expected wall time per level at each worker count."""
    head = " | ".join(f"{w} workers (s)" for w in WORKERS)
    lines = [
        f"| level | candidates | slowest candidate (s) | fit time, summed (s) | {head} |",
        "|---:|---:|---:|---:|" + "---:|" * len(WORKERS),
    ]
    for i, stages in enumerate(levels):
        flat = [t for s in stages for t in s]
        at = " | ".join(_fmt(level_time(stages, w, overhead)) for w in WORKERS)
        slowest = max(flat) if flat else 0.0
        lines.append(f"| {i} | {len(flat)} | {_fmt(slowest)} | {_fmt(sum(flat))} | {at} |")
    return lines
