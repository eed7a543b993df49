"""A level's finalists' intervals narrowed before the buffer chooses (issue 65).

With an engine whose capabilities include ``finalist_intervals`` (skc), the models the buffer
would keep (``buffer.keep``: the beam and those whose BIC intervals overlap the best) get the
engine's ``likelihood_interval`` on all the data, run on the executor; each new interval is
intersected with the model's own (both bound the same −log p(y)), the level is ranked again,
and the buffer then chooses from the narrowed intervals. Other models keep theirs: a narrowed
interval only moves down from its upper end and up from its lower one, so no model outside
the finalists can come to overlap the best.
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np

from abcd_cli.engines.base import Engine, NLLBounds
from abcd_cli.kernel_search.buffer import keep
from abcd_cli.kernel_search.scoring import Scored, Scorer
from abcd_cli.kernels import Kernel


@dataclass(frozen=True)
class IntervalTask:
    """One finalist's interval on the data (internal units), for a worker."""

    engine: Engine
    kernel: Kernel
    X: np.ndarray
    y: np.ndarray
    constant_mean: bool


def interval_of(task: IntervalTask) -> NLLBounds:
    """The engine's finalist interval (top-level, so that a process pool can run it)."""
    return task.engine.likelihood_interval(task.kernel, task.X, task.y, task.constant_mean)


def narrowed(
    scored: list[Scored],
    engine: Engine,
    executor: Executor,
    data: tuple[np.ndarray, np.ndarray, bool],
    scorer: Scorer,
    beam: int,
    size: int,
) -> list[Scored]:
    """``scored`` (best first) with the finalists' intervals narrowed and ranked again by upper
    end; unchanged for an engine without ``finalist_intervals``. ``data``: (X, y,
    constant_mean) of all the data."""
    if not engine.capabilities.finalist_intervals or not scored:
        return scored
    X, y, constant_mean = data
    chosen = [c for c in keep(scored, beam, size).models if c.width > 0]
    tasks = [IntervalTask(engine, c.kernel, X, y, constant_mean) for c in chosen]
    found = dict(zip((id(c) for c in chosen), executor.map(interval_of, tasks), strict=True))
    n = y.size
    out = []
    for c in scored:
        bounds = found.get(id(c))
        if bounds is None:
            out.append(c)
            continue
        new = scorer.scored(c.kernel, bounds.high, n, bounds)
        high = min(c.bic, new.bic)
        low = min(max(c.low, new.low), high)
        out.append(Scored(c.kernel, min(c.nll, new.nll), high, low if low < high else None))
    return sorted(out, key=lambda c: c.bic)
