"""Real regression data of several inputs that installed packages bundle (nothing is
downloaded), and the seeded 90/10 splits of the regression benchmark.

The thesis's table 3.3 used bach, concrete, pumadyn-8nh, servo and housing; none of those is
bundled by a package the project installs (scikit-learn dropped Boston housing, and fetches
California housing from the internet), so these stand in:

* ``diabetes``: scikit-learn's diabetes data (442 patients, 10 inputs: age, sex, BMI, blood
  pressure and six serum measurements; y a measure of progression a year later).
* ``auto-mpg``: vega_datasets' ``cars`` (the UCI Auto MPG data: 406 cars, 14 without miles per
  gallon or horsepower dropped; 6 inputs: cylinders, displacement, horsepower, weight,
  acceleration, model year; the origin, a category, is left out).
* ``grunfeld``: statsmodels' Grunfeld investment data (220 firm-years; inputs the firm's
  value, its capital stock and the year; the firm's name is left out).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Dataset:
    """Inputs (one column each, named), the target, and where the data come from."""

    name: str
    x: pd.DataFrame
    y: pd.Series
    source: str

    @property
    def n(self) -> int:
        return len(self.y)

    @property
    def dims(self) -> int:
        return self.x.shape[1]


def _diabetes() -> Dataset:
    from sklearn.datasets import load_diabetes

    bunch = load_diabetes(as_frame=True, scaled=False)
    return Dataset("diabetes", bunch.data, bunch.target, "scikit-learn load_diabetes")


def _auto_mpg() -> Dataset:
    from vega_datasets import local_data

    cars = local_data.cars()
    cars = cars.assign(Year=cars["Year"].dt.year.astype(float))
    columns = ["Cylinders", "Displacement", "Horsepower", "Weight_in_lbs", "Acceleration", "Year"]
    kept = cars.dropna(subset=[*columns, "Miles_per_Gallon"]).reset_index(drop=True)
    x = kept[columns].astype(float)
    return Dataset("auto-mpg", x, kept["Miles_per_Gallon"], "vega_datasets local_data.cars")


def _grunfeld() -> Dataset:
    import statsmodels.api as sm

    data = sm.datasets.grunfeld.load_pandas().data
    x = data[["value", "capital", "year"]].astype(float)
    return Dataset("grunfeld", x, data["invest"], "statsmodels datasets.grunfeld")


LOADERS: dict[str, Callable[[], Dataset]] = {
    "diabetes": _diabetes,
    "auto-mpg": _auto_mpg,
    "grunfeld": _grunfeld,
}


def load(name: str) -> Dataset:
    """The bundled dataset called ``name`` (one of ``LOADERS``)."""
    return LOADERS[name]()


@dataclass(frozen=True)
class Split:
    """One train/test split, standardised with the training part's means and sds."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    n_train_all: int  # training rows before any subsampling


def split(data: Dataset, index: int, seed: int, max_train: int, test_share: float = 0.1) -> Split:
    """Split ``index`` of the dataset: rows shuffled by ``default_rng((seed, index))``, the
    last ``test_share`` (rounded up) held out, at most ``max_train`` of the rest kept for
    training (the first in the shuffled order); x and y standardised by the training part's
    mean and sd (an input constant in training is only centred)."""
    rng = np.random.default_rng((seed, index))
    order = rng.permutation(data.n)
    n_test = int(np.ceil(test_share * data.n))
    train, test = order[: data.n - n_test], order[data.n - n_test :]
    n_train_all = len(train)
    train = train[:max_train]
    x = data.x.to_numpy(dtype=float)
    y = data.y.to_numpy(dtype=float)
    x_mean, x_sd = x[train].mean(axis=0), x[train].std(axis=0)
    x_sd = np.where(x_sd > 0, x_sd, 1.0)
    y_mean, y_sd = y[train].mean(), y[train].std()
    return Split(
        (x[train] - x_mean) / x_sd,
        (y[train] - y_mean) / y_sd,
        (x[test] - x_mean) / x_sd,
        (y[test] - y_mean) / y_sd,
        n_train_all,
    )
