"""One likelihood evaluation with glibc's default malloc thresholds and with the raised ones.

Run from the project folder:  .venv/bin/python -m benchmarks.studies.bench_malloc
Prints a Markdown table (median of 7 batches of 10 ``nll_and_grad`` calls, one BLAS thread) for
the kernel and subset named below; see ``abcd_cli/engines/memory.py`` and
``benchmarks/studies/outputs/PROFILE.md`` §6.
Each setting runs in a fresh process, since the thresholds are process-wide.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks.common import DATASETS, ROOT

KERNEL = "CW(((C + SE) * Per + C) * SE + (Lin * WN + WN) * WN, C + WN)"


def time_one(series: str, kernel_text: str) -> float:
    """Median milliseconds per evaluation on the search's subset of ``series``."""
    from abcd_cli.data.reader import load_series
    from abcd_cli.engines.exact import nll_and_grad  # importing the engine raises the thresholds
    from abcd_cli.kernel_search.greedy import Search
    from abcd_cli.kernel_search.init import initial_values
    from abcd_cli.kernel_search.settings import SearchSettings
    from abcd_cli.kernels.text import parse_kernel

    data = load_series(DATASETS / f"{series}.csv")
    search = Search(data.x, data.y, SearchSettings())
    kernel = parse_kernel(kernel_text)
    kernel = kernel.with_values(
        initial_values(kernel, search.data.fit_summary, np.random.default_rng(0))
    )
    theta = kernel.theta()
    batches = []
    with threadpool_limits(limits=1, user_api="blas"):
        for _ in range(5):
            nll_and_grad(theta, kernel, search.data.X_fit, search.data.Y_fit)
        for _ in range(7):
            start = time.perf_counter()
            for _ in range(10):
                nll_and_grad(theta, kernel, search.data.X_fit, search.data.Y_fit)
            batches.append((time.perf_counter() - start) / 10 * 1000)
    return statistics.median(batches)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--series", default="02-solar")
    p.add_argument("--kernel", default=KERNEL)
    p.add_argument("--child", choices=["default", "raised"], help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        print(time_one(args.series, args.kernel))
        return
    print(f"`{args.kernel}` on the search subset of {args.series}\n")
    print("| malloc thresholds | ms per evaluation |\n|---|---|")
    for setting in ("default", "raised", "default", "raised"):
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "benchmarks.studies.bench_malloc",
                "--series",
                args.series,
                "--kernel",
                args.kernel,
                "--child",
                setting,
            ],
            env={**os.environ, "ABCD_GLIBC_MALLOC_DEFAULTS": "1" if setting == "default" else "0"},
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        ).stdout
        print(f"| {setting} | {float(out):.1f} |")


if __name__ == "__main__":
    main()
