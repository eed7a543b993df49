"""What every benchmark group shares: the project's paths, the recorded command line, the
machine line and the load average, the best of repeated timings, and writing a benchmark's
Markdown."""

from __future__ import annotations

import contextlib
import os
import platform
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from abcd_cli.files import write_output

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT / "datasets"
# each group's results folder is that group's own ``OUTPUTS`` (``benchmarks.GROUP.OUTPUTS``)


def python_command(module: str, args: Sequence[str]) -> str:
    """The command that runs ``module`` with ``args``: this interpreter, relative to the working
    folder when it lies inside it (``.venv/bin/python -m benchmarks.engines.bench_gp --out
    ...``)."""
    python = Path(sys.executable)
    with contextlib.suppress(ValueError):
        python = python.relative_to(Path.cwd())
    return shlex.join([str(python), "-m", module, *args])


def load_average() -> str:
    """The 1, 5 and 15-minute load averages, as ``1.2, 0.9, 0.7``."""
    return ", ".join(f"{v:.1f}" for v in os.getloadavg())


def machine_line() -> str:
    """One line naming the machine: platform, cores, Python, and the load average when measured
    (the machine may be shared, which makes times indicative)."""
    return (
        f"machine: {platform.platform()}, {os.cpu_count()} cores, Python"
        f" {platform.python_version()}; load average {load_average()} when the table was written"
    )


def publish(text: str, out: Path | None) -> None:
    """Print a benchmark's Markdown and write it to ``out`` (atomically) when given."""
    print(text)
    if out is not None:
        write_output(out, text)


def comma_integers(text: str) -> list[int]:
    """An option's comma-separated whole numbers ("200,300,500"), in the order given."""
    return [int(v) for v in text.split(",") if v]


def timed_best(f: Callable[[], object], repeats: int) -> tuple[float, object]:
    """(the shortest of ``repeats`` wall-clock times of f() in seconds, the last result)."""
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - start)
    return min(times), out


def best_time(f: Callable[[], object], repeats: int) -> float:
    """The shortest of ``repeats`` wall-clock times of f() in seconds."""
    return timed_best(f, repeats)[0]
