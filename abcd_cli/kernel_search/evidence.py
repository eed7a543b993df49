"""The Laplace approximation of a structure's evidence, with its parameters integrated out.

BIC stands in for log p(y | structure) with the parameters optimised (thesis ch. 2 and the
grammar chapter, "Estimating marginal likelihoods"); the Laplace approximation integrates them
out around the posterior's mode θ* (the maximum of log p(y | θ) + log p(θ), reached by
``posterior_mode`` from the search's fit θ̂, the likelihood's maximum):

    log p(y) ≈ log p(y | θ*) + log p(θ*) + (d/2) log 2π − ½ log |H|,

H the Hessian of −log p(y | θ) − log p(θ) at θ* (d parameters). The expansion is of the
log posterior, so it is exact for a Gaussian posterior only when taken at that posterior's
mode; at θ̂ its first-order term is not zero and the evidence is off by it. The same Gaussian,
N(θ*, H⁻¹), is the approximate posterior of the parameters, from which ``parameter_draws``
samples. Where that Gaussian is poor (a direction the data barely constrain, held only by the
floor below), two corrections weigh its error:

- ``importance``: draws θ_s from it weighted by p(y | θ_s) p(θ_s) / q(θ_s) are draws of the
  true posterior, and the mean of those ratios is an unbiased estimate of p(y);
- ``chain_importance``: a Metropolis chain's proposals (``parameter_chain``) are draws from
  known Gaussians about its states, and the chain evaluated p(y | θ') p(θ') at each to decide
  on it; weighed against the mixture of those Gaussians, they estimate p(y) at no further
  evaluation, where the chain has covered the posterior (few parameters: ``CORRECTED_PARAMS``).

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
from typing import TYPE_CHECKING

import numpy as np
from scipy.optimize import minimize

from abcd_cli.data.summary import Summary
from abcd_cli.engines.base import FAILED_NLL, Engine
from abcd_cli.kernel_search.init import theta_bounds
from abcd_cli.kernels import Kernel

if TYPE_CHECKING:
    from abcd_cli.kernel_search.parameter_chain import Chain

#: The bounds are this many prior standard deviations either side of the prior's centre.
BOUND_SDS = 2.0
#: Central-difference step of the Hessian, in theta's units.
HESSIAN_STEP = 1e-4
#: The most parameters a structure may have for ``chain_importance`` to correct its Laplace
#: evidence from a chain of 200 kept steps. Measured: with 3 and 4 parameters (24 points,
#: tests/kernel_search/test_weighing.py) it comes within 0.07 nats of brute force where
#: Laplace is 0.2-0.34 off; with 14-16 (three of airline's structures at the default depth)
#: 16 chains of 200 steps gave 0.2-8.5 nats below the Laplace evidence, and up to 7.5 below a
#: chain of 1,000 steps (whose own estimates were 1.0-1.1 below Laplace): too few steps to
#: cover the posterior. Between 5 and 13 parameters it is not measured.
CORRECTED_PARAMS = 4
#: The most L-BFGS-B iterations from the search's fit to the posterior's mode (the prior moves
#: it little: a few iterations reach it).
MODE_ITERATIONS = 50

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


def posterior_mode(
    kernel: Kernel,
    X: np.ndarray,
    y: np.ndarray,
    prior: ParameterPrior,
    engine: Engine,
    constant_mean: bool = False,
) -> np.ndarray:
    """θ* = argmax log p(y | θ) + log p(θ), by L-BFGS-B from ``kernel``'s own theta (the
    search's fit) with the engine's analytic gradient; the start itself when the optimiser
    does not improve on it (a failed evaluation, a flat prior term)."""
    start = kernel.theta()
    if start.size == 0:
        return start

    def negative_log_posterior(t: np.ndarray) -> tuple[float, np.ndarray]:
        value, grad = engine.objective(t, kernel, X, y, constant_mean)
        if not (math.isfinite(value) and value < FAILED_NLL and np.all(np.isfinite(grad))):
            return FAILED_NLL, np.zeros_like(t)
        return value - prior.log_density(t), np.asarray(grad, dtype=float) - prior.gradient(t)

    first, _ = negative_log_posterior(start)
    with np.errstate(all="ignore"):
        result = minimize(
            negative_log_posterior,
            start,
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": MODE_ITERATIONS},
        )
    better = math.isfinite(result.fun) and result.fun < first and np.all(np.isfinite(result.x))
    return np.asarray(result.x, dtype=float) if better else start


def laplace(
    kernel: Kernel,
    X: np.ndarray,
    y: np.ndarray,
    summary: Summary,
    engine: Engine,
    constant_mean: bool = False,
) -> Laplace:
    """The Laplace approximation of ``kernel``'s structure at its posterior's mode (reached
    from its own, fitted, values), on data (X, y) in the fitter's units; ``summary`` gives the
    bounds the prior is built from."""
    prior = ParameterPrior.of(kernel, summary)
    theta = posterior_mode(kernel, X, y, prior, engine, constant_mean)
    kernel = kernel.with_theta(theta)

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


def chain_importance(approx: Laplace, chain: Chain) -> float:
    """log p(y) from a chain's own proposals (``parameter_chain.Chain``): θ'_t was drawn from
    q_t = N(θ_t, Σ_step) about the state θ_t it was proposed from, and the chain evaluated
    π(θ'_t) = p(y | θ'_t) p(θ'_t) to accept or refuse it, so with the mixture of the T
    proposal densities q̄ = (1/T) Σ_j q_j as the importance density,

        p(y) ≈ (1/T) Σ_t π(θ'_t) / q̄(θ'_t)

    (the deterministic mixture weights of multiple importance sampling, Owen and Zhou 2000;
    q̄ is the posterior spread by one step, so heavier-tailed than it where the chain has
    been). Where the chain has not been, q̄ holds nothing and the estimate falls short, so it
    stands only for structures of at most ``CORRECTED_PARAMS`` parameters; for more, for a
    structure without parameters (where Laplace is exact) and when no proposal has a finite
    target, the Laplace evidence stands."""
    d = approx.n_params
    targets = np.asarray(chain.proposal_targets, dtype=float)
    if not 0 < d <= CORRECTED_PARAMS or not np.any(np.isfinite(targets)):
        return approx.log_evidence
    return _mixture_estimate(chain.origins, chain.proposals, targets, chain)


def _mixture_estimate(
    origins: np.ndarray, proposals: np.ndarray, targets: np.ndarray, chain: Chain
) -> float:
    """log (1/T) Σ_t π(θ'_t) / q̄(θ'_t), q̄ the mixture of N(origin_j, Σ_step) over the given
    proposals' origins (−inf when no target is finite)."""
    if not np.any(np.isfinite(targets)):
        return -math.inf
    values, vectors = np.linalg.eigh(chain.step_covariance)
    values = np.maximum(values, 1e-300)
    whiten = vectors / np.sqrt(values)  # z = (θ − c) @ whiten has unit covariance
    z_points = proposals @ whiten
    z_centres = origins @ whiten
    distance = (
        np.sum(z_points**2, axis=1)[:, None]
        - 2.0 * z_points @ z_centres.T
        + np.sum(z_centres**2, axis=1)[None, :]
    )
    log_q = -0.5 * np.maximum(distance, 0.0) - 0.5 * float(np.sum(np.log(values)))
    log_q -= 0.5 * values.size * math.log(2 * math.pi)
    top_q = np.max(log_q, axis=1)
    log_mixture = top_q + np.log(np.mean(np.exp(log_q - top_q[:, None]), axis=1))
    log_ratio = np.where(np.isfinite(targets), targets - log_mixture, -math.inf)
    top = float(np.max(log_ratio))
    return top + math.log(float(np.mean(np.exp(log_ratio - top))))
