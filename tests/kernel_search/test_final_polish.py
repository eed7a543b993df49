"""The chosen model's polish (``final_polish``): on skc it lowers the CGLB objective from the
search's fit and keeps the polished fit only when its BIC is lower; the exact engines and the
other methods do not polish; the setting resolves by engine and is written only when set.

The CGLB gradient it follows is the engine's own, checked against finite differences in
tests/engines/test_cglb.py (``test_the_engine_objective_is_the_bound_and_its_gradient_near_
the_cg_solution``); here the polisher is that engine with ``bound="cglb"``."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.engines.exact import ExactEngine
from abcd_cli.engines.sparse import SparseEngine
from abcd_cli.kernel_search.engine_choice import resolve
from abcd_cli.kernel_search.events import SearchEvent, live_text
from abcd_cli.kernel_search.final_polish import DEFAULT_ITERATIONS, polished
from abcd_cli.kernel_search.search_data import SearchData
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels.text import parse_kernel


def _series() -> tuple[np.ndarray, np.ndarray]:
    """300 points of a slow sine and a daily-like cycle in noise."""
    rng = np.random.default_rng(5)
    x = np.arange(300.0)
    y = np.sin(x / 25.0) + 0.5 * np.sin(2 * np.pi * x / 12.0) + 0.2 * rng.standard_normal(x.size)
    return x, y


def _chosen(engine: SparseEngine, data: SearchData, text: str):
    """``text`` (user units) scored as the search scores its chosen model."""
    kernel = data.scaling.kernel_in(parse_kernel(text))
    interval = engine.likelihood_interval(kernel, data.X, data.Y, data.constant_mean)
    return data.scorer.scored(kernel, interval.high, data.n, interval)


START = "SE(lengthscale=40, sd=1) + Per(lengthscale=1, period=12.3, sd=0.3) + WN(sd=0.4)"


def test_the_polish_lowers_the_cglb_objective_and_the_bic_on_skc():
    x, y = _series()
    settings, engine = resolve(SearchSettings(engine="skc", inducing=15), x.size)
    data = SearchData.prepare(x, y, settings)
    chosen = _chosen(engine, data, START)
    result, record = polished(chosen, data, engine, 10)
    cglb = engine.polishing_engine()
    assert cglb == SparseEngine(m=15, seed=0, bound="cglb")
    before = cglb.objective_value(chosen.kernel, data.X, data.Y, data.constant_mean)
    after = cglb.objective_value(result.kernel, data.X, data.Y, data.constant_mean)
    assert record is not None and record.kept and 1 <= record.iterations <= 10
    assert after < before - 1.0  # the start is far from the optimum: a clear gain
    assert result.bic < chosen.bic and record.after == (result.low, result.bic)
    assert record.before == (chosen.low, chosen.bic)


def test_a_polish_that_does_not_lower_the_bic_keeps_the_search_fit():
    x, y = _series()
    settings, engine = resolve(SearchSettings(engine="skc", inducing=15), x.size)
    data = SearchData.prepare(x, y, settings)
    chosen = _chosen(engine, data, START)
    worse = type(chosen)(chosen.kernel, chosen.nll, chosen.bic - 1e6, chosen.low)
    told: list[int] = []
    result, record = polished(worse, data, engine, 3, told.append)
    assert result is worse and record is not None and not record.kept
    assert told == [3]  # the progress line is told as the polish begins
    line = live_text(SearchEvent("stage", stage="polish", total=3))
    assert line.startswith("finish: polishing the chosen model on all the data 0/3")


def test_without_a_polishing_objective_or_iterations_nothing_is_done():
    x, y = _series()
    settings, engine = resolve(SearchSettings(engine="skc", inducing=15), x.size)
    data = SearchData.prepare(x, y, settings)
    chosen = _chosen(engine, data, START)
    told: list[int] = []
    assert polished(chosen, data, engine, 0, told.append) == (chosen, None)
    assert ExactEngine().polishing_engine() is None
    assert polished(chosen, data, ExactEngine(), 25, told.append) == (chosen, None)
    assert told == []  # nothing to announce


@pytest.mark.parametrize(
    ("engine", "method", "given", "resolved"),
    [
        ("skc", "greedy", None, DEFAULT_ITERATIONS),
        ("skc", "greedy", 0, 0),
        ("skc", "greedy", 7, 7),
        ("skc", "posterior", None, None),
        ("exact", "greedy", None, None),
        ("exact", "greedy", 25, None),
    ],
)
def test_the_setting_resolves_by_engine_and_method(engine, method, given, resolved):
    settings = SearchSettings(engine=engine, method=method, final_polish=given, inducing=15)
    chosen, _ = resolve(settings, 300)
    assert chosen.final_polish == resolved
    written = chosen.to_dict()
    assert written.get("final_polish") == resolved and ("final_polish" in written) == (
        resolved is not None
    )


def test_a_negative_polish_is_refused():
    from abcd_cli.errors import InputError

    with pytest.raises(InputError, match="final_polish"):
        SearchSettings(final_polish=-1)
