"""The level-split study: the state it rebuilds from a finished search's trace makes the search
fit the same candidates at the next level as the search did, and choose the same best."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.execution.pool import SerialExecutor
from abcd_cli.kernel_search.greedy import Search
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels.text import parse_kernel
from benchmarks.studies.level_split import rebuilt

SETTINGS = SearchSettings(
    depth=2, beam=1, restarts=2, max_iter=30, screen_iter=10, refine_iter=10, engine="skc",
    inducing=12, bases=("SE", "Per", "C", "WN"),
)  # fmt: skip


@pytest.fixture(scope="module")
def finished() -> tuple[np.ndarray, np.ndarray, list[dict]]:
    """A small skc search run to its end: its data and its trace."""
    rng = np.random.default_rng(4)
    x = np.arange(90.0) / 10.0
    y = np.sin(2.0 * np.pi * x / 1.5) + 0.3 * x + 0.1 * rng.standard_normal(x.size)
    run = Search(x, y, SETTINGS, executor=SerialExecutor())
    run.run()
    return x, y, [record.to_dict() for record in run.trace]


def test_the_rebuilt_state_gives_the_runs_next_level(finished):
    x, y, trace = finished
    again = Search(x, y, SETTINGS, executor=SerialExecutor())
    rebuilt(again, trace, 2)
    assert again.level == 1 and len(again.parents) == 1
    again.step()
    assert again.trace[-1].candidates == trace[2]["candidates"]
    assert again.trace[-1].structure == trace[2]["structure"]


def test_the_trace_s_parent_reads_back_in_full_and_another_parent_can_stand_in(finished):
    x, y, trace = finished
    again = Search(x, y, SETTINGS, executor=SerialExecutor())
    rebuilt(again, trace, len(trace) - 1)
    assert again.data.user_text(again.parents[0].kernel) == trace[-2]["kernel"]
    other = trace[-2]["kernel"].replace("sd=", "sd=1", 1)
    rebuilt(again, trace, len(trace) - 1, other)
    assert again.data.user_text(again.parents[0].kernel) != trace[-2]["kernel"]
    assert again.parents[0].kernel.structure == parse_kernel(other).structure
