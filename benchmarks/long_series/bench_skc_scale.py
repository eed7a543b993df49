"""What an skc search costs as N grows: measured unit costs, and the search they add up to.

On the best kernel of a long-series search's checkpoint (as fitted there, in the search's own
units), at each N of ``--sizes`` (the checkpoint's evenly spaced inputs continued at the same
spacing, its outputs repeated; m = the default for N, ``default_inducing``), in CPU seconds
with one BLAS thread:

* one lower bound with its gradient: what each optimiser iteration on all the data costs,
  O(N m²) for the algebra and O(N m p) for the kernel and its reverse mode;
* one product (K + D)·V with K = k(X, X) made in row blocks: what each PCG iteration of the
  upper bound costs, O(N²). Above ``--product-elements`` elements of K only its first row
  blocks are made and timed, and the time is scaled by N / rows (every block costs the same);
* the largest resident set of this process so far (``ru_maxrss``), since sizes run in
  increasing order.

Then the full-data work of the measured search, level by level from ``--levels`` (the rows of
``long_series_levels.csv`` for ``--series``, its latest run): E objective evaluations on all
the data and P PCG products, costed at each N as E·t_bound(N) + P·t_product(N). Screening on
the subset does not grow with N and is left out, so this is a lower bound on the search's CPU
time; half of it is a lower bound on its wall time on two workers.

Run from the project folder::

    .venv/bin/python -m benchmarks.long_series.bench_skc_scale --data DATA.csv \\
        --checkpoint CKPT.json [--sizes 10000,30000,100000] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import csv
import resource
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from abcd_cli.engines.nystrom import SQUARE_BLOCK_ELEMENTS, row_blocks
from abcd_cli.engines.sparse import SparseEngine
from abcd_cli.engines.sparse_upper import kernel_matvec
from abcd_cli.kernel_search.engine_choice import default_inducing
from abcd_cli.kernels import Kernel
from benchmarks.common import comma_integers, load_average, publish, python_command
from benchmarks.long_series import OUTPUTS
from benchmarks.long_series.checkpointed import best_of_checkpoint, checkpoint_parser

LEVELS_CSV = OUTPUTS / "long_series_levels.csv"
#: At most this many elements of K(X, X) are made to time one product.
PRODUCT_ELEMENTS = 5 * 10**8


@dataclass
class UnitCosts:
    n: int
    m: int
    bound: float  # CPU s of one lower bound with its gradient
    product: float  # CPU s of one (K + D)·V, scaled from ``rows`` rows
    rows: int
    peak_mib: float


def _cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def measure(
    kernel: Kernel, x: np.ndarray, y: np.ndarray, n: int, seed: int, elements: int
) -> UnitCosts:
    """The unit costs at ``n`` points: ``x`` continued at its spacing, ``y`` repeated."""
    step = float(x[1] - x[0])
    X = (x[0] + step * np.arange(n))[:, None]
    Y = np.resize(y, n)
    m = default_inducing(n)
    engine = SparseEngine(m=m, seed=seed)
    theta = kernel.theta()
    bound = _cpu(lambda: engine.objective(theta, kernel, X, Y))
    d = np.full(n, 1e-2)
    V = np.column_stack([Y, np.ones(n)])  # the two columns of the level solve
    if n * n <= elements:
        rows, product = n, _cpu(lambda: kernel_matvec(kernel, X, d)(V))
    else:  # the first rows only, in kernel_matvec's row blocks
        rows = max(1, elements // n)
        blocks = row_blocks(rows, n, SQUARE_BLOCK_ELEMENTS)
        product = _cpu(lambda: [kernel.gram(X[b], X) @ V for b in blocks]) * n / rows
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return UnitCosts(n, m, bound, product, rows, peak)


def latest_levels(path: Path, series: str) -> list[dict[str, str]]:
    """The rows of ``series``' latest run in the levels CSV (a run starts at level 0)."""
    with path.open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["series"] == series and not r["args"]]
    starts = [i for i, r in enumerate(rows) if r["level"] == "0"]
    return rows[starts[-1] :] if starts else []


def projection_rows(levels: list[dict[str, str]], costs: list[UnitCosts]) -> list[str]:
    evaluations = sum(int(r["full_evaluations"]) for r in levels)
    products = sum(int(r["pcg"] or 0) for r in levels)
    measured_min = sum(float(r["seconds"]) for r in levels) / 60.0
    lines = [
        f"The measured search: {len(levels)} levels, {evaluations} objective evaluations and"
        f" {products} PCG products on all the data, {measured_min:.1f} min of search on two"
        " workers.",
        "",
        "| N | m | bounds (CPU min) | products (CPU min) | full-data work (CPU min)"
        " | on two workers, at least (min) |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for c in costs:
        bounds, prods = evaluations * c.bound / 60.0, products * c.product / 60.0
        lines.append(
            f"| {c.n:,} | {c.m} | {bounds:.1f} | {prods:.1f} | {bounds + prods:.1f}"
            f" | {(bounds + prods) / 2:.1f} |"
        )
    return lines


def markdown(args: argparse.Namespace, argv: list[str]) -> str:
    search, state = best_of_checkpoint(args.data, args.checkpoint)
    settings = search.settings
    if state is None:
        raise SystemExit(f"{args.checkpoint}: no checkpoint of {args.data} with a best model")
    kernel = state.best.kernel
    x, y = search.data.X[:, 0], search.data.Y
    costs = []
    with threadpool_limits(limits=1, user_api="blas"):
        for n in args.sizes:
            costs.append(measure(kernel, x, y, n, settings.seed, args.product_elements))
            print(f"  N = {n}: done", file=sys.stderr, flush=True)
    structure = search.data.text(kernel, params=False)
    lines = [
        "# What an skc search costs as N grows",
        "",
        f"Command: `{python_command('benchmarks.long_series.bench_skc_scale', argv)}`",
        f"Measured {datetime.now(timezone.utc).isoformat(timespec='seconds')} (load average"
        f" {load_average()}); CPU seconds, one BLAS thread. Kernel: the best model of"
        f" `{args.checkpoint.name}`, `{structure}` ({kernel.theta().size} parameters), as"
        f" fitted on {search.data.n:,} points; larger N continue its inputs at the same spacing.",
        "",
        "## Unit costs",
        "",
        "| N | m | bound + gradient (CPU s) | one PCG product (CPU s) | rows timed"
        " | largest resident set so far (MiB) |",
        "|---:|---:|---:|---:|---:|---:|",
        *(
            f"| {c.n:,} | {c.m} | {c.bound:.2f} | {c.product:.2f} | {c.rows:,} | {c.peak_mib:.0f} |"
            for c in costs
        ),
        "",
        "## The measured search's full-data work at each N",
        "",
        *projection_rows(latest_levels(args.levels, args.series), costs),
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = checkpoint_parser(__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        type=lambda s: sorted(comma_integers(s)),
        default=[10_000, 30_000, 100_000],
    )
    parser.add_argument("--levels", type=Path, default=LEVELS_CSV)
    parser.add_argument("--series", default="hourly-10k")
    parser.add_argument("--product-elements", type=int, default=PRODUCT_ELEMENTS)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    publish(markdown(args, sys.argv[1:] if argv is None else argv), args.out)


if __name__ == "__main__":
    main()
