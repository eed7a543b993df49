"""Draws of one structure's parameters from their posterior by a Markov chain.

The target is π(θ) ∝ p(y | θ) p(θ), θ the optimiser's coordinates and p(θ) the prior of
``evidence.ParameterPrior``. Random-walk Metropolis: from θ the chain proposes θ' = θ + s L ξ,
ξ ~ N(0, I), L L' the Laplace covariance H⁻¹ (``evidence.laplace``), and moves there with
probability min(1, π(θ') / π(θ)). During the ``warmup`` steps the scale s adapts towards an
acceptance rate of 0.234 (the optimum for random-walk proposals in several dimensions); after
it s is fixed, so the steps kept are those of a valid Metropolis chain whose stationary law is
π, whatever the Laplace approximation's quality. A θ whose kernel cannot be conditioned has
π = 0: it is never accepted.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from abcd_cli.engines.base import Engine
from abcd_cli.kernel_search.evidence import Laplace, ParameterPrior, log_likelihood
from abcd_cli.kernels import Kernel

#: The acceptance rate the warm-up aims at, and the scale it starts from (2.38/√d).
TARGET_ACCEPTANCE = 0.234

LogTarget = Callable[[np.ndarray], float]


@dataclass(frozen=True)
class Chain:
    """The kept states (rows) and the rate at which the kept steps were accepted; and each
    kept step's proposal θ' (rows of ``proposals``), drawn from N(θ, ``step_covariance``)
    about the state θ it was proposed from (rows of ``origins``), with its log target
    log p(y | θ') + log p(θ') (−inf where it cannot be conditioned): draws from known
    densities whose targets are evaluated, which ``evidence.chain_importance`` weighs."""

    states: np.ndarray
    acceptance: float
    origins: np.ndarray
    proposals: np.ndarray
    proposal_targets: np.ndarray
    step_covariance: np.ndarray

    def thinned(self, count: int) -> np.ndarray:
        """``count`` states evenly spaced over the chain (the last always among them)."""
        n = self.states.shape[0]
        picks = np.linspace(n - 1, 0, min(count, n)).round().astype(int)[::-1]
        return self.states[picks]


def metropolis(
    log_target: LogTarget,
    start: np.ndarray,
    covariance: np.ndarray,
    steps: int,
    warmup: int,
    rng: np.random.Generator,
) -> Chain:
    """``warmup`` adapting steps, then ``steps`` kept ones, from ``start`` (see the module)."""
    theta = np.asarray(start, dtype=float)
    d = theta.size
    if d == 0:
        empty = np.zeros((steps, 0))
        return Chain(empty, 1.0, empty, empty, np.full(steps, log_target(theta)), np.zeros((0, 0)))
    values, vectors = np.linalg.eigh(covariance)
    root = vectors * np.sqrt(np.maximum(values, 0.0))
    log_scale = math.log(2.38 / math.sqrt(d))
    current = log_target(theta)
    states, origins, proposals, targets, accepted = [], [], [], [], 0
    for step in range(warmup + steps):
        origin = theta
        proposal = theta + math.exp(log_scale) * (root @ rng.standard_normal(d))
        candidate = log_target(proposal)
        ratio = candidate - current if math.isfinite(candidate) else -math.inf
        accept = accepts(ratio, rng)
        if accept:
            theta, current = proposal, candidate
        if step < warmup:
            log_scale += ((1.0 if accept else 0.0) - TARGET_ACCEPTANCE) / math.sqrt(step + 1)
        else:
            accepted += accept
            states.append(theta)
            origins.append(origin)
            proposals.append(proposal)
            targets.append(candidate if math.isfinite(candidate) else -math.inf)
    return Chain(
        np.array(states).reshape(-1, d),
        accepted / max(steps, 1),
        np.array(origins).reshape(-1, d),
        np.array(proposals).reshape(-1, d),
        np.array(targets),
        math.exp(2.0 * log_scale) * (root @ root.T),
    )


def accepts(log_ratio: float, rng: np.random.Generator) -> bool:
    """A Metropolis-Hastings decision: u < exp(log_ratio), u uniform on [0, 1)."""
    u = rng.uniform()
    return math.log(u) < log_ratio if u > 0.0 else log_ratio > -math.inf


def log_posterior(
    kernel: Kernel,
    prior: ParameterPrior,
    X: np.ndarray,
    y: np.ndarray,
    engine: Engine,
    constant_mean: bool = False,
) -> LogTarget:
    """θ ↦ log p(y | θ) + log p(θ) for ``kernel``'s structure (−inf where it cannot be
    conditioned)."""

    def log_target(theta: np.ndarray) -> float:
        value = log_likelihood(engine, kernel.with_theta(theta), X, y, constant_mean)
        return value + prior.log_density(theta) if math.isfinite(value) else -math.inf

    return log_target


def posterior_draws(
    approx: Laplace,
    X: np.ndarray,
    y: np.ndarray,
    engine: Engine,
    count: int,
    rng: np.random.Generator,
    steps: int = 200,
    warmup: int = 100,
    constant_mean: bool = False,
) -> tuple[list[Kernel], Chain]:
    """``count`` kernels of ``approx``'s structure with parameters from a chain started at
    its optimum, and the chain."""
    target = log_posterior(approx.kernel, approx.prior, X, y, engine, constant_mean)
    chain = metropolis(target, approx.theta, approx.covariance, steps, warmup, rng)
    return [approx.kernel.with_theta(t) for t in chain.thinned(count)], chain
