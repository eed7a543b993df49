"""What the engine benchmark (``bench_gp``) and its studies share: the kernel, the data sets,
progress lines and the timing of a call."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable

import numpy as np

from abcd_cli.data.scaling import Scaling
from benchmarks.common import DATASETS as DATA_FOLDER

KERNEL_TEXT = "Lin*Per + SE + WN*Lin"
DATASETS = ("01-airline", "03-mauna", "05-temperature")


def log(msg: str) -> None:
    """Progress on stderr (the report goes to stdout)."""
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def median_time(fn: Callable[[], object], repeats: int, warmup: int = 1) -> float:
    """Median wall time of ``fn()`` in seconds over ``repeats`` calls after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """The x and y columns of ``datasets/NAME.csv`` (header ``x,y``)."""
    path = DATA_FOLDER / f"{name}.csv"
    with path.open() as fh:
        header = fh.readline().strip().split(",")
    if header[:2] != ["x", "y"]:
        raise SystemExit(f"{path}: expected header x,y, got {header}")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return data[:, 0], data[:, 1]


def scaled_data(x: np.ndarray, y: np.ndarray) -> tuple[Scaling, np.ndarray, np.ndarray]:
    """The scaling of ``x``, ``y`` to internal units, and the inputs (N, 1) and targets (N,)
    in those units."""
    sc = Scaling.from_data(x, y)
    return sc, sc.x_in(x)[:, None], sc.y_in(y)


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, as ``a / b / c``."""
    try:
        return " / ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "n/a"
