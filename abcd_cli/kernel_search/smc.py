"""Sequential Monte Carlo over structures and parameters: weighted particles whose mixture is a
posterior over models (after Saad et al., ICML 2023).

A particle is a tree S drawn from ``structure_prior.StructurePrior`` plus its own observation
noise, a white-noise term outside the tree: its kernel is S + WN, so every particle can be
conditioned, and the structure prior and moves act on S alone. Its parameters (S's and the
noise's) start drawn from ``evidence.ParameterPrior`` (a normal on theta whose ±2σ are the
data-read bounds). The data
come in the nested steps of ``annealing.data_steps``; at each step every particle's log weight
grows by the predictive density of the new points (``annealing.step_weight`` of two marginal
likelihoods, each computed once per kernel and step; the rows come in their own order), the
particles are resampled (systematically) when the effective sample size falls below half their
number, and each is rejuvenated on the data so far:

- structure moves: a node of S chosen uniformly is replaced by a subtree drawn from the prior
  at its depth (and below a change or not), the subtree's parameters drawn from their prior,
  the noise kept. With both trees' nodes
  counted, the Metropolis-Hastings ratio reduces to L'/L · |nodes(k)| / |nodes(k')| (the prior
  and the proposal's draws cancel);
- parameter moves: a random-walk Metropolis chain (``parameter_chain.metropolis``) shaped by the
  prior's variances, on S's parameters and the noise's together.

One seed gives one result: every draw comes from one generator, in a fixed order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from abcd_cli.data.summary import Summary
from abcd_cli.engines.base import Engine
from abcd_cli.kernel_search.annealing import data_steps, step_weight
from abcd_cli.kernel_search.evidence import (
    ParameterPrior,
    effective_size,
    log_likelihood,
    normalised,
)
from abcd_cli.kernel_search.grammar import subexpressions
from abcd_cli.kernel_search.parameter_chain import accepts, log_posterior, metropolis
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernel_search.structure_prior import StructurePrior, below_change
from abcd_cli.kernels import WN, Kernel, Sum

#: The proposal of a parameter move: this fraction of each coordinate's prior sd.
PARAMETER_STEP = 0.05


@dataclass(frozen=True)
class SMCSettings:
    """How many particles, data steps (the first of ``first`` points), structure and parameter
    moves per particle and step: the search settings' (``of``)."""

    particles: int = 16
    steps: int = 10
    first: int = 10
    structure_moves: int = 5
    parameter_moves: int = 10

    @classmethod
    def of(cls, settings: SearchSettings) -> SMCSettings:
        """The sampler's part of the search ``settings`` (``settings.SMC_FIELDS``)."""
        return cls(
            settings.particles,
            settings.data_steps,
            settings.first_points,
            settings.structure_moves,
            settings.parameter_moves,
        )


@dataclass(frozen=True)
class Particles:
    """Kernels (internal units, fitted values) with normalised ``weights``, the log of the
    evidence estimate the run gives (Σ over steps of log mean of the incremental weights) and
    the acceptance rate of the structure moves."""

    kernels: list[Kernel]
    weights: np.ndarray
    log_evidence: float
    structure_acceptance: float


class Sampler:
    """One run of the sampler on data (X, y) in the fitter's units; see the module docstring."""

    def __init__(
        self,
        X: np.ndarray,
        y: np.ndarray,
        summary: Summary,
        engine: Engine,
        prior: StructurePrior,
        settings: SMCSettings,
        rng: np.random.Generator,
    ) -> None:
        self.X, self.y, self.summary, self.engine = X, y, summary, engine
        self.prior, self.settings, self.rng = prior, settings, rng
        self.n_dims = X.shape[1]
        self.proposed = self.accepted = 0
        self._likelihoods: dict[tuple[Kernel, int], float] = {}  # by kernel and rows so far

    def with_drawn_parameters(self, kernel: Kernel) -> Kernel:
        """``kernel`` with every unset parameter drawn from its prior."""
        theta = kernel.theta()
        drawn = ParameterPrior.of(kernel, self.summary).draw(self.rng)
        return kernel.with_theta(np.where(np.isfinite(theta), theta, drawn))

    def new_particle(self) -> Kernel:
        """A tree drawn from the prior plus its own noise, every parameter drawn from its
        prior."""
        return self.with_drawn_parameters(Sum((self.prior.sample(self.rng, self.n_dims), WN())))

    def log_likelihood(self, kernel: Kernel, rows: np.ndarray) -> float:
        """log p(y[rows] | kernel), computed once per kernel and step (``rows`` are the first
        rows of one order, so their count names them)."""
        key = (kernel, rows.size)
        if key not in self._likelihoods:
            self._likelihoods[key] = log_likelihood(self.engine, kernel, self.X[rows], self.y[rows])
        return self._likelihoods[key]

    def structure_move(
        self, kernel: Kernel, rows: np.ndarray, current: float
    ) -> tuple[Kernel, float]:
        """One Metropolis-Hastings step replacing a subtree of the particle's tree (its first
        term; the second is its noise)."""
        tree, noise = kernel.operands
        nodes, below = list(subexpressions(tree)), below_change(tree)
        pick = int(self.rng.integers(len(nodes)))
        _, put, depth = nodes[pick]
        new_tree = put(self.prior.sample(self.rng, self.n_dims, depth, below[pick]))
        proposal = self.with_drawn_parameters(Sum((new_tree, noise)))
        value = self.log_likelihood(proposal, rows)
        size = sum(1 for _ in new_tree.nodes())
        self.proposed += 1
        ratio = value - current + math.log(len(nodes)) - math.log(size)
        if math.isfinite(value) and accepts(ratio, self.rng):
            self.accepted += 1
            return proposal, value
        return kernel, current

    def parameter_moves(self, kernel: Kernel, rows: np.ndarray) -> Kernel:
        """A short Metropolis chain on the kernel's parameters; its last state."""
        theta = kernel.theta()
        if theta.size == 0 or self.settings.parameter_moves < 1:
            return kernel
        prior = ParameterPrior.of(kernel, self.summary)
        target = log_posterior(kernel, prior, self.X[rows], self.y[rows], self.engine)
        covariance = np.diag((PARAMETER_STEP * prior.sd) ** 2)
        chain = metropolis(target, theta, covariance, self.settings.parameter_moves, 0, self.rng)
        return kernel.with_theta(chain.states[-1])

    def run(self) -> Particles:
        s = self.settings
        kernels = [self.new_particle() for _ in range(s.particles)]
        log_w = np.zeros(s.particles)
        log_evidence = 0.0
        old = np.arange(0)
        for rows in data_steps(self.y.size, s.steps, s.first):
            increments = np.array(
                [
                    step_weight(
                        self.log_likelihood(k, old) if old.size else 0.0,
                        self.log_likelihood(k, rows),
                    )
                    for k in kernels
                ]
            )
            log_evidence += _log_mean_weight(log_w, increments)
            log_w = log_w + increments
            if effective_size(normalised(log_w)) < s.particles / 2:
                picks = _systematic(normalised(log_w), self.rng)
                kernels, log_w = [kernels[i] for i in picks], np.zeros(s.particles)
            self._likelihoods = {k: v for k, v in self._likelihoods.items() if k[1] == rows.size}
            kernels = [self._rejuvenate(k, rows) for k in kernels]
            old = rows
        return Particles(
            kernels, normalised(log_w), log_evidence, self.accepted / max(self.proposed, 1)
        )

    def _rejuvenate(self, kernel: Kernel, rows: np.ndarray) -> Kernel:
        current = self.log_likelihood(kernel, rows)
        for _ in range(self.settings.structure_moves):
            kernel, current = self.structure_move(kernel, rows, current)
        return self.parameter_moves(kernel, rows)


def _log_mean_weight(previous: np.ndarray, increments: np.ndarray) -> float:
    """log Σ_i w_i exp(increment_i), w the normalised previous weights: this step's factor of
    the evidence estimate."""
    w = normalised(previous)
    finite = np.isfinite(increments) & (w > 0)
    if not np.any(finite):
        return -math.inf
    top = float(np.max(increments[finite]))
    return top + math.log(float(np.sum(w[finite] * np.exp(increments[finite] - top))))


def _systematic(weights: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Systematic resampling: indices of the particles kept, as many as there are."""
    n = weights.size
    positions = (rng.uniform() + np.arange(n)) / n
    return np.minimum(np.searchsorted(np.cumsum(weights), positions), n - 1)
