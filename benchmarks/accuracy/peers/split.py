"""One train/test split as every peer receives it, and the forecast each returns."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from abcd_cli.data.reader import load_series
from benchmarks.accuracy.runs import split_files


@dataclass(frozen=True)
class Split:
    """The training and test points of one series and task (x in decimal years, as stored)."""

    series: str
    task: str
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray


@dataclass
class Forecast:
    """A peer's predictive distribution at the test x: its mean, the bounds of its central 95%
    interval and, where the tool gives a Gaussian predictive, its standard deviation (noise
    included); ``detail`` says what the tool chose (an ARIMA order, a kernel, ...). A mixture
    of Gaussians (``abcd``'s posterior) is given as ``mixture``: each component's means and
    sds at the test x (rows) and the components' weights; its density and CRPS are then the
    mixture's, not those of N(mean, sd²)."""

    mean: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    sd: np.ndarray | None = None
    detail: str = ""
    mixture: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None


def load_split(series: str, task: str) -> Split:
    """The split's two CSV files, read as ``abcd`` reads them (rows sorted by x)."""
    train_path, test_path = split_files(series, task)
    train, test = load_series(train_path), load_series(test_path)
    return Split(series, task, train.x, train.y, test.x, test.y)


def gaussian_forecast(mean: np.ndarray, sd: np.ndarray, detail: str = "") -> Forecast:
    """A Gaussian predictive N(mean, sd²) with its central 95% interval."""
    z = 1.959963984540054
    mean, sd = np.asarray(mean, dtype=float), np.asarray(sd, dtype=float)
    return Forecast(mean, mean - z * sd, mean + z * sd, sd, detail)
