"""One product with K + D, as the upper bound's conjugate gradients make it: in row blocks
(O(N²)) against by FFT on a regular grid (O(T·N log N), ``abcd_cli/engines/grid.py``).

The kernel has the structure the 10⁴-point hourly search chose, with illustrative values (eight
products in its sum-of-products form, four of them with a WN factor), on hourly points with x
in years; two right-hand sides
(y and 1, as with a constant mean). Times are the best of ``--repeats`` on one BLAS thread; the
largest difference between the two products is printed relative to the largest entry. Row
blocks are timed up to ``--rows-up-to`` points. Run from the project folder::

    OPENBLAS_NUM_THREADS=1 .venv/bin/python -m benchmarks.engines.bench_grid_products \
        --out benchmarks/engines/outputs/grid_products.md
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import abcd_cli.engines.sparse_upper as sparse_upper
from abcd_cli.engines.sparse_upper import kernel_matvec
from abcd_cli.files import write_output
from abcd_cli.kernels.text import parse_kernel
from benchmarks.common import best_time, load_average, python_command

#: The hourly-10k search's structure with illustrative values (x in years).
KERNEL = (
    "((C(sd=0.4) + SE(lengthscale=0.3, sd=0.8)) * Lin(sd=0.5, location=0.1) + WN(sd=0.2))"
    " * (Lin(sd=0.3, location=-0.4) * WN(sd=0.4) + SE(lengthscale=0.05, sd=1.0))"
    " * Per(lengthscale=1.2, period=0.00274, sd=0.9) + Lin(sd=0.2, location=0.0)"
    " + Per(lengthscale=0.8, period=0.0192, sd=0.5)"
)
HOUR = 1.0 / (24 * 365.2425)


def measure(n: int, rows: bool, repeats: int) -> dict[str, float | None]:
    kernel = parse_kernel(KERNEL)
    X = (np.arange(n) * HOUR)[:, None]
    d = np.full(n, 0.1)
    V = np.column_stack([np.random.default_rng(n).standard_normal(n), np.ones(n)])
    by_fft = kernel_matvec(kernel, X, d)
    fft_s = best_time(lambda: by_fft(V), repeats)
    row_s = diff = None
    if rows:
        saved = sparse_upper.GRID_FROM
        sparse_upper.GRID_FROM = 10**12
        try:
            by_rows = kernel_matvec(kernel, X, d)
        finally:
            sparse_upper.GRID_FROM = saved
        row_s = best_time(lambda: by_rows(V), 1)
        a, b = by_rows(V), by_fft(V)
        diff = float(np.max(np.abs(a - b)) / np.max(np.abs(a)))
    return {"n": n, "rows": row_s, "fft": fft_s, "diff": diff}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[2_000, 5_000, 10_000, 20_000, 100_000])
    p.add_argument("--rows-up-to", type=int, default=20_000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args()
    command = python_command("benchmarks.engines.bench_grid_products", ["--out", str(args.out)])
    lines = [
        "# One product with K + D: row blocks against FFT on a grid",
        "",
        f"Made by `OPENBLAS_NUM_THREADS=1 {command}` (load average when run:"
        f" {load_average()}). Kernel: the hourly-10k search's structure, illustrative values"
        " (`benchmarks/engines/bench_grid_products.py`), two right-hand sides.",
        "",
        "| N | row blocks (s) | FFT (s) | speed-up | largest difference / largest entry |",
        "|---:|---:|---:|---:|---:|",
    ]
    for n in args.sizes:
        r = measure(n, n <= args.rows_up_to, args.repeats)
        rows = "—" if r["rows"] is None else f"{r['rows']:.3f}"
        speed = "—" if r["rows"] is None else f"{r['rows'] / r['fft']:,.0f}×"
        diff = "—" if r["diff"] is None else f"{r['diff']:.1e}"
        lines.append(f"| {n:,} | {rows} | {r['fft']:.4f} | {speed} | {diff} |")
        print(lines[-1], flush=True)
    if args.out:
        write_output(args.out, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
