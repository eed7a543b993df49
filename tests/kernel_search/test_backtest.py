"""The rolling-origin backtest of a posterior on the series' own past
(``kernel_search.backtest``): its origins, its standardised errors, and the calibration it
gives a structure that is wrong (wider) and one that is right (about unchanged)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from abcd_cli.calibration import FLOOR, calibrate
from abcd_cli.execution.pool import ResilientPool, SerialExecutor
from abcd_cli.kernel_search.backtest import (
    MAX_ORIGINS,
    OriginTask,
    _mixed,
    absent_reason,
    draw_rows,
    forecast_horizon,
    origin_moments,
    origins,
    run_backtest,
)
from abcd_cli.kernel_search.candidate import lost_candidate
from abcd_cli.kernel_search.engine_choice import resolve
from abcd_cli.kernel_search.posterior import StructurePosterior
from abcd_cli.kernel_search.refit import refit
from abcd_cli.kernel_search.search_data import SearchData
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model
from abcd_cli.prediction import mixture_moments


def test_origins_keep_half_the_points_and_the_whole_horizon_inside_the_data() -> None:
    x = np.arange(100.0)
    ts = origins(x, 20.0)
    # allowed: 50 <= t and x[t-1] + 20 <= 99, i.e. t <= 80; eight of the 31, evenly spread
    assert ts[0] == 50 and ts[-1] == 80 and len(ts) == MAX_ORIGINS
    assert ts == sorted(set(ts))
    gaps = np.diff(ts)
    assert gaps.max() - gaps.min() <= 1


def test_every_allowed_origin_is_taken_when_they_are_few() -> None:
    x = np.arange(30.0)
    assert origins(x, 10.0) == [15, 16, 17, 18, 19, 20]


def test_a_short_series_or_too_few_origins_gives_the_reason() -> None:
    assert "fewer than the 24" in absent_reason(np.arange(20.0), 1)
    gapped = np.r_[np.arange(15.0), 100 + np.arange(15.0)]  # one origin leaves the horizon in
    assert "only 1 forecast origins" in absent_reason(gapped, 1)
    assert "several inputs" in absent_reason(np.arange(60.0), 2)
    assert absent_reason(np.arange(60.0), 1) == ""
    assert forecast_horizon(np.arange(11.0)) == pytest.approx(2.0)


def _errors(
    kernels: list[Kernel],
    data: SearchData,
    engine: object,
    w: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
) -> np.ndarray:
    """The backtest's z at (x, y) of the mixture of ``kernels`` conditioned on ``data``."""
    task = OriginTask(tuple(kernels), data.scaling, data.x, data.y, data.constant_mean, engine, x)
    means, sds = origin_moments(task)
    return _mixed(means, sds, w, y)


def _data(x: np.ndarray, y: np.ndarray) -> tuple[SearchData, SearchSettings, object]:
    settings, engine = resolve(SearchSettings(method="posterior", draws=8), x.size)
    return SearchData.prepare(x, y, settings), settings, engine


def test_errors_are_standardised_by_the_mixtures_own_spread() -> None:
    rng = np.random.default_rng(0)
    x = np.arange(40.0)
    y = np.sin(x / 4) + 0.1 * rng.standard_normal(x.size)
    data, _, engine = _data(x, y)
    kernels = [
        data.scaling.kernel_in(parse_kernel(t))
        for t in (
            "SE(lengthscale=4.0, sd=1.0) + WN(sd=0.1)",
            "SE(lengthscale=9.0, sd=2.0) + WN(sd=0.3)",
        )
    ]
    models = [
        Model(k, data.scaling, data.x, data.y, math.nan, data.constant_mean, engine)
        for k in kernels
    ]
    x_new, y_new = np.array([40.0, 42.0, 45.0]), np.array([0.5, -0.2, 1.0])
    one = _errors(kernels[:1], data, engine, np.array([1.0]), x_new, y_new)
    mean, sd = models[0].predict(x_new[:, None])
    np.testing.assert_allclose(one, (y_new - mean) / sd)
    w = np.array([0.3, 0.7])
    both = _errors(kernels, data, engine, w, x_new, y_new)
    moments = [m.predict(x_new[:, None]) for m in models]
    mix_mean, mix_sd = mixture_moments(
        np.array([m for m, _ in moments]), np.array([s for _, s in moments]), w
    )
    np.testing.assert_allclose(both, (y_new - mix_mean) / mix_sd)


def _weighed_alone(
    text: str, x: np.ndarray, y: np.ndarray
) -> tuple[SearchData, StructurePosterior]:
    """The structure ``text`` (user units) refitted on (x, y) and weighed alone: a posterior
    of one structure with its parameters' draws."""
    data, settings, engine = _data(x, y)
    executor = SerialExecutor()
    (fitted,) = refit(
        [data.scaling.kernel_in(parse_kernel(text))], data, settings, engine, executor
    )
    posterior = data.weigh([fitted.scored], settings, engine, executor)
    return data, posterior


def _factors(text: str, x: np.ndarray, y: np.ndarray, floor: float) -> tuple[float, ...]:
    data, posterior = _weighed_alone(text, x, y)
    settings, engine = resolve(SearchSettings(method="posterior", draws=8), x.size)
    b = run_backtest(x, y, data.scaling, posterior, settings, engine, SerialExecutor())
    assert len(b.origins) == MAX_ORIGINS and np.all(b.h > 0) and np.all(b.h <= b.horizon + 1e-9)
    return calibrate(b.h, b.z, b.horizon, len(b.origins), floor=floor).factors


def test_a_structure_blind_to_the_trend_gets_a_wider_band() -> None:
    """A level and noise forecast the mean so far; on a steady trend they miss by far more
    than their band says, the more so the further ahead."""
    rng = np.random.default_rng(1)
    x = np.arange(60.0)
    y = 0.5 * x + rng.standard_normal(x.size)
    factors = _factors("C(sd=5.0) + WN(sd=1.0)", x, y, floor=0.0)
    assert factors[-1] > 1.5 and factors[-1] > factors[0]


def test_a_well_specified_draw_keeps_its_band_within_15_percent() -> None:
    """A draw of the model class itself, fitted and weighed with its true structure: its band
    is honest, and the calibration changes it by less than 15% (issue 62)."""
    text = "SE(lengthscale=2.0, sd=1.0) + WN(sd=0.3)"
    x = np.arange(80.0) / 2
    kernel = parse_kernel(text)
    gram = kernel.gram(x[:, None]) + 1e-9 * np.eye(x.size)
    y = np.linalg.cholesky(gram) @ np.random.default_rng(0).standard_normal(x.size)
    factors = _factors(text, x, y, FLOOR)
    assert max(abs(f - 1) for f in factors) < 0.15, factors
    assert all(math.isfinite(f) for f in factors)


def _series(seed: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.arange(60.0) / 2
    y = np.sin(x / 2) + 0.3 * np.random.default_rng(seed).standard_normal(x.size)
    return x, y


def test_the_backtest_of_one_seed_is_the_same_serial_and_on_a_pool() -> None:
    """The refits and the origins' conditioning run on the search's executor: a process pool
    of two workers gives the errors of the serial run, to the last bit."""
    x, y = _series(5)
    data, posterior = _weighed_alone("SE(lengthscale=2.0, sd=1.0) + WN(sd=0.3)", x, y)
    settings, engine = resolve(SearchSettings(method="posterior", draws=8), x.size)
    serial = run_backtest(x, y, data.scaling, posterior, settings, engine, SerialExecutor())
    pool = ResilientPool(2, lost_candidate)
    try:
        parallel = run_backtest(x, y, data.scaling, posterior, settings, engine, pool)
    finally:
        pool.shutdown()
    assert serial.z.size > 0
    np.testing.assert_array_equal(parallel.z, serial.z)
    np.testing.assert_array_equal(parallel.h, serial.h)


def test_the_origins_particles_are_conditioned_on_the_executor() -> None:
    """Every origin's particles go through the executor (none conditioned in this process):
    an executor that records its calls sees ``origin_moments`` once per origin and
    structure."""
    x, y = _series(6)
    data, posterior = _weighed_alone("SE(lengthscale=2.0, sd=1.0) + WN(sd=0.3)", x, y)
    settings, engine = resolve(SearchSettings(method="posterior", draws=8), x.size)
    seen: list[str] = []

    class Recording(SerialExecutor):
        def map(self, fn, *iterables, timeout=None, chunksize=1):  # noqa: ANN001
            items = list(iterables[0])
            seen.extend(fn.__name__ for _ in items)
            return super().map(fn, items)

    b = run_backtest(x, y, data.scaling, posterior, settings, engine, Recording())
    assert seen.count("origin_moments") == len(b.origins)


def test_a_chain_is_thinned_from_its_first_draw_to_its_last() -> None:
    """The backtest's rows of a chain (``draw_rows``, through ``posterior.spaced_rows``): the
    rows round(i (n − 1)/7), unlike the report's draws at the cumulative shares (i + ½)/8."""
    from abcd_cli.kernel_search.posterior import spaced_rows

    assert draw_rows(32).tolist() == [0, 4, 9, 13, 18, 22, 27, 31]
    assert draw_rows(20).tolist() == [0, 3, 5, 8, 11, 14, 16, 19]
    assert draw_rows(6).tolist() == list(range(6)) and draw_rows(0).size == 0
    assert spaced_rows(32, 8)[0].tolist() == list(range(1, 32, 4))
