"""Which part of an skc BIC interval is loose, against the exact −log p(y) by one dense Cholesky.

Reads a model JSON that ``abcd report --json`` wrote for an skc search (its data, scaling,
mean, kernel, m and inducing inputs) and, with ``--checkpoint``, the best model of a search
checkpoint (``OUT.pdf.ckpt.json``) on the same data at ``--checkpoint-inducing`` inducing inputs
(drawn as the search draws them, seed 0). For each kernel it prints, in internal units:

* skc's score [−UB, −LB] and the finalists' interval (``SparseEngine.likelihood_interval``);
* the exact −log p(y) = ½[n_free log 2π + log|K̂| + log 1ᵀK̂⁻¹1 + quadratic] (``engines/exact.py``);
* the interval's parts against the exact ones: the quadratic's interval (CG vector and its
  certificate), log|Q + D|, and the Lanczos interval on log|M| = log|K̂| − log|Q + D| with its
  steps and τ = tr(M − I) (``engines/sparse_interval.py``, ``engines/lanczos.py``);
* and for the model, its exact BIC = 2·NLL + p·log N in the user's units
  (``kernel_search/scoring.py``) against the BIC interval the search recorded.

The exact value forms the N×N matrix: at N ≈ 9,000 about 0.6 GiB and a minute or so.

    OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.studies.interval_ends \\
        results/long_series/runs/default/seattle-temps.model.json \\
        [--checkpoint results/long_series/runs/inducing-1000/seattle-temps.pdf.ckpt.json \\
         --checkpoint-inducing 1000]
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_factor, cho_solve

from abcd_cli.api import as_found_model
from abcd_cli.engines import get_engine
from abcd_cli.engines.base import LOG_2PI
from abcd_cli.engines.sparse import SparseEngine
from abcd_cli.engines.sparse_interval import FINAL_PRODUCTS, LikelihoodInterval, likelihood_interval
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.algebra import count_params
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import bic


@dataclass(frozen=True)
class DenseParts:
    """The exact −log p(y) and its parts from one Cholesky factor of K̂ (no jitter)."""

    nll: float
    logdet: float  # log|K̂|
    quadratic: float  # yᵀK̂⁻¹y, or min_β (y − β1)ᵀK̂⁻¹(y − β1) with a level
    log_a: float  # log 1ᵀK̂⁻¹1 with a level, else 0


def dense_parts(kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool) -> DenseParts:
    """−log p(y) = ½[n_free log 2π + log|K̂| + log a + quadratic] (``engines/exact.py``)."""
    factor = cho_factor(kernel.gram(X), lower=True, check_finite=False)
    logdet = 2.0 * float(np.sum(np.log(np.diag(factor[0]))))
    alpha = cho_solve(factor, y, check_finite=False)
    quadratic, log_a = float(y @ alpha), 0.0
    if constant_mean:
        v = cho_solve(factor, np.ones_like(y), check_finite=False)
        a = float(np.sum(v))
        quadratic -= float(np.sum(alpha)) ** 2 / a  # min over β of the GLS quadratic
        log_a = math.log(a)
    n_free = y.size - constant_mean
    return DenseParts(
        0.5 * (n_free * LOG_2PI + logdet + log_a + quadratic), logdet, quadratic, log_a
    )


def interval_parts(
    engine: SparseEngine, kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool
) -> LikelihoodInterval:
    """The finalists' interval with its parts, as ``SparseEngine.likelihood_interval`` runs it
    off the grid path."""
    Xi, Z = engine._inputs(X)
    products = max(engine.pcg_max_products, FINAL_PRODUCTS)
    return likelihood_interval(
        kernel, Xi, y, Z, constant_mean, engine.jitter, engine.pcg_tol, products
    )


def report(
    label: str, engine: SparseEngine, kernel: Kernel, X: np.ndarray, y: np.ndarray, mean: bool
) -> DenseParts:
    """Print one kernel's intervals and parts against the exact ones; the exact parts."""
    started = time.perf_counter()
    score = engine.score(kernel, X, y, mean)
    final = engine.likelihood_interval(kernel, X, y, mean)
    parts = interval_parts(engine, kernel, X, y, mean)
    middle = time.perf_counter()
    exact = dense_parts(kernel, X, y, mean)
    ended = time.perf_counter()
    residual = exact.logdet - parts.logdet_p
    q_low, q_high = parts.quadratic
    print(
        f"{label} (m = {engine.m}): exact −log p(y) {exact.nll:.3f}; skc's score"
        f" [{score.low:.3f}, {score.high:.3f}] ({score.width:.1f} wide); finalists' interval"
        f" [{final.low:.3f}, {final.high:.3f}] ({final.width:.2f} wide)\n"
        f"  log|Q + D| {parts.logdet_p:.3f}; log|M| exact {residual:.3f}, Lanczos"
        f" [{parts.logdet.low:.3f}, {parts.logdet.high:.3f}] ({parts.logdet.width:.2f} wide,"
        f" {parts.logdet.steps} vectors, τ = {parts.logdet.trace:.2f})\n"
        f"  quadratic exact {exact.quadratic:.4f}, CG [{q_low:.4f}, {q_high:.4f}]"
        f" ({q_high - q_low:.2e} wide); log 1ᵀK̂⁻¹1 exact {exact.log_a:.4f}\n"
        f"  ({middle - started:.0f} s for skc's intervals, {ended - middle:.0f} s exact)"
    )
    return exact


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="a model JSON written by abcd report --json (skc)")
    parser.add_argument("--checkpoint", help="a search checkpoint on the same data")
    parser.add_argument("--checkpoint-inducing", type=int, default=500, help="its m")
    args = parser.parse_args()
    model = as_found_model(args.model).model
    scaling, mean = model.scaling, model.constant_mean
    y = scaling.y_in(model.y)
    X = scaling.x_in(model.X).reshape(y.size, -1)
    engine = model._engine  # the model's own inducing inputs
    if not isinstance(engine, SparseEngine):
        raise SystemExit(f"{args.model}: not an skc model (engine {engine.name})")
    print(f"N = {y.size}; −log p(y) in nats, internal units")
    exact = report("the model", engine, model.kernel, X, y, mean)
    n_free, p = y.size - mean, count_params(model.kernel)
    exact_bic = bic(scaling.nll_out(exact.nll, n_free), p, y.size)
    low, high = model.bic_interval
    inside = low - 1e-6 * abs(exact_bic) <= exact_bic <= high + 1e-6 * abs(exact_bic)
    print(
        f"  its exact BIC {exact_bic:.2f} (p = {p}); recorded interval [{low:.2f}, {high:.2f}]"
        f" ({high - low:.1f} wide): {'inside' if inside else 'OUTSIDE'}"
        f" ({exact_bic - low:.2f} above the lower end, {high - exact_bic:.2f} below the upper)"
    )
    if args.checkpoint:
        with open(args.checkpoint) as file:
            best = parse_kernel(json.load(file)["best"]["kernel"])
        other = get_engine("skc", m=args.checkpoint_inducing, seed=0)
        report("the checkpoint's best", other, best, X, y, mean)


if __name__ == "__main__":
    main()
