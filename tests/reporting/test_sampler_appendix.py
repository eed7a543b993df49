"""The appendix of a report made by the sampler (``--method smc``, issue 63): its own settings
and its trace by data step, never the greedy search's settings or levels."""

from __future__ import annotations

import numpy as np
import pytest

import abcd_cli
from abcd_cli.kernel_search.settings import SMC_FIELDS, SearchSettings
from abcd_cli.reporting.sampler_appendix import sampler_settings
from abcd_cli.reports import report_context

#: A sampler small enough for a test: 4 particles, the data in three steps.
TINY = {"particles": 4, "data_steps": 3, "first_points": 15, "structure_moves": 1}
X = np.linspace(2000.0, 2010.0, 45)
Y = np.sin(2.0 * X) + 0.1 * (X - 2000.0) + 0.2 * np.random.default_rng(5).standard_normal(45)
#: The greedy search's settings, which the sampler does not read.
GREEDY_ONLY = {
    name for name in SearchSettings().to_dict() if name not in ("seed", "prior_mean", "engine")
}


@pytest.fixture(scope="module")
def sampled():
    return abcd_cli.search(x=X, y=Y, method="smc", parameter_moves=2, **TINY)


@pytest.fixture(scope="module")
def appendix(sampled):
    return report_context(sampled, figures=False)["appendix"]


def test_the_appendix_names_no_greedy_only_setting(sampled, appendix):
    named = {name for name, _ in appendix["settings"]}
    assert {"depth", "restarts", "beam"} <= GREEDY_ONLY
    assert not named & GREEDY_ONLY
    assert set(SMC_FIELDS) <= named
    assert "of sampling" in appendix["elapsed"]
    saved = abcd_cli.report(sampled)["model"]  # the JSON report: the model file's settings
    assert not set(saved["settings"]) & GREEDY_ONLY
    assert "trace" not in saved  # the greedy search's levels: the sampler has none


def test_the_appendix_shows_one_trace_row_per_data_step(sampled, appendix):
    rows = appendix["sampler_trace"]
    assert [row["step"] for row in rows] == ["1", "2", "3"]
    assert rows[0]["points"] == f"15 of {X.size}" and rows[-1]["points"] == f"{X.size} of {X.size}"
    assert rows[-1]["resampled"] == "no"  # never at the last step
    steps = abcd_cli.report(sampled)["model"]["posterior"]["steps"]
    assert len(steps) == TINY["data_steps"]
    last = steps[-1]
    record = sampled.posterior
    assert last["structure"] == record.best.kernel.to_text(params=False)
    assert last["weight"] == pytest.approx(record.weights[0])
    assert all(
        0 < e <= n for step in steps for e, n in zip(step["ess"], step["particles"], strict=True)
    )


def test_the_rendered_appendix_has_the_sampler_trace_and_not_the_search_trace(sampled, tmp_path):
    html = abcd_cli.report(sampled, tmp_path / "r.html").read_text()
    appendix = html[html.index('<section id="appendix"') :]
    assert "Sampler trace" in appendix and "Search trace" not in appendix
    assert appendix.count("<tr>") == 2 * (TINY["data_steps"] + 1) + appendix.count('scope="row"')
    for name in ("depth", "restarts", "beam_levels", "finalists", "patience"):
        assert f'<th scope="row">{name}</th>' not in appendix


def test_an_updated_samplers_report_says_why_it_has_no_trace(sampled, tmp_path):
    path = tmp_path / "smc.json"
    sampled.save(path)
    updated = abcd_cli.update(path, (np.array([2010.2, 2010.4]), np.array([1.0, 1.2])))
    assert not updated.posterior.steps  # weighed again, without the sampler
    html = abcd_cli.report(updated, tmp_path / "u.html").read_text()
    appendix = html[html.index('<section id="appendix"') :]
    assert "or updated with new points since" in appendix and "Search trace" not in appendix
    context = report_context(updated, figures=False)  # its structures were weighed again
    assert "sampler's particles" not in context["forecast"]["text"]
    assert "sampler" not in context["posterior"]


def test_a_budgeted_runs_appendix_gives_its_budget_and_the_plan_it_made():
    """With --budget the file's settings hold the budget and the moves each data step made
    (``smc_budget``); the appendix says both."""
    settings = SearchSettings(
        method="smc", data_steps=3, budget=5.0, moves_plan=((1, 2), (3, 4), (5, 10))
    ).to_dict()
    assert settings["budget"] == 5.0 and settings["moves_plan"] == [[1, 2], [3, 4], [5, 10]]
    rows = dict(sampler_settings(settings, "exact"))
    assert rows["budget"].startswith("5.0 (seconds")
    assert rows["moves_plan"].startswith("1:2, 3:4, 5:10 (")
