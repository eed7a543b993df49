"""One particle's moves in one data step of the sampler (``smc``), the task a worker runs
(``move_particle``): drawn from the prior at step 0, else rejuvenated on the rows so far, then
scored on the next step's rows. Its moves:

- structure moves (``smc_moves``): a subtree replaced by one drawn from the prior there, or
  one attached (k → k op T) or detached (a node replaced by one of its children), new
  parameters from a mixture of their prior and the data seen so far (``smc_proposal``), the
  noise kept; the reverse move's probability and the proposal's density are in the
  Metropolis-Hastings ratio, so each move keeps the step's target invariant;
- parameter moves: a random-walk Metropolis chain (``parameter_chain.metropolis``) on S's
  parameters and the noise's together, its proposal N(θ, (s · 2.38/√d)² diag(prior sd²)) with
  the particle's own step s. The step is fixed within a data step (so each chain is a valid
  Metropolis chain for that step's target) and tuned between steps from the chain's acceptance
  a in the step just done: log s ← log s + ``ADAPT_GAIN`` (a − ``TARGET_ACCEPTANCE``), s kept
  in [``MIN_STEP``, ``MAX_STEP``] (a resampled particle takes its parent's s).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from abcd_cli.data.summary import Summary
from abcd_cli.engines.base import Engine
from abcd_cli.kernel_search.evidence import ParameterPrior, log_likelihood
from abcd_cli.kernel_search.parameter_chain import log_posterior, metropolis
from abcd_cli.kernel_search.smc_budget import Moves
from abcd_cli.kernel_search.smc_moves import StructureMover
from abcd_cli.kernel_search.smc_proposal import ParameterProposal
from abcd_cli.kernel_search.structure_prior import StructurePrior
from abcd_cli.kernels import WN, Kernel, Sum

if TYPE_CHECKING:
    from abcd_cli.kernel_search.smc import SMCSettings

#: A particle's first parameter step s: this fraction of each coordinate's prior sd (times
#: 2.38/√d, ``parameter_chain.metropolis``).
PARAMETER_STEP = 0.05
#: The acceptance rate of the parameter moves the steps are tuned towards (within 0.25-0.45),
#: the gain of the tuning, and the steps' limits.
TARGET_ACCEPTANCE = 0.35
ADAPT_GAIN = 1.0
MIN_STEP, MAX_STEP = 1e-3, 1.0


@dataclass(frozen=True)
class Problem:
    """What every particle's task shares: the data (X, y) in the fitter's units, their
    summary, the engine, the structure prior and the settings."""

    X: np.ndarray
    y: np.ndarray
    summary: Summary
    engine: Engine
    prior: StructurePrior
    settings: SMCSettings


@dataclass(frozen=True)
class ParticleTask:
    """One particle's moves in one step: ``kernel`` (None: draw it from the prior) moved on
    the rows ``rows`` (where its log likelihood is ``current``; ``rows_summary`` their scales
    and spectrum, for the proposal) with parameter step ``step_scale``, then scored on
    ``following`` (the next step's rows; empty after the last), with random numbers from
    ``key``."""

    problem: Problem
    kernel: Kernel | None
    current: float
    rows: np.ndarray
    following: np.ndarray
    key: tuple[int, int, int]
    rows_summary: Summary | None = None
    step_scale: float = PARAMETER_STEP
    moves: Moves | None = None  # (structure, parameter) moves (None: the settings')


@dataclass(frozen=True)
class Moved:
    """A task's particle, its log likelihood on its rows and on the next step's, its
    structure moves proposed and accepted, its parameter step for the next data step and its
    parameter chain's acceptance rate (NaN: no chain)."""

    kernel: Kernel
    current: float
    following: float
    proposed: int
    accepted: int
    step_scale: float = PARAMETER_STEP
    parameter_acceptance: float = math.nan


def move_particle(task: ParticleTask) -> Moved:
    """Run one ``ParticleTask`` (in a worker): see the module docstring."""
    rng = np.random.default_rng(np.random.SeedSequence(task.key))
    mover = _Mover(task.problem, rng, task.rows_summary, task.step_scale, task.moves)
    kernel, current = task.kernel, task.current
    if kernel is None:
        kernel = mover.new_particle()
    elif task.rows.size:
        kernel, current = mover.rejuvenate(kernel, task.rows, current)
    following = mover.log_likelihood(kernel, task.following) if task.following.size else 0.0
    return Moved(
        kernel, current, following, mover.proposed, mover.accepted, mover.step_scale,
        mover.parameter_acceptance,
    )  # fmt: skip


class _Mover:
    """One particle's moves in one step, drawing from ``rng``."""

    def __init__(
        self,
        problem: Problem,
        rng: np.random.Generator,
        rows_summary: Summary | None = None,
        step_scale: float = PARAMETER_STEP,
        moves: Moves | None = None,
    ) -> None:
        self.problem, self.rng, self.step_scale = problem, rng, step_scale
        asked = (problem.settings.structure_moves, problem.settings.parameter_moves)
        self.structure_count, self.parameter_count = asked if moves is None else moves
        self.n_dims = problem.X.shape[1]
        self.proposed = self.accepted = 0
        self.parameter_acceptance = math.nan
        proposal = ParameterProposal(problem.summary, rows_summary or problem.summary)
        self.structure = StructureMover(problem.prior, proposal, self.n_dims, rng)
        self._likelihoods: dict[tuple[Kernel, int], float] = {}  # by kernel and row count

    def with_drawn_parameters(self, kernel: Kernel) -> Kernel:
        """``kernel`` with every unset parameter drawn from its prior."""
        theta = kernel.theta()
        drawn = ParameterPrior.of(kernel, self.problem.summary).draw(self.rng)
        return kernel.with_theta(np.where(np.isfinite(theta), theta, drawn))

    def new_particle(self) -> Kernel:
        """A tree drawn from the prior plus its own noise, every parameter drawn from its
        prior."""
        tree = self.problem.prior.sample(self.rng, self.n_dims)
        return self.with_drawn_parameters(Sum((tree, WN())))

    def log_likelihood(self, kernel: Kernel, rows: np.ndarray) -> float:
        """log p(y[rows] | kernel), computed once per kernel in a task."""
        key = (kernel, rows.size)
        if key not in self._likelihoods:
            p = self.problem
            self._likelihoods[key] = log_likelihood(p.engine, kernel, p.X[rows], p.y[rows])
        return self._likelihoods[key]

    def rejuvenate(self, kernel: Kernel, rows: np.ndarray, current: float) -> tuple[Kernel, float]:
        """The step's structure moves, then its parameter moves; the particle and its log
        likelihood on ``rows``."""
        for _ in range(self.structure_count):
            kernel, current = self.structure_move(kernel, rows, current)
        moved = self.parameter_moves(kernel, rows)
        return moved, current if moved is kernel else self.log_likelihood(moved, rows)

    def structure_move(
        self, kernel: Kernel, rows: np.ndarray, current: float
    ) -> tuple[Kernel, float]:
        """One structure move (``smc_moves``) on the particle's tree (its first term; the
        second is its noise)."""
        kernel, current, accepted = self.structure.move(
            kernel, current, lambda k: self.log_likelihood(k, rows)
        )
        self.proposed += 1
        self.accepted += accepted
        return kernel, current

    def parameter_moves(self, kernel: Kernel, rows: np.ndarray) -> Kernel:
        """A short Metropolis chain on the kernel's parameters with the particle's step s; its
        last state. s is then tuned from the chain's acceptance (for the next data step)."""
        p = self.problem
        theta = kernel.theta()
        if theta.size == 0 or self.parameter_count < 1:
            return kernel
        prior = ParameterPrior.of(kernel, p.summary)
        target = log_posterior(kernel, prior, p.X[rows], p.y[rows], p.engine)
        covariance = np.diag((self.step_scale * prior.sd) ** 2)
        chain = metropolis(target, theta, covariance, self.parameter_count, 0, self.rng)
        self.step_scale = tuned_step(self.step_scale, chain.acceptance)
        self.parameter_acceptance = float(chain.acceptance)
        return kernel.with_theta(chain.states[-1])


def tuned_step(step: float, acceptance: float) -> float:
    """The next data step's parameter step: log s + ADAPT_GAIN (a − TARGET_ACCEPTANCE), kept
    in [MIN_STEP, MAX_STEP]."""
    tuned = step * math.exp(ADAPT_GAIN * (acceptance - TARGET_ACCEPTANCE))
    return min(max(tuned, MIN_STEP), MAX_STEP)
