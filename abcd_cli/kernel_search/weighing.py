"""Weighing the structures of the posterior (``posterior``): each one's Laplace evidence and
its chain of parameter draws, as tasks on the search's executor, in two rounds.

1. Every structure's Laplace approximation at its posterior's mode (``evidence.laplace``).
2. The structures of the smallest set holding 1 − ``posterior.NEGLIGIBLE`` of the weight those
   evidences give get a chain: ``WARMUP`` adapting steps, then ``STEPS`` kept ones thinned to
   ``draws`` (``parameter_chain``), and their evidence is the Laplace one corrected by
   importance sampling from the chain's own proposals (``evidence.chain_importance``: the
   chain evaluated their p(y | θ) p(θ) already, so the correction costs no evaluation). The
   others keep their Laplace evidence and no draws: the chains are most of the weighing's
   time, and theirs would move at most ``NEGLIGIBLE`` of the weight.

A structure's random numbers come from the seed and its structure alone, as a candidate's fit
does, and the first round is deterministic, so a resumed weighing (whose structures already
weighed keep their Laplace evidence) chooses the same chains; should a worker die in the first
round, no chain runs and only the lost structure is saved (``Weighed.lost``: weighed again on
resuming), so the resumed weighing decides with every evidence. A numerical failure is its
result, never an exception.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, replace

import numpy as np
from threadpoolctl import threadpool_limits

from abcd_cli.data.summary import Summary
from abcd_cli.engines.base import Engine
from abcd_cli.kernel_search.candidate import entropy
from abcd_cli.kernel_search.evidence import Laplace, chain_importance, laplace, normalised
from abcd_cli.kernel_search.parameter_chain import posterior_draws
from abcd_cli.kernel_search.posterior import (
    LOST,
    NEGLIGIBLE,
    StructurePosterior,
    Weighed,
    holding,
    ranked,
)
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
    """One structure to weigh: its fitted kernel and the search's data (internal units);
    ``approx``, its Laplace approximation, once the first round has made it."""

    kernel: Kernel
    X: np.ndarray
    y: np.ndarray
    summary: Summary
    draws: int
    entropy: tuple[int, ...]
    constant_mean: bool
    engine: Engine
    approx: Laplace | None = None


#: One structure's result: its internal-unit log evidence (−inf when it failed), its draws of
#: theta, their acceptance rate, the eigenvalues floored, why it failed ("" when it did not),
#: and its Laplace evidence (internal units).
Result = tuple[float, np.ndarray, float, int, str, float]


def approximate(task: WeighTask) -> Laplace | str:
    """The first round: ``task``'s Laplace approximation, or why it failed (a numerical
    failure, or an evidence that is not finite), never an exception."""
    try:
        with threadpool_limits(limits=1, user_api="blas"):
            approx = laplace(
                task.kernel, task.X, task.y, task.summary, task.engine, task.constant_mean
            )
    except Exception as exc:  # noqa: BLE001 - one structure's failure must not end the rest
        return f"{type(exc).__name__}: {exc}"
    return approx if math.isfinite(approx.log_evidence) else "its evidence is not finite"


def weigh(task: WeighTask) -> Result:
    """The second round: ``task``'s chain from its Laplace approximation (``task.approx``)
    and the evidence it corrects; a numerical failure gives −inf and no draws with its
    message, never an exception (a failed structure must not end the posterior)."""
    approx = task.approx
    if approx is None:
        raise ValueError("weigh needs the task's Laplace approximation (approximate's)")
    try:
        rng = np.random.default_rng(np.random.SeedSequence(list(task.entropy)))
        with threadpool_limits(limits=1, user_api="blas"):
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
        failure = f"{type(exc).__name__}: {exc}"
        return -math.inf, _none(task), 0.0, 0, failure, approx.log_evidence
    theta = np.array([k.theta() for k in drawn]).reshape(-1, task.kernel.n_params)
    corrected = chain_importance(approx, chain)
    return corrected, theta, chain.acceptance, approx.floored, "", approx.log_evidence


def unchained(approx: Laplace | str, task: WeighTask) -> Result:
    """The result of a structure that gets no chain: its Laplace evidence and no draws, or its
    first round's failure."""
    if isinstance(approx, str):
        return -math.inf, _none(task), 0.0, 0, approx, -math.inf
    return approx.log_evidence, _none(task), 0.0, approx.floored, "", approx.log_evidence


def _none(task: WeighTask) -> np.ndarray:
    return np.zeros((0, task.kernel.n_params))


def lost_weigh(task: WeighTask) -> Result:
    """The result recorded for a structure whose worker process died twice (a resumed search
    weighs it again: ``Weighed.lost``)."""
    return -math.inf, _none(task), 0.0, 0, LOST, -math.inf


def chained(laplace_evidence: dict[str, float]) -> set[str]:
    """The structures (by kernel text) that get a chain: the smallest set holding
    1 − ``NEGLIGIBLE`` of the weight their Laplace evidences give (−inf: none)."""
    keys = list(laplace_evidence)
    weights = normalised(np.array([laplace_evidence[k] for k in keys]))
    if not np.any(weights > 0):
        return set()
    order = np.argsort(-weights, kind="stable")
    return {keys[i] for i in order[: holding(weights, 1.0 - NEGLIGIBLE)] if weights[i] > 0}


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
    approxes = [
        a if isinstance(a, Laplace | str) else LOST for a in executor.map(approximate, tasks)
    ]
    # one unit for all: the user's shift of log p(y) is the same for every structure
    evidence = {key: w.laplace_evidence for key, w in done.items()}
    for scored, approx in zip(todo, approxes, strict=True):
        internal = approx.log_evidence if isinstance(approx, Laplace) else -math.inf
        evidence[scored.kernel.to_text()] = _user(scorer, internal, n)
    keep = chained(evidence)
    by_key = {s.kernel.to_text(): s for s in todo}
    # which structures get a chain depends on every Laplace evidence: with one lost, none is
    # decided now (each keeps its Laplace evidence, unsaved), and a resumed weighing decides
    lost = any(a is LOST for a in approxes)

    def record(key: str, result: Result, final: bool = True) -> None:
        log_evidence, theta, acceptance, floored, failure, first = result
        scored = by_key[key]
        user = _user(scorer, log_evidence, n)
        done[key] = Weighed(
            scored.kernel, scored.bic, user, theta, acceptance, floored, failure,
            _user(scorer, first, n),
        )  # fmt: skip
        if on_weighed is not None and final:
            on_weighed(key, done[key], len(done), len(pool))

    chains = []
    for task, approx in zip(tasks, approxes, strict=True):
        key = task.kernel.to_text()
        if key in keep and isinstance(approx, Laplace) and not lost:
            chains.append(replace(task, approx=approx))
        else:
            record(key, unchained(approx, task), final=approx is LOST or not lost)
    for task, result in zip(chains, executor.map(weigh, chains), strict=True):
        # not a tuple: the executor's record of a lost worker (a fit's)
        record(task.kernel.to_text(), result if isinstance(result, tuple) else lost_weigh(task))
    structures = [done[s.kernel.to_text()] for s in pool]
    return ranked(structures, draws)


def _user(scorer: Scorer, log_evidence: float, n: int) -> float:
    """An internal-unit log evidence in the user's units (−inf stays)."""
    return -scorer.user_nll(-log_evidence, n) if math.isfinite(log_evidence) else -math.inf
