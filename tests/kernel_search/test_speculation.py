"""Fits started ahead of their stage (``execution.speculation``): the search chooses and scores
exactly as without them, takes those it needs, refits those whose worker died, and the process
pool's early fits survive a worker's death."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import pytest

from abcd_cli.execution.pool import ResilientPool
from abcd_cli.execution.speculation import Started, speculation_width
from abcd_cli.kernel_search.candidate import FitTask, lost_candidate
from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.settings import SearchSettings
from tests.cli.test_failures_and_interrupts import die_once_fit, result_doc, series

SETTINGS = SearchSettings(depth=2, restarts=2, seed=3, patience=0)
#: a long series in miniature: screened on a subset, refined with skc in two phases
SKC = SearchSettings(
    depth=1, restarts=2, seed=1, engine="skc", inducing=30, subset_size=60, patience=0
)


class Ahead(Executor):
    """A serial executor that says it has two workers (one: it never speculates) and runs
    each early fit at once, recording what it was asked for; the first ``lose`` early fits
    come back as lost workers."""

    def __init__(self, lose: int = 0, workers: int = 2):
        self.workers = workers
        self.mapped: list[FitTask] = []
        self.early: list[FitTask] = []
        self.cancelled = 0
        self.lose = lose

    def map(self, fn: Callable, *iterables: Iterable, timeout=None, chunksize=1) -> Iterator[Any]:
        for task in iterables[0]:
            self.mapped.append(task)
            yield fn(task)

    def speculate(self, fn: Callable, task: FitTask) -> Started:
        self.early.append(task)
        result = None if len(self.early) <= self.lose else fn(task)

        def cancel() -> None:
            self.cancelled += 1

        return Started(lambda: True, lambda: result, cancel)


def _doc(settings: SearchSettings, executor: Executor | None = None, n: int = 80) -> str:
    x, y = series(n, seed=2)
    return json.dumps(result_doc(run_search(x, y, settings, executor=executor)))


@pytest.mark.parametrize("settings", [SETTINGS, SKC], ids=["exact", "skc with a subset"])
def test_early_fits_change_nothing_and_are_taken_when_chosen(settings) -> None:
    n = 200 if settings.engine == "skc" else 80
    serial = _doc(settings, n=n)
    ahead = Ahead()
    assert _doc(settings, ahead, n=n) == serial
    assert ahead.early, "no fit was started early"
    # every early fit either replaced one the stage would have mapped or was cancelled
    calls = len(ahead.mapped) + len(ahead.early) - ahead.cancelled
    counting = Ahead(workers=1)
    assert speculation_width(counting) == 0
    assert _doc(settings, counting, n=n) == serial
    assert calls == len(counting.mapped)
    if settings.engine == "skc":
        stages = {t.max_iter for t in ahead.early}
        assert settings.refine_iter - 15 in stages  # the finishing phase started early


def test_an_early_fit_whose_worker_died_is_fitted_again() -> None:
    serial = _doc(SETTINGS)
    ahead = Ahead(lose=2)
    assert _doc(SETTINGS, ahead) == serial
    assert len(ahead.early) > 2


def converging(task: FitTask) -> bool:
    """A fit to convergence (one restart): with two workers, the first one starts early."""
    return task.restarts == 1


def test_the_pool_survives_a_worker_dying_in_an_early_fit(tmp_path: Path) -> None:
    x, y = series(80, seed=2)
    serial = json.dumps(result_doc(run_search(x, y, SETTINGS)))
    pool = ResilientPool(2, on_lost=lost_candidate)
    try:
        fit_fn = functools.partial(die_once_fit, marker=str(tmp_path / "died"), kills=converging)
        result = run_search(x, y, SETTINGS, executor=pool, fit_fn=fit_fn)
    finally:
        pool.shutdown()
    assert (tmp_path / "died").exists() and pool.replaced >= 1
    assert json.dumps(result_doc(result)) == serial
