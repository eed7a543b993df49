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
and each is rejuvenated on the data so far by structure moves, then a parameter chain, in its
own task (``smc_particle``).

How many structure and parameter moves each data step makes is decided before the step
(``smc_budget``: the settings', a given plan, or what a time budget allows) and recorded in the
state (``SMCState.moves``).

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
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, replace

import numpy as np

from abcd_cli.data.summary import InputSummaries, Summary
from abcd_cli.engines.base import Engine
from abcd_cli.execution.pool import SerialExecutor
from abcd_cli.kernel_search.annealing import data_steps, step_weight
from abcd_cli.kernel_search.evidence import (
    effective_size,
    normalised,
)
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernel_search.smc_budget import MovePlanner, Moves
from abcd_cli.kernel_search.smc_particle import (
    PARAMETER_STEP,
    Moved,
    ParticleTask,
    Problem,
    move_particle,
)
from abcd_cli.kernel_search.smc_trace import StepFacts
from abcd_cli.kernel_search.structure_prior import StructurePrior
from abcd_cli.kernels import Kernel

#: Fewer rows than this read no data for the proposal: it reads the whole series' summary.
FEWEST_ROWS = 3


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
    the acceptance rate of the structure moves; ``history``: each data step's facts
    (``smc_trace``), and ``moves``: each data step's (structure, parameter) moves."""

    kernels: list[Kernel]
    weights: np.ndarray
    log_evidence: float
    structure_acceptance: float
    history: tuple[StepFacts, ...] = ()
    moves: tuple[Moves, ...] = ()


@dataclass(frozen=True)
class SMCState:
    """The sampler after ``done`` of its data steps (0: the particles drawn, no data yet):
    the particles' kernels and log weights, the evidence estimate so far, each particle's log
    likelihood on the next step's rows (``following``) and the log weight that step adds to it
    (``pending``), and each data step's moves and facts (``history``, ``smc_trace``), whose
    sums are the structure moves proposed and accepted so far."""

    done: int
    kernels: list[Kernel]
    log_w: np.ndarray
    log_evidence: float
    following: np.ndarray
    pending: np.ndarray
    step_scales: np.ndarray | None = None  # each particle's parameter step s (None: the first)
    moves: tuple[Moves, ...] = ()  # each data step's (structure, parameter) moves so far
    history: tuple[StepFacts, ...] = ()

    @property
    def proposed(self) -> int:
        return sum(facts.proposed for facts in self.history)

    @property
    def accepted(self) -> int:
        return sum(facts.accepted for facts in self.history)

    def scales(self) -> np.ndarray:
        """Each particle's parameter step s."""
        if self.step_scales is None:
            return np.full(len(self.kernels), PARAMETER_STEP)
        return self.step_scales


@dataclass(frozen=True)
class Planned:
    """A data step planned: the state it starts from, the particles' log weights after the
    reweighting (and any resampling), the evidence estimate so far, the moves' tasks and how
    many moves of each kind they make, and the effective sample size after the reweighting and
    whether the particles were resampled."""

    state: SMCState
    log_w: np.ndarray
    log_evidence: float
    tasks: list[ParticleTask]
    moves: Moves
    ess: float = math.nan
    resampled: bool = False


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
        tell = (lambda states: on_step(states[0])) if on_step else None
        (final,) = run_together((self,), executor, None if state is None else (state,), tell)
        return particles_of(final)

    def first_tasks(self) -> list[ParticleTask]:
        """Step 0's tasks: each particle drawn from the prior, scored on the first rows."""
        empty = np.arange(0)
        n = self.problem.settings.particles
        return [self._task(None, 0.0, empty, self.steps[0], (0, p)) for p in range(n)]

    def first_state(self, moved: list[Moved]) -> SMCState:
        """The state after step 0 from its tasks' results (``first_tasks``)."""
        following = np.array([m.following for m in moved])
        pending = np.array([step_weight(0.0, m.following) for m in moved])
        kernels = [m.kernel for m in moved]
        return SMCState(0, kernels, np.zeros(len(moved)), 0.0, following, pending)

    def plan(self, state: SMCState, moves: Moves | None = None) -> Planned:
        """The next data step up to its moves (``finish`` takes their results): reweight by the
        new points' predictive density, resample when the effective sample size falls below
        half the particles (never at the last step, whose weights the result keeps), and make
        each particle's ``moves`` (structure, parameter; None: the settings') a task."""
        n, k = self.problem.settings.particles, state.done
        settings = self.problem.settings
        moves = moves or (settings.structure_moves, settings.parameter_moves)
        log_evidence = state.log_evidence + _log_mean_weight(state.log_w, state.pending)
        log_w = state.log_w + state.pending
        kernels, current, scales = state.kernels, state.following, state.scales()
        last = k + 1 == len(self.steps)  # its weights are the result: never resampled
        ess = effective_size(normalised(log_w))
        resampled = not last and ess < n / 2
        if resampled:
            rng = np.random.default_rng(np.random.SeedSequence((self.seed, k + 1, n)))
            picks = _systematic(normalised(log_w), rng)
            kernels, current, log_w = [kernels[i] for i in picks], current[picks], np.zeros(n)
            scales = scales[picks]
        rows = self.steps[k]
        following = self.steps[k + 1] if k + 1 < len(self.steps) else np.arange(0)
        seen = self.rows_summary(rows)
        tasks = [
            replace(
                self._task(kernels[p], float(current[p]), rows, following, (k + 1, p), seen),
                step_scale=float(scales[p]),
                moves=moves,
            )
            for p in range(n)
        ]
        return Planned(state, log_w, log_evidence, tasks, moves, float(ess), resampled)

    @staticmethod
    def finish(planned: Planned, moved: list[Moved]) -> SMCState:
        """The state after a planned data step, from its tasks' results."""
        state = planned.state
        kernels = [m.kernel for m in moved]
        facts = StepFacts.of(
            planned.tasks[0].rows.size, planned.ess, planned.resampled,
            [(m.proposed, m.accepted, m.parameter_acceptance) for m in moved],
            planned.log_evidence, kernels, planned.log_w,
        )  # fmt: skip
        return replace(
            state,
            done=state.done + 1,
            kernels=kernels,
            log_w=planned.log_w,
            log_evidence=planned.log_evidence,
            following=np.array([m.following for m in moved]),
            pending=np.array([step_weight(m.current, m.following) for m in moved]),
            step_scales=np.array([m.step_scale for m in moved]),
            moves=(*state.moves, planned.moves),
            history=(*state.history, facts),
        )

    def rows_summary(self, rows: np.ndarray) -> Summary:
        """The scales and spectrum of the rows seen so far (the whole series' below
        ``FEWEST_ROWS`` rows)."""
        p = self.problem
        if rows.size < FEWEST_ROWS:
            return p.summary
        return InputSummaries.from_data(p.X[rows], p.y[rows])

    def _task(
        self,
        kernel: Kernel | None,
        current: float,
        rows: np.ndarray,
        following: np.ndarray,
        where: tuple[int, int],
        rows_summary: Summary | None = None,
        step_scale: float = PARAMETER_STEP,
    ) -> ParticleTask:
        return ParticleTask(
            self.problem, kernel, current, rows, following, (self.seed, *where), rows_summary,
            step_scale,
        )  # fmt: skip


def run_together(
    samplers: Sequence[Sampler],
    executor: Executor | None = None,
    states: tuple[SMCState, ...] | None = None,
    on_step: Callable[[tuple[SMCState, ...]], None] | None = None,
    planner: MovePlanner | None = None,
    elapsed: Callable[[], float] | None = None,
) -> tuple[SMCState, ...]:
    """Every data step of ``samplers`` (on the same steps), each step's tasks of all of them
    in one map on ``executor`` (serial by default), so that a pool stays busy; from
    ``states`` when given (a checkpoint's), telling ``on_step`` of each step; their final
    states. Each step's moves are the ``planner``'s (``smc_budget``; None: the settings'),
    decided before the step from the moves so far and the seconds ``elapsed`` gives."""
    executor = executor or SerialExecutor()
    if states is None:
        moved = _split(
            run_tasks(executor, [t for s in samplers for t in s.first_tasks()]), samplers
        )
        states = tuple(s.first_state(m) for s, m in zip(samplers, moved, strict=True))
        if on_step:
            on_step(states)
    while states[0].done < len(samplers[0].steps):
        moves = planner.moves(states[0].moves, elapsed() if elapsed else 0.0) if planner else None
        plans = [s.plan(state, moves) for s, state in zip(samplers, states, strict=True)]
        moved = _split(run_tasks(executor, [t for p in plans for t in p.tasks]), samplers)
        states = tuple(s.finish(p, m) for s, p, m in zip(samplers, plans, moved, strict=True))
        if on_step:
            on_step(states)
    return states


def _split(moved: list[Moved], samplers: Sequence[Sampler]) -> list[list[Moved]]:
    """``moved`` cut back into each sampler's tasks' results, in order."""
    out, start = [], 0
    for s in samplers:
        n = s.problem.settings.particles
        out.append(moved[start : start + n])
        start += n
    return out


def run_tasks(executor: Executor, tasks: list[ParticleTask]) -> list[Moved]:
    """Every task's result; a task whose worker was lost is run again here (its seed makes it
    the same)."""
    results = list(executor.map(move_particle, tasks))
    return [
        r if isinstance(r, Moved) else move_particle(t) for r, t in zip(results, tasks, strict=True)
    ]


def particles_of(state: SMCState) -> Particles:
    """The particles of a finished run's ``state``: kernels, normalised weights, the evidence
    estimate and the structure moves' acceptance rate."""
    acceptance = state.accepted / max(state.proposed, 1)
    return Particles(
        state.kernels, normalised(state.log_w), state.log_evidence, acceptance, state.history,
        state.moves,
    )  # fmt: skip


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
