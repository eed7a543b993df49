"""Weighing the structures of the posterior (``posterior``): each one's Laplace evidence and
its chain of parameter draws, one task per structure on the search's executor.

The chain: ``WARMUP`` adapting steps, then ``STEPS`` kept ones thinned to ``draws``
(``parameter_chain``). A structure's random numbers come from the seed and its structure
alone, as a candidate's fit does; a numerical failure is its result, never an exception.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from abcd_cli.data.summary import Summary
from abcd_cli.engines.base import Engine
from abcd_cli.kernel_search.candidate import entropy
from abcd_cli.kernel_search.evidence import laplace
from abcd_cli.kernel_search.parameter_chain import posterior_draws
from abcd_cli.kernel_search.posterior import LOST, StructurePosterior, Weighed, ranked
from abcd_cli.kernel_search.scoring import Scored, Scorer
from abcd_cli.kernel_search.settings import MAX_DRAWS
from abcd_cli.kernels import Kernel

#: The chain's adapting steps, and the steps kept after them (thinned to ``draws``, at most
#: as many): the settings the candidate-pool study measured
#: (benchmarks/studies/candidate_mixture.py).
WARMUP = 200
STEPS = MAX_DRAWS


@dataclass(frozen=True)
class WeighTask:
    """One structure to weigh: its fitted kernel and the search's data (internal units)."""

    kernel: Kernel
    X: np.ndarray
    y: np.ndarray
    summary: Summary
    draws: int
    entropy: tuple[int, ...]
    constant_mean: bool
    engine: Engine


def weigh(task: WeighTask) -> tuple[float, np.ndarray, float, int, str]:
    """The internal-unit log evidence of ``task``'s structure, its draws of theta, their
    acceptance rate and the eigenvalues floored; a numerical failure gives −inf and no draws
    with its message, never an exception (a failed structure must not end the posterior)."""
    try:
        rng = np.random.default_rng(np.random.SeedSequence(list(task.entropy)))
        with threadpool_limits(limits=1, user_api="blas"):
            approx = laplace(
                task.kernel, task.X, task.y, task.summary, task.engine, task.constant_mean
            )
            if not math.isfinite(approx.log_evidence):
                return -math.inf, _none(task), 0.0, approx.floored, "its evidence is not finite"
            drawn, chain = posterior_draws(
                approx,
                task.X,
                task.y,
                task.engine,
                task.draws,
                rng,
                STEPS,
                WARMUP,
                task.constant_mean,
            )
    except Exception as exc:  # noqa: BLE001 - one structure's failure must not end the rest
        return -math.inf, _none(task), 0.0, 0, f"{type(exc).__name__}: {exc}"
    theta = np.array([k.theta() for k in drawn]).reshape(-1, task.kernel.n_params)
    return approx.log_evidence, theta, chain.acceptance, approx.floored, ""


def _none(task: WeighTask) -> np.ndarray:
    return np.zeros((0, task.kernel.n_params))


def lost_weigh(task: WeighTask) -> tuple[float, np.ndarray, float, int, str]:
    """The result recorded for a structure whose worker process died twice (a resumed search
    weighs it again: ``Weighed.lost``)."""
    return -math.inf, _none(task), 0.0, 0, LOST


def weigh_pool(
    pool: list[Scored],
    X: np.ndarray,
    y: np.ndarray,
    summary: Summary,
    scorer: Scorer,
    seed: int,
    draws: int,
    engine: Engine,
    executor: Executor,
    done: dict[str, Weighed] | None = None,
    on_weighed: Callable[[str, Weighed, int, int], None] | None = None,
) -> StructurePosterior:
    """Weigh every structure of ``pool`` (the search's best, in internal units; see the
    module) on ``executor``; those in ``done`` (by kernel text, from a checkpoint) are not
    weighed again. ``on_weighed`` is told of each structure as it is weighed."""
    done = dict(done or {})
    n = int(y.size)
    todo = [s for s in pool if s.kernel.to_text() not in done]
    tasks = [
        WeighTask(
            s.kernel, X, y, summary, draws, entropy(seed, s.kernel), scorer.constant_mean, engine
        )
        for s in todo
    ]
    results = executor.map(weigh, tasks)
    for scored, task, result in zip(todo, tasks, results, strict=True):
        if not isinstance(result, tuple):  # the executor's record of a lost worker (a fit's)
            result = lost_weigh(task)
        log_evidence, theta, acceptance, floored, failure = result
        user = -scorer.user_nll(-log_evidence, n) if math.isfinite(log_evidence) else -math.inf
        weighed = Weighed(scored.kernel, scored.bic, user, theta, acceptance, floored, failure)
        key = scored.kernel.to_text()
        done[key] = weighed
        if on_weighed is not None:
            on_weighed(key, weighed, len(done), len(pool))
    structures = [done[s.kernel.to_text()] for s in pool]
    return ranked(structures, draws)
