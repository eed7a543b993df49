"""The Laplace approximation of a structure's evidence, with its parameters integrated out.

BIC stands in for log p(y | structure) with the parameters optimised (thesis ch. 2 and the
grammar chapter, "Estimating marginal likelihoods"); the Laplace approximation integrates them
out around the optimum θ̂ instead:

    log p(y) ≈ log p(y | θ̂) + log p(θ̂) + (d/2) log 2π − ½ log |H|,

H the Hessian of −log p(y | θ) − log p(θ) at θ̂ (d parameters). The same Gaussian, N(θ̂, H⁻¹),
is the approximate posterior of the parameters, from which ``parameter_draws`` samples. Where
that Gaussian is poor (a direction the data barely constrain, held only by the floor below),
``importance`` corrects it: draws θ_s from it weighted by p(y | θ_s) p(θ_s) / q(θ_s) are draws
of the true posterior, and the mean of those ratios is an unbiased estimate of p(y).

The prior of each coordinate of theta (the optimiser's: log of positive parameters, raw
locations, in the fitter's units) is normal, centred on the middle of its bounds with a
quarter of their width as standard deviation: the bounds, read off the data's scales
(``init.theta_bounds``), are its ±2σ. H is the finite-difference Jacobian of the engine's
analytic gradient (central steps), made symmetric; where the likelihood is flat or curves the
wrong way (θ̂ on a bound, a parameter that does nothing), the prior's curvature is the floor of
every eigenvalue, so H stays positive definite.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from abcd_cli.data.summary import Summary
from abcd_cli.engines.base import FAILED_NLL, Engine
from abcd_cli.kernel_search.init import theta_bounds
from abcd_cli.kernels import Kernel

#: The bounds are this many prior standard deviations either side of the prior's centre.
BOUND_SDS = 2.0
#: Central-difference step of the Hessian, in theta's units.
HESSIAN_STEP = 1e-4

Gradient = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class ParameterPrior:
    """Independent normals on the coordinates of theta: ``centre`` and ``sd`` per coordinate."""

    centre: np.ndarray
    sd: np.ndarray

    @classmethod
    def from_bounds(cls, bounds: list[tuple[float, float]]) -> ParameterPrior:
        """Centred between each pair of bounds, which lie ``BOUND_SDS`` sds either side."""
        lo, hi = np.array(bounds, dtype=float).reshape(-1, 2).T
        return cls((lo + hi) / 2.0, np.maximum(hi - lo, 1e-12) / (2.0 * BOUND_SDS))

    @classmethod
    def of(cls, kernel: Kernel, summary: Summary) -> ParameterPrior:
        """The prior of ``kernel``'s theta, from its bounds on data of ``summary``."""
        return cls.from_bounds(theta_bounds(kernel, summary))

    def draw(self, rng: np.random.Generator) -> np.ndarray:
        """One theta drawn from the prior."""
        return self.centre + self.sd * rng.standard_normal(self.centre.size)

    def log_density(self, theta: np.ndarray) -> float:
        """log p(θ) = Σ_i log N(θ_i; centre_i, sd_i²)."""
        z = (np.asarray(theta, dtype=float) - self.centre) / self.sd
        return float(-0.5 * z @ z - np.sum(np.log(self.sd)) - 0.5 * z.size * math.log(2 * math.pi))

    def gradient(self, theta: np.ndarray) -> np.ndarray:
        """∂ log p(θ) / ∂θ = −(θ − centre) / sd²."""
        return -(np.asarray(theta, dtype=float) - self.centre) / self.sd**2

    @property
    def precision(self) -> np.ndarray:
        """The prior's curvature, 1 / sd², per coordinate."""
        return 1.0 / self.sd**2


@dataclass(frozen=True)
class Laplace:
    """A structure's Laplace approximation at ``theta`` (its optimum): ``log_evidence``
    ≈ log p(y), and the parameters' posterior N(theta, ``covariance``)."""

    kernel: Kernel  # at theta
    theta: np.ndarray
    prior: ParameterPrior
    log_likelihood: float  # log p(y | θ̂)
    log_prior: float  # log p(θ̂)
    log_evidence: float
    covariance: np.ndarray
    floored: int  # eigenvalues of H raised to the prior's curvature

    @property
    def n_params(self) -> int:
        return int(self.theta.size)

    def log_proposal(self, theta: np.ndarray) -> float:
        """log N(θ; θ̂, covariance): the density ``parameter_draws`` samples from."""
        d = self.n_params
        if d == 0:
            return 0.0
        diff = np.asarray(theta, dtype=float) - self.theta
        _, log_det = np.linalg.slogdet(self.covariance)
        quad = float(diff @ np.linalg.solve(self.covariance, diff))
        return -0.5 * (quad + log_det + d * math.log(2 * math.pi))


def log_likelihood(
    engine: Engine, kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool = False
) -> float:
    """log p(y | kernel) from the engine's objective; −inf where the engine failed (its
    objective is then ``FAILED_NLL`` or not finite)."""
    nll = engine.objective_value(kernel, X, y, constant_mean)
    return -nll if math.isfinite(nll) and nll < FAILED_NLL else -math.inf


def normalised(log_w: np.ndarray) -> np.ndarray:
    """Weights ∝ exp(log_w), summing to one (a −inf is a weight of 0); equal when no log
    weight is finite."""
    finite = np.isfinite(log_w)
    if not np.any(finite):
        return np.full(log_w.size, 1.0 / log_w.size)
    w = np.where(finite, np.exp(log_w - np.max(log_w[finite])), 0.0)
    return w / w.sum()


def effective_size(weights: np.ndarray) -> float:
    """(Σw)² / Σw² of normalised weights: 1 / Σw²."""
    return float(1.0 / np.sum(weights**2))


def hessian(gradient: Gradient, theta: np.ndarray, step: float = HESSIAN_STEP) -> np.ndarray:
    """The Jacobian of ``gradient`` at ``theta`` by central differences, made symmetric."""
    theta = np.asarray(theta, dtype=float)
    columns = []
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = step
        columns.append((gradient(theta + e) - gradient(theta - e)) / (2.0 * step))
    H = np.array(columns, dtype=float).reshape(theta.size, theta.size)
    return (H + H.T) / 2.0


def floored_inverse(H: np.ndarray, floor: np.ndarray) -> tuple[np.ndarray, float, int]:
    """H⁻¹ and log |H| with every eigenvalue of H at least the smallest of ``floor`` (the
    prior's curvature), and how many were raised to it."""
    values, vectors = np.linalg.eigh(H)
    least = float(np.min(floor)) if floor.size else 1.0
    raised = int(np.sum(values < least))
    values = np.maximum(values, least)
    return (vectors / values) @ vectors.T, float(np.sum(np.log(values))), raised


def laplace(
    kernel: Kernel,
    X: np.ndarray,
    y: np.ndarray,
    summary: Summary,
    engine: Engine,
    constant_mean: bool = False,
) -> Laplace:
    """The Laplace approximation of ``kernel``'s structure at its own (fitted) values, on data
    (X, y) in the fitter's units; ``summary`` gives the bounds the prior is built from."""
    theta = kernel.theta()
    prior = ParameterPrior.of(kernel, summary)

    def gradient(t: np.ndarray) -> np.ndarray:
        _, grad = engine.objective(t, kernel, X, y, constant_mean)
        return np.asarray(grad, dtype=float) - prior.gradient(t)

    nll = engine.objective_value(kernel, X, y, constant_mean)
    H = hessian(gradient, theta)
    covariance, log_det, raised = floored_inverse(H, prior.precision)
    log_prior = prior.log_density(theta)
    d = theta.size
    return Laplace(
        kernel=kernel,
        theta=theta,
        prior=prior,
        log_likelihood=-nll,
        log_prior=log_prior,
        log_evidence=-nll + log_prior + 0.5 * d * math.log(2 * math.pi) - 0.5 * log_det,
        covariance=covariance,
        floored=raised,
    )


def parameter_draws(approx: Laplace, count: int, rng: np.random.Generator) -> list[Kernel]:
    """``count`` kernels of the structure with theta drawn from N(θ̂, H⁻¹)."""
    if approx.n_params == 0:
        return [approx.kernel] * count
    draws = rng.multivariate_normal(approx.theta, approx.covariance, size=count, method="eigh")
    return [approx.kernel.with_theta(t) for t in draws]


@dataclass(frozen=True)
class Importance:
    """Draws of the parameters with self-normalised ``weights`` (summing to one), the log of the
    estimate of p(y) they give, and their effective sample size (Σw)² / Σw²."""

    kernels: list[Kernel]
    weights: np.ndarray
    log_evidence: float
    effective_size: float


def importance(approx: Laplace, kernels: list[Kernel], nlls: np.ndarray) -> Importance:
    """Weights of ``kernels`` (draws of ``parameter_draws``) whose −log p(y | θ_s) are ``nlls``
    (``inf`` for a draw that could not be conditioned: weight 0): w_s ∝ p(y | θ_s) p(θ_s) /
    q(θ_s), and log p(y) ≈ log mean_s of those ratios."""
    log_ratio = np.array(
        [
            -nll + approx.prior.log_density(k.theta()) - approx.log_proposal(k.theta())
            if math.isfinite(nll)
            else -math.inf
            for k, nll in zip(kernels, nlls, strict=True)
        ]
    )
    if not np.any(np.isfinite(log_ratio)):
        return Importance(kernels, np.zeros(len(kernels)), -math.inf, 0.0)
    top = float(np.max(log_ratio))
    log_evidence = top + math.log(float(np.sum(np.exp(log_ratio - top))) / len(kernels))
    weights = normalised(log_ratio)
    return Importance(kernels, weights, log_evidence, effective_size(weights))
