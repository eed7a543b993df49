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
number, except at the last step (resampling there would only add noise to the final weights),
and each is rejuvenated on the data so far:

- structure moves: a node of S chosen uniformly is replaced by a subtree drawn from the prior
  at its depth (and below a change or not), the subtree's parameters drawn from their prior,
  the noise kept. With both trees' nodes
  counted, the Metropolis-Hastings ratio reduces to L'/L · |nodes(k)| / |nodes(k')| (the prior
  and the proposal's draws cancel);
- parameter moves: a random-walk Metropolis chain (``parameter_chain.metropolis``) shaped by the
  prior's variances, on S's parameters and the noise's together.

Particles are tasks: each particle's moves in one data step are one task on the executor the
search gets (``move_particle``), drawing from its own generator, seeded from (seed, step,
particle) (``SeedSequence``; step 0 draws the particles, the resampling of step k is slot P of
it); the task also returns the particle's log likelihood on the next step's rows, so a step's
weights need no other task. One seed gives one result, serially or on any number of workers.
After each step the whole state (``SMCState``) goes to ``on_step`` (the checkpoint), and a run
given that state goes on from it to exactly the result of an uninterrupted run.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, replace

import numpy as np

from abcd_cli.data.summary import Summary
from abcd_cli.engines.base import Engine
from abcd_cli.execution.pool import SerialExecutor
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


@dataclass(frozen=True)
class SMCState:
    """The sampler after ``done`` of its data steps (0: the particles drawn, no data yet):
    the particles' kernels and log weights, the evidence estimate so far, each particle's log
    likelihood on the next step's rows (``following``) and the log weight that step adds to it
    (``pending``), and the structure moves proposed and accepted so far."""

    done: int
    kernels: list[Kernel]
    log_w: np.ndarray
    log_evidence: float
    following: np.ndarray
    pending: np.ndarray
    proposed: int = 0
    accepted: int = 0


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
    the rows ``rows`` (where its log likelihood is ``current``), then scored on ``following``
    (the next step's rows; empty after the last), with random numbers from ``key``."""

    problem: Problem
    kernel: Kernel | None
    current: float
    rows: np.ndarray
    following: np.ndarray
    key: tuple[int, int, int]


@dataclass(frozen=True)
class Moved:
    """A task's particle, its log likelihood on its rows and on the next step's, and its
    structure moves proposed and accepted."""

    kernel: Kernel
    current: float
    following: float
    proposed: int
    accepted: int


def move_particle(task: ParticleTask) -> Moved:
    """Run one ``ParticleTask`` (in a worker): see the module docstring."""
    mover = _Mover(task.problem, np.random.default_rng(np.random.SeedSequence(task.key)))
    kernel, current = task.kernel, task.current
    if kernel is None:
        kernel = mover.new_particle()
    elif task.rows.size:
        kernel, current = mover.rejuvenate(kernel, task.rows, current)
    following = mover.log_likelihood(kernel, task.following) if task.following.size else 0.0
    return Moved(kernel, current, following, mover.proposed, mover.accepted)


class _Mover:
    """One particle's moves in one step, drawing from ``rng``."""

    def __init__(self, problem: Problem, rng: np.random.Generator) -> None:
        self.problem, self.rng = problem, rng
        self.n_dims = problem.X.shape[1]
        self.proposed = self.accepted = 0
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
        """The settings' structure moves, then the parameter moves; the particle and its log
        likelihood on ``rows``."""
        for _ in range(self.problem.settings.structure_moves):
            kernel, current = self.structure_move(kernel, rows, current)
        moved = self.parameter_moves(kernel, rows)
        return moved, current if moved is kernel else self.log_likelihood(moved, rows)

    def structure_move(
        self, kernel: Kernel, rows: np.ndarray, current: float
    ) -> tuple[Kernel, float]:
        """One Metropolis-Hastings step replacing a subtree of the particle's tree (its first
        term; the second is its noise)."""
        tree, noise = kernel.operands
        nodes, below = list(subexpressions(tree)), below_change(tree)
        pick = int(self.rng.integers(len(nodes)))
        _, put, depth = nodes[pick]
        new_tree = put(self.problem.prior.sample(self.rng, self.n_dims, depth, below[pick]))
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
        p = self.problem
        theta = kernel.theta()
        if theta.size == 0 or p.settings.parameter_moves < 1:
            return kernel
        prior = ParameterPrior.of(kernel, p.summary)
        target = log_posterior(kernel, prior, p.X[rows], p.y[rows], p.engine)
        covariance = np.diag((PARAMETER_STEP * prior.sd) ** 2)
        chain = metropolis(target, theta, covariance, p.settings.parameter_moves, 0, self.rng)
        return kernel.with_theta(chain.states[-1])


class Sampler:
    """One run of the sampler on data (X, y) in the fitter's units, from ``seed``; see the
    module docstring."""

    def __init__(
        self,
        X: np.ndarray,
        y: np.ndarray,
        summary: Summary,
        engine: Engine,
        prior: StructurePrior,
        settings: SMCSettings,
        seed: int,
    ) -> None:
        self.problem = Problem(X, y, summary, engine, prior, settings)
        self.seed = seed
        self.steps = data_steps(y.size, settings.steps, settings.first)

    def run(
        self,
        executor: Executor | None = None,
        state: SMCState | None = None,
        on_step: Callable[[SMCState], None] | None = None,
    ) -> Particles:
        """The particles after every data step, each step's tasks on ``executor`` (serial by
        default); from ``state`` when given (a checkpoint's), telling ``on_step`` of each."""
        executor = executor or SerialExecutor()
        if state is None:
            state = self._first_state(executor)
            if on_step:
                on_step(state)
        while state.done < len(self.steps):
            state = self.step(state, executor)
            if on_step:
                on_step(state)
        acceptance = state.accepted / max(state.proposed, 1)
        return Particles(state.kernels, normalised(state.log_w), state.log_evidence, acceptance)

    def _first_state(self, executor: Executor) -> SMCState:
        """The particles drawn from the prior (step 0), scored on the first step's rows."""
        n = self.problem.settings.particles
        empty = np.arange(0)
        tasks = [self._task(None, 0.0, empty, self.steps[0], (0, p)) for p in range(n)]
        moved = self._map(executor, tasks)
        following = np.array([m.following for m in moved])
        pending = np.array([step_weight(0.0, m.following) for m in moved])
        kernels = [m.kernel for m in moved]
        return SMCState(0, kernels, np.zeros(n), 0.0, following, pending)

    def step(self, state: SMCState, executor: Executor) -> SMCState:
        """One data step: reweight by the new points' predictive density, resample when the
        effective sample size falls below half the particles (never at the last step, whose
        weights the result keeps), then move each particle."""
        n, k = self.problem.settings.particles, state.done
        log_evidence = state.log_evidence + _log_mean_weight(state.log_w, state.pending)
        log_w = state.log_w + state.pending
        kernels, current = state.kernels, state.following
        last = k + 1 == len(self.steps)  # its weights are the result: never resampled
        if not last and effective_size(normalised(log_w)) < n / 2:
            rng = np.random.default_rng(np.random.SeedSequence((self.seed, k + 1, n)))
            picks = _systematic(normalised(log_w), rng)
            kernels, current, log_w = [kernels[i] for i in picks], current[picks], np.zeros(n)
        rows = self.steps[k]
        following = self.steps[k + 1] if k + 1 < len(self.steps) else np.arange(0)
        tasks = [
            self._task(kernels[p], float(current[p]), rows, following, (k + 1, p)) for p in range(n)
        ]
        moved = self._map(executor, tasks)
        return replace(
            state,
            done=k + 1,
            kernels=[m.kernel for m in moved],
            log_w=log_w,
            log_evidence=log_evidence,
            following=np.array([m.following for m in moved]),
            pending=np.array([step_weight(m.current, m.following) for m in moved]),
            proposed=state.proposed + sum(m.proposed for m in moved),
            accepted=state.accepted + sum(m.accepted for m in moved),
        )

    def _task(
        self,
        kernel: Kernel | None,
        current: float,
        rows: np.ndarray,
        following: np.ndarray,
        where: tuple[int, int],
    ) -> ParticleTask:
        return ParticleTask(self.problem, kernel, current, rows, following, (self.seed, *where))

    @staticmethod
    def _map(executor: Executor, tasks: list[ParticleTask]) -> list[Moved]:
        """Every task's result; a task whose worker was lost is run again here (its seed
        makes it the same)."""
        results = list(executor.map(move_particle, tasks))
        return [
            r if isinstance(r, Moved) else move_particle(t)
            for r, t in zip(results, tasks, strict=True)
        ]


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
