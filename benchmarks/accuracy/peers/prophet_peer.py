"""Prophet with its defaults: the training points as dated rows, the test x as dated rows.

The one setting changed is ``interval_width=0.95`` (its default interval is 80%); that changes
which quantiles of its simulated forecasts it reports, not the model. Its intervals come from
1000 simulated futures (trend changes and noise), so it gives no density: no MLPD."""

from __future__ import annotations

import logging
import warnings

import numpy as np
import pandas as pd

from benchmarks.accuracy.peers.split import Forecast, Split
from benchmarks.accuracy.peers.timeaxis import upstream_dates

INTERVAL = 0.95


def forecast(split: Split, seed: int = 0) -> Forecast:
    """Fit Prophet to the training rows and predict the test dates."""
    from prophet import Prophet

    for name in ("prophet", "cmdstanpy"):
        logging.getLogger(name).setLevel(logging.WARNING)
    train = pd.DataFrame({"ds": upstream_dates(split.x_train), "y": split.y_train})
    future = pd.DataFrame({"ds": upstream_dates(split.x_test)})
    model = Prophet(interval_width=INTERVAL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # pandas deprecations in Prophet
        model.fit(train)
        np.random.seed(seed)  # its simulated intervals draw from numpy's global generator
        table = model.predict(future)
    # predict returns the rows sorted by date; put them back in the test file's order
    order = np.argsort(future["ds"].to_numpy(), kind="stable")
    mean, lower, upper = (np.empty(len(future)) for _ in range(3))
    mean[order] = table["yhat"].to_numpy()
    lower[order] = table["yhat_lower"].to_numpy()
    upper[order] = table["yhat_upper"].to_numpy()
    seasonal = [name for name in model.seasonalities]
    return Forecast(mean, lower, upper, None, "seasonalities: " + (", ".join(seasonal) or "none"))
