"""A rolling-origin backtest of the weighed posterior on the series' own past (issue 62).

At each forecast origin t inside the data, the structures holding the posterior's weight are
refitted from their fitted values on the points before the origin (``warm_task``: one warm
start, no new search), their parameter draws moved with them and widened by √(N/t) (the
posterior of t points is wider than that of all N), and their mixture forecasts the points after
the origin up to the report's horizon. Each error is standardised by the mixture's own spread
there, z = (y − m̄) / s̄ (m̄ and s̄ the mixture's mean and sd, noise included,
``prediction.mixture_moments``), and kept with its horizon h = x − x_{t−1}, in the input's units.

The origins (``origins``): every t whose training part keeps at least half the points
(``MIN_TRAIN_SHARE``) and whose whole horizon lies inside the data, x_{t−1} + H ≤ x_N; at most
``MAX_ORIGINS`` of them, evenly spread, the last as late as allowed. The horizon H is the
report's: ``HORIZON_SHARE`` of the input's range past the data (``decompose``'s
``extrapolate``). Too short a series (under ``MIN_POINTS`` points) or too few origins (under
``MIN_ORIGINS``) give no backtest, with the reason.

Cost (profiled in benchmarks/studies/calibration.py): at most ``MAX_STRUCTURES`` structures (the
most probable, holding ``STRUCTURE_MASS`` of the weight), refitted from their values, and
``DRAWS_PER_STRUCTURE`` of each one's draws conditioned per origin. Both run on the search's
executor: the refits as fit tasks, then each origin's particles of one structure as an
``OriginTask`` (one BLAS thread, so serial and parallel runs agree to the last bit); only the
mixing is done here.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, replace

import numpy as np
from threadpoolctl import threadpool_limits

from abcd_cli.arrays import as_2d, evenly_spread
from abcd_cli.calibration import Calibration, calibrate
from abcd_cli.data.scaling import Scaling
from abcd_cli.engines.base import Engine, PosteriorError
from abcd_cli.kernel_search.candidate import FitTask, fit_candidate
from abcd_cli.kernel_search.engine_choice import resolve
from abcd_cli.kernel_search.posterior import StructurePosterior, holding, spaced_rows
from abcd_cli.kernel_search.records import SearchResult
from abcd_cli.kernel_search.search_data import SearchData
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels import Kernel
from abcd_cli.model import Model
from abcd_cli.prediction import mixture_moments

#: The report's forecast horizon as a share of the time input's range (``decompose``'s
#: ``extrapolate``).
HORIZON_SHARE = 0.2
#: An origin keeps at least this share of the points before it.
MIN_TRAIN_SHARE = 0.5
#: At most this many origins, evenly spread over those allowed.
MAX_ORIGINS = 8
#: Fewer origins than this: no calibration (a band's errors would come from too few forecasts).
MIN_ORIGINS = 4
#: Fewer points than this: no backtest.
MIN_POINTS = 24
#: The structures refitted at each origin: the most probable holding this much of the weight...
STRUCTURE_MASS = 0.9
#: ... and at most this many.
MAX_STRUCTURES = 3
#: Each structure's parameter draws conditioned at an origin (evenly spread over its chain).
DRAWS_PER_STRUCTURE = 8

#: One group of an origin's particles conditioned together (one task): their kernels, in the
#: internal units of the origin's data, and their weights in the origin's mixture.
Mixture = tuple[list[Kernel], list[float]]


@dataclass(frozen=True)
class Backtest:
    """The backtest's standardised errors ``z`` and their horizons ``h`` (input units), the
    horizon H it forecast over, the origins' x (the last point before each origin), and the
    seconds it took."""

    horizon: float
    origins: list[float]
    h: np.ndarray
    z: np.ndarray
    seconds: float


def forecast_horizon(x: np.ndarray) -> float:
    """The report's horizon past the data: ``HORIZON_SHARE`` of x's range."""
    return HORIZON_SHARE * float(np.ptp(x))


def origins(x: np.ndarray, horizon: float) -> list[int]:
    """The origins t of sorted ``x`` (each trains on x[:t]): t ≥ ⌈N·MIN_TRAIN_SHARE⌉ with
    x[t−1] + ``horizon`` ≤ x[N−1] and a point after it; at most ``MAX_ORIGINS`` of them, evenly
    spread over those allowed, the first and the last allowed always among them."""
    n = x.size
    first = max(math.ceil(n * MIN_TRAIN_SHARE), 2)
    allowed = [t for t in range(first, n) if x[t - 1] + horizon <= x[-1] + 1e-12 * abs(x[-1])]
    return [allowed[i] for i in evenly_spread(len(allowed), MAX_ORIGINS)]


def absent_reason(x: np.ndarray, n_dims: int) -> str:
    """Why a series gives no backtest ("" when it gives one)."""
    if n_dims > 1:
        return (
            "the data have several inputs and no forecast origin along time; a calibration by"
            " folds of the rows is not made"
        )
    if x.size < MIN_POINTS:
        return f"the series has {x.size} points, fewer than the {MIN_POINTS} a backtest needs"
    found = len(origins(np.sort(x), forecast_horizon(x)))
    if found < MIN_ORIGINS:
        return (
            f"only {found} forecast origins leave the whole horizon inside the data, fewer than"
            f" the {MIN_ORIGINS} a calibration needs"
        )
    return ""


def held_structures(posterior: StructurePosterior) -> tuple[list[int], np.ndarray]:
    """The positions of the structures refitted at each origin (the most probable holding
    ``STRUCTURE_MASS`` of the weight, at most ``MAX_STRUCTURES``) and their weights, summing
    to one."""
    k = min(holding(posterior.weights, STRUCTURE_MASS), MAX_STRUCTURES)
    w = posterior.weights[:k]
    return list(range(k)), w / w.sum()


def draw_rows(count: int) -> np.ndarray:
    """``DRAWS_PER_STRUCTURE`` rows evenly spread over a chain of ``count`` draws, the first and
    the last among them (all of them when fewer; ``posterior.spaced_rows``)."""
    return spaced_rows(count, DRAWS_PER_STRUCTURE, ends=True)[0]


@dataclass(frozen=True)
class Origins:
    """What the origins' particles are made from: the held structures (``held_structures``),
    each at its fitted values then at ``draw_rows`` of its draws (``user``: a row per structure,
    user units), their weights (summing to one), the origins t, each origin's data (its points
    before t, ``SearchData``), the series' length N, and the search's settings, engine and
    executor."""

    user: list[list[Kernel]]
    weights: np.ndarray
    ts: list[int]
    datas: list[SearchData]
    n: int
    settings: SearchSettings
    engine: Engine
    executor: Executor


#: How the origins' particles get their parameters: for each origin, the groups of particles
#: it mixes (``Mixture``), their weights summing to one over the origin. The product's is
#: ``warm_particles``; a study may pass another.
OriginParticles = Callable[[Origins], list[list[Mixture]]]


def warm_tasks(context: Origins) -> list[FitTask]:
    """The warm refit of each held structure at each origin (origin-major, ``warm_task``)."""
    return [
        warm_task(d.scaling.kernel_in(row[0]), d, context.settings, context.engine)
        for d in context.datas
        for row in context.user
    ]


def warm_particles(context: Origins) -> list[list[Mixture]]:
    """Each origin's particles: each held structure refitted warm on the points before the
    origin (on the executor), its draws moved with the refit and widened by √(N/t)
    (``_moved``; the start kept where a refit failed), its weight shared among them."""
    tasks = warm_tasks(context)
    results = list(context.executor.map(fit_candidate, tasks))
    k = len(context.user)
    mixtures = []
    for o, (t, data) in enumerate(zip(context.ts, context.datas, strict=True)):
        groups = []
        for s, row in enumerate(context.user):
            result, start = results[o * k + s], tasks[o * k + s].kernel
            fitted = result.kernel if result.status == "ok" else start
            mine = _moved(row, fitted, data.scaling, math.sqrt(context.n / t))
            groups.append((mine, [float(context.weights[s]) / len(mine)] * len(mine)))
        mixtures.append(groups)
    return mixtures


def run_backtest(
    x: np.ndarray,
    y: np.ndarray,
    scaling: Scaling,
    posterior: StructurePosterior,
    settings: SearchSettings,
    engine: Engine,
    executor: Executor,
    x_names: Sequence[str] = (),
    particles: OriginParticles = warm_particles,
) -> Backtest:
    """The backtest of ``posterior`` (kernels in ``scaling``'s internal units) on the series
    (x, y) of one input (see the module docstring); the origins' particles are made by
    ``particles`` (the product's: ``warm_particles``), refits and conditioning on
    ``executor``. Call :func:`absent_reason` first: here the origins are assumed to be
    enough."""
    started = time.perf_counter()
    order = np.argsort(np.asarray(x, dtype=float).ravel(), kind="stable")
    xs, ys = np.asarray(x, dtype=float).ravel()[order], np.asarray(y, dtype=float)[order]
    horizon = forecast_horizon(xs)
    ts = origins(xs, horizon)
    chosen, weights = held_structures(posterior)
    user = [[scaling.kernel_out(k) for k in _particles(posterior, i)] for i in chosen]
    datas = [SearchData.prepare(xs[:t], ys[:t], settings, x_names) for t in ts]
    mixtures = particles(Origins(user, weights, ts, datas, xs.size, settings, engine, executor))
    afters = [
        np.flatnonzero((xs > xs[t - 1]) & (xs <= xs[t - 1] + horizon * (1 + 1e-12))) for t in ts
    ]
    # each origin's particles (one task per origin and group) conditioned on the executor
    condition_tasks = [
        OriginTask(
            tuple(kernels), data.scaling, data.x, data.y, data.constant_mean, engine, xs[after]
        )
        for data, after, groups in zip(datas, afters, mixtures, strict=True)
        for kernels, _ in groups
    ]
    conditioned = executor.map(origin_moments, condition_tasks)
    moments = iter([_as_moments(m, c) for m, c in zip(conditioned, condition_tasks, strict=True)])
    hs, zs = [], []
    for t, after, groups in zip(ts, afters, mixtures, strict=True):
        mine = [next(moments) for _ in groups]
        means = np.concatenate([m for m, _ in mine])
        sds = np.concatenate([s for _, s in mine])
        w = np.concatenate([np.asarray(w, dtype=float) for _, w in groups])
        hs.append(xs[after] - xs[t - 1])
        zs.append(_mixed(means, sds, w, ys[after]))
    h, z = np.concatenate(hs), np.concatenate(zs)
    keep = np.isfinite(z)
    return Backtest(
        horizon, [float(xs[t - 1]) for t in ts], h[keep], z[keep], time.perf_counter() - started
    )


def warm_task(
    kernel: Kernel, data: SearchData, settings: SearchSettings, engine: Engine
) -> FitTask:
    """The task refitting fitted ``kernel`` on all of ``data`` from its values alone: one
    start, warm (a refit's jittered starts, ``refit.refit_task``, cost three times as much, and
    the origin's data differ from the whole by a few points)."""
    task = data.task(kernel, "all", settings, engine, 1, settings.max_iter)
    return replace(task, polish=1)


def _particles(posterior: StructurePosterior, i: int) -> list[Kernel]:
    """Structure ``i`` at its fitted values, then at ``draw_rows`` of its draws."""
    s = posterior.structures[i]
    return [s.kernel, *(s.kernel.with_theta(s.theta[r]) for r in draw_rows(s.theta.shape[0]))]


def _moved(user: list[Kernel], fitted: Kernel, scaling: Scaling, spread: float) -> list[Kernel]:
    """The draws of a structure (``user[1:]``, user units; ``user[0]`` its fitted values)
    centred on the refit and widened by ``spread``: θ_j' = θ_refit + spread·(θ_j − θ̂) on the
    optimiser's coordinates of the origin's internal units (spread = √(N/t): a posterior's sd
    shrinks as 1/√n, and the origin has t of the N points); the refitted kernel alone when the
    structure has no draws."""
    if len(user) == 1:
        return [fitted]
    centre = scaling.kernel_in(user[0]).theta()
    return [
        fitted.with_theta(fitted.theta() + spread * (scaling.kernel_in(k).theta() - centre))
        for k in user[1:]
    ]


@dataclass(frozen=True)
class OriginTask:
    """One origin's particles of one structure (``kernels``, internal units of ``scaling``) to
    condition on the points before the origin (``x``, ``y``, user units) and forecast at
    ``x_new``: a task for the search's executor (its arrays go to a Dask cluster once)."""

    kernels: tuple[Kernel, ...]
    scaling: Scaling
    x: np.ndarray
    y: np.ndarray
    constant_mean: bool
    engine: Engine
    x_new: np.ndarray


def origin_moments(task: OriginTask) -> tuple[np.ndarray, np.ndarray]:
    """Each particle's predictive mean and sd (noise included) at ``task.x_new``, rows in the
    particles' order; a particle that cannot be conditioned gets a row of NaN. One BLAS
    thread, so a pool's workers and this process give the same numbers."""
    means = np.full((len(task.kernels), task.x_new.size), math.nan)
    sds = means.copy()
    with threadpool_limits(limits=1, user_api="blas"):
        for row, kernel in enumerate(task.kernels):
            model = Model(
                kernel, task.scaling, task.x, task.y, math.nan, task.constant_mean, task.engine
            )
            try:
                with np.errstate(all="ignore"):
                    means[row], sds[row] = model.predict(as_2d(task.x_new))
            except (PosteriorError, np.linalg.LinAlgError, ValueError):
                continue
    return means, sds


def _as_moments(result: object, task: OriginTask) -> tuple[np.ndarray, np.ndarray]:
    """``origin_moments``'s result, or rows of NaN where the executor lost the worker (its
    record of a lost task is not a pair of arrays)."""
    if isinstance(result, tuple) and len(result) == 2:
        return result
    lost = np.full((len(task.kernels), task.x_new.size), math.nan)
    return lost, lost.copy()


def _mixed(means: np.ndarray, sds: np.ndarray, weights: np.ndarray, y: np.ndarray) -> np.ndarray:
    """z = (y − m̄) / s̄ of the mixture of the particles' N(means[k], sds[k]²) with
    ``weights`` (renormalised over the particles whose rows are finite; NaN for all when none
    is)."""
    kept = np.all(np.isfinite(means), axis=1) & np.all(np.isfinite(sds), axis=1)
    if not np.any(kept):
        return np.full(y.size, math.nan)
    w = weights[kept]
    mean, sd = mixture_moments(means[kept], sds[kept], w / w.sum())
    return (y - mean) / sd


def calibration_of(
    result: SearchResult, executor: Executor, x_names: Sequence[str] = ()
) -> Calibration | None:
    """The calibration of a search's posterior on its data; None for a method that chose one
    model (its record a single particle: a greedy search)."""
    if result.particles.is_single:
        return None
    settings, engine = resolve(result.settings, result.model.n)
    return posterior_calibration(
        result.model, result.posterior, settings, engine, executor, x_names
    )


def posterior_calibration(
    model: Model,
    posterior: StructurePosterior,
    settings: SearchSettings,
    engine: Engine,
    executor: Executor,
    x_names: Sequence[str] = (),
) -> Calibration:
    """The calibration of ``posterior`` (internal units of ``model.scaling``) on ``model``'s
    data: the backtest's factors by horizon, or an absent calibration with its reason."""
    reason = absent_reason(model.X[:, 0], model.n_dims)
    if reason:
        return Calibration(reason=reason)
    b = run_backtest(
        model.x, model.y, model.scaling, posterior, settings, engine, executor, x_names
    )
    return calibrate(b.h, b.z, b.horizon, len(b.origins), seconds=b.seconds)
