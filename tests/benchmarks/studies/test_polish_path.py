"""The polish path: it keeps the iterates asked for, each objective's BIC bounds the exact one
from above (both are upper bounds on −log p(y)), CGLB is the tighter, and polishing on CGLB
lowers its own objective, also with its first step shortened."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from abcd_cli.execution.pool import SerialExecutor
from abcd_cli.kernel_search.greedy import Search
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels.text import parse_kernel
from benchmarks.studies.level_split import exact_bic
from benchmarks.studies.polish_path import polish_path


@pytest.mark.parametrize("scale", [1.0, 0.05])
def test_the_path_keeps_its_iterates_and_every_objective_bounds_the_exact_bic(scale):
    rng = np.random.default_rng(2)
    x = np.arange(300.0)
    y = np.sin(x / 15.0) + 0.3 * rng.standard_normal(x.size)
    search = Search(x, y, SearchSettings(engine="skc", inducing=15), executor=SerialExecutor())
    start = search.data.scaling.kernel_in(parse_kernel("SE(lengthscale=30, sd=1) + WN(sd=0.5)"))
    engine = replace(search.engine, bound="cglb")
    points = polish_path(search, start, engine, [1, 3], exact_bic, scale)
    assert [p.iteration for p in points][:2] == [0, 1]
    assert points[0].evaluations == 0 and points[-1].evaluations >= points[-1].iteration
    for p in points:
        assert p.bic_exact <= p.bic_cglb + 1e-6 <= p.bic_titsias + 2e-6
    assert points[-1].bic_cglb < points[0].bic_cglb
    assert points[0].bic_exact == pytest.approx(exact_bic(search, start))
