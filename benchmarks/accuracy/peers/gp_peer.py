"""scikit-learn's ``GaussianProcessRegressor`` with the engine benchmark's composite kernel
(``C*DotProduct*ExpSineSquared + C*RBF + WhiteKernel*DotProduct``, the closest it expresses to
``Lin*Per + SE + WN*Lin``; ``benchmarks/engines/gp_sklearn.py``), on x and y centred and
scaled as in that benchmark, ``normalize_y=True``, its first start at the engine's random start
(seed 0) and ``RESTARTS`` further starts of its own. The predictive sd includes the noise kernel."""

from __future__ import annotations

import warnings

import numpy as np

from abcd_cli.data.summary import DataSummary
from abcd_cli.kernel_search.init import initial_values
from abcd_cli.kernels.text import parse_kernel
from benchmarks.accuracy.peers.split import Forecast, Split, gaussian_forecast
from benchmarks.engines.gp_common import KERNEL_TEXT, scaled_data

#: sklearn's n_restarts_optimizer: optimiser runs beyond the first
RESTARTS = 4


def forecast(split: Split, seed: int = 0) -> Forecast:
    """Fit the composite kernel to the training points; predict the test x."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.gaussian_process import GaussianProcessRegressor

    from benchmarks.engines.gp_sklearn import sklearn_kernel

    sc, X, Y = scaled_data(split.x_train, split.y_train)
    summary = DataSummary.from_data(X[:, 0], Y)
    kernel = parse_kernel(KERNEL_TEXT)
    values = initial_values(kernel, summary, np.random.default_rng(seed))
    gpr = GaussianProcessRegressor(
        kernel=sklearn_kernel(values, summary),
        n_restarts_optimizer=RESTARTS,
        normalize_y=True,
        random_state=seed,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gpr.fit(X, Y)
    mean_s, sd_s = gpr.predict(sc.x_in(split.x_test)[:, None], return_std=True)
    return gaussian_forecast(sc.y_out(mean_s), sc.y_scale * sd_s, str(gpr.kernel_))
