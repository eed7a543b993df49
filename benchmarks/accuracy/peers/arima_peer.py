"""An automatically ordered seasonal ARIMA: pmdarima's ``auto_arima`` (stepwise search by AIC,
its default tests for the differencing orders), with the series' known seasonal period
(``timeaxis.SEASONAL_PERIODS``; none: a non-seasonal search).

Where the training points fill their grid without a gap and the test points all come after
them (extrapolation of a regularly sampled series), ``auto_arima`` fits the training values and
forecasts, as a user would run it. Otherwise (the interpolation task, Mauna Loa's missing months,
the irregularly subsampled daily and hourly series) the grid has gaps, which ``auto_arima``
cannot take: the order is chosen on the training values linearly interpolated across the gaps,
then that model (statsmodels' SARIMAX, a state-space form) is refitted on the grid with the
gaps left missing, and predicts every test cell from the points on both sides (Kalman
smoother). Both give a Gaussian predictive."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from benchmarks.accuracy.peers.ets_peer import describe, smoothed_prediction
from benchmarks.accuracy.peers.split import Forecast, Split, gaussian_forecast
from benchmarks.accuracy.peers.timeaxis import SEASONAL_PERIODS, Grid, filled, make_grid, on_grid

Z95 = 1.959963984540054


def forecast(split: Split) -> Forecast:
    """Order the ARIMA automatically; forecast directly or through the state-space form."""
    grid = make_grid(split.x_train, split.x_test)
    endog = on_grid(grid, split.y_train)
    period = SEASONAL_PERIODS.get(split.series)
    last = int(grid.train.max())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence chatter of statsmodels' optimiser
        if is_regular_forecast(grid, endog):
            return direct_forecast(endog[: last + 1], grid, period)
        return gap_forecast(endog, grid, period)


def is_regular_forecast(grid: Grid, endog: np.ndarray) -> bool:
    """True when the training points fill cells 0..last and every test cell comes later."""
    last = int(grid.train.max())
    return bool(not np.isnan(endog[: last + 1]).any() and grid.test.min() > last)


def order_search(y: np.ndarray, period: int | None) -> Any:
    """``auto_arima`` with its defaults and the seasonal period."""
    import pmdarima

    return pmdarima.auto_arima(
        y,
        seasonal=period is not None,
        m=period or 1,
        suppress_warnings=True,
        error_action="ignore",
    )


def direct_forecast(y: np.ndarray, grid: Grid, period: int | None) -> Forecast:
    """``auto_arima`` on the complete training values; its forecasts at the test cells."""
    model = order_search(y, period)
    steps = grid.test - (y.size - 1)  # 1 = the cell after the last training value
    mean, interval = model.predict(n_periods=int(steps.max()), return_conf_int=True, alpha=0.05)
    mean, interval = np.asarray(mean)[steps - 1], np.asarray(interval)[steps - 1]
    sd = (interval[:, 1] - interval[:, 0]) / (2 * Z95)
    return gaussian_forecast(mean, sd, f"{name(model)}; direct; " + describe(grid.kind, period, y))


def gap_forecast(endog: np.ndarray, grid: Grid, period: int | None) -> Forecast:
    """The order from the gap-filled training values; the state-space model on the grid with its
    gaps, smoothed predictions at the test cells."""
    first, last = int(grid.train.min()), int(grid.train.max())
    chosen = order_search(filled(endog[first : last + 1]), period)
    spec = chosen.arima_res_.model
    model = spec.clone(endog)
    result = model.fit(start_params=chosen.arima_res_.params, disp=False)
    detail = f"{name(chosen)}; state space with gaps; " + describe(grid.kind, period, endog)
    return smoothed_prediction(result, endog, grid.test, detail)


def name(model: Any) -> str:
    """The chosen model as pmdarima names it, e.g. ``ARIMA(2,0,3)(1,1,2)[12] intercept``."""
    return " ".join(str(model).split())
