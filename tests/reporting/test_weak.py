"""Weak cycles said as possible, with the reason (reporting/weak.py over
decompose/periods.py): a period that is one of several comparable periodogram peaks, or that
barely lowers the cross-validated error, is no plain bullet and no fact."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.data.scaling import Scaling
from abcd_cli.decompose.components import decompose
from abcd_cli.decompose.facts import Axis
from abcd_cli.engines.exact import negative_log_likelihood
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model, posterior_of
from abcd_cli.reporting.certainty import NOT_ESTABLISHED
from abcd_cli.reporting.context import build_context
from abcd_cli.reporting.weak import weak_cycle_reason
from tests.reporting.test_posterior_report import _structure
from tests.reporting.test_report import _search_doc

AXIS = (Axis("year", "date", "output"),)
X = 1960.0 + np.arange(240) / 4.0  # quarterly, 60 years


def _model(y: np.ndarray, kernel_text: str) -> Model:
    sc = Scaling.from_data(X, y)
    kernel = sc.kernel_in(parse_kernel(kernel_text))
    nll = sc.nll_out(negative_log_likelihood(kernel, sc.x_in(X), sc.y_in(y)), X.size)
    return Model(kernel, sc, X, y, nll)


def _context(y: np.ndarray, period: float) -> tuple[dict, object]:
    model = _model(y, f"Per(lengthscale=2.0, period={period}, sd=1.0) + WN(sd=1.0)")
    dec = decompose(model, AXIS, extrapolate=0.1, seed=0)
    return build_context(dec, "Output", "output.csv", _search_doc(model), figures=False), dec


@pytest.fixture(scope="module")
def equal_peaks() -> tuple[dict, object]:
    """Four cycles of equal size (2.6, 3.7, 5.1 and 7.3 years) in noise; the model holds the
    2.6-year one."""
    rng = np.random.default_rng(1)
    y = sum(np.sin(2 * np.pi * X / p + k) for k, p in enumerate((2.6, 3.7, 5.1, 7.3)))
    return _context(y + 0.5 * rng.standard_normal(X.size), 2.6)


def test_a_cycle_among_equal_peaks_is_possible_with_its_reason(equal_peaks) -> None:
    """A 2.6-year cycle, one of many equal peaks, was a plain bullet."""
    context, dec = equal_peaks
    (bullet,) = [b for b in context["summary"]["bullets"] if "period" in b]
    assert bullet.startswith("Possibly a periodic function")
    assert "comparable peaks in the periodogram" in bullet
    section = next(c for c in context["components"] if "period" in c["phrase"])
    assert "possible rather than established" in section["paragraph_note"]


def test_a_cycle_the_data_single_out_stays_a_plain_bullet() -> None:
    rng = np.random.default_rng(2)
    y = 3.0 * np.sin(2 * np.pi * X / 2.6) + 0.5 * rng.standard_normal(X.size)
    context, dec = _context(y, 2.6)
    (periodic,) = [c for c in dec.components if not c.is_noise]
    assert weak_cycle_reason(dec, periodic) is None
    assert not any(b.startswith("Possibly") for b in context["summary"]["bullets"])


def test_a_weak_cycle_held_by_every_structure_is_not_a_fact(equal_peaks) -> None:
    """At probability 1.00 because every weighed structure held it, the loose cycle was
    stated as a fact in the posterior report."""
    _, dec = equal_peaks
    model = dec.model
    other = model.scaling.kernel_in(
        parse_kernel(
            "Per(lengthscale=2.0, period=2.6, sd=1.0) + SE(lengthscale=1.0, sd=0.5) + WN(sd=1.0)"
        )
    )
    doc = _search_doc(model)
    doc["settings"].update({"method": "posterior", "pool": 2, "draws": 3})
    doc["posterior"] = {
        "prior": {"structures": "uniform over the pool", "parameters": "normal"},
        "draws": 3,
        "structures": [
            _structure(k, w, model.bic + 5.0 * i)
            for i, (k, w) in enumerate(zip((model.kernel, other), (0.7, 0.3), strict=True))
        ],
    }
    record = posterior_of(doc, model)
    context = build_context(dec, "Output", "output.csv", doc, figures=False, record=record)
    (cycle,) = [f for f in context["json"]["summary"]["findings"] if f["kind"] == "periodic"]
    assert cycle["probability"] == pytest.approx(1.0)
    assert cycle["wording"] == NOT_ESTABLISHED and "only possible" in cycle["text"]
    assert not any("2.6 years" in fact for fact in context["summary"]["facts"])
    # not under "Possible, but uncertain" with its 1.00: that sentence and its number disagreed
    held, *possible = context["summary"]["uncertain"].split("Possible, but uncertain:")
    assert held.startswith("Held by most of the weight, but not established by the data:")
    assert "2.6 years" in held and not any("2.6 years" in p for p in possible)


def test_a_weak_cycle_is_headed_as_possible_as_its_bullet_is(equal_peaks) -> None:
    """The section's heading (and the table's row) read 'a periodic function ...' while the
    bullet and the paragraph said 'possibly'."""
    context, _ = equal_peaks
    section = next(c for c in context["components"] if "period" in c["phrase"])
    assert section["phrase"].startswith("possibly a periodic function")
    (row,) = [r for r in context["table"]["rows"] if r["index"] == section["index"]]
    assert row["phrase"].startswith("possibly ")


def test_a_spiky_cycle_repeating_at_a_third_of_its_period_says_so() -> None:
    """A 3-year cycle with a spiky shape fitted to a yearly cycle (sulphuric): the data's
    periodogram peaks at 1 year, the third harmonic, and the report stated a 3-year cycle."""
    rng = np.random.default_rng(3)
    y = 2.0 * np.sin(2 * np.pi * X) + 0.3 * rng.standard_normal(X.size)
    model = _model(y, "Per(lengthscale=0.26, period=3.0, sd=1.5) + WN(sd=0.3)")
    dec = decompose(model, AXIS, extrapolate=0.1, seed=0)
    context = build_context(dec, "Output", "output.csv", _search_doc(model), figures=False)
    (bullet,) = [b for b in context["summary"]["bullets"] if "period" in b]
    assert bullet.startswith("Possibly") and "repeats every 1.0 year, not every 3.0" in bullet
    section = next(c for c in context["components"] if "period" in c["phrase"])
    assert section["phrase"].startswith("possibly ")


def test_the_greedy_method_is_said_in_words_not_as_a_flag(equal_peaks) -> None:
    """The summary said '(--method greedy; ...)': a command-line flag in a report's body."""
    context, _ = equal_peaks
    assert "--" not in context["summary"]["method"]
    assert "scored best" in context["summary"]["method"]


def test_the_summary_words_each_component_once(equal_peaks, monkeypatch) -> None:
    """Telling twin phrases apart worded every other component again for each component:
    n² phrases for n components."""
    from abcd_cli.reporting import component_text, sections

    _, dec = equal_peaks
    calls = []
    original = component_text._phrase
    monkeypatch.setattr(
        component_text, "_phrase", lambda *a, **k: calls.append(1) or original(*a, **k)
    )
    sections.summary_section(dec, weak={})
    assert len(calls) == len(dec.components)


def test_a_yearly_cycle_with_two_humps_is_not_said_to_repeat_every_six_months() -> None:
    """Unemployment: a yearly pattern whose strongest harmonic is at 6 months still repeats
    yearly (its yearly frequency holds power too), and is no weak cycle."""
    x = 1960.0 + np.arange(360) / 12.0  # monthly, 30 years
    rng = np.random.default_rng(5)
    y = np.sin(2 * np.pi * x) + 2.0 * np.sin(4 * np.pi * x + 0.5)
    y = y + 0.2 * rng.standard_normal(x.size)
    sc = Scaling.from_data(x, y)
    kernel = sc.kernel_in(parse_kernel("Per(lengthscale=0.5, period=1.0, sd=1.5) + WN(sd=0.2)"))
    nll = sc.nll_out(negative_log_likelihood(kernel, sc.x_in(x), sc.y_in(y)), x.size)
    dec = decompose(Model(kernel, sc, x, y, nll), AXIS, extrapolate=0.1, seed=0)
    (periodic,) = [c for c in dec.components if not c.is_noise]
    assert weak_cycle_reason(dec, periodic) is None


def test_the_apis_description_of_a_weak_cycle_is_hedged_as_its_heading_is(equal_peaks) -> None:
    """FoundModel.components described the weak cycle as 'a periodic function ...' beside the
    report's 'possibly ...'."""
    from abcd_cli.found import FoundModel

    context, dec = equal_peaks
    found = FoundModel.from_document(_search_doc(dec.model))
    headings = [c["phrase"] for c in context["components"]]
    assert [c.description for c in found.components] == headings
    assert any(d.startswith("possibly a periodic function") for d in headings)


def test_a_wandering_cycle_is_not_its_own_rival() -> None:
    """Sunspots (statsmodels' yearly series, read as a held-out check): 'possibly ... a period
    of 10.4 years (not established: its period is one of three comparable peaks ...)', the
    rivals at 10.0 and 11.0 years being the same cycle, whose period wanders; the model said
    so (its shape drifts over 9.4 years). Peaks within the cycle's own spectral width are
    not rivals; the same peaks beside a cycle that repeats exactly still are."""
    x = 1700.0 + np.arange(300.0)
    rng = np.random.default_rng(5)
    y = sum(np.sin(2 * np.pi * x / p + k) for k, p in enumerate((9.8, 10.5, 11.3)))
    y = y + 0.3 * rng.standard_normal(x.size)
    axis = (Axis("year", "date", "sunspots"),)
    reasons = {}
    for name, text in (
        ("drifting", "Per(lengthscale=2.0, period=10.5, sd=1.0) * SE(lengthscale=9.4, sd=1.0)"),
        ("exact", "Per(lengthscale=2.0, period=10.5, sd=1.0)"),
    ):
        sc = Scaling.from_data(x, y)
        kernel = sc.kernel_in(parse_kernel(f"{text} + WN(sd=0.3)"))
        nll = sc.nll_out(negative_log_likelihood(kernel, sc.x_in(x), sc.y_in(y)), x.size)
        dec = decompose(Model(kernel, sc, x, y, nll), axis, extrapolate=0.1, seed=0)
        (cycle,) = [c for c in dec.components if not c.is_noise]
        reasons[name] = weak_cycle_reason(dec, cycle) or ""
    assert "comparable peaks" not in reasons["drifting"]
    assert "comparable peaks" in reasons["exact"]


def test_a_cycle_the_data_hold_fewer_than_three_times_is_possible() -> None:
    """A 25-year cycle in 60 years of data, however strong and however much it lowers the
    error, repeats only 2.4 times: its repetition is what the data cannot show (radio's
    10-year cycle in 19.9 years was a plain bullet); a 5-year one, 12 times, is no weak one."""
    rng = np.random.default_rng(2)
    noise = 0.3 * rng.standard_normal(X.size)
    _, slow = _context(3.0 * np.sin(2 * np.pi * X / 25.0) + noise, 25.0)
    cycle = next(c for c in slow.components if not c.is_noise)
    assert cycle.mae_reduction > 0.2
    assert "the data span only 2.4 of its cycles" in (weak_cycle_reason(slow, cycle) or "")
    _, fast = _context(3.0 * np.sin(2 * np.pi * X / 5.0) + noise, 5.0)
    cycle = next(c for c in fast.components if not c.is_noise)
    assert weak_cycle_reason(fast, cycle) is None


def test_a_component_that_does_not_help_prediction_is_possible_not_a_finding() -> None:
    """Radio: 'A constant.' and 'A smooth function.' stood as plain findings in the summary
    while their paragraphs called them probably by-products (the cross-validated error rose by
    1.7% and 0.3% with them); one without which the whole model predicts worse is no such."""
    import dataclasses

    from abcd_cli.kernels import C
    from abcd_cli.reporting.weak import weak_reason
    from tests.reporting.test_describe import make_facts

    rng = np.random.default_rng(2)
    y = 3.0 * np.sin(2 * np.pi * X / 2.6) + 0.5 * rng.standard_normal(X.size)
    _, dec = _context(y, 2.6)
    idle = make_facts(C((1.0,)), index=5, cv_before=0.513, cv_after=0.522)
    assert weak_reason(dec, idle) == "it does not lower the cross-validated error"
    joint = dataclasses.replace(idle, cv_mae_whole=0.4, cv_mae_without=0.6)
    assert weak_reason(dec, joint) is None
    helps = make_facts(C((1.0,)), index=5, cv_before=0.513, cv_after=0.45)
    assert weak_reason(dec, helps) is None


def test_a_cycle_that_swings_in_only_a_few_of_its_periods_is_possible() -> None:
    """Wages: 'a periodic function with a period of 104 years and increasing amplitude' as a
    plain finding, flat for six centuries and swinging over the last one and a half."""
    kernel = "Per(lengthscale=1.0, period=4.0, sd=1.0) * SE(lengthscale=6.0, sd=1.0) + WN(sd=0.01)"
    noise = 0.01 * np.random.default_rng(0).standard_normal(X.size)
    growing = np.exp((X - 2020.0) / 5.0) * 10.0 * np.sin(2 * np.pi * X / 4.0) + noise
    dec = decompose(_model(growing, kernel), AXIS, extrapolate=0.1, seed=0)
    cycle = next(c for c in dec.components if not c.is_noise)
    reason = weak_cycle_reason(dec, cycle) or ""
    assert "its swings reach 25% of their largest size in only two of the 15 periods" in reason
    steady = 10.0 * np.sin(2 * np.pi * X / 4.0) + noise
    dec = decompose(_model(steady, kernel), AXIS, extrapolate=0.1, seed=0)
    cycle = next(c for c in dec.components if not c.is_noise)
    assert weak_cycle_reason(dec, cycle) is None


def test_a_possible_cycle_carried_into_the_forecast_says_so(equal_peaks) -> None:
    """Held-out lynx: a 38-year cycle headed 'possibly' made a third of the forecast's next
    peak while the assumptions said only 'the cycles of components 1 and 2 keep repeating'."""
    context, _ = equal_peaks
    section = next(c for c in context["components"] if c["phrase"].startswith("possibly"))
    text = context["forecast"]["assumptions"]
    assert f"Component {section['index']} is carried on though its section calls it only" in text
