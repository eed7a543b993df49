"""statsmodels' exponential smoothing in its state-space form: additive errors, a damped
additive trend, and additive seasonality where the series has a known period
(``timeaxis.SEASONAL_PERIODS``).

The training points are put on the series' regular grid (months, years, days or hours) with
every other cell missing, up to the last test point; the Kalman filter skips the missing cells,
so one model serves both tasks: at a test cell inside the data (interpolation) the prediction is
the smoothed one, from the points on both sides; past the data (extrapolation) it is the
forecast. The predictive is Gaussian, its variance including the observation error."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from benchmarks.accuracy.peers.split import Forecast, Split, gaussian_forecast
from benchmarks.accuracy.peers.timeaxis import SEASONAL_PERIODS, filled, make_grid, on_grid


def forecast(split: Split) -> Forecast:
    """Fit the damped-trend (seasonal) model on the grid; predict the test cells."""
    from statsmodels.tsa.statespace.exponential_smoothing import ExponentialSmoothing

    grid = make_grid(split.x_train, split.x_test)
    endog = on_grid(grid, split.y_train)
    period = SEASONAL_PERIODS.get(split.series)

    def model(values: np.ndarray) -> ExponentialSmoothing:
        return ExponentialSmoothing(values, trend=True, damped_trend=True, seasonal=period)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence chatter of the optimiser
        # its own starting values need every cell: take them from the gap-filled values
        start = model(filled(endog)).start_params
        result = model(endog).fit(start_params=start, disp=False)
    return smoothed_prediction(result, endog, grid.test, describe(grid.kind, period, endog))


def smoothed_prediction(result: Any, endog: np.ndarray, cells: np.ndarray, detail: str) -> Forecast:
    """The Gaussian predictive of a new y at grid ``cells`` of a fitted state-space model, given
    every observation (smoothed: forecasts past the data, interpolations inside it).

    A cell holds one observation: where a test point shares its cell with a training point (two
    x on the same hour), the model's prediction there would be that observation itself, with no
    error; such cells are left out of the smoothing (the same parameters, the cell missing), so
    that the test point is predicted as a new observation."""
    shared = ~np.isnan(endog[cells])
    if shared.any():
        masked = endog.copy()
        masked[cells] = np.nan
        result = result.apply(masked)
        detail += f"; {int(shared.sum())} test points share a cell with a training point"
    n = int(result.model.nobs)
    pred = result.get_prediction(start=0, end=n - 1, information_set="smoothed")
    mean = np.asarray(pred.predicted_mean)[cells]
    var = np.asarray(pred.var_pred_mean)[cells]
    return gaussian_forecast(mean, np.sqrt(np.maximum(var, 0.0)), detail)


def describe(kind: str, period: int | None, endog: np.ndarray) -> str:
    """The grid and season, e.g. ``month grid, 180 cells (18 missing), season 12``."""
    missing = int(np.isnan(endog).sum())
    season = f"season {period}" if period else "no season"
    return f"{kind} grid, {endog.size} cells ({missing} without data), {season}"
