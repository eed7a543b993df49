"""Whether new observations still fit a model: their one-step predictive errors under it.

The new points, in order (a series' in x order), are predicted one at a time from the model's
data and the new points before them: under a Gaussian model with the joint predictive
N(μ, Σ) of the new points given the old data, Σ = L Lᵀ, the standardised one-step errors are
z = L⁻¹ (y − μ), and point j's one-step predictive is N(μ_j + Σ_{i<j} L_ji z_i, L_jj²). Under a
mixture of models k with weights w_k (the posterior's particles) the one-step predictive of
point j is the mixture with the weights updated by the points before it,
w_k(j) ∝ w_k Π_{i<j} p_k(y_i | earlier), and its probability integral transform is
u_j = Σ_k w_k(j) Φ(z_jk). If the model is right, the u_j are independent and uniform on
(0, 1) (Dawid's prequential principle), so the number of new points outside the central
``BAND`` of their one-step predictive is Binomial(N, 1 − BAND).

The rule: the new data no longer fit the model when more than ``MISFIT_SHARE`` of the checked
points lie outside the 95% band (twice the 5% expected) and a calibrated model would leave that
many out with probability below ``MISFIT_P`` (the binomial tail). Only the first
``MAX_CHECKED`` new points are checked: the check costs N² per model (N³ for its factor).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.linalg import LinAlgError, cholesky, solve_triangular
from scipy.special import logsumexp
from scipy.stats import binom, norm

from abcd_cli.arrays import as_2d
from abcd_cli.model import Model

#: The central predictive band the new points are checked against.
BAND = 0.95
#: The share of new points outside the band beyond which they may not fit (twice 1 − BAND).
MISFIT_SHARE = 0.10
#: ... when a calibrated model would leave as many outside with a probability below this.
MISFIT_P = 0.01
#: The most new points checked (the first ones, in order).
MAX_CHECKED = 500
#: Jitter added to the diagonal, relative to its mean, when Σ will not factorise as it is.
_JITTERS = (0.0, 1e-10, 1e-8, 1e-6)


@dataclass(frozen=True)
class Misfit:
    """How the new points fared under the old model: ``checked`` of them, ``outside`` its
    one-step ``BAND`` predictive band, and their mean log predictive density (user units)."""

    checked: int
    outside: int
    mean_log_density: float

    @property
    def share(self) -> float:
        """The share of the checked points outside the band."""
        return self.outside / self.checked

    @property
    def p_value(self) -> float:
        """P(Binomial(checked, 1 − BAND) ≥ outside): how often a calibrated model leaves as
        many points outside."""
        return float(binom.sf(self.outside - 1, self.checked, 1.0 - BAND))

    @property
    def poor(self) -> bool:
        """The module's rule: share > MISFIT_SHARE and p_value < MISFIT_P."""
        return self.share > MISFIT_SHARE and self.p_value < MISFIT_P

    def sentence(self) -> str:
        """The result in words."""
        return (
            f"{self.outside} of {self.checked} new points ({self.share:.0%}) lie outside the"
            f" old model's {BAND:.0%} one-step predictive band, where"
            f" {1.0 - BAND:.0%} are expected (binomial tail probability {self.p_value:.2g})"
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "checked": self.checked,
            "outside_band": self.outside,
            "p_value": self.p_value,
            "mean_log_density": self.mean_log_density,
            "misfit": self.poor,
        }


def misfit_warning(misfit: Misfit | None) -> str | None:
    """What an update warns of: new points that could not be checked (``misfit`` None), or
    that no longer fit the model; None when they fit."""
    if misfit is None:
        return (
            "the new points could not be checked against the old model (its predictive"
            " covariance at them did not factorise)"
        )
    if misfit.poor:
        return (
            f"the new data no longer fit the model: {misfit.sentence()}; it was updated all"
            " the same, but a new search may find a better structure"
        )
    return None


def check_new_points(
    models: Sequence[Model], weights: np.ndarray, X: np.ndarray, y: np.ndarray
) -> Misfit:
    """The check of the module docstring for new points (X (N, D), y (N,), in order) under
    the mixture of ``models`` (each conditioned on its data) with ``weights`` (summing to one).
    ArithmeticError (or LinAlgError) when a predictive covariance cannot be factorised."""
    X, y = as_2d(X)[:MAX_CHECKED], np.asarray(y, dtype=float)[:MAX_CHECKED]
    u, log_density = one_step_pit(models, weights, X, y)
    tail = (1.0 - BAND) / 2.0
    outside = int(np.sum((u < tail) | (u > 1.0 - tail)))
    return Misfit(int(y.size), outside, float(np.mean(log_density)))


def one_step_pit(
    models: Sequence[Model], weights: np.ndarray, X: np.ndarray, y: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each new point's probability integral transform u_j under the mixture's one-step
    predictive, and its log density there (user units); see the module docstring."""
    errors, logs = zip(*(one_step_errors(m, X, y) for m in models), strict=True)
    Z, LP = np.array(errors), np.array(logs)  # (K, N): z_jk and log p_k(y_j | earlier)
    with np.errstate(divide="ignore"):
        before = np.log(np.asarray(weights, dtype=float))[:, None] + np.cumsum(LP, axis=1) - LP
    before -= logsumexp(before, axis=0)
    u = np.sum(np.exp(before) * norm.cdf(Z), axis=0)
    return u, logsumexp(before + LP, axis=0)


def one_step_errors(model: Model, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """z = L⁻¹ (y − μ) for the new points under ``model`` given its data, and the log density
    of each point's one-step predictive N(·, L_jj²) in user units.

    Σ is the covariance of y at the new points, noise included: the engine's posterior
    covariance of the whole kernel, which with a constant mean of unknown value holds the
    level's share c cᵀ of the function alone; y = level + f holds (s − c)(s − c)ᵀ instead (s
    the level's sd; R&W eq. 2.42), and c follows from the two diagonals, diag Σ_f = v_f + c²
    and var y = v_f + (s − c)²."""
    post, scaling = model.posterior, model.scaling
    Xs = as_2d(scaling.x_in(X))
    mean, var = post.predict(Xs)
    cov = post.covariance(model.kernel, None, Xs)
    s = post.level_sd
    if s > 0:
        c = (np.diag(cov) + s * s - var) / (2.0 * s)
        cov = cov - np.outer(c, c) + np.outer(s - c, s - c)
    L = _factor(cov)
    z = solve_triangular(L, scaling.y_in(y) - mean, lower=True, check_finite=False)
    log_sd = np.log(np.diag(L)) + math.log(scaling.y_scale)
    return z, norm.logpdf(z) - log_sd


def _factor(cov: np.ndarray) -> np.ndarray:
    """The lower Cholesky factor of ``cov``, with the least jitter of ``_JITTERS`` that lets
    it factorise; LinAlgError when none does."""
    scale = float(np.mean(np.diag(cov))) if cov.size else 1.0
    for jitter in _JITTERS:
        try:
            L = cholesky(cov + jitter * scale * np.eye(len(cov)), lower=True, check_finite=False)
        except (LinAlgError, ValueError):
            continue
        if np.all(np.isfinite(L)) and np.all(np.diag(L) > 0):
            return L
    raise LinAlgError("the new points' predictive covariance cannot be factorised")
