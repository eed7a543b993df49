"""The screen by several fits on subsamples (``kernel_search.resampled_screen``): each input and
pair gets the share of the fits that keep it, the verdict is their vote, one seed gives one
screen, and two correlated inputs that each explain y get the same verdict on resamples of a
table where one fit's verdict flips."""

from __future__ import annotations

import json

import numpy as np
import pytest

from abcd_cli.errors import InputError
from abcd_cli.execution.pool import make_executor
from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.resampled_screen import (
    MIN_SUBSAMPLE,
    decide_by_vote,
    resampled_screen,
    subsample_rows,
    vote,
)
from abcd_cli.kernel_search.screening import (
    INPUT_SHARE,
    KEEP_PROBABILITY,
    SCREEN_ROWS,
    Shares,
    screen_table,
)
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.model_file import check_model_document
from abcd_cli.reporting.search_notes import search_notes


def _fits() -> list[Shares]:
    """Four fits' shares: x1 always kept, x2 by three of four, x3 by one (a fit that also
    names x1 × x3), x4 never; order 2 carries variance in each."""
    return [
        Shares((0.5, 0.1, 0.0, 0.0), {(0, 1): 0.0, (0, 2): 0.0, (1, 2): 0.0}, (0.9, 0.1)),
        Shares((0.4, 0.05, 0.0, 0.001), {(0, 1): 0.0, (0, 2): 0.0, (1, 2): 0.0}, (0.9, 0.1)),
        Shares((0.6, 0.0, 0.0, 0.0), {(0, 1): 0.0, (0, 2): 0.2, (1, 2): 0.0}, (0.8, 0.2)),
        Shares((0.5, 0.03, 0.0, 0.0), {(0, 1): 0.05, (0, 2): 0.0, (1, 2): 0.0}, (0.9, 0.1)),
    ]


def test_subsamples_hold_half_the_rows_once_each_and_are_fixed_by_the_seed():
    rows = subsample_rows(300, seed=4, fit_index=0, n_inputs=3)
    assert len(rows) == 150 and len(set(rows.tolist())) == 150 and rows.max() < 300
    assert np.array_equal(rows, subsample_rows(300, 4, 0, 3))
    assert not np.array_equal(rows, subsample_rows(300, 4, 1, 3))
    assert not np.array_equal(rows, subsample_rows(300, 5, 0, 3))
    assert len(subsample_rows(50, 0, 0, 3)) == MIN_SUBSAMPLE
    assert len(subsample_rows(30, 0, 0, 3)) == 30
    assert len(subsample_rows(5000, 0, 0, 3)) == SCREEN_ROWS


def test_the_vote_counts_the_fits_that_keep_each_input_and_pair():
    votes = vote(_fits(), INPUT_SHARE, rows=80)
    assert votes.inputs == (1.0, 0.75, 0.25, 0.0)  # x3 only where x1 × x3 is named
    assert votes.pairs == {(0, 1): 0.25, (0, 2): 0.25, (1, 2): 0.0}
    assert (votes.fits, votes.rows) == (4, 80)


def test_inputs_are_kept_by_the_vote_and_pairs_by_the_fit_on_all_the_rows():
    whole = Shares((0.5, 0.001, 0.0, 0.04), {(0, 1): 0.0, (0, 2): 0.0, (1, 2): 0.1}, (0.8, 0.2))
    assert KEEP_PROBABILITY > 0.25  # x3, kept by one fit of four, is not kept for itself
    screen = decide_by_vote(whole, _fits(), (2, 3), INPUT_SHARE, 80)
    assert screen.pairs == ((1, 2),)  # the whole rows' pair, not the subsamples' x1 × x3
    assert screen.inputs == (0, 1, 2)  # x4 (4% on all rows) by no fit; x3 for its pair
    assert screen.max_order == 2 and screen.change_inputs == (2,)
    assert screen.shares == whole and screen.fits == 5
    document = screen.to_dict()["resampled"]
    assert document["input_probabilities"] == {"x1": 1.0, "x2": 0.75, "x3": 0.25, "x4": 0.0}
    assert ["x1", "x3", 0.25] in document["pair_probabilities"]
    assert document["keep_probability"] == KEEP_PROBABILITY and screen.floor == INPUT_SHARE
    stricter = decide_by_vote(whole, _fits(), (2, 3), INPUT_SHARE, 80, level=0.8)
    assert stricter.probabilities.level == stricter.to_dict()["resampled"]["keep_probability"]
    assert stricter.probabilities.level == 0.8


def _table(seed: int = 0, n: int = 90) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n, 3))
    y = np.sin(1.5 * X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.normal(size=n)
    return X, (y - y.mean()) / y.std()


def test_one_seed_gives_one_screen_serial_or_parallel():
    X, y = _table()
    serial = resampled_screen(X, y, seed=3, restarts=1, max_iter=60, fits=3)
    with make_executor(2) as pool:
        parallel = resampled_screen(X, y, 3, 1, 60, 3, executor=pool)
    assert serial.probabilities == parallel.probabilities
    assert serial.shares == parallel.shares and serial.inputs == parallel.inputs
    other = resampled_screen(X, y, 4, 1, 60, 3)
    assert other.shares != serial.shares  # another seed draws other subsamples
    assert serial.fits == 4 and serial.rows == 90 and serial.probabilities.rows == 45


def test_one_fit_is_the_screen_of_the_rows():
    X, y = _table(1, 60)
    one = resampled_screen(X, y, 2, 1, 60, fits=1)
    assert one.probabilities is None and one.fits == 1
    assert one.shares == screen_table(X, y, 2, 1, 60).shares


def test_the_setting_is_checked_saved_and_its_probabilities_noted():
    with pytest.raises(InputError, match="bad search setting screen_fits=0"):
        SearchSettings(screen_fits=0)
    assert "screen_fits" not in SearchSettings().to_dict()
    settings = SearchSettings(depth=2, restarts=1, table_search="coordinate", screen_fits=3)
    X, y = _table(2, 60)
    result = run_search(X, y, settings, x_names=("a", "b", "c"))
    document = json.loads(json.dumps(result.to_dict()))
    check_model_document(document, "model.json")
    assert document["settings"]["screen_fits"] == 3
    assert document["screen"]["resampled"]["fits"] == 3
    assert (result.stages[0]["stage"], result.stages[0]["fits"]) == ("screen", 4)
    notes = search_notes(result)
    assert notes[0].startswith(
        "one fit of the additive GP of orders up to 3 on 60 rows and 3 on 40 rows drawn at"
        " random each"
    )
    assert notes[1].startswith("the share of the 3 fits on half the rows that kept each input:")
    document["settings"]["screen_fits"] = 0
    with pytest.raises(InputError, match="screen_fits"):
        check_model_document(document, "model.json")


def _correlated(resample: int) -> tuple[np.ndarray, np.ndarray]:
    """120 rows of a table where x1 and x2 both measure z (correlation 0.9997), y = sin(1.5 z)
    + x3 / 2 + noise, and x4 does nothing: either of x1, x2 explains y."""
    rng = np.random.default_rng(0)
    z = rng.uniform(-2, 2, 2000)
    x1, x2 = z + 0.05 * rng.normal(size=2000), z + 0.05 * rng.normal(size=2000)
    X = np.column_stack([x1, x2, rng.uniform(-2, 2, 2000), rng.uniform(-2, 2, 2000)])
    y = np.sin(1.5 * z) + 0.5 * X[:, 2] + 0.2 * rng.normal(size=2000)
    rows = np.random.default_rng((1, resample)).choice(2000, 120, replace=False)
    return X[rows], (y[rows] - y[rows].mean()) / y[rows].std()


def test_two_correlated_inputs_keep_one_verdict_where_one_fit_flips():
    """On resamples 0, 1, 2, 4 one fit drops x1 (1, 2) or x2 (4); the vote of ten fits on
    halves keeps x1, x2, x3 on each, with both correlated inputs' probabilities stated."""
    single, voted = [], []
    for resample in (0, 1, 2, 4):
        X, y = _correlated(resample)
        single.append(screen_table(X, y, seed=0, restarts=2, max_iter=150).inputs)
        screen = resampled_screen(X, y, 0, 2, 150, fits=10)
        voted.append(screen.inputs)
        assert screen.probabilities is not None
        assert min(screen.probabilities.inputs[:2]) >= KEEP_PROBABILITY
        assert screen.probabilities.inputs[3] < KEEP_PROBABILITY
    assert len(set(single)) > 1 and {(1, 2), (0, 2)} <= set(single)
    assert set(voted) == {(0, 1, 2)}
