"""Benchmarks of the engines' primitives: the exact engine's likelihood and fit against
scikit-learn (``bench_gp`` with its ``gp_*`` parts), the sparse engine's bounds (``bench_sparse``),
one product with K + D by row blocks and by FFT (``bench_grid_products``) and the crossover that
``--engine auto`` uses (``bench_engine_choice``). Results in ``outputs/``."""

from pathlib import Path

#: where this group's results (and the notes written by hand about them) are kept
OUTPUTS = Path(__file__).resolve().parent / "outputs"
