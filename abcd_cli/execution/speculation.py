"""Fits started before the search knows it needs them, to keep workers busy at a stage's end.

A stage of the search (all candidates, then each family's finalists, ...) ends when its slowest
fit does; the next stage's fits are chosen from its results, so a worker that finishes early
waits. An executor that can *speculate* lets the search start, on such an idle worker, the
next-stage fit of the candidate that leads so far. If that candidate is chosen, its result is
taken as it is; if not, it is cancelled (or, once running, finishes unused). A fit's result
depends only on its task (the candidate's structure, values, data and random stream), so the
search chooses and scores exactly as without speculation: one seed, one result.

An executor speculates when it has ``workers`` (how many fits it runs at once) and
``speculate(fn, task)`` returning a :class:`Started`; the process pool and the Dask executor
do, the serial executor and executors from elsewhere do not.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any


@dataclass
class Started:
    """A fit running ahead of its stage."""

    done: Callable[[], bool]
    #: its result, or None when the worker running it died (the stage then fits it again)
    result: Callable[[], Any | None]
    cancel: Callable[[], Any]


def speculation_width(executor: Executor) -> int:
    """How many fits ``executor`` runs at once if it can speculate (more than one), else 0."""
    if not callable(getattr(executor, "speculate", None)):
        return 0
    width = workers(executor)
    return width if width > 1 else 0


def workers(executor: Executor) -> int:
    """How many fits ``executor`` runs at once (1 when it does not say)."""
    return int(getattr(executor, "workers", 1) or 1)
