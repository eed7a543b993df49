"""Paths and the recorded command line shared by the benchmark scripts."""

from __future__ import annotations

import contextlib
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT / "datasets"
BENCHMARKS = ROOT / "benchmarks"
STUDIES = BENCHMARKS / "studies"


def python_command(module: str, args: Sequence[str]) -> str:
    """The command that runs ``module`` with ``args``: this interpreter, relative to the working
    folder when it lies inside it (``.venv/bin/python -m benchmarks.bench_gp --out ...``)."""
    python = Path(sys.executable)
    with contextlib.suppress(ValueError):
        python = python.relative_to(Path.cwd())
    return shlex.join([str(python), "-m", module, *args])


def machine_line() -> str:
    """One line naming the machine: platform, cores, Python, and the load average when measured
    (the machine may be shared, which makes times indicative)."""
    import os
    import platform

    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    return (
        f"machine: {platform.platform()}, {os.cpu_count()} cores, Python"
        f" {platform.python_version()}; load average {load} when the table was written"
    )
