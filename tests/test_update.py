"""abcd_cli.update: a found model takes new observations without a new search."""

from __future__ import annotations

import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import abcd_cli
from abcd_cli import AbcdWarning, InputError
from abcd_cli.engines import get_engine
from abcd_cli.model_update import combined
from abcd_cli.observations import read_observations
from tests.test_api import _strip_times

OLD = 48  # points searched; the other 12 of the 60 are new
SMALL = {"depth": 1, "restarts": 2, "seed": 3}


@pytest.fixture(scope="module")
def points() -> tuple[np.ndarray, np.ndarray]:
    """Five years of a monthly cycle with noise."""
    rng = np.random.default_rng(8)
    x = 2000 + np.arange(60) / 12
    return x, 10 + 2 * np.sin(2 * np.pi * x) + 0.3 * rng.standard_normal(x.size)


@pytest.fixture(scope="module")
def found(points: tuple[np.ndarray, np.ndarray]) -> abcd_cli.FoundModel:
    x, y = points
    return abcd_cli.search(x=x[:OLD], y=y[:OLD], **SMALL)


@pytest.fixture(scope="module")
def updated(found: abcd_cli.FoundModel, points: tuple[np.ndarray, np.ndarray]) -> Any:
    x, y = points
    with warnings.catch_warnings():
        warnings.simplefilter("error", AbcdWarning)  # points of the same process fit
        return abcd_cli.update(found, (x[OLD:], y[OLD:]))


def _nll(model: Any, kernel: Any) -> float:
    """−log p(y) of an internal-unit ``kernel`` on ``model``'s data, by the exact engine."""
    sc = model.scaling
    value = get_engine("exact").objective_value(
        kernel, sc.x_in(model.x)[:, None], sc.y_in(model.y), model.constant_mean
    )
    return sc.nll_out(value, model.n - model.constant_mean)


def test_an_update_keeps_the_structure_and_scores_all_the_points(
    found: abcd_cli.FoundModel, updated: Any, points: tuple[np.ndarray, np.ndarray]
) -> None:
    x, y = points
    assert updated.structure == found.structure and updated.n == 60
    assert updated.document["data"]["x"] == pytest.approx(list(x))
    assert updated.document["data"]["y"] == pytest.approx(list(y))
    model = updated.model
    nll = _nll(model, model.kernel)
    assert updated.log_likelihood == pytest.approx(-nll, abs=1e-6)
    assert updated.bic == pytest.approx(2 * nll + model.n_params * np.log(60), abs=1e-6)
    # refitted: no worse than the search's values on all the points, and moved from them
    at_old_values = _nll(model, model.scaling.kernel_in(found.model.user_kernel))
    assert nll <= at_old_values + 1e-9
    assert updated.parameters != found.parameters
    assert updated.trace == found.trace and updated.settings == found.settings
    (note,) = [n for n in updated.notes if n.startswith("updated with")]
    assert "12 new points from arrays (48 + 12 = 60) without a new search" in note
    (record,) = updated.document["updates"]
    assert record["n_new"] == 12 and record["n_before"] == OLD
    assert record["bic_before"] == found.bic and record["check"]["misfit"] is False


def test_the_updated_file_predicts_and_updates_again(updated: Any, tmp_path: Path) -> None:
    path = updated.save(tmp_path / "updated.json")
    again = abcd_cli.read_model(path)
    assert again.bic == updated.bic and again.n == 60
    table = abcd_cli.predict(path, [2005.1, 2005.5])
    assert np.all(np.isfinite(table["mean"])) and np.all(table["sd"] > 0)
    x = 2005 + np.arange(3) / 12
    twice = abcd_cli.update(path, (x, 10 + 2 * np.sin(2 * np.pi * x)))
    assert twice.n == 63 and len(twice.document["updates"]) == 2
    (note,) = [n for n in twice.notes if n.startswith("updated with 3")]
    assert "(60 + 3 = 63)" in note and note.endswith("the search's trace is of its 48 points")


def test_one_seed_gives_one_update(
    found: abcd_cli.FoundModel, updated: Any, points: tuple[np.ndarray, np.ndarray], tmp_path: Path
) -> None:
    """From the model or its file, from arrays or a frame: the same model (timings aside)."""
    x, y = points
    again = abcd_cli.update(found.save(tmp_path / "found.json"), (x[OLD:], y[OLD:]))
    assert _strip_times(again.to_dict()) == _strip_times(updated.to_dict())
    frame = pd.DataFrame({"y": y[OLD:], "extra": "a", "x": x[OLD:]})
    framed = abcd_cli.update(found, frame)
    assert (framed.kernel, framed.bic) == (updated.kernel, updated.bic)


def test_points_of_another_process_raise_the_misfit_warning(
    found: abcd_cli.FoundModel, points: tuple[np.ndarray, np.ndarray]
) -> None:
    x, y = points
    shifted = y[OLD:] + 10 * np.std(y)
    with pytest.warns(AbcdWarning, match="the new data no longer fit the model: 12 of 12"):
        moved = abcd_cli.update(found, (x[OLD:], shifted))
    assert moved.n == 60 and moved.structure == found.structure  # still updated
    assert moved.document["updates"][0]["check"]["misfit"] is True
    assert any("may need a new search" in note for note in moved.notes)


def test_a_posterior_model_is_refitted_and_weighed_again(
    points: tuple[np.ndarray, np.ndarray],
) -> None:
    x, y = points
    tiny = {"depth": 1, "restarts": 1, "pool": 2, "draws": 4, "jobs": 1}
    found = abcd_cli.search(x=x[:40], y=y[:40], method="posterior", **tiny)
    updated = abcd_cli.update(found, (x[40:50], y[40:50]), jobs=1)
    posterior, old = updated.posterior, found.posterior
    assert posterior is not None and old is not None and updated.n == 50
    structures = [s.kernel.to_text(params=False) for s in posterior.structures]
    assert sorted(structures) == sorted(s.kernel.to_text(params=False) for s in old.structures)
    assert posterior.weights.sum() == pytest.approx(1.0) and posterior.draws == 4
    # a chain for the most probable; none for a structure of negligible Laplace weight
    assert posterior.best.theta.shape[0] == 4
    assert all(s.theta.shape[0] in (0, 4) for s in posterior.structures)
    # the model is the most probable structure, scored on the 50 points
    assert updated.model.kernel.to_text() == posterior.best.kernel.to_text()
    assert posterior.best.bic == pytest.approx(updated.bic)
    assert updated.log_likelihood == pytest.approx(-_nll(updated.model, updated.model.kernel))
    features = updated.document["posterior"]["features"]
    assert features and all(0 <= f["probability"] <= 1 + 1e-9 for f in features)
    table = abcd_cli.predict(updated, [2004.5])
    assert "posterior's mixture of" in table.attrs["mixture"]
    assert "the posterior's 2 structures was refitted" in updated.notes[-1]
    # the band's calibration is the new posterior's, backtested on all 50 points
    assert found.calibration is not None and updated.calibration is not None
    assert updated.calibration.present and updated.calibration.errors > found.calibration.errors


def test_every_seeds_model_is_refitted(points: tuple[np.ndarray, np.ndarray]) -> None:
    """With seeds > 1 the model stays the chosen seed's, each seed's model on all the points."""
    x, y = points
    found = abcd_cli.search(x=x[:40], y=y[:40], depth=1, restarts=1, seeds=2)
    updated = abcd_cli.update(found, (x[40:50], y[40:50]))
    assert list(updated.seed_models) == list(found.seed_models) == [0, 1]
    assert all(m.n == 50 for m in updated.seed_models.values())
    chosen = [m for m in updated.seed_models.values() if m.kernel == updated.model.kernel]
    assert chosen and updated.structure == found.structure
    mixed = abcd_cli.predict(updated, [2004.5], average_seeds=True)
    assert "mixture of 2 seeds' models" in mixed.attrs["mixture"]


def test_new_rows_are_read_by_name_and_checked(
    found: abcd_cli.FoundModel, points: tuple[np.ndarray, np.ndarray]
) -> None:
    x, y = points
    frame = pd.DataFrame({"year": x[OLD:], "value": y[OLD:]})
    with pytest.raises(InputError, match="no column 'x'"):
        read_observations(found, frame)
    new = read_observations(found, frame, x="year", y="value")
    assert new.n == 12 and new.X[:, 0] == pytest.approx(x[OLD:])
    frame.loc[3, "value"] = np.nan
    with pytest.warns(AbcdWarning, match="dropped 1 row missing a value"):
        assert abcd_cli.update(found, frame, x="year", y="value").n == 59
    with pytest.raises(InputError, match="column 'when' holds plain numbers but the model was"):
        abcd_cli.update(found, frame.rename(columns={"year": "when"}), x="when", y="value")
    dates = pd.DataFrame({"x": pd.date_range("2004-01-01", periods=3, freq="MS"), "y": y[:3]})
    # dates for numbers written as years: calendar fractions (2004 is a leap year)
    expected = [2004, 2004 + 31 / 366, 2004 + 60 / 366]
    assert read_observations(found, dates).X[:, 0] == pytest.approx(expected, abs=1e-9)


def test_a_series_sorted_again_keeps_repeated_x() -> None:
    """New rows among the old ones and on an x already there: sorted by x, old rows first."""
    x_old, y_old = np.array([1.0, 2.0, 3.0]), np.array([10.0, 20.0, 30.0])
    found = abcd_cli.search(x=np.arange(8.0), y=np.sin(np.arange(8.0)), depth=0, restarts=1)
    model = replace(found.model, x=x_old, y=y_old)
    new = read_observations(found, (np.array([2.0, 0.5]), np.array([21.0, 5.0])))
    x, y = combined(model, new)
    assert list(x) == [0.5, 1.0, 2.0, 2.0, 3.0] and list(y) == [5.0, 10.0, 20.0, 21.0, 30.0]


def test_a_samplers_halves_are_stated_as_before_the_update_and_not_kept(
    points: tuple[np.ndarray, np.ndarray],
) -> None:
    """Before: the updated file kept the search's note that the posterior 'is their union, each
    half weighed by its evidence estimate' and the report said the sampler's particles were
    weighted by their predictions, while the update had weighed the structures by their Laplace
    evidence."""
    x, y = points
    sampled = abcd_cli.search(
        x=x[:OLD], y=y[:OLD], method="smc", particles=4, data_steps=2, first_points=20,
        structure_moves=1, parameter_moves=1,
    )  # fmt: skip
    assert sampled.posterior.halves is not None
    updated = abcd_cli.update(sampled, (x[OLD:], y[OLD:]))
    document = updated.to_dict()
    assert updated.posterior.halves is None and "halves" not in document["posterior"]
    halves = [n for n in document["notes"] if "two independent halves of the sampler" in n]
    assert len(halves) == 1
    assert halves[0].startswith(f"before the update, on the search's {OLD} points: two indep")
    (done,) = [n for n in document["notes"] if n.startswith("updated with 12 new points")]
    assert "the sampler was not run again" in done
    assert f"a fact of the sampler's run on the search's {OLD} points" in done
    page = " ".join(abcd_cli.report(updated)["posterior"]["text"])
    assert "The sampler (sequential Monte Carlo)" not in page and "Laplace" in page
    again = abcd_cli.update(updated, (x[OLD:] + 5.0, y[OLD:]))  # marked once, of the search
    marked = [n for n in again.to_dict()["notes"] if n.startswith("before the update")]
    assert marked == halves
