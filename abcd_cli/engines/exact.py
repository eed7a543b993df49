"""The exact engine: marginal likelihood through one Cholesky factor of the full N×N matrix.

Zero-mean GP, y ~ N(0, K) with K = k(X, X) (observation noise is the WN part of k).
Rasmussen & Williams (2006) alg. 2.1 and eq. 5.9:
    L = chol(K),  α = K⁻¹y,
    NLL = ½ yᵀα + Σ log L_ii + (n/2) log 2π,
    ∂NLL/∂θ_j = ½ tr((K⁻¹ - ααᵀ) ∂K/∂θ_j).
With ``constant_mean``, y ~ N(β·1, K) with a flat prior on β, integrated out (R&W §2.7 with
B⁻¹ → 0, one basis function h(x) = 1):
    v = K⁻¹1,  a = 1ᵀv,  β̂ = vᵀy / a  (the generalised least-squares level),  α = K⁻¹(y - β̂1),
    NLL = ½ yᵀα + Σ log L_ii + ½ log a + ((n - 1)/2) log 2π,
    ∂NLL/∂θ_j = ½ tr((K⁻¹ - ααᵀ - vvᵀ/a) ∂K/∂θ_j).
The likelihood then no longer depends on where y's level lies.
When every factorisation attempt fails the functions return ``FAILED_NLL`` instead of raising.

Cost: one likelihood-and-gradient evaluation holds about ``N_MATRICES`` N×N float64 matrices
(K, its inverse and one derivative per parameter, for a kernel of ~12 parameters: about
8·N²·18 bytes, measured) and costs about N³ floating-point operations. A series whose estimate
exceeds ``MAX_EXACT_BYTES`` (4 GiB per worker process, N ≈ 5,460) is refused, with a pointer to
the sparse engine.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.linalg import LinAlgError

from abcd_cli.engines.base import FAILED_NLL, LOG_2PI, Cost, Engine, NLLBounds
from abcd_cli.engines.cholesky import (
    Level,
    cholesky_factor,
    forward,
    inverse_from_cholesky,
    residual_and_level,
    weights,
)
from abcd_cli.engines.exact_posterior import ExactPosterior
from abcd_cli.engines.memory import keep_temporaries_on_heap
from abcd_cli.errors import InputError
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.algebra import count_params

# Every process that evaluates a likelihood imports this module: about twice as fast at N = 250.
keep_temporaries_on_heap()

__all__ = ["FAILED_NLL", "ExactEngine", "negative_log_likelihood", "nll_and_grad"]

#: Largest memory one exact fit on all the data may need (per worker process).
MAX_EXACT_BYTES = 4 * 2**30
#: N×N float64 matrices alive during one likelihood-and-gradient evaluation of a ~12-parameter
#: kernel (measured: 18 for 11 parameters).
N_MATRICES = 18
#: Rough speed of one evaluation on one core, in N³ per second (measured 4.5e9 at N = 1000 and
#: 8.7e9 at N = 2000 on a busy 2-core machine).
N3_PER_SECOND = 5e9


def _nll(quadratic: float, L: np.ndarray, level: Level | None) -> float:
    """½ rᵀK⁻¹r + Σ log L_ii (+ ½ log a) + (n_free/2) log 2π; n_free = n (- 1 with a level)."""
    n_free = L.shape[0] - (level is not None)
    extra = 0.0 if level is None else 0.5 * math.log(level.a)
    return 0.5 * quadratic + float(np.sum(np.log(np.diag(L)))) + extra + 0.5 * n_free * LOG_2PI


def nll_and_grad(
    theta: np.ndarray, kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool = False
) -> tuple[float, np.ndarray]:
    """Negative log marginal likelihood at ``theta`` and its gradient with respect to theta."""
    k = kernel.with_theta(theta)
    try:
        with np.errstate(all="ignore"):
            K, contract = k.vjp(X)
            L = cholesky_factor(K)
            if L is None:
                return FAILED_NLL, np.zeros(len(theta))
            r, alpha, level = weights(L, y, constant_mean)
            nll = _nll(float(r @ alpha), L, level)
            W = inverse_from_cholesky(L)
            W -= np.outer(alpha, alpha)
            if level is not None:
                W -= np.outer(level.v, level.v / level.a)
            grad = 0.5 * contract(W)
    except (LinAlgError, ValueError, ArithmeticError):  # ArithmeticError: 1/ℓ² at ℓ = 0 too
        return FAILED_NLL, np.zeros(len(theta))
    if not (math.isfinite(nll) and np.all(np.isfinite(grad))):
        return FAILED_NLL, np.zeros(len(theta))
    return nll, grad


def negative_log_likelihood(
    kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool = False
) -> float:
    """−log p(y | X, kernel) (with ``constant_mean``, the level integrated out); ``FAILED_NLL``
    when K cannot be factorised."""
    try:
        with np.errstate(all="ignore"):
            K = kernel.gram(X)
            L = cholesky_factor(K)
            if L is None:
                return FAILED_NLL
            r, level = residual_and_level(L, y, constant_mean)
            z = forward(L, r)  # rᵀK⁻¹r = zᵀz
            nll = _nll(float(z @ z), L, level)
    except (LinAlgError, ValueError, ArithmeticError):
        return FAILED_NLL
    return nll if math.isfinite(nll) else FAILED_NLL


@dataclass(frozen=True)
class ExactEngine(Engine):
    """The exact GP: objective = −log p(y), a zero-width score, the Cholesky posterior."""

    name: ClassVar[str] = "exact"

    # Plain functions as methods: the optimiser calls them without an extra Python frame.
    objective = staticmethod(nll_and_grad)
    objective_value = staticmethod(negative_log_likelihood)

    def score(
        self,
        kernel: Kernel,
        X: np.ndarray,
        y: np.ndarray,
        constant_mean: bool = False,
        objective: float | None = None,
    ) -> NLLBounds:
        """−log p(y) as an interval of zero width (the objective is −log p(y) itself)."""
        if objective is None:
            objective = negative_log_likelihood(kernel, X, y, constant_mean)
        return NLLBounds.exact(objective)

    def posterior(
        self, kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool = False
    ) -> ExactPosterior:
        return ExactPosterior(kernel, X, y, constant_mean)

    def cost(self, n: int, kernel: Kernel | None = None) -> Cost:
        """8·N²·(matrices) bytes and N³ / speed seconds. The matrices: ``N_MATRICES`` for a
        typical kernel; for a given kernel K, W and one derivative per parameter, plus the
        measured seven temporaries (18 at eleven parameters)."""
        matrices = N_MATRICES if kernel is None else 7 + count_params(kernel)
        return Cost(8.0 * n * n * matrices, float(n) ** 3 / N3_PER_SECOND)

    def check_size(self, n: int, evaluations_per_level: float) -> None:
        """Refuse a series whose typical evaluation needs more than ``MAX_EXACT_BYTES``."""
        cost = self.cost(n)
        if cost.bytes <= MAX_EXACT_BYTES:
            return
        largest = int(np.sqrt(MAX_EXACT_BYTES / (8.0 * N_MATRICES)))
        hours = cost.seconds * evaluations_per_level / 3600.0
        raise InputError(
            f"{n} points are too many for the exact Gaussian-process fit: it would need about"
            f" {cost.bytes / 2**30:.1f} GiB of memory per worker"
            f" (limit {MAX_EXACT_BYTES / 2**30:g} GiB)"
            f" and roughly {hours:.1f} hours per search level; use --engine skc (bounds through"
            f" inducing inputs, made for long series; --engine auto chooses it), or thin or"
            f" aggregate the series to at most {largest} points"
        )
