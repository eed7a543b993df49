"""Which end of an skc BIC interval is loose: −UB and −LB against the exact −log p(y).

Reads a model JSON that ``abcd report --json`` wrote for an skc search (its data, scaling,
mean and kernel; its own m) and, with ``--checkpoint``, the best model of a search checkpoint
(``OUT.pdf.ckpt.json``) on the same data at ``--checkpoint-inducing`` inducing inputs. For each
kernel prints the engine's interval [−UB, −LB] and the exact −log p(y) at the same values
(internal units). The exact value forms the N×N matrix: at N ≈ 9,000 about 0.6 GiB and a few
minutes on one thread.

    OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.studies.interval_ends \\
        results/long_series/runs/default/seattle-temps.model.json \\
        --checkpoint results/long_series/runs/inducing-1000/seattle-temps.pdf.ckpt.json \\
        --checkpoint-inducing 1000
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from abcd_cli.data.scaling import Scaling
from abcd_cli.engines import get_engine
from abcd_cli.kernels.text import parse_kernel


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="a model JSON written by abcd report --json (skc)")
    parser.add_argument("--checkpoint", help="a search checkpoint on the same data")
    parser.add_argument("--checkpoint-inducing", type=int, default=500, help="its m")
    args = parser.parse_args()
    with open(args.model) as file:
        document = json.load(file)
    internal = document["internal"]
    scaling = Scaling.from_dict(internal["scaling"])
    y = scaling.y_in(np.array(document["data"]["y"], dtype=float))
    X = scaling.x_in(np.array(document["data"]["x"], dtype=float)).reshape(len(y), -1)
    constant_mean = internal["constant_mean"]
    cases = [("the model", internal["kernel"], int(document["engine"]["m"]))]
    if args.checkpoint:
        with open(args.checkpoint) as file:
            best = json.load(file)["best"]["kernel"]
        cases.append(("the checkpoint's best", best, args.checkpoint_inducing))
    exact = get_engine("exact")
    print(f"N = {len(y)}; −log p(y) in nats, internal units")
    for label, text, m in cases:
        kernel = parse_kernel(text)
        started = time.perf_counter()
        bounds = get_engine("skc", m=m, seed=0).score(kernel, X, y, constant_mean=constant_mean)
        middle = time.perf_counter()
        value = exact.objective_value(kernel, X, y, constant_mean=constant_mean)
        ended = time.perf_counter()
        print(
            f"{label} (m = {m}): −UB {bounds.low:.1f}, exact {value:.1f}, −LB {bounds.high:.1f};"
            f" exact − (−UB) = {value - bounds.low:.1f}, −LB − exact = {bounds.high - value:.1f}"
            f" ({middle - started:.0f} s for the bounds, {ended - middle:.0f} s exact)"
        )


if __name__ == "__main__":
    main()
