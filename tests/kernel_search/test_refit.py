"""Refitting a structure on more data from its values: its starts, its seed, its fallback."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from dataclasses import replace

import numpy as np

from abcd_cli.engines import get_engine
from abcd_cli.engines.base import FAILED_NLL
from abcd_cli.execution.pool import SerialExecutor
from abcd_cli.kernel_search.candidate import Candidate
from abcd_cli.kernel_search.refit import JITTER, STARTS, refit, refit_task
from abcd_cli.kernel_search.search_data import SearchData
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels.text import parse_kernel

SETTINGS = SearchSettings(seed=4)
KERNEL = parse_kernel("SE(lengthscale=0.5, sd=1.0) + WN(sd=0.4)")
EXACT = get_engine("exact")


def _data() -> SearchData:
    rng = np.random.default_rng(0)
    x = np.linspace(0.0, 6.0, 40)
    return SearchData.prepare(x, np.sin(x) + 0.2 * rng.standard_normal(40), SETTINGS)


def test_a_refit_starts_at_the_values_and_near_them_one_seed_one_set() -> None:
    data = _data()
    task = refit_task(KERNEL, data, SETTINGS, EXACT)
    assert task.kernel == KERNEL and len(task.alternatives) == STARTS - 1
    assert task.polish == STARTS and task.X is data.X  # every start optimised on all the data
    moves = np.array([k.theta() - KERNEL.theta() for k in task.alternatives])
    assert np.all(moves != 0) and np.all(np.abs(moves) < 5 * JITTER)
    assert refit_task(KERNEL, data, SETTINGS, EXACT).alternatives == task.alternatives
    other = refit_task(KERNEL, data, replace(SETTINGS, seed=5), EXACT)
    assert other.alternatives != task.alternatives


def test_a_refit_is_no_worse_than_the_values_it_starts_from() -> None:
    data = _data()
    (done,) = refit([KERNEL], data, SETTINGS, EXACT, SerialExecutor())
    at_values = EXACT.objective_value(KERNEL, data.X, data.Y)
    assert done.kept_values == "" and done.scored is not None
    assert done.scored.nll <= data.scorer.user_nll(at_values, data.n) + 1e-9
    assert done.scored.kernel != KERNEL


class _Failing(Executor):
    """Every fit fails, as a candidate whose optimiser broke."""

    def map(self, fn: Callable, *iterables: Iterable, timeout=None, chunksize=1):  # type: ignore[override]
        (tasks,) = iterables
        return [Candidate(t.kernel, FAILED_NLL, "failed", "boom") for t in tasks]


def test_a_failed_refit_keeps_the_values_scored_on_all_the_data() -> None:
    data = _data()
    (kept,) = refit([KERNEL], data, SETTINGS, EXACT, _Failing())
    assert kept.kept_values == "failed (boom)" and kept.scored is not None
    assert kept.scored.kernel == KERNEL
    at_values = EXACT.objective_value(KERNEL, data.X, data.Y)
    assert kept.scored.nll == data.scorer.user_nll(at_values, data.n)
