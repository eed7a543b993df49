"""``abcd`` as a user runs it: ``abcd_cli.search`` on the training file (one seed, seed 0, one
worker process per core as ``abcd search`` uses), with the default settings (``forecast``) or
``method="posterior"`` (``forecast_posterior``, the mixture as weighed;
``forecast_calibrated``, its band past the data widened by the calibration on the series' own
past, :mod:`abcd_cli.calibration`, as ``abcd_cli.predict`` gives it), then the predictive
distribution at the test x: mean, sd, 2.5% and 97.5% quantiles, noise included, and the
mixture's components (the posterior's particles; one model otherwise) for its density and
CRPS. The posterior's model files are kept in ``outputs/peers/models/`` (``SERIES-TASK.json``;
the calibrated runs' in ``models/calibrated/``, whose backtests let a study recompute other
calibration rules without searching again): the feature-stability study reads them."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from abcd_cli.prediction import predictive_table
from benchmarks.accuracy import OUTPUTS
from benchmarks.accuracy.peers.split import Forecast, Split
from benchmarks.accuracy.runs import split_files

if TYPE_CHECKING:
    from abcd_cli.found import FoundModel

#: worker processes, as the command line's default ``--jobs 0``: one per core
JOBS = 0
#: where the posterior's model files are kept
MODELS = OUTPUTS / "peers" / "models"


def forecast(split: Split) -> Forecast:
    """Search the training file with the default settings; predict the test x."""
    return _forecast(split)


def forecast_posterior(split: Split) -> Forecast:
    """Search the training file with ``--method posterior``; predict the test x."""
    return _forecast(split, MODELS / f"{split.series}-{split.task}.json", method="posterior")


def forecast_calibrated(split: Split) -> Forecast:
    """Search the training file with ``--method posterior``; predict the test x with the band
    past the training data calibrated on the series' own past."""
    keep = MODELS / "calibrated" / f"{split.series}-{split.task}.json"
    return _forecast(split, keep, calibrated=True, method="posterior")


def _forecast(
    split: Split, keep: Path | None = None, calibrated: bool = False, **settings: object
) -> Forecast:
    """The forecast of a search with ``settings``, its model file written to ``keep``; with
    ``calibrated`` the mixture is widened about its mean past the data by the model's
    calibration, each component's deviation from the mixture's mean and its sd by f(h)."""
    import abcd_cli

    train_path, _ = split_files(split.series, split.task)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abcd_cli.AbcdWarning)
        model = abcd_cli.search(abcd_cli.load(str(train_path)), jobs=JOBS, **settings)
    if keep is not None:
        keep.parent.mkdir(parents=True, exist_ok=True)
        model.save(keep)
    models, weights, _ = model.predictive_models(False, "evidence", "")
    table = predictive_table(models, split.x_test, weights)
    moments = [m.predict(split.x_test) for m in models]
    if calibrated:
        table, moments = _calibrated(model, table, moments, split)
    w = np.ones(1) if weights is None else np.asarray(weights)
    return Forecast(
        table["mean"],
        table["q2.5"],
        table["q97.5"],
        table["sd"],
        f"{model.structure}; BIC {model.bic:.2f}",
        (np.array([m for m, _ in moments]), np.array([s for _, s in moments]), w),
    )


def _calibrated(
    model: FoundModel, table: dict, moments: list, split: Split
) -> tuple[dict, list[tuple[np.ndarray, np.ndarray]]]:
    """The table and the mixture's components widened by ``model``'s calibration: the table
    as ``abcd_cli.predict`` widens it, each component m_k, s_k to m̄ + f·(m_k − m̄), f·s_k."""
    X = split.x_test.reshape(-1, 1)
    widened = model.calibrated(table, X)
    f = np.ones_like(split.x_test)
    nonzero = table["sd"] > 0
    f[nonzero] = widened["sd"][nonzero] / table["sd"][nonzero]
    mean = table["mean"]
    return widened, [(mean + f * (m - mean), f * s) for m, s in moments]
