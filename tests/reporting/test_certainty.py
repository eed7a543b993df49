"""The words of certainty (reporting/certainty.py): how probabilities are written and which
tier a finding falls in."""

from __future__ import annotations

import pytest

from abcd_cli.decompose.certainty import Finding
from abcd_cli.decompose.components import Decomposition, decompose
from abcd_cli.decompose.facts import Axis
from abcd_cli.decompose.features import Feature
from abcd_cli.reporting.certainty import (
    FACT,
    FLOOR,
    LIKELY,
    NOT_ESTABLISHED,
    finding_detail,
    finding_phrase,
    probability_range,
    probability_text,
    tier,
    wording,
)
from tests.reporting.test_report import fixed_model


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (1.0, "1.00"),
        (0.999, "> 0.99"),
        (0.98, "0.98"),
        (0.654, "0.65"),
        (0.001, "< 0.01"),
        (0.0, "0.00"),
    ],
)
def test_a_probability_is_never_rounded_to_a_certainty(p: float, text: str) -> None:
    assert probability_text(p) == text


def test_the_tiers_follow_the_stated_bars() -> None:
    assert wording(FACT) == "fact" and wording(FACT - 1e-9) == "likely"
    assert wording(LIKELY) == "likely" and wording(LIKELY - 1e-9) == "uncertain"
    assert wording(FLOOR) == "uncertain" and wording(FLOOR - 1e-9) is None


@pytest.mark.parametrize(
    ("low", "high", "text"),
    [
        (0.96, 0.999, "0.96 to over 0.99"),
        (0.001, 0.03, "under 0.01 to 0.03"),
        (0.6, 0.7, "0.60 to 0.70"),
        (1.0, 1.0, "1.00"),
    ],
)
def test_a_probability_range_reads_without_garble(low: float, high: float, text: str) -> None:
    """'0.96–> 0.99' was printed for a range whose upper end is above 0.99."""
    assert probability_range(low, high) == text


@pytest.fixture(scope="module")
def dec() -> Decomposition:
    """The fixed model's decomposition: monthly data from 2000 to 2008."""
    return decompose(fixed_model(), (Axis("year", "date", "sales"),), extrapolate=0.2, seed=0)


def test_a_change_before_the_data_begin_is_said_so_and_not_stated_as_a_fact(dec) -> None:
    """A change placed a year before the first observation, held by 0.95 of the weight, was
    'a change around 1999 (probability 0.95)' among the facts: the data cannot place it."""
    change = Feature("change", (0,), 0.95, value=1999.0, interval=(1998.5, 1999.6))
    finding = Finding(change, 0.9, 0.97)
    assert finding_phrase(finding, dec) == "a change before the data begin"
    assert "1999" not in finding_detail(finding, dec)
    assert tier(finding, dec) == NOT_ESTABLISHED
    weak = Feature("change", (0,), 0.3, value=1999.0, interval=(1998.5, 1999.6))
    weak_change = Finding(weak, 0.2, 0.4)  # at 0.3 it is only possible wherever it lies
    assert tier(weak_change, dec) == "uncertain"


def test_a_change_within_the_data_keeps_its_time(dec) -> None:
    change = Feature("change", (0,), 0.95, value=2004.2, interval=(2004.0, 2004.4))
    finding = Finding(change, 0.9, 0.97)
    assert finding_phrase(finding, dec) == "a change around March 2004"
    assert tier(finding, dec) == "fact"


def test_a_linear_trend_finding_whose_curve_is_a_step_is_not_called_a_linear_trend() -> None:
    """A linear term switched on that is flat where it applies (a level, a step) was stated in
    the posterior report as 'A linear trend (probability 1.00)', which the greedy report's
    own check against the curve already refused."""
    import numpy as np

    from abcd_cli.data.scaling import Scaling
    from abcd_cli.engines.exact import negative_log_likelihood
    from abcd_cli.kernels.text import parse_kernel
    from abcd_cli.model import Model, posterior_of
    from abcd_cli.reporting.context import build_context
    from tests.reporting.test_posterior_report import _structure
    from tests.reporting.test_report import _search_doc

    x = 2000.0 + np.arange(96) / 12.0
    rng = np.random.default_rng(4)
    y = np.where(x >= 2004.0, 5.0, 0.0) + 0.2 * rng.standard_normal(x.size)
    sc = Scaling.from_data(x, y)
    text = (
        "CP(C(sd=0.1), Lin(sd=0.05, location=1900.0), location=2004.0, steepness=0.01) + WN(sd=0.2)"
    )
    kernel = sc.kernel_in(parse_kernel(text))
    nll = sc.nll_out(negative_log_likelihood(kernel, sc.x_in(x), sc.y_in(y)), x.size)
    model = Model(kernel, sc, x, y, nll)
    dec = decompose(model, (Axis("year", "date", "level"),), extrapolate=0.1, seed=0)
    doc = _search_doc(model)
    doc["settings"].update({"method": "posterior", "pool": 1, "draws": 3})
    doc["posterior"] = {
        "prior": {"structures": "uniform over the pool", "parameters": "normal"},
        "draws": 3,
        "structures": [_structure(model.kernel, 1.0, model.bic)],
    }
    record = posterior_of(doc, model)
    context = build_context(dec, "Level", "level.csv", doc, figures=False, record=record)
    (trend,) = [f for f in context["json"]["summary"]["findings"] if f["kind"] == "linear trend"]
    assert not trend["text"].startswith("a linear trend")
    assert "flat where it applies" in trend["text"]
    assert not any("linear trend" in fact.lower() for fact in context["summary"]["facts"])


def test_a_cycle_finding_whose_data_peak_at_a_harmonic_says_that_first() -> None:
    """Sulphuric and unemployment at depth 2, posterior report: 'A cycle with a period of 4.0
    years (probability 1.00)' where what the cycle fits mostly rises and falls every year.
    The finding now says that first, as the component's heading does."""
    from abcd_cli.model import posterior_of
    from abcd_cli.reporting.context import build_context
    from tests.reporting.test_curves import HARMONIC_KERNEL, _cycle_decomposition, harmonic_series
    from tests.reporting.test_posterior_report import _structure
    from tests.reporting.test_report import _search_doc

    dec = _cycle_decomposition(harmonic_series(), HARMONIC_KERNEL)
    model = dec.model
    doc = _search_doc(model)
    doc["settings"].update({"method": "posterior", "pool": 1, "draws": 3})
    doc["posterior"] = {
        "prior": {"structures": "uniform over the pool", "parameters": "normal"},
        "draws": 3,
        "structures": [_structure(model.kernel, 1.0, model.bic)],
    }
    record = posterior_of(doc, model)
    context = build_context(dec, "Output", "output.csv", doc, figures=False, record=record)
    (cycle,) = [f for f in context["json"]["summary"]["findings"] if f["kind"] == "periodic"]
    assert cycle["text"].startswith(
        "a cycle that mostly rises and falls every 1.0 year, its pattern repeating every 4.0 years"
    )
    assert "with a period of 4.0 years" not in cycle["text"]


def test_a_period_interval_whose_ends_print_the_same_prints_one_value(dec) -> None:
    """Airline by the sampler: 'period between 3.1 and 3.1 years', every particle holding the
    cycle at the same period."""
    same = Feature("periodic", (0,), 0.48, value=3.06245, interval=(3.06245, 3.06245))
    detail = finding_detail(Finding(same, 0.16, 0.66), dec)
    assert "between" not in detail
    assert "; period 3.06 years;" in detail
    apart = Feature("periodic", (0,), 0.48, value=3.06, interval=(3.0, 3.1))
    assert "period between 3.00 and 3.10 years" in finding_detail(Finding(apart, 0.2, 0.6), dec)


def _flat_cycle_context() -> tuple[dict, Decomposition]:
    """A rough cycle whose fitted curve is flat at zero inside its band (``test_rough_cycle``'s
    faint one), held by every weighed structure: a posterior report's context."""
    from abcd_cli.model import posterior_of
    from abcd_cli.reporting.context import build_context
    from tests.reporting.test_posterior_report import _structure
    from tests.reporting.test_report import _search_doc
    from tests.reporting.test_rough_cycle import FAINT, _made_decomposition

    dec = _made_decomposition(FAINT)
    model = dec.model
    doc = _search_doc(model)
    doc["settings"].update({"method": "posterior", "pool": 1, "draws": 3})
    doc["posterior"] = {
        "prior": {"structures": "uniform over the pool", "parameters": "normal"},
        "draws": 3,
        "structures": [_structure(model.kernel, 1.0, model.bic)],
    }
    record = posterior_of(doc, model)
    return build_context(dec, "Y", "y.csv", doc, figures=False, record=record), dec


def test_a_cycle_finding_whose_curve_is_flat_is_no_cycle_and_no_fact() -> None:
    """Airline by the sampler: a component flat at zero (fitted sd 4e-10 in a band of 1e-4)
    was stated as 'a cycle that mostly rises and falls every 2.4 months, its pattern repeating
    every 3.1 years': its fitted curve shows no cycle, and no harmonic of one."""
    context, _ = _flat_cycle_context()
    (cycle,) = [f for f in context["json"]["summary"]["findings"] if f["kind"] == "periodic"]
    assert cycle["text"].startswith("a period of 1.0 year that the data give no shape")
    assert "a cycle" not in cycle["text"] and "rises and falls" not in cycle["text"]
    assert "its fitted curve is flat at zero" in cycle["text"]
    assert cycle["probability"] == pytest.approx(1.0)
    assert cycle["wording"] == NOT_ESTABLISHED
    assert not any("period" in fact for fact in context["summary"]["facts"])
