"""Refitting structures a search chose on more data, from their values, without a new search.

Each structure is optimised on all the data (``SearchData``, in its internal units) by
L-BFGS-B from ``STARTS`` points: its current values, and copies with each optimiser coordinate
θ (log of a positive parameter, a raw location) moved by N(0, ``JITTER``²); every start is
optimised and the best kept (``fit_candidate``). The jitter comes from the seed and the
structure alone (``candidate.entropy`` and ``REFIT_STREAM``), so one seed gives one result,
serial or on any executor. A refit that fails, or reaches values the search would reject
(``init.invalid_reason``), leaves the structure at its current values, scored on all the data.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, replace

import numpy as np

from abcd_cli.engines.base import FAILED_NLL, Engine
from abcd_cli.kernel_search.candidate import Candidate, FitTask, entropy, fit_candidate
from abcd_cli.kernel_search.scoring import Scored
from abcd_cli.kernel_search.search_data import SearchData
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels import Kernel

#: Starting points of a refit: the current values and ``STARTS - 1`` jittered copies.
STARTS = 3
#: The jitter's standard deviation on the optimiser's coordinates (0.1: about 10% of a
#: positive parameter; a tenth of the input's standard deviation for a location).
JITTER = 0.1
#: Tells the refit's random stream apart from the search's stream of the same structure.
REFIT_STREAM = 0x5EF17


@dataclass(frozen=True)
class Refitted:
    """One structure refitted: its score on all the data (None: it could not be scored at
    all) and, when the refit was not used, what became of it ("failed (...)", "was refused
    (...)"; "" when it was used)."""

    scored: Scored | None
    kept_values: str = ""


def refit_task(
    kernel: Kernel, data: SearchData, settings: SearchSettings, engine: Engine
) -> FitTask:
    """The task refitting fitted ``kernel`` (``data``'s internal units) on all of ``data``
    from its values and ``STARTS - 1`` jittered copies, every start optimised."""
    rng = np.random.default_rng(
        np.random.SeedSequence([*entropy(settings.seed, kernel), REFIT_STREAM])
    )
    theta = kernel.theta()
    jittered = tuple(
        kernel.with_theta(theta + rng.normal(0.0, JITTER, theta.size)) for _ in range(STARTS - 1)
    )
    task = data.task(kernel, "all", settings, engine, 1, settings.max_iter, jittered)
    return replace(task, polish=STARTS)


def refit(
    kernels: Sequence[Kernel],
    data: SearchData,
    settings: Sequence[SearchSettings] | SearchSettings,
    engine: Engine,
    executor: Executor,
) -> list[Refitted]:
    """Each of ``kernels`` refitted on all of ``data`` (see the module docstring), on
    ``executor``; ``settings`` may give each kernel its own (a seed per kernel)."""
    each = [settings] * len(kernels) if isinstance(settings, SearchSettings) else list(settings)
    tasks = [refit_task(k, data, s, engine) for k, s in zip(kernels, each, strict=True)]
    results = executor.map(fit_candidate, tasks)
    return [scored_refit(task, result, data) for task, result in zip(tasks, results, strict=True)]


def scored_refit(task: FitTask, result: Candidate, data: SearchData) -> Refitted:
    """The refit's score, or the kernel's own at its current values when the refit failed
    or was rejected."""
    n = data.n
    if result.status == "ok" and result.bounds is not None:
        return Refitted(data.scorer.scored(result.kernel, result.nll, n, result.bounds))
    verb = "was refused" if result.status == "rejected" else "failed"
    reason = f"{verb} ({result.message})" if result.message else verb
    try:
        bounds = task.engine.score(task.kernel, task.X, task.y, task.constant_mean)
    except (ArithmeticError, ValueError, np.linalg.LinAlgError):
        return Refitted(None, reason)
    if not bounds.high < FAILED_NLL:  # NaN too
        return Refitted(None, reason)
    return Refitted(data.scorer.scored(task.kernel, bounds.high, n, bounds), reason)
