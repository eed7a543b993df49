"""The calibration studies' other ways of getting an origin's particles
(``benchmarks.studies.backtest_variants``), run through the product's backtest."""

from __future__ import annotations

import numpy as np

from abcd_cli.execution.pool import SerialExecutor
from abcd_cli.kernel_search.backtest import _particles, origins, run_backtest
from abcd_cli.kernel_search.engine_choice import resolve
from abcd_cli.kernel_search.search_data import SearchData
from abcd_cli.kernel_search.settings import SearchSettings
from benchmarks.studies.backtest_variants import WARM, WAYS
from tests.kernel_search.test_backtest import _errors, _series, _weighed_alone


def test_fixed_parameters_condition_the_full_data_draws_on_the_past_only() -> None:
    """ "fixed": at an origin t the full-data draws, as they are, forecast from the points
    before t alone (a point after t changes nothing there)."""
    text = "SE(lengthscale=2.0, sd=1.0) + WN(sd=0.3)"
    x, y = _series(2)
    data, posterior = _weighed_alone(text, x, y)
    settings, engine = resolve(SearchSettings(method="posterior", draws=8), x.size)
    fixed = WAYS["fixed"]
    b = run_backtest(x, y, data.scaling, posterior, settings, engine, SerialExecutor(), (), fixed)
    t = origins(x, b.horizon)[0]
    past = SearchData.prepare(x[:t], y[:t], settings)
    user = [data.scaling.kernel_out(k) for k in _particles(posterior, 0)[1:]]
    kernels = [past.scaling.kernel_in(k) for k in user]
    after = (x > x[t - 1]) & (x <= x[t - 1] + b.horizon)
    w = np.full(len(kernels), 1.0 / len(kernels))
    expected = _errors(kernels, past, engine, w, x[after], y[after])
    np.testing.assert_allclose(b.z[: expected.size], expected)
    y_later = y.copy()
    y_later[t:] += 5.0  # the future moves; the first origin's forecast must not
    moved = run_backtest(
        x, y_later, data.scaling, posterior, settings, engine, SerialExecutor(), (), fixed
    )
    np.testing.assert_allclose(
        moved.z[: expected.size], _errors(kernels, past, engine, w, x[after], y_later[after])
    )


def test_reweighing_at_each_origin_forecasts_every_point_of_each_horizon() -> None:
    """ "reweigh": each origin's structures weighed again on its points still give one finite
    error per forecast point, at the same horizons as the warm refits."""
    x, y = _series(4)
    data, posterior = _weighed_alone("SE(lengthscale=2.0, sd=1.0) + WN(sd=0.3)", x, y)
    settings, engine = resolve(SearchSettings(method="posterior", draws=8), x.size)
    runs = {
        way: run_backtest(
            x, y, data.scaling, posterior, settings, engine, SerialExecutor(), (), WAYS[way]
        )
        for way in (WARM, "reweigh")
    }
    np.testing.assert_allclose(runs["reweigh"].h, runs[WARM].h)
    assert np.all(np.isfinite(runs["reweigh"].z))
    assert not np.allclose(runs["reweigh"].z, runs[WARM].z)
