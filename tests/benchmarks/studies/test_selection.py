"""The selection-rule study: BIC weights, the validation cut, and which model each rule takes."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.model import Model
from benchmarks.studies import bench_selection


@pytest.fixture(scope="module")
def bench():
    return bench_selection


def test_bma_weights_are_evidence_weights_by_hand(bench):
    # BICs 10 and 12: weights 1 : e^-1, normalised
    w = bench.evidence_weights(np.array([12.0, 10.0]))
    assert w == pytest.approx([math.exp(-1) / (1 + math.exp(-1)), 1 / (1 + math.exp(-1))])
    # far apart: the lower BIC takes (almost) everything, with no overflow
    assert bench.evidence_weights(np.array([0.0, 5000.0])) == pytest.approx([1.0, 0.0])


def test_validation_mask_cuts_at_ninety_percent_of_the_range(bench):
    x = np.array([2000.0, 2001.0, 2005.0, 2008.9, 2009.0, 2009.5, 2010.0])
    # min + 0.9·(max - min) = 2000 + 9 = 2009
    assert bench.validation_mask(x).tolist() == [True, True, True, True, True, False, False]


@pytest.fixture(scope="module")
def search_doc():
    """A real two-level search of a trend plus a cycle, saved as ``abcd search --json`` does."""
    rng = np.random.default_rng(3)
    x = np.linspace(2000.0, 2010.0, 80)
    y = 0.5 * (x - 2000.0) + np.sin(2 * np.pi * x) + 0.2 * rng.standard_normal(x.size)
    result = run_search(x[:70], y[:70], SearchSettings(depth=2, restarts=2, patience=0))
    return json.loads(json.dumps(result.to_dict())), x[70:], y[70:]


def test_each_rule_scores_the_model_it_names(bench, search_doc):
    doc, x_test, y_test = search_doc
    scores = bench.evaluate(doc, x_test, y_test)
    levels = bench.level_models(doc)
    per_level = {level: bench.rmse(m.predict(x_test)[0], y_test) for level, _, _, m in levels}
    # the BIC rule is the search's own model, in full precision
    final_rmse = bench.rmse(Model.from_dict(doc).predict(x_test)[0], y_test)
    lowest = min(levels, key=lambda item: item[2])[0]
    assert scores["bic"] == (final_rmse, lowest)
    assert scores["val"][0] == per_level[scores["val"][1]]
    assert scores["path best"][0] == min(per_level.values())
    # a weighted mean forecast is no worse than the worst model it mixes (RMSE is convex)
    assert scores["bma"][0] <= max(per_level.values()) + 1e-12
    assert scores["bma"][1] is None
