"""The peer benchmark: its time axis, its scores, each peer tool on a short synthetic series
(seconds each), and the resumable bookkeeping of its runs."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from benchmarks.accuracy import bench_peers
from benchmarks.accuracy.peers import runs, scores, timeaxis
from benchmarks.accuracy.peers.split import Forecast, Split, gaussian_forecast

PERIOD = 12
SYNTHETIC = "synthetic-monthly"


def monthly_series(n: int = 72, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """x in decimal years (mid-month), y a trend plus a yearly cycle plus noise."""
    rng = np.random.default_rng(seed)
    x = 2000 + (np.arange(n) + 0.5) / 12
    y = 50 + 0.3 * np.arange(n) + 8 * np.sin(2 * np.pi * np.arange(n) / 12) + rng.normal(0, 1, n)
    return x, y


def extrap_split() -> Split:
    x, y = monthly_series()
    return Split(SYNTHETIC, "extrap", x[:60], y[:60], x[60:], y[60:])


def interp_split() -> Split:
    x, y = monthly_series()
    order = np.random.default_rng(1).permutation(x.size)
    train, test = np.sort(order[:36]), np.sort(order[36:])
    return Split(SYNTHETIC, "interp", x[train], y[train], x[test], y[test])


@pytest.fixture(autouse=True)
def synthetic_period(monkeypatch):
    monkeypatch.setitem(timeaxis.SEASONAL_PERIODS, SYNTHETIC, PERIOD)


# ----------------------------------------------------------------------------- time axis


def test_upstream_dates_invert_the_datasets_conversion():
    x = np.array([1981 + 1 / 365, 1984 + 60 / 365, 2004 + (330 + 9.5 / 24) / 365, 1260 + 1 / 365])
    dates = timeaxis.upstream_dates(x)
    assert [str(d) for d in dates] == [
        "1981-01-01T00:00:00",
        "1984-02-29T00:00:00",
        "2004-11-25T09:30:00",
        "1260-01-01T00:00:00",
    ]


def test_grid_kinds_and_positions():
    mid_month = 1949 + (np.arange(24) + 0.5) / 12
    first_of_month = np.array([1962 + d / 365 for d in (1, 32, 60, 91, 121, 152)])
    days = np.array([1981 + d / 365 for d in (1, 2, 5, 365)] + [1982 + 1 / 365])
    hours = 2004 + (330 + np.array([0, 1, 2, 5]) / 24) / 365
    assert timeaxis.grid_kind(mid_month) == "month"
    assert timeaxis.grid_kind(np.arange(1500.0, 1510.0)) == "year"
    assert timeaxis.grid_kind(days) == "day"
    assert timeaxis.grid_kind(hours) == "hour"
    grid = timeaxis.make_grid(first_of_month[:4], first_of_month[4:])
    assert grid.train.tolist() == [0, 1, 2, 3] and grid.test.tolist() == [4, 5]
    assert timeaxis.make_grid(mid_month[::2], mid_month[1::2]).test.tolist() == list(
        range(1, 24, 2)
    )
    assert timeaxis.make_grid(days, days[:1]).train.tolist() == [0, 1, 4, 364, 365]
    assert timeaxis.make_grid(hours, hours[:1]).train.tolist() == [0, 1, 2, 5]


def test_on_grid_leaves_gaps_missing_and_averages_shared_cells():
    grid = timeaxis.Grid("month", np.array([0, 2, 2]), np.array([4]))
    values = timeaxis.on_grid(grid, np.array([1.0, 3.0, 5.0]))
    assert values[[0, 2]].tolist() == [1.0, 4.0]
    assert np.isnan(values[[1, 3, 4]]).all() and values.size == 5


# ----------------------------------------------------------------------------- scores


def test_scores_by_hand():
    forecast = Forecast(
        mean=np.zeros(4), lower=np.full(4, -1.0), upper=np.full(4, 2.0), sd=np.ones(4)
    )
    y = np.array([0.5, -0.5, 3.0, -2.0])
    s = scores.score(forecast, y)
    assert s.covered == 2 and s.coverage == 0.5
    assert s.rmse == pytest.approx(np.sqrt(np.mean(y**2)))
    assert s.mae == pytest.approx(1.5)
    # |y - mean| / half-width on each point's side: 0.25, 0.5, 1.5, 2.0
    assert s.width_factor == pytest.approx(np.percentile([0.25, 0.5, 1.5, 2.0], 95))
    assert s.mlpd == pytest.approx(np.mean(-0.5 * y**2 - 0.5 * np.log(2 * np.pi)))


def test_coverage_verdicts():
    assert scores.coverage_verdict(15, 15) == "about right"
    assert scores.coverage_verdict(8, 15) == "too narrow"
    assert scores.coverage_verdict(100, 100) == "too wide"
    assert scores.coverage_verdict(95, 100) == "about right"


def test_a_gaussian_forecast_covers_its_own_draws_at_95_percent():
    rng = np.random.default_rng(0)
    forecast = gaussian_forecast(np.zeros(4000), np.full(4000, 2.0))
    s = scores.score(forecast, rng.normal(0, 2.0, 4000))
    assert s.coverage == pytest.approx(0.95, abs=0.01)
    assert s.width_factor == pytest.approx(1.0, abs=0.05)


# ----------------------------------------------------------------------------- the peers


def check_forecast(forecast: Forecast, split: Split, gaussian: bool = True) -> None:
    n = split.x_test.size
    for values in (forecast.mean, forecast.lower, forecast.upper):
        assert values.shape == (n,) and np.isfinite(values).all()
    assert (forecast.lower < forecast.upper).all()
    assert (gaussian and forecast.sd is not None) or (not gaussian and forecast.sd is None)
    # a trend plus a yearly cycle with noise of sd 1: every tool should be within a few units
    assert scores.score(forecast, split.y_test).rmse < 10


@pytest.mark.parametrize("make", [extrap_split, interp_split])
def test_exponential_smoothing(make):
    from benchmarks.accuracy.peers import ets_peer

    split = make()
    forecast = ets_peer.forecast(split)
    check_forecast(forecast, split)
    assert "season 12" in forecast.detail


def test_a_test_point_sharing_a_training_cell_is_predicted_as_a_new_observation():
    from benchmarks.accuracy.peers import ets_peer

    x, y = monthly_series()
    train = np.arange(0, 72, 2)
    test = np.array([1, 3, 4, 10])  # x[4] and x[10] are also training points
    split = Split(SYNTHETIC, "interp", x[train], y[train], x[test], y[test] + 0.5)
    forecast = ets_peer.forecast(split)
    check_forecast(forecast, split)
    assert (forecast.sd > 0.1).all()
    assert "2 test points share a cell" in forecast.detail


@pytest.mark.parametrize("make", [extrap_split, interp_split])
def test_arima(make):
    from benchmarks.accuracy.peers import arima_peer

    split = make()
    forecast = arima_peer.forecast(split)
    check_forecast(forecast, split)
    form = "direct" if split.task == "extrap" else "state space with gaps"
    assert form in forecast.detail


def test_prophet():
    from benchmarks.accuracy.peers import prophet_peer

    split = extrap_split()
    forecast = prophet_peer.forecast(split)
    check_forecast(forecast, split, gaussian=False)
    assert "yearly" in forecast.detail


def test_prophet_takes_dates_before_1677():
    from benchmarks.accuracy.peers import prophet_peer

    x = np.arange(1260.0, 1300.0)
    y = np.linspace(0, 10, x.size)
    split = Split("old", "extrap", x[:36], y[:36], x[36:], y[36:])
    assert np.isfinite(prophet_peer.forecast(split).mean).all()


def test_sklearn_gp():
    from benchmarks.accuracy.peers import gp_peer

    split = interp_split()
    check_forecast(gp_peer.forecast(split), split)


# ----------------------------------------------------------------------------- the runs


def test_runs_append_resume_and_report(tmp_path, monkeypatch):
    calls = []

    def fake_forecaster(method):
        def forecast(split):
            calls.append((split.series, method))
            return gaussian_forecast(np.full(split.x_test.size, split.y_test.mean()), np.ones(2))

        return forecast

    split = Split(
        "01-airline",
        "extrap",
        np.arange(4.0),
        np.arange(4.0),
        np.array([5.0, 6.0]),
        np.array([5.0, 6.0]),
    )
    monkeypatch.setattr(runs, "forecaster", fake_forecaster)
    monkeypatch.setattr(runs, "load_split", lambda series, task: split)
    path = tmp_path / "results.csv"
    keys = [("01-airline", "extrap", "ets"), ("01-airline", "extrap", "arima")]
    runs.run_all(keys, path, say=lambda line: None)
    runs.run_all(keys + [("01-airline", "extrap", "abcd")], path, say=lambda line: None)
    assert calls == [("01-airline", "ets"), ("01-airline", "arima"), ("01-airline", "abcd")]
    with path.open() as f:
        rows = list(csv.DictReader(f))
    assert [r["method"] for r in rows] == ["ets", "arima", "abcd"]
    assert all(r["status"] == "ok" and r["covered"] == "2" for r in rows)
    text = bench_peers.markdown(runs.read_rows(path), "cmd", bench_peers.METHODS, tmp_path)
    assert "`abcd` not yet run on 25 splits" in text
    assert "### Summary on the 0 series where every method ran" in text


def test_a_peer_past_its_time_limit_is_recorded_as_a_timeout(monkeypatch):
    import time

    def slow_forecaster(method):
        def forecast(split):
            time.sleep(5)

        return forecast

    split = Split("01-airline", "extrap", np.arange(4.0), np.arange(4.0), np.ones(1), np.ones(1))
    monkeypatch.setattr(runs, "forecaster", slow_forecaster)
    monkeypatch.setattr(runs, "load_split", lambda series, task: split)
    row = runs.run_one(("01-airline", "extrap", "arima"), time_limit=1)
    assert row["status"] == "timeout" and float(str(row["seconds"])) < 3
