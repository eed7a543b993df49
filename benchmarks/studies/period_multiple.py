"""A chosen model's period against the periodogram peak it is a multiple of, on all the data.

Reads a model JSON that ``abcd report --json`` wrote for an skc search, and fits its kernel on
all the data twice with the search's engine (``--inducing`` inducing inputs, seed 0), one
start each: from the chosen values, and from the same values with one periodic term's period
divided by ``--factor``. Prints each fit's −LB before and after L-BFGS-B (150 iterations) and
its interval on −log p(y). Internal units (``Scaling.x_in``, ``y_in``); one BLAS thread is
advised (``OMP_NUM_THREADS=1``), as the search's workers use.

    OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.studies.period_multiple \\
        results/long_series/runs/default/hourly-30k.model.json \\
        --period 0.058210464164267804 --factor 3
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from abcd_cli.data.scaling import Scaling
from abcd_cli.engines import get_engine
from abcd_cli.kernel_search.fit import fit
from abcd_cli.kernels.text import parse_kernel


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="a model JSON written by abcd report --json")
    parser.add_argument("--period", required=True, help="the period to move, as in 'internal'")
    parser.add_argument("--factor", type=int, default=3, help="divide that period by this")
    parser.add_argument("--inducing", type=int, default=500, help="the engine's m")
    args = parser.parse_args()
    with open(args.model) as file:
        document = json.load(file)
    scaling = Scaling.from_dict(document["internal"]["scaling"])
    X = scaling.x_in(np.array(document["data"]["x"])).reshape(len(document["data"]["y"]), -1)
    y = scaling.y_in(document["data"]["y"])
    text = document["internal"]["kernel"]
    if args.period not in text:
        parser.error(f"no period {args.period} in {text}")
    moved = repr(float(args.period) / args.factor)
    engine = get_engine("skc", m=args.inducing, seed=0)
    for name, kernel in (
        ("chosen", text),
        (f"period / {args.factor}", text.replace(args.period, moved)),
    ):
        started = time.time()
        start = parse_kernel(kernel)
        before = engine.objective_value(start, X, y)
        result = fit(start, X, y, np.random.default_rng(0), restarts=1, max_iter=150, engine=engine)
        interval = engine.score(result.kernel, X, y, objective=result.nll)
        print(
            f"{name}: -LB at the start {before:.1f}, after {result.nll:.1f};"
            f" interval [{interval.low:.1f}, {interval.high:.1f}];"
            f" {result.n_evaluations} evaluations, {time.time() - started:.0f} s",
            flush=True,
        )
        print(f"    {result.kernel.to_text(True, 5)}", flush=True)


if __name__ == "__main__":
    main()
