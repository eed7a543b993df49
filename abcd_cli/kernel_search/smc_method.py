"""The method "smc" (``methods``): the sequential Monte Carlo sampler (``smc``) run on a series
and its particles given as the one result record every method gives.

The sampler runs on the series in the search's internal units (``SearchData``), with the
settings' ``particles``, ``data_steps``, ``first_points``, ``structure_moves`` and
``parameter_moves`` (``SMCSettings.of``), its random numbers from the settings' seed alone.
It runs as two independent halves (``smc_halves``), each of half the particles from its own
seeds; the result is their union, each half weighed by its evidence estimate, and how far they
disagree (``agreement``; its log evidence estimates in user units) is part of the record
(``StructurePosterior.halves``), which the search notes state and the model file keeps, as
it keeps the run's trace by data step (``StructurePosterior.steps``, ``smc_trace``). The
union's weighted particles are grouped by their tree (the same structure written the same way,
so that their parameter vectors line up): each group is one ``Weighed`` structure whose draws
are its particles' parameters with their own weights (``Weighed.draw_weights``); its weight is
the sum of theirs, and it has no BIC and no evidence of its own (the sampler estimates the
evidence of the whole run only). The result's model is
the particle of largest weight in the most probable structure, scored on all the data.

Each particle's moves in a data step are one task on the executor the search gets (``smc``).
With a checkpoint, the sampler's state is saved after every data step (``smc_checkpoint``) and
``resume`` goes on from it to the uninterrupted run's result; each finished data step is a
"data step" event (``events``): its points so far and its most probable structure.

The moves each data step makes are the settings', their ``moves_plan``, or, with a ``budget``
of seconds, what the time left allows (``smc_budget``, timed by ``clock``); with a budget the
result's settings hold the plan the run used (``moves_plan``), so that they give the result
again, and the search notes say when the budget forced fewer moves or was passed anyway.

Not yet (issue 64, part 2): the exact engine only, one sampler (two halves) whatever ``seeds``
says.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import fields, replace
from pathlib import Path

import numpy as np

from abcd_cli.engines import get_engine
from abcd_cli.engines.base import Engine
from abcd_cli.errors import InputError, RunError
from abcd_cli.kernel_search.agreement import agreement
from abcd_cli.kernel_search.candidate import Candidate, FitTask
from abcd_cli.kernel_search.checkpoint import checkpoint_paths
from abcd_cli.kernel_search.events import Events, SearchEvent
from abcd_cli.kernel_search.evidence import log_likelihood
from abcd_cli.kernel_search.greedy import sink
from abcd_cli.kernel_search.posterior import StructurePosterior, Weighed
from abcd_cli.kernel_search.records import SearchResult
from abcd_cli.kernel_search.search_data import SearchData
from abcd_cli.kernel_search.settings import BUDGET_FIELDS, SAMPLER_SETTINGS, SearchSettings
from abcd_cli.kernel_search.smc import Particles, SMCSettings, particles_of
from abcd_cli.kernel_search.smc_budget import MovePlanner
from abcd_cli.kernel_search.smc_checkpoint import load_sampler, save_sampler
from abcd_cli.kernel_search.smc_halves import Halves, HalvesState, union
from abcd_cli.kernel_search.smc_trace import union_steps
from abcd_cli.kernel_search.structure_prior import StructurePrior
from abcd_cli.kernels import Kernel

#: The prior over structures the record names, in a reader's words (``structure_prior``).
PRIOR = (
    "a grammar that builds each structure at random from the base kernels, sums, products and"
    " changes, larger structures and changes inside changes being less likely"
)


def search(
    x: np.ndarray,
    y: np.ndarray,
    settings: SearchSettings,
    executor: Executor | None = None,
    progress: Callable[[str], None] | None = None,
    checkpoint: str | Path | None = None,
    resume: bool = False,
    fit_fn: Callable[[FitTask], Candidate] | None = None,
    engine: Engine | None = None,
    events: Events | None = None,
    x_names: Sequence[str] = (),
    clock: Callable[[], float] = time.perf_counter,
) -> SearchResult:
    """The sampler's particles on y(x) as a ``SearchResult`` (see the module docstring); the
    arguments as ``infer.Method`` takes them (the fit function is not used), and the
    ``clock`` (seconds) that a time budget is measured by."""
    if settings.seeds > 1:
        raise InputError("--method smc runs one sampler; --seeds applies to the other methods")
    unread = unread_settings(settings)
    if unread:
        raise InputError(
            f"--method smc does not read {', '.join('--' + n.replace('_', '-') for n in unread)}:"
            " the sampler draws its structures"
            " from its own prior; these settings apply to the other methods"
        )
    started = clock()
    engine = engine or get_engine("exact")
    data = SearchData.prepare(x, y, settings, x_names)
    sampler = Halves(
        data.X, data.Y, data.full_summary, engine, StructurePrior(), SMCSettings.of(settings),
        settings.seed,
    )  # fmt: skip
    path = checkpoint_paths(checkpoint, settings)[0] if checkpoint else None
    emit = sink(progress, events, None)
    saved = load_sampler(path, settings, len(sampler.steps), x, y) if path and resume else None
    state, before = saved if saved else (None, 0.0)
    if state is not None and emit:
        emit(SearchEvent("resumed", level=state[0].done, stage="sampler"))
    planner = move_planner(settings, sampler)

    def elapsed() -> float:
        return before + clock() - started

    def on_step(done: HalvesState) -> None:
        seconds = elapsed()
        if path is not None:
            save_sampler(path, done, seconds, settings, x, y)
        if emit and done[0].done:
            emit(step_event(done, sampler, seconds))

    halves = sampler.run(executor, state, on_step, planner, elapsed)
    found = agreement(*halves, names=data.x_names)
    user = tuple(-data.scaling.nll_out(-v, data.n) for v in found.log_evidence)  # user units
    found = replace(found, log_evidence=(user[0], user[1]))
    steps = union_steps(
        halves[0].history, halves[1].history, sampler.sizes,
        lambda log_z, points: -data.scaling.nll_out(-log_z, points),
    )  # fmt: skip
    record = replace(particle_record(union(*halves)), halves=found, steps=tuple(steps))
    best = record.best.kernel
    log_l = log_likelihood(engine, best, data.X, data.Y, data.constant_mean)
    if not np.isfinite(log_l):
        raise RunError("the sampler's most probable particle could not be scored on the data")
    model = data.model(data.scorer.scored(best, -log_l, data.n), engine)
    n = data.n
    seconds = elapsed()
    if settings.budget is not None:  # the plan decides the result
        settings = replace(settings, moves_plan=halves[0].moves)
    return SearchResult(model, [], settings, seconds, n, n, posterior=record)


def unread_settings(settings: SearchSettings) -> list[str]:
    """The settings given other than their defaults that the sampler does not read (all but
    ``SAMPLER_SETTINGS`` and ``BUDGET_FIELDS``; ``inducing`` is the engine's, set with it)."""
    default = SearchSettings()
    read = {*SAMPLER_SETTINGS, *BUDGET_FIELDS, "seeds", "inducing"}
    return [
        f.name
        for f in fields(SearchSettings)
        if f.name not in read and getattr(settings, f.name) != getattr(default, f.name)
    ]


def move_planner(settings: SearchSettings, sampler: Halves) -> MovePlanner:
    """What decides each data step's moves (``smc_budget``): the settings' moves, their
    ``moves_plan``, or what their ``budget`` allows; InputError when the plan does not have
    one entry per data step of this run."""
    try:
        return MovePlanner(
            (settings.structure_moves, settings.parameter_moves),
            tuple(int(rows.size) for rows in sampler.steps),
            settings.budget,
            settings.moves_plan,
        )
    except ValueError as exc:
        raise InputError(str(exc)) from None


def step_event(state: HalvesState, sampler: Halves, seconds: float) -> SearchEvent:
    """The "data step" event of a finished step: its points and the halves' union's most
    probable structure."""
    k, n = state[0].done, sampler.samplers[0].problem.y.size
    record = particle_record(union(*(particles_of(half) for half in state)))
    chosen = (record.structures[0].kernel.to_text(params=False), float(record.weights[0]))
    return SearchEvent(
        "data step", level=k, depth=len(sampler.steps), done=int(sampler.steps[k - 1].size),
        total=n, seconds=seconds, chosen=chosen,
    )  # fmt: skip


def particle_record(particles: Particles) -> StructurePosterior:
    """The sampler's ``particles`` grouped by tree, most probable structure first (the first
    of equals in the particles' order), each structure's particle of largest weight first."""
    groups: dict[str, list[tuple[Kernel, float]]] = {}
    for kernel, weight in zip(particles.kernels, particles.weights, strict=True):
        groups.setdefault(kernel.to_text(params=False), []).append((kernel, float(weight)))
    totals = {key: sum(w for _, w in members) for key, members in groups.items()}
    order = sorted(groups, key=lambda key: -totals[key])
    structures, weights = [], []
    for key in order:
        members = sorted(groups[key], key=lambda member: -member[1])
        own = np.array([w for _, w in members])
        theta = np.array([k.theta() for k, _ in members]).reshape(len(members), -1)
        shares = own / own.sum() if own.sum() > 0 else np.full(own.size, 1.0 / own.size)
        structures.append(Weighed(members[0][0], None, -np.inf, theta, None, draw_weights=shares))
        weights.append(totals[key])
    w = np.array(weights)
    draws = max(s.theta.shape[0] for s in structures)
    return StructurePosterior(structures, w / w.sum(), draws, PRIOR)
