"""The method "posterior" (``methods``): the greedy search's pool, weighed.

It runs the greedy searches of ``settings.seeds`` (``greedy.run_searches``), each keeping its
``pool`` of structures of lowest BIC, then weighs them: one search's pool here, several
searches' pools jointly (``joint``); how a pool is weighed is ``posterior``'s and
``weighing``'s. The result's model is the most probable structure as its search fitted it, and
its band is calibrated on the series' own past (``backtest.calibration_of``), that time added
to the search's. The greedy search knows nothing of the weighing: it only carries, in its
checkpoint, what this module saved of it, so that a resumed run weighs only the rest.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import replace
from pathlib import Path

import numpy as np

from abcd_cli.engines.base import Engine
from abcd_cli.execution.pool import SerialExecutor
from abcd_cli.kernel_search.backtest import calibration_of
from abcd_cli.kernel_search.candidate import Candidate, FitTask
from abcd_cli.kernel_search.checkpoint import checkpoint_paths
from abcd_cli.kernel_search.events import Events
from abcd_cli.kernel_search.greedy import Progress, Search, run_searches, sink
from abcd_cli.kernel_search.joint import JointWeighing
from abcd_cli.kernel_search.posterior import StructurePosterior, Weighed
from abcd_cli.kernel_search.records import SearchResult
from abcd_cli.kernel_search.settings import SearchSettings


def search(
    x: np.ndarray,
    y: np.ndarray,
    settings: SearchSettings,
    executor: Executor | None = None,
    progress: Progress | None = None,
    checkpoint: str | Path | None = None,
    resume: bool = False,
    fit_fn: Callable[[FitTask], Candidate] | None = None,
    engine: Engine | None = None,
    events: Events | None = None,
    x_names: Sequence[str] = (),
) -> SearchResult:
    """The posterior over the pool of the search (one seed) or the joint pool of the
    ``settings.seeds`` searches, calibrated; the arguments as ``greedy.search`` takes them."""
    searches, results = run_searches(
        x, y, settings, executor, progress, checkpoint, resume, fit_fn, engine, events, x_names
    )
    if settings.seeds == 1:
        result = weighed(searches[0])
    else:
        joint_path = checkpoint_paths(checkpoint, settings)[-1] if checkpoint else None
        emit = sink(progress, events, None)
        result = JointWeighing(searches, results, settings, joint_path, emit).run(resume)
    return calibrated(result, executor, x_names)


def weighed(finished: Search) -> SearchResult:
    """The result of ``finished`` (one search) with the posterior over its pool; its model
    is the structure of largest weight, as the search fitted it."""
    posterior = weigh_pool_of(finished)
    text = posterior.best.kernel.to_text()
    chosen = next(c for c in finished.pool if c.kernel.to_text() == text)
    return finished.result(chosen, posterior=posterior)


def weigh_pool_of(finished: Search) -> StructurePosterior:
    """The posterior over the pool of ``finished`` (``posterior``), each structure saved in
    the search's checkpoint as it is weighed, and its time added to the search's."""
    finished.begin_stage()
    started_part = time.perf_counter()  # the time not yet counted in ``elapsed``
    finished.event("stage", stage="weigh", total=len(finished.pool))

    def on_weighed(key: str, one: Weighed, done: int, total: int) -> None:
        nonlocal started_part
        finished.weighed[key] = one
        finished.elapsed += time.perf_counter() - started_part
        started_part = time.perf_counter()
        finished.save()
        finished.event("fit", stage="weigh", done=done, total=total)

    data, settings = finished.data, finished.settings
    posterior = data.weigh(
        finished.pool, settings, finished.engine, finished.fitter.executor, finished.weighed,
        on_weighed,
    )  # fmt: skip
    finished.elapsed += time.perf_counter() - started_part
    best = posterior.best
    finished.event(
        "posterior",
        total=len(finished.pool),
        chosen=(data.text(best.kernel, params=False), float(posterior.weights[0])),
    )
    return posterior


def calibrated(
    result: SearchResult, executor: Executor | None, x_names: Sequence[str]
) -> SearchResult:
    """``result`` with its band calibrated on the series' own past (its time added to the
    search's)."""
    calibration = calibration_of(result, executor or SerialExecutor(), x_names)
    seconds = 0.0 if calibration is None else calibration.seconds
    return replace(
        result, calibration=calibration, elapsed_seconds=result.elapsed_seconds + seconds
    )
