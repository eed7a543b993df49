"""Fitting one candidate structure: runs in a worker process, so it is top-level, picklable,
receives everything it needs in a ``FitTask`` and never raises.

The result's ``nll`` is the upper end of the engine's bounds on −log p(y) at the fitted values
(the exact engine's bounds coincide with its objective); the search ranks by it.
"""

from __future__ import annotations

import time
import zlib
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from abcd_cli.data.summary import Summary
from abcd_cli.engines.base import FAILED_NLL, Engine, NLLBounds
from abcd_cli.kernel_search.fit import DEFAULT_ENGINE, fit
from abcd_cli.kernel_search.init import invalid_reason
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.algebra import structure_key


@dataclass(frozen=True)
class FitTask:
    kernel: Kernel
    X: np.ndarray
    y: np.ndarray
    summary: Summary
    limits: Summary  # the full data's scales, for the validity check
    restarts: int
    polish: int
    max_iter: int
    entropy: tuple[int, ...]
    alternatives: tuple[Kernel, ...] = ()  # further fitted starts, ranked with the others
    constant_mean: bool = False  # integrate a flat-prior constant mean out of the likelihood
    engine: Engine = DEFAULT_ENGINE


@dataclass(frozen=True)
class Candidate:
    kernel: Kernel  # fitted, internal units
    nll: float  # internal units, on the task's data: the upper end of ``bounds``
    status: str  # "ok", "failed" or "rejected"
    message: str = ""
    seconds: float = 0.0
    bounds: NLLBounds | None = None  # the engine's bounds on −log p(y); None when not fitted
    evaluations: int = 0  # of the objective, by the optimiser and the ranking of starts


def fit_candidate(task: FitTask) -> Candidate:
    """Fit one structure; a numerical failure is reported in the result, never raised."""
    start = time.perf_counter()
    try:
        rng = np.random.default_rng(np.random.SeedSequence(list(task.entropy)))
        # Matrices here are small: one BLAS thread each; the pool gives the parallelism.
        with threadpool_limits(limits=1, user_api="blas"):
            res = fit(
                task.kernel,
                task.X,
                task.y,
                rng,
                restarts=task.restarts,
                summary=task.summary,
                max_iter=task.max_iter,
                polish=task.polish,
                also_from=task.alternatives,
                constant_mean=task.constant_mean,
                engine=task.engine,
            )
            bounds = (
                task.engine.score(res.kernel, task.X, task.y, task.constant_mean, res.nll)
                if res.ok
                else None
            )
    except Exception as exc:  # noqa: BLE001 - one candidate's failure must not end the search
        return Candidate(task.kernel, FAILED_NLL, "failed", f"{type(exc).__name__}: {exc}")
    seconds = time.perf_counter() - start
    if bounds is None:
        return Candidate(
            task.kernel,
            FAILED_NLL,
            "failed",
            "no start could be optimised",
            seconds,
            evaluations=res.n_evaluations,
        )
    reason = invalid_reason(res.kernel, task.limits)
    status = "rejected" if reason else "ok"
    return Candidate(res.kernel, bounds.high, status, reason, seconds, bounds, res.n_evaluations)


def lost_candidate(task: FitTask) -> Candidate:
    """The result recorded for a candidate whose worker process died twice."""
    return Candidate(task.kernel, FAILED_NLL, "failed", "the worker process fitting it died")


def graft(unfitted: Kernel, fitted: Kernel) -> Kernel:
    """``unfitted``'s known values (inherited from a parent fitted on all the data) with
    ``fitted``'s values for its unknown ones. Optimising on a subset moves every parameter
    towards the subset's optimum, which can be far from the full data's; this start keeps
    the parent's full-data fit and takes from the subset only what it had to find."""
    known = unfitted.values()
    return unfitted.with_values(np.where(np.isfinite(known), known, fitted.values()))


#: A period within this relative distance of k times a periodogram peak counts as k times it.
HARMONIC_TOLERANCE = 0.03
#: The largest multiple k of a peak that ``harmonic_starts`` moves back to the peak.
MAX_HARMONIC = 5


def harmonic_starts(kernel: Kernel, summary: Summary) -> tuple[Kernel, ...]:
    """Copies of ``kernel`` (fitted) with one periodic term's period P moved to a periodogram
    peak p of its input, for each term with P = k·p, k = 2..``MAX_HARMONIC`` (within
    ``HARMONIC_TOLERANCE``). The strongest peak that P is 1 to 5 times decides: a P at a
    peak itself stays.

    A kernel of period k·p holds every function of period p, so an optimiser that reaches the
    multiple stays there: a local optimum it cannot leave by small steps. At 3·10⁴ hourly
    points a search kept a 21-day period for a 7-day cycle; the same model refitted from 7
    days was 192 nats likelier on all the data
    (benchmarks/long_series/outputs/long_series_notes.md)."""
    values = kernel.values()
    starts = []
    for i, (spec, dim) in enumerate(kernel.param_specs()):
        if spec.name != "period":
            continue
        for peak in summary.for_dim(dim).periods:  # strongest first
            k = round(values[i] / peak)
            if not 1 <= k <= MAX_HARMONIC or abs(values[i] / (k * peak) - 1) > HARMONIC_TOLERANCE:
                continue
            if k > 1:
                moved = values.copy()
                moved[i] = peak
                starts.append(kernel.with_values(moved))
            break
    return tuple(starts)


def entropy(seed: int, kernel: Kernel) -> tuple[int, ...]:
    """The random stream of one candidate: the seed and its structure, nothing else."""
    return (seed, zlib.crc32(structure_key(kernel).encode()))
