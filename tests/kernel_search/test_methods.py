"""The inference methods' registry: one place names the methods, and each name leads to a
module whose ``search`` runs it."""

from __future__ import annotations

import importlib
import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy

import abcd_cli
from abcd_cli import model_file
from abcd_cli.cli import options
from abcd_cli.engines import get_engine
from abcd_cli.errors import InputError
from abcd_cli.kernel_search import settings
from abcd_cli.kernel_search.methods import METHODS, REGISTRY
from abcd_cli.kernel_search.posterior import StructurePosterior, Weighed
from abcd_cli.kernel_search.records import SearchResult
from abcd_cli.kernel_search.search_data import SearchData
from abcd_cli.kernels.text import parse_kernel

ROOT = Path(__file__).resolve().parents[2]


def test_every_registered_method_has_one_entry_point():
    for name, module in REGISTRY.items():
        assert callable(importlib.import_module(module).search), name


def test_the_settings_the_cli_and_the_model_file_take_the_registrys_names(monkeypatch):
    """The names were a tuple in ``settings`` beside the registry; now every reader takes
    the registry's, the settings and the model file as it is when they check a name (a
    method registered later counts)."""
    assert tuple(REGISTRY) == METHODS and options.METHODS is METHODS
    assert "smc" in METHODS
    with pytest.raises(InputError, match="unknown method 'later'"):
        settings.SearchSettings(method="later")
    monkeypatch.setitem(REGISTRY, "later", "abcd_cli.kernel_search.greedy")
    assert settings.SearchSettings(method="later").method == "later"
    model_file.SETTINGS.optional["method"].check("later", "settings.method")


# --- the seam: a method is one function and one registry line -------------------------------

#: The fake method's two structures (user units) and their weights.
FAKE = (
    ("SE(lengthscale=2.0, sd=1.0) + WN(sd=0.3)", 0.7),
    ("Lin(sd=0.5, location=2000.0) + WN(sd=0.4)", 0.3),
)


def search(x, y, settings, *rest, x_names=(), **named) -> SearchResult:
    """A fake method: ``FAKE``'s structures scored at their values, each with two draws of
    its parameters (its values, and its values moved by 0.05), weighed 0.7 and 0.3."""
    data = SearchData.prepare(x, y, settings, x_names)
    engine = get_engine("exact")
    scored = []
    for text, _ in FAKE:
        kernel = data.scaling.kernel_in(parse_kernel(text))
        nll = engine.objective_value(kernel, data.X, data.Y, data.constant_mean)
        scored.append(data.scorer.scored(kernel, nll, data.n))
    structures = [
        Weighed(s.kernel, s.bic, -math.inf, np.array([s.kernel.theta(), s.kernel.theta() + 0.05]))
        for s in scored
    ]
    record = StructurePosterior(structures, np.array([w for _, w in FAKE]), 2, "fake")
    model = data.model(scored[0], engine)
    return SearchResult(model, [], settings, 0.0, data.n, data.n, posterior=record)


def test_a_method_registered_in_one_line_goes_through_report_predict_and_model_file(
    monkeypatch, tmp_path
):
    monkeypatch.setitem(REGISTRY, "fake", __name__)
    x = np.linspace(2000.0, 2010.0, 48)
    y = np.sin(x) + 0.1 * np.cos(7.0 * x)
    found = abcd_cli.search(x=x, y=y, method="fake")
    assert [float(w) for w in found.posterior.weights] == [0.7, 0.3]
    report = abcd_cli.report(found)
    weights = [s["weight"] for s in report["posterior"]["structures"]]
    assert weights == pytest.approx([0.7, 0.3])
    assert report["forecast"]["agreement"]  # the mixture's forecast, not the model's alone
    new = np.array([2010.5, 2011.0])
    table = abcd_cli.predict(found, new)
    means = [replace(found.model, kernel=k).predict(new)[0] for _, k, _ in particles(found)]
    shares = [w for _, _, w in particles(found)]
    assert shares == pytest.approx([0.35, 0.35, 0.15, 0.15])
    np.testing.assert_allclose(table["mean"], np.average(means, axis=0, weights=shares))
    assert "mixture of 2 structures" in table.attrs["mixture"]
    path = tmp_path / "fake.json"
    found.save(path)
    back = abcd_cli.read_model(path)
    pd.testing.assert_frame_equal(abcd_cli.predict(back, new), table)
    assert abcd_cli.report(back) == report


def particles(found):
    return list(found.posterior.particles())


def _cpu_model() -> str:
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return ""
    return next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("model name")), "")


def _timeless(value):
    """``value`` without its seconds (every ``elapsed_seconds``, at any depth)."""
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if k != "elapsed_seconds"}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


def test_a_greedy_search_writes_the_model_file_and_report_it_wrote_before_the_record():
    """Greedy's one particle is the model itself: its model file holds no posterior and, with
    its report, is what the code before the result record wrote (``golden/greedy_search.json``),
    bit for bit on the versions and CPU model that recorded it."""
    golden = json.loads((ROOT / "tests" / "golden" / "greedy_search.json").read_text())
    data = abcd_cli.load(ROOT / "datasets" / "examples" / "airline-to-1959.csv")
    data = abcd_cli.load(replace(data, source="airline-to-1959.csv"))
    found = abcd_cli.search(data, depth=1, restarts=1, seed=0, jobs=1)
    assert found.posterior.is_single and "posterior" not in found.to_dict()
    document, report = _timeless(found.to_dict()), _timeless(abcd_cli.report(found))
    if (np.__version__, scipy.__version__, _cpu_model()) == (
        golden["numpy"],
        golden["scipy"],
        golden["cpu"],
    ):
        assert document == golden["model_file"]
        assert report == golden["report"]
    else:
        assert document.keys() == golden["model_file"].keys()
        assert report.keys() == golden["report"].keys()
        assert found.bic == pytest.approx(golden["model_file"]["bic"], rel=1e-6)
