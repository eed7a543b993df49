"""Where ``--engine auto`` switches from the exact engine to skc: one objective with its
gradient on each, one BLAS thread (as a search's worker runs), N = 500 ... 8,000.

The exact engine's time is one ``nll_and_grad`` (Cholesky, inverse, one derivative matrix per
parameter); skc's is one ``SparseEngine.objective`` (the lower bound and its gradient) at the
default m for N (``engine_choice.default_inducing``), and one ``SparseEngine.score`` (the upper
bound: Nyström and PCG), which every candidate fitted on all the data pays once. Compared is one
such candidate: ``refine_iter`` evaluations (40) on each engine, plus skc's score (the exact
engine's score is its objective's value, free). Sizes the exact engine refuses (``check_size``)
are not timed. The crossover is the N from which skc is faster at every larger size measured,
interpolated log-linearly in the time ratio between the two grid points around it.
Run from the project root::

    .venv/bin/python -m benchmarks.engines.bench_engine_choice [--repeats 2] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from abcd_cli.engines.exact import ExactEngine, nll_and_grad
from abcd_cli.engines.sparse import SparseEngine
from abcd_cli.errors import InputError
from abcd_cli.kernel_search.engine_choice import default_inducing
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels.algebra import count_params
from abcd_cli.kernels.text import parse_kernel
from benchmarks.common import best_time, load_average, publish, python_command

#: A kernel like those a search reaches after a few levels (ten parameters), x in days.
KERNEL = parse_kernel(
    "C(sd=0.5) + Lin(location=0.0, sd=0.01) + SE(lengthscale=20.0, sd=1.0)"
    " * Per(lengthscale=1.0, period=1.0, sd=0.7) + SE(lengthscale=5.0, sd=0.5) + WN(sd=0.3)"
)
SIZES = (500, 750, 1000, 1500, 2000, 3000, 4000, 6000, 8000)


def hourly_series(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """n hourly points (x in days): a trend, a slow wave, a daily cycle and noise."""
    rng = np.random.default_rng(seed)
    x = np.arange(n) / 24.0
    y = 0.01 * x + np.sin(2 * np.pi * x / 30.0) + 0.7 * np.sin(2 * np.pi * x)
    return x[:, None], y + 0.3 * rng.standard_normal(n)


Row = tuple[int, int, float | None, float, float]


def measure(repeats: int) -> list[Row]:
    """(N, m, exact seconds or None when refused, skc seconds, skc score seconds) per size."""
    rows = []
    theta = KERNEL.theta()
    evaluations = SearchSettings().full_data_evaluations
    for n in SIZES:
        x, y = hourly_series(n)
        m = default_inducing(n)
        try:
            ExactEngine().check_size(n, evaluations)
            exact = best_time(lambda x=x, y=y: nll_and_grad(theta, KERNEL, x, y), repeats)
        except InputError:
            exact = None
        engine = SparseEngine(m=m)
        sparse = best_time(lambda e=engine, x=x, y=y: e.objective(theta, KERNEL, x, y), repeats)
        score = best_time(lambda e=engine, x=x, y=y: e.score(KERNEL, x, y), repeats)
        rows.append((n, m, exact, sparse, score))
        shown = "refused" if exact is None else f"{exact:.3f}"
        print(f"N={n} m={m} exact={shown} skc={sparse:.3f} score={score:.3f}", flush=True)
    return rows


def candidate_ratio(row: Row) -> float:
    """Time of one candidate refined on all the data, exact / skc (inf where exact refuses)."""
    _, _, exact, sparse, score = row
    evaluations = SearchSettings().refine_iter
    if exact is None:
        return math.inf
    return evaluations * exact / (evaluations * sparse + score)


def crossover(rows: list[Row]) -> float | None:
    """The N from which skc is faster at every larger size (refused sizes count as faster),
    log-linearly interpolated in exact/skc between the grid points around it; None when the
    exact engine is faster at the largest size it accepts."""
    ratio = [(row[0], candidate_ratio(row)) for row in rows]
    first = None
    for i in range(len(ratio) - 1, -1, -1):
        if ratio[i][1] > 1.0:
            first = i
        else:
            break
    if first is None:
        return None
    if first == 0:
        return float(ratio[0][0])
    (n0, r0), (n1, r1) = ratio[first - 1], ratio[first]
    if not math.isfinite(r1):
        return float(n1)
    t = (0.0 - math.log(r0)) / (math.log(r1) - math.log(r0))
    return math.exp(math.log(n0) + t * (math.log(n1) - math.log(n0)))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument(
        "--out", type=Path, default=Path("benchmarks/engines/outputs/engine_choice.md")
    )
    args = parser.parse_args(argv)
    command = python_command(
        "benchmarks.engines.bench_engine_choice",
        ["--repeats", str(args.repeats), "--out", str(args.out)],
    )
    with threadpool_limits(limits=1, user_api="blas"):
        rows = measure(args.repeats)
    cross = crossover(rows)
    load = load_average()
    evaluations = SearchSettings().refine_iter
    table = [
        "| N | skc's m | exact (s) | skc (s) | exact / skc | skc's score (s)"
        f" | one candidate ({evaluations} evaluations + score): exact / skc |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        n, m, exact, sparse, score = row
        shown = "refused" if exact is None else f"{exact:.3f}"
        ratio = "" if exact is None else f"{exact / sparse:.2f}"
        whole = "" if exact is None else f"{candidate_ratio(row):.2f}"
        table.append(f"| {n:,} | {m} | {shown} | {sparse:.3f} | {ratio} | {score:.3f} | {whole} |")
    verdict = (
        "The exact engine is faster at every size it accepts."
        if cross is None
        else f"Crossover: a candidate is fitted faster by skc from N ≈ {cross:,.0f} on."
    )
    text = "\n".join(
        [
            "# Engine choice: exact against skc",
            "",
            f"Made by `{command}` on {dt.date.today()} (best of {args.repeats}; one BLAS thread;"
            f" load average {load}; the machine is shared, so times are indicative).",
            f"Kernel ({count_params(KERNEL)} parameters): `{KERNEL.to_text()}` on an hourly"
            " series (x in days). skc at its default m for N (`default_inducing`); 'refused':"
            " the exact engine's size check refuses N.",
            "",
            *table,
            "",
            verdict,
            "",
        ]
    )
    publish(text, args.out)


if __name__ == "__main__":
    main()
