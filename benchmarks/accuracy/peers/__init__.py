"""The tools a user might pick instead of ``abcd``, run on the accuracy benchmark's fixed splits.

Each peer is one module with a ``forecast(split) -> Forecast`` function: ``prophet_peer``
(Prophet), ``ets_peer`` (statsmodels' exponential smoothing), ``arima_peer`` (pmdarima's
automatically ordered seasonal ARIMA), ``gp_peer`` (scikit-learn's GaussianProcessRegressor) and
``abcd_peer`` (``abcd`` itself through its Python API: default settings, and
``--method posterior``). ``split`` holds the
data and the forecast record, ``timeaxis`` maps decimal years to dates and regular grids,
``scores`` the measures, ``runs`` the CSV of runs and ``tables`` RESULTS.md. The peer tools
come from the optional ``bench`` extra; they are imported only when a peer runs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from benchmarks.accuracy.peers.split import Forecast, Split

#: method name -> (its module here, the package whose version the results record, the name of
#: the module's function that forecasts)
PEERS: dict[str, tuple[str, str] | tuple[str, str, str]] = {
    "abcd": ("abcd_peer", "abcd-cli"),
    "abcd-posterior": ("abcd_peer", "abcd-cli", "forecast_posterior"),
    "abcd-calibrated": ("abcd_peer", "abcd-cli", "forecast_calibrated"),
    "prophet": ("prophet_peer", "prophet"),
    "ets": ("ets_peer", "statsmodels"),
    "arima": ("arima_peer", "pmdarima"),
    "sklearn-gp": ("gp_peer", "scikit-learn"),
}


def forecaster(method: str) -> Callable[[Split], Forecast]:
    """The ``forecast`` function of ``method`` (its tool is imported now)."""
    module_name, _, *function = PEERS[method]
    module = importlib.import_module(f"benchmarks.accuracy.peers.{module_name}")
    return getattr(module, function[0] if function else "forecast")
