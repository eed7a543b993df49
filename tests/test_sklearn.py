"""abcd_cli.sklearn.AbcdRegressor: scikit-learn's estimator checks, its parameters, agreement
with abcd_cli.search and abcd_cli.predict (named columns, one unsorted input, the posterior's
mixture), columns of one value, errors as ValueError, and use in cross_val_score and a
Pipeline. Small searches throughout (depth 1, two restarts, serial)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import fields
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import KFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import abcd_cli
from abcd_cli.api import DEFAULTS, AbcdWarning
from abcd_cli.errors import InputError
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.prediction import predictive_table
from abcd_cli.sklearn import AbcdRegressor

SMALL: dict[str, Any] = {"depth": 1, "restarts": 2, "n_jobs": 1}
#: The same search through the API, under its own names.
SEARCH_SMALL: dict[str, Any] = {"depth": 1, "restarts": 2, "jobs": 1}

#: The checks that cannot apply to the search, each with why.
EXPECTED_FAILED_CHECKS = {
    "check_non_transformer_estimators_n_iter": (
        "max_iter caps each of the search's many L-BFGS-B runs: there is no one count of"
        " iterations to give as n_iter_"
    ),
}


def smooth(n: int = 40, d: int = 1, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """n rows of d inputs in [0, 5), y a smooth function of the first one with a little noise."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 5.0, size=(n, d))
    return X, np.sin(2.0 * X[:, 0]) + 0.1 * rng.standard_normal(n)


# ----------------------------------------------------------------------------- scikit-learn


@pytest.mark.filterwarnings("ignore::abcd_cli.api.AbcdWarning")  # repeated x values and such
@parametrize_with_checks(
    # subset_size=50: the checks' 200 rows are screened on 50 first (4 s a fit, not 13)
    [AbcdRegressor(**SMALL, subset_size=50)],
    expected_failed_checks=lambda estimator: EXPECTED_FAILED_CHECKS,
    xfail_strict=True,
)
def test_scikit_learn_estimator_checks(estimator: AbcdRegressor, check: Callable) -> None:
    check(estimator)


def test_every_search_setting_is_a_parameter_with_the_apis_default() -> None:
    params = AbcdRegressor().get_params()
    for setting in fields(SearchSettings):
        name = "random_state" if setting.name == "seed" else setting.name  # scikit-learn's name
        assert params[name] == getattr(DEFAULTS, setting.name), setting.name
    assert params["n_jobs"] is None and params["scheduler"] is None  # serial, as the API's
    assert "seed" not in params and "jobs" not in params
    assert AbcdRegressor(depth=3, bases="SE,Lin").get_params()["bases"] == "SE,Lin"  # unchanged


# ----------------------------------------------------------------------------- the API's results


def test_fit_and_predict_are_search_and_predict_on_the_named_columns() -> None:
    X, y = smooth(d=2)
    frame = pd.DataFrame(X, columns=["speed", "load"])
    regressor = AbcdRegressor(**SMALL).fit(frame, pd.Series(y, name="power"))
    found = abcd_cli.search(frame.assign(power=y), x=["speed", "load"], y="power", **SEARCH_SMALL)
    assert (regressor.kernel_, regressor.structure_) == (found.kernel, found.structure)
    assert regressor.bic_ == found.bic
    assert "[speed]" in regressor.kernel_ and regressor.model_.y_name == "power"
    assert regressor.n_features_in_ == 2
    assert list(regressor.feature_names_in_) == ["speed", "load"]
    new = pd.DataFrame(smooth(n=7, d=2, seed=1)[0], columns=["speed", "load"])
    mean, sd = regressor.predict(new, return_std=True)
    table = abcd_cli.predict(found, new)
    np.testing.assert_allclose(mean, table["mean"], rtol=1e-12)
    np.testing.assert_allclose(sd, table["sd"], rtol=1e-12)
    assert mean.shape == sd.shape == (7,) and np.all(sd > 0)
    np.testing.assert_array_equal(regressor.predict(new), mean)


def test_one_unsorted_input_is_sorted_without_a_warning() -> None:
    X, y = smooth(n=30)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AbcdWarning)
        regressor = AbcdRegressor(**SMALL).fit(X, y)
    with pytest.warns(AbcdWarning, match="sorted the rows by x"):
        found = abcd_cli.search(None, x=X[:, 0], y=y, **SEARCH_SMALL)
    assert (regressor.kernel_, regressor.bic_) == (found.kernel, found.bic)
    assert regressor.model_.x_names == ["x0"] and not hasattr(regressor, "feature_names_in_")
    new = np.array([[0.5], [2.0], [4.5]])
    expected = abcd_cli.predict(found, new[:, 0])
    np.testing.assert_allclose(regressor.predict(new), expected["mean"], rtol=1e-12)


def test_a_posterior_search_predicts_with_its_mixture() -> None:
    X, y = smooth(d=2)
    regressor = AbcdRegressor(**SMALL, method="posterior", pool=3, draws=4).fit(X, y)
    new = smooth(n=6, d=2, seed=2)[0]
    table = abcd_cli.predict(regressor.model_, pd.DataFrame(new, columns=["x0", "x1"]))
    assert table.attrs["mixture"].startswith("the posterior's mixture of 3 structures")
    mean, sd = regressor.predict(new, return_std=True)
    np.testing.assert_allclose(mean, table["mean"], rtol=1e-12)
    np.testing.assert_allclose(sd, table["sd"], rtol=1e-12)
    alone_mean, alone_sd = regressor.model_.model.predict(new)  # the most probable model only
    assert not np.allclose(sd, alone_sd, rtol=1e-3)


def test_return_std_is_the_posteriors_calibrated_sd() -> None:
    """Past the data, the sd is the mixture's widened by the band's calibration on the
    series' own past (a series of one input has one)."""
    X, y = smooth()
    regressor = AbcdRegressor(**SMALL, method="posterior", pool=2, draws=4).fit(X, y)
    found = regressor.model_
    calibration = found.calibration
    assert calibration is not None and calibration.present
    new = np.array([[5.5], [6.0], [7.0]])
    _, sd = regressor.predict(new, return_std=True)
    models, weights, _ = found.predictive_models(False, "evidence", "")
    raw = predictive_table(models, new, weights)["sd"]
    factor = calibration.factor_at(new[:, 0] - X[:, 0].max())
    np.testing.assert_allclose(sd, raw * factor, rtol=1e-12)


def test_a_column_of_one_value_is_left_out_with_a_warning() -> None:
    X, y = smooth(d=2)
    X = np.column_stack([X[:, 0], np.full(len(y), 3.0), X[:, 1]])
    with pytest.warns(AbcdWarning, match="left out column 'x1' with a single value"):
        regressor = AbcdRegressor(**SMALL).fit(X, y)
    assert regressor.n_features_in_ == 3 and regressor.model_.x_names == ["x0", "x2"]
    assert "x1" not in regressor.kernel_ and "x2" not in regressor.structure_  # y reads x0 alone
    assert list(regressor.used_columns_) == [0]
    new = smooth(n=5, d=3, seed=3)[0]
    other = new.copy()
    other[:, 1] = -7.0
    np.testing.assert_array_equal(regressor.predict(new), regressor.predict(other))


@pytest.mark.parametrize(
    ("settings", "y_of", "match"),
    [
        ({"depth": -1}, None, "bad search setting depth=-1: a whole number of at least 0 is"),
        ({"draws": 500}, None, "bad search setting draws=500: a whole number from 1 to 200 is"),
        ({"method": "bayes"}, None, "unknown method"),
        ({}, lambda y: np.full_like(y, 2.0), "is constant"),
    ],
    ids=["depth", "draws", "method", "constant y"],
)
def test_what_abcd_refuses_raises_value_error(
    settings: dict[str, Any], y_of: Callable | None, match: str
) -> None:
    X, y = smooth(n=12)
    with pytest.raises(ValueError, match=match) as caught:
        AbcdRegressor(**{**SMALL, **settings}).fit(X, y if y_of is None else y_of(y))
    assert not isinstance(caught.value, InputError)
    assert isinstance(caught.value.__cause__, InputError)  # the abcd message, kept


def test_scikit_learns_parameter_names_are_the_searchs_seed_and_jobs() -> None:
    X, y = smooth(n=30)
    order = np.argsort(X[:, 0])
    X, y = X[order], y[order]
    regressor = AbcdRegressor(depth=1, restarts=2, random_state=3, n_jobs=1).fit(X, y)
    found = abcd_cli.search(x=X[:, 0], y=y, depth=1, restarts=2, seed=3, jobs=1)
    assert regressor.model_.seed == 3 and regressor.bic_ == pytest.approx(found.bic, rel=1e-9)
    with pytest.raises(ValueError, match="n_jobs must be None, -1"):
        AbcdRegressor(depth=1, restarts=2, n_jobs=-2).fit(X, y)


def test_used_columns_are_those_the_model_reads() -> None:
    rng = np.random.default_rng(5)
    X = rng.uniform(0.0, 5.0, size=(40, 3))
    y = 2.0 * X[:, 1] + 0.05 * rng.standard_normal(40)  # a line in the second column alone
    regressor = AbcdRegressor(**SMALL).fit(X, y)
    assert regressor.structure_ == "Lin[x1] + WN"
    assert list(regressor.used_columns_) == [1]
    assert regressor.predict(X[:3]) == pytest.approx(y[:3], abs=0.3)


def test_too_few_rows_are_refused_as_scikit_learn_refuses_them() -> None:
    X, y = smooth(n=4)
    with pytest.raises(ValueError, match="4 sample\\(s\\).*minimum of 5 is required"):
        AbcdRegressor(**SMALL).fit(X, y)


# ----------------------------------------------------------------------------- in scikit-learn


def test_cross_val_score_scores_each_fold() -> None:
    X, y = smooth(n=48)
    folds = KFold(4, shuffle=True, random_state=0)
    scores = cross_val_score(AbcdRegressor(**SMALL), X, y, cv=folds)
    by_hand = [
        AbcdRegressor(**SMALL).fit(X[train], y[train]).score(X[test], y[test])
        for train, test in folds.split(X)
    ]
    np.testing.assert_allclose(scores, by_hand, rtol=1e-12)
    assert np.all(scores > 0.8), scores


def test_in_a_pipeline_after_a_scaler() -> None:
    X, y = smooth(n=40, d=2)
    X = X * [1e3, 1e-2] + [5e4, 0.0]  # inputs of very different scales
    pipeline = make_pipeline(StandardScaler(), AbcdRegressor(**SMALL)).fit(X, y)
    scaled = StandardScaler().fit_transform(X)
    alone = AbcdRegressor(**SMALL).fit(scaled, y)
    assert pipeline[-1].kernel_ == alone.kernel_
    new = smooth(n=5, d=2, seed=4)[0] * [1e3, 1e-2] + [5e4, 0.0]
    np.testing.assert_allclose(pipeline.predict(new), alone.predict(pipeline[0].transform(new)))
    assert pipeline.score(X, y) > 0.9
    pipeline.set_params(abcdregressor__depth=0).fit(X, y)  # the search's start alone: noise
    assert pipeline[-1].structure_ == "WN"
