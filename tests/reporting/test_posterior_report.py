"""A report of a posterior over structures (``--method posterior``): findings with their
probabilities, components tagged, the page on the posterior; snapshots of its HTML and JSON
(``make snapshots`` rewrites them), and a greedy report saying which method made it."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.calibration import Calibration, calibrate
from abcd_cli.decompose.components import decompose
from abcd_cli.decompose.facts import Axis
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import posterior_of
from abcd_cli.reporting.certainty import FACT, FEW_CYCLES, FLOOR, LIKELY
from abcd_cli.reporting.context import build_context
from abcd_cli.reporting.render import render_html
from abcd_cli.reporting.sections import GREEDY_METHOD
from tests.reporting.test_report import (
    OTHER_KERNEL,
    _compare,
    _fragments,
    _search_doc,
    _snapshot_json,
    fixed_model,
)

#: A third structure holding a 3-year cycle, below the summary's floor.
RARE_KERNEL = "Per(lengthscale=1.0, period=3.0, sd=1.0) + WN(sd=1.0)"
WEIGHTS = (0.65, 0.3, 0.05)


def _structure(kernel, weight: float, bic: float) -> dict:
    """A weighed structure with three fixed draws of its parameters around θ̂."""
    theta = kernel.theta()
    return {
        "weight": weight,
        "kernel": kernel.to_text(),
        "bic": bic,
        "log_evidence": -bic / 2,
        "theta": [theta.tolist(), (theta + 0.01).tolist(), (theta - 0.01).tolist()],
        "acceptance": 0.3,
        "floored": 0,
        "failure": "",
    }


def posterior_doc() -> dict:
    """The fixed model's search document with a posterior over three structures."""
    model = fixed_model()
    sc = model.scaling
    kernels = [model.kernel, *(sc.kernel_in(parse_kernel(t)) for t in (OTHER_KERNEL, RARE_KERNEL))]
    doc = _search_doc(model)
    doc["settings"].update({"method": "posterior", "pool": 3, "draws": 3})
    doc["posterior"] = {
        "prior": {"structures": "uniform over the pool", "parameters": "normal"},
        "draws": 3,
        "structures": [
            _structure(k, w, model.bic + 5.0 * i)
            for i, (k, w) in enumerate(zip(kernels, WEIGHTS, strict=True))
        ],
    }
    doc["calibration"] = fixed_calibration().to_dict()
    return doc


def fixed_calibration() -> Calibration:
    """A backtest's errors fixed by hand: six origins, ten errors each over the 1.6-year
    horizon (a fifth of the data's eight years), 1.3 to 2.2 times as large as the band said."""
    h = np.tile(np.linspace(0.16, 1.6, 10), 6)
    z = np.tile([1.2, -1.8, 2.4, -0.6, 1.5, -2.1, 0.9, 2.7, -1.1, 1.9], 6) * np.repeat(
        [1.0, 1.1, 1.2, 1.0, 0.9, 1.1], 10
    )
    return calibrate(h, z, 1.6, 6)


def posterior_context(dec, doc: dict, figures: bool = True) -> dict:
    """The report's context of the posterior in ``doc``, as the report gets it: the record
    read from the model file."""
    record = posterior_of(doc, dec.model)
    return build_context(dec, "Sales", "sales.csv", doc, figures=figures, record=record)


@pytest.fixture(scope="module")
def context() -> dict:
    model = fixed_model()
    dec = decompose(model, (Axis("year", "date", "sales"),), extrapolate=0.2, seed=0)
    context = posterior_context(dec, posterior_doc())
    context["generated"] = "2026-01-01 00:00 UTC"
    return context


def test_posterior_report_json_matches_snapshot(context):
    _compare("posterior_report.json", _snapshot_json(context))


def test_posterior_report_html_fragments_match_snapshot(context):
    _compare("posterior_report_fragments.json", _fragments(render_html(context)))


def test_findings_are_worded_by_their_probability(context):
    findings = context["json"]["summary"]["findings"]
    assert findings, "a posterior report states findings"
    for f in findings:
        p = f["probability"]
        expected = (
            "fact"
            if p >= FACT
            else "likely"
            if p >= LIKELY
            else "uncertain"
            if p >= FLOOR
            else "omitted"
        )
        assert f["wording"] == expected, f
        assert f["probability_range"][0] <= p + 1e-12 <= f["probability_range"][1] + 2e-12
    by_kind = {(f["kind"], round(f["value"] or 0, 1)): f for f in findings}
    assert by_kind[("periodic", 1.0)]["probability"] == pytest.approx(WEIGHTS[0])
    assert by_kind[("periodic", 3.0)]["wording"] == "omitted"  # 0.05, below the floor
    summary = context["summary"]
    facts = " ".join(summary["facts"])
    assert "period of 1.0 year" not in facts  # 0.65: likely, not a fact
    assert "period of 1.0 year" in summary["likely"] and "probability 0.65" in summary["likely"]
    assert "3.0 years" not in " ".join([facts, summary["likely"], summary["uncertain"]])
    assert "A linear trend (probability 0.95)." in summary["facts"]


def test_a_period_is_given_with_its_interval_in_the_data_units(context):
    (f,) = [
        f
        for f in context["json"]["summary"]["findings"]
        if f["kind"] == "periodic" and f["probability"] > 0.5
    ]
    low, high = f["interval"]
    assert low < 1.0 < high
    assert "period between" in f["text"] and f["text"].endswith("years)")


def test_components_are_tagged_and_an_uncertain_one_says_so(context):
    tags = {c["index"]: c["tag"] for c in context["components"]}
    periodic = next(c for c in context["components"] if "period" in c["phrase"])
    assert periodic["tag"] == "probability 0.65"
    assert periodic["probability_range"][0] < 0.65 < periodic["probability_range"][1]
    noise = next(c for c in context["components"] if "noise" in c["phrase"])
    assert noise["tag"] == "" and noise["probability"] is None  # noise of constant size
    assert all("uncertain" not in t for t in tags.values())  # nothing below 0.5 here
    bullets = context["summary"]["bullets"]
    assert any(b.endswith("(probability 0.65).") for b in bullets), bullets


def test_the_page_on_the_posterior_lists_structures_and_findings(context):
    page = context["posterior"]
    assert [round(r["weight"], 2) for r in page["structures"]] == list(WEIGHTS)
    assert "uniform over the pool" in " ".join(page["text"])
    html = render_html(context)
    assert 'id="posterior"' in html and "The posterior over structures" in html
    assert (
        context["json"]["posterior"]["structures"][0]["kernel"] == page["structures"][0]["kernel"]
    )


def test_a_greedy_report_keeps_its_form_and_names_its_method():
    model = fixed_model()
    dec = decompose(model, (Axis("year", "date", "sales"),), extrapolate=0.2, seed=0)
    context = build_context(dec, "Sales", "sales.csv", _search_doc(model), figures=False)
    assert context["summary"]["method"] == GREEDY_METHOD
    assert "findings" not in context["summary"] and "posterior" not in context
    assert all("tag" not in c for c in context["components"])


def test_an_uncertain_component_is_described_as_uncertain():
    model = fixed_model()
    doc = posterior_doc()
    weights = (0.3, 0.65, 0.05)  # the decomposed structure now holds the minority's cycle
    for entry, w in zip(doc["posterior"]["structures"], weights, strict=True):
        entry["weight"] = w
    dec = decompose(model, (Axis("year", "date", "sales"),), extrapolate=0.2, seed=0)
    context = posterior_context(dec, doc)
    periodic = next(c for c in context["components"] if "period" in c["phrase"])
    assert periodic["tag"] == "uncertain: probability 0.30"
    # a probability among the structures weighed, not what the data show (issue 63)
    assert periodic["paragraph_note"].startswith(
        "Among the structures weighed, those holding this component carry only 0.30 of the weight"
    )
    assert "period of 1.0 year" in context["summary"]["uncertain"]
    html = render_html(context)
    assert "(uncertain: probability 0.30)" in html and "those holding this component" in html


def test_a_cycle_seen_too_few_times_is_never_a_fact():
    model = fixed_model()
    doc = posterior_doc()
    for entry, w in zip(doc["posterior"]["structures"], (0.02, 0.03, 0.95), strict=True):
        entry["weight"] = w
    dec = decompose(model, (Axis("year", "date", "sales"),), extrapolate=0.2, seed=0)
    context = posterior_context(dec, doc, figures=False)
    (three,) = [
        f
        for f in context["json"]["summary"]["findings"]
        if f["kind"] == "periodic" and round(f["value"]) == 3
    ]
    assert three["probability"] == pytest.approx(0.95) and three["wording"] == FEW_CYCLES
    assert "the data hold only 2.6 cycles" in three["text"]
    summary = context["summary"]
    assert "3.0 years" in summary["few_cycles"] and "too few to be sure" in summary["few_cycles"]
    assert not any("3.0 years" in fact for fact in summary["facts"])


def test_no_probability_of_a_fact_is_worded_as_likely():
    """A cycle held by 0.95 of the weight but seen 2.6 times is not listed under 'Likely, but
    not certain' with its 0.95: that sentence and its probability contradict each other."""
    model = fixed_model()
    doc = posterior_doc()
    for entry, w in zip(doc["posterior"]["structures"], (0.02, 0.03, 0.95), strict=True):
        entry["weight"] = w
    dec = decompose(model, (Axis("year", "date", "sales"),), extrapolate=0.2, seed=0)
    summary = posterior_context(dec, doc, figures=False)["summary"]
    assert "3.0 years" not in summary["likely"]
    assert "probability 0.95" not in summary["likely"]


def test_probabilities_are_worded_relative_to_the_structures_weighed(context):
    summary = context["summary"]
    assert "The data show" not in summary["certainty"]
    assert "among the structures weighed" in summary["certainty"].lower()
    assert summary["likely"].startswith("Likely among the structures weighed")
    html = render_html(context)
    assert "The data show" not in html


def test_the_forecast_states_the_bands_calibration_and_draws_its_backtest(context):
    forecast = context["forecast"]
    c = fixed_calibration()
    assert forecast["calibration"].startswith(
        "Forecasts made from this series' own past (6 forecast origins in its last half, 60"
        " errors) missed by more than their bands said, so the band past the data is"
        f" {c.factors[0]:.1f} times as wide up to a horizon of 6.4 months"
    )
    assert "figure_calibration" in forecast
    assert context["json"]["forecast"]["calibration"]["bands"][0]["factor"] == c.factors[0]
    html = render_html(context)
    assert forecast["calibration"].replace("'", "&#39;") in html
    assert "Standardised errors of forecasts from the series&#39; own past" in html


def test_the_band_past_the_data_is_widened_by_the_calibration(context):
    plain = posterior_doc()
    del plain["calibration"]
    dec = decompose(fixed_model(), (Axis("year", "date", "sales"),), extrapolate=0.2, seed=0)
    bare = posterior_context(dec, plain)["json"]["forecast"]
    widened = context["json"]["forecast"]
    x = np.array(widened["x"])
    factor = fixed_calibration().factor_at(x - fixed_model().X[:, 0].max())
    np.testing.assert_allclose(np.array(widened["sd"]), np.array(bare["sd"]) * factor)
    assert "calibration" not in bare


def test_an_absent_calibration_is_said_with_its_reason():
    doc = posterior_doc()
    doc["calibration"] = {"reason": "the series has 20 points, fewer than the 24 a backtest needs"}
    dec = decompose(fixed_model(), (Axis("year", "date", "sales"),), extrapolate=0.2, seed=0)
    forecast = posterior_context(dec, doc)["forecast"]
    assert forecast["calibration"] == (
        "The band is not calibrated on the series' own past: the series has 20 points, fewer"
        " than the 24 a backtest needs."
    )
    assert "figure_calibration" not in forecast
