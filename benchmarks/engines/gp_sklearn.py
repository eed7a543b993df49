"""The engine benchmark's peer: scikit-learn's ``GaussianProcessRegressor`` with the closest
kernel it can express to ``Lin*Per + SE + WN*Lin``, fitted and timed on the same scaled data."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import (
    RBF,
    ConstantKernel,
    DotProduct,
    ExpSineSquared,
    WhiteKernel,
)
from sklearn.gaussian_process.kernels import Kernel as SkKernel

from abcd_cli.data.scaling import Scaling
from abcd_cli.data.summary import DataSummary
from abcd_cli.kernel_search.init import value_bounds
from benchmarks.engines.gp_common import log, median_time

# Variance bounds for sklearn's ConstantKernel and WhiteKernel: the square of the engine's sd
# range (1e-4 to 1e3 times the spread of y, which is 1 in internal units).
VARIANCE_BOUNDS = (1e-8, 1e6)
DOT_SIGMA0_BOUNDS = (1e-3, 1e2)


def _clip(v: float, bounds: tuple[float, float]) -> float:
    return float(min(max(v, bounds[0]), bounds[1]))


def sklearn_kernel(values: np.ndarray, s: DataSummary) -> SkKernel:
    """The closest sklearn kernel to Lin*Per + SE + WN*Lin, started at the engine's values.

    ``values`` are natural-unit values in the engine's theta order: Lin(sd, location),
    Per(lengthscale, period, sd), SE(lengthscale, sd), WN(sd), Lin(sd, location).
    DotProduct is σ0² + x·x' (no location, no own scale), so the scales go into ConstantKernel
    and WhiteKernel; σ0 starts at |location|. ExpSineSquared is exp(-2 sin²(π d/p) / l²), the
    same shape as Per before its constant part is removed, so l = Per's lengthscale.
    """
    lin_sd, lin_loc, per_ell, per_period, per_sd, se_ell, se_sd, wn_sd, lin2_sd, lin2_loc = values
    per_ell_b = value_bounds("Per", "lengthscale", s)
    period_b = value_bounds("Per", "period", s)
    se_ell_b = value_bounds("SE", "lengthscale", s)
    periodic = (
        ConstantKernel(_clip((lin_sd * per_sd) ** 2, VARIANCE_BOUNDS), VARIANCE_BOUNDS)
        * DotProduct(_clip(abs(lin_loc), DOT_SIGMA0_BOUNDS), DOT_SIGMA0_BOUNDS)
        * ExpSineSquared(
            _clip(per_ell, per_ell_b), _clip(per_period, period_b), per_ell_b, period_b
        )
    )
    smooth = ConstantKernel(_clip(se_sd**2, VARIANCE_BOUNDS), VARIANCE_BOUNDS) * RBF(
        _clip(se_ell, se_ell_b), se_ell_b
    )
    noise = WhiteKernel(_clip((wn_sd * lin2_sd) ** 2, VARIANCE_BOUNDS), VARIANCE_BOUNDS) * (
        DotProduct(_clip(abs(lin2_loc), DOT_SIGMA0_BOUNDS), DOT_SIGMA0_BOUNDS)
    )
    return periodic + smooth + noise


class CountingGPR(GaussianProcessRegressor):
    """A GaussianProcessRegressor that counts its log-marginal-likelihood evaluations.

    The count lives outside the estimator's parameters (``lml_calls``, a one-element list
    created on first use) so ``get_params`` and cloning are unaffected.
    """

    def log_marginal_likelihood(self, *args: object, **kw: object) -> object:
        calls = self.__dict__.setdefault("lml_calls", [0])
        calls[0] += 1
        return super().log_marginal_likelihood(*args, **kw)


@dataclass
class SklearnRun:
    """scikit-learn's measurements on one data set."""

    fit_s: float  # one fit, seconds
    nll: float  # its NLL in the user's units
    evals: int  # log-marginal-likelihood evaluations of the fit
    eval_s: float  # one evaluation with gradient at the start, seconds (median)
    kernel: str  # the fitted kernel, internal units
    y_std: float  # the standard deviation its normalize_y divided by


def sklearn_run(
    name: str,
    values: np.ndarray,
    summary: DataSummary,
    data: tuple[Scaling, np.ndarray, np.ndarray],
    restarts: int,
    seed: int,
    eval_repeats: int,
) -> SklearnRun:
    """Fit scikit-learn's GP once from ``values`` (the engine's start; ``summary`` of the
    scaled data gives the bounds) with ``restarts`` restarts and time one
    likelihood-plus-gradient evaluation at its start (median of ``eval_repeats``)."""
    sc, X, Y = data
    n = len(Y)
    log(f"{name}: sklearn fit (n_restarts_optimizer={restarts})")
    sk_kernel = sklearn_kernel(values, summary)
    gpr = CountingGPR(
        kernel=sk_kernel, n_restarts_optimizer=restarts, normalize_y=True, random_state=seed
    )
    t0 = time.perf_counter()
    gpr.fit(X, Y)
    fit_s = time.perf_counter() - t0
    evals = gpr.__dict__.get("lml_calls", [0])[0]
    # sklearn's likelihood is of y_n = (Y - mean) / std (normalize_y): -log p(Y) adds
    # n·log(std); then sc.nll_out adds n·log(y_scale) for Y -> y, as for our NLL.
    y_std = float(np.std(Y))  # what normalize_y divided by: the targets' sd, ddof 0
    nll = sc.nll_out(-float(gpr.log_marginal_likelihood_value_) + n * math.log(y_std), n)
    log(f"{name}: sklearn fit {fit_s:.1f} s, NLL {nll:.2f}, {evals} evaluations")

    log(f"{name}: sklearn log_marginal_likelihood")
    sk_theta = sk_kernel.theta
    eval_s = median_time(
        lambda: gpr.log_marginal_likelihood(sk_theta, eval_gradient=True), eval_repeats
    )
    return SklearnRun(fit_s, nll, evals, eval_s, str(gpr.kernel_), y_std)
