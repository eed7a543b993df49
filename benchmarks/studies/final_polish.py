"""The chosen model of a finished skc search polished on all the data by L-BFGS-B on CGLB with a
shortened first step, scored at given iterations (``polish_path``) by the Titsias bound, CGLB,
the finalists' BIC interval and exactly (one dense Cholesky each).

Reads a model JSON that ``abcd report --json`` wrote for an skc search; the start is its chosen
model (``internal``: the search's own units, every digit). ``--scale`` s runs L-BFGS-B over u
with θ = θ₀ + s·u, so that its first step is s long in θ (``polish_path``).

    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python -m benchmarks.studies.final_polish \\
        /tmp/seattle/work/runs/default/seattle-temps.model.json --at 10,25,50 --scale 1e-5
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace

from abcd_cli.engines.sparse import BOUNDS
from abcd_cli.kernel_search.greedy import Search
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.text import parse_kernel
from benchmarks.studies.level_split import exact_bic, search_of
from benchmarks.studies.polish_path import polish_path, shown_path


def interval_bic(search: Search, kernel: Kernel) -> tuple[float, float]:
    """The finalists' BIC interval [low, high] of ``kernel`` (``likelihood_interval``)."""
    data = search.data
    bounds = search.engine.likelihood_interval(kernel, data.X, data.Y, data.constant_mean)
    scored = data.scorer.scored(kernel, bounds.high, data.n, bounds)
    return (scored.low, scored.bic)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="a model JSON written by abcd report --json (skc)")
    parser.add_argument("--at", default="10,25,50", help="iterations at which to score: 10,25")
    parser.add_argument("--scale", type=float, default=1e-5, help="the first step's length in θ")
    parser.add_argument("--bound", choices=BOUNDS, default="cglb", help="the polishing objective")
    args = parser.parse_args()
    with open(args.model) as file:
        doc = json.load(file)
    search = search_of(doc)
    kernel = parse_kernel(doc["internal"]["kernel"])
    at = sorted({int(i) for i in args.at.split(",")})
    engine = replace(search.engine, bound=args.bound)
    started, cpu = time.perf_counter(), time.process_time()
    points = polish_path(search, kernel, engine, at, exact_bic, args.scale, interval_bic)
    shown_path(search.data.text(kernel, params=False), args.bound, points)
    print(f"{time.perf_counter() - started:.0f} s wall, {time.process_time() - cpu:.0f} s CPU")


if __name__ == "__main__":
    main()
