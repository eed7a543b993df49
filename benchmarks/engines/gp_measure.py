"""The engine benchmark's measurements on one data set: one likelihood-plus-gradient
evaluation against its cost floor, our full and screened fits, and scikit-learn's fit."""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import cho_solve, cholesky

from abcd_cli.data.scaling import Scaling
from abcd_cli.data.summary import DataSummary
from abcd_cli.engines.exact import nll_and_grad
from abcd_cli.kernel_search.fit import FitResult, fit
from abcd_cli.kernel_search.init import initial_values
from abcd_cli.kernels import Kernel
from benchmarks.engines.gp_common import load, log, median_time, scaled_data
from benchmarks.engines.gp_sklearn import sklearn_run


@dataclass
class Row:
    """Measurements for one data set."""

    name: str
    n: int
    eval_s: float
    floor_s: float
    sk_eval_s: float
    fit_s: float
    sk_fit_s: float
    nll: float
    sk_nll: float
    screened_s: float
    screened_nll: float
    fit_evals: int
    fit_failed: int
    sk_evals: int
    kernel: str
    sk_kernel: str
    sk_y_std: float
    notes: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        return self.eval_s / self.floor_s

    @property
    def speedup(self) -> float:
        return self.sk_fit_s / self.fit_s

    @property
    def screened_speedup(self) -> float:
        return self.sk_fit_s / self.screened_s


def floor_time(n: int, repeats: int, rng: np.random.Generator) -> float:
    """Median time of cholesky + cho_solve(identity) on a random SPD n x n matrix."""
    A = rng.standard_normal((n, n))
    S = A @ A.T / n + np.eye(n)
    eye = np.eye(n)

    def step() -> None:
        L = cholesky(S, lower=True, check_finite=False)
        cho_solve((L, True), eye, check_finite=False)

    return median_time(step, repeats)


def timed_fit(
    kernel: Kernel,
    X: np.ndarray,
    Y: np.ndarray,
    seed: int,
    restarts: int,
    polish: int | None = None,
) -> tuple[FitResult, float]:
    """One ``fit`` from ``default_rng(seed)``, and its wall time in seconds."""
    t0 = time.perf_counter()
    res = fit(kernel, X, Y, np.random.default_rng(seed), restarts=restarts, polish=polish)
    return res, time.perf_counter() - t0


def bench_dataset(
    name: str, kernel: Kernel, args: argparse.Namespace
) -> tuple[Row, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Every measurement of data set ``name``, and the parameter vector and scaled data of the
    timed evaluation (for the breakdown)."""
    data = scaled_data(*load(name))
    sc, X, Y = data
    n = len(Y)
    s = DataSummary.from_data(X[:, 0], Y)
    values = initial_values(kernel, s, np.random.default_rng(args.seed))
    theta = kernel.with_values(values).theta()
    notes: list[str] = []

    log(f"{name} (N={n}): nll_and_grad")
    nll0, _ = nll_and_grad(theta, kernel, X, Y)
    if not nll0 < 1e19:
        notes.append("the random parameter vector failed to factorise (timing is of a failure)")
    eval_s = median_time(lambda: nll_and_grad(theta, kernel, X, Y), args.repeats)

    log(f"{name}: floor")
    floor_s = floor_time(n, args.repeats, np.random.default_rng(args.seed))

    log(f"{name}: our fit (restarts={args.restarts})")
    res, fit_s = timed_fit(kernel, X, Y, args.seed, args.restarts)
    nll = sc.nll_out(res.nll, n)
    log(f"{name}: our fit {fit_s:.1f} s, NLL {nll:.2f}, {res.n_evaluations} evaluations")
    screened, screened_s = timed_fit(kernel, X, Y, args.seed, args.restarts, polish=1)
    screened_nll = sc.nll_out(screened.nll, n)
    log(f"{name}: screened fit {screened_s:.1f} s, NLL {screened_nll:.2f}")

    sk = sklearn_run(name, values, s, data, args.sklearn_restarts, args.seed, args.sk_eval_repeats)
    row = Row(
        name=name,
        n=n,
        eval_s=eval_s,
        floor_s=floor_s,
        sk_eval_s=sk.eval_s,
        fit_s=fit_s,
        sk_fit_s=sk.fit_s,
        nll=nll,
        sk_nll=sk.nll,
        screened_s=screened_s,
        screened_nll=screened_nll,
        fit_evals=res.n_evaluations,
        fit_failed=res.n_failed,
        sk_evals=sk.evals,
        kernel=fitted_kernel_text(res, sc),
        sk_kernel=sk.kernel,
        sk_y_std=sk.y_std,
        notes=notes,
    )
    return row, (theta, X, Y)


def fitted_kernel_text(res: FitResult, sc: Scaling) -> str:
    """The fitted kernel in the user's units, or ``(failed)``."""
    return sc.kernel_out(res.kernel).to_text(digits=4) if res.ok else "(failed)"
