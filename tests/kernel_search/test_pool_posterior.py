"""The method "posterior" as a sibling of greedy: greedy's search keeps a pool and weighs
nothing; this module weighs it."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.kernel_search import greedy, pool_posterior
from abcd_cli.kernel_search.greedy import Search
from abcd_cli.kernel_search.settings import SearchSettings

X = np.linspace(0.0, 4.0, 40)
SETTINGS = SearchSettings(depth=1, restarts=1, seed=2, method="posterior", pool=3, draws=4)


@pytest.fixture(scope="module")
def y() -> np.ndarray:
    return np.sin(3.0 * X) + 0.1 * np.random.default_rng(0).standard_normal(X.size)


def test_greedys_search_keeps_the_pool_and_weighs_nothing(y):
    result = greedy.search(X, y, SETTINGS)
    assert result.calibration is None
    # its record is its model alone: one particle of weight 1, at its fitted values
    assert result.particles.is_single and result.particles.best.kernel == result.model.kernel
    finished = Search(X, y, SETTINGS)
    finished.run()
    assert len(finished.pool) == 3 and finished.weighed == {}


def test_the_posterior_method_weighs_greedys_pool_and_chooses_its_most_probable(y):
    finished = Search(X, y, SETTINGS)
    finished.run()
    result = pool_posterior.weighed(finished)
    posterior = result.posterior
    assert posterior is not None and len(posterior.structures) == 3
    assert result.model.kernel.structure == posterior.best.kernel.structure
    assert sorted(finished.weighed) == sorted(c.kernel.to_text() for c in finished.pool)
