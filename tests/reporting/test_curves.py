"""The words on a component's size across the data read from its own fitted curve
(reporting/curves.py: size_profile), never from its change factors' parameters alone."""

from __future__ import annotations

import numpy as np

from abcd_cli.kernels import SE, Before, Inside, Per
from abcd_cli.reporting.curves import size_profile
from abcd_cli.reporting.describe import component_paragraph, noun_phrase
from tests.axes import YEAR
from tests.reporting.test_describe import make_facts, prod

DATA = np.arange(1960.0, 1977.0, 1.0 / 12.0)  # monthly, 1960 to 1976
GRID = np.linspace(1960.0, 1980.0, 481)


def _heading(kernel, mean: np.ndarray) -> tuple[str, str]:
    facts = make_facts(kernel, mean, grid=GRID)
    phrase = noun_phrase(kernel, YEAR, x_data=DATA, strength=size_profile(facts, DATA))
    return phrase, component_paragraph(facts, YEAR, x_data=DATA)


def test_a_soft_gate_that_falls_under_a_curve_that_peaks_late_is_not_said_to_fade() -> None:
    """Call-centre and gas production: a soft changepoint's gate falls across the data, so the
    heading said 'fades across the data', beside a curve that is largest near the end."""
    kernel = prod(SE((0.5, 1.0)), Before((1970.0, 3.0)))
    mean = 3.0 * np.exp(-(((GRID - 1974.0) / 1.5) ** 2)) * np.cos(2 * np.pi * GRID / 0.7)
    phrase, paragraph = _heading(kernel, mean)
    assert "fades" not in phrase
    assert phrase.endswith("which is strongest around 1974")
    assert "largest around 1974" in paragraph and "fades across" not in paragraph


def test_a_gated_cycle_states_one_time_of_its_largest_size() -> None:
    """Sulphuric: 'largest around 1976' (its amplitude on the curve) beside 'strongest around
    1979' (its gate's peak) in one paragraph; both now come from the curve."""
    kernel = prod(Per((0.5, 3.0, 1.0)), Inside((1979.0, 19.0, 12.8)))
    envelope = 1.0 + 3.0 * np.exp(-(((GRID - 1968.0) / 4.0) ** 2))
    mean = envelope * np.sin(2 * np.pi * GRID / 3.0)
    phrase, paragraph = _heading(kernel, mean)
    year = int(phrase.rpartition("strongest around ")[2])
    assert abs(year - 1968) <= 1.5  # within half a period of the curve's largest swing
    assert "1979" not in phrase and "1979" not in paragraph
    assert f"largest around {year}" in paragraph


def test_a_curve_that_does_fade_still_fades() -> None:
    kernel = prod(SE((0.5, 1.0)), Before((1970.0, 3.0)))
    mean = np.exp(-(GRID - 1960.0) / 5.0) * np.cos(2 * np.pi * GRID / 0.7)
    phrase, _ = _heading(kernel, mean)
    assert phrase.endswith("which fades across the data")


def test_a_cycle_whose_data_peak_at_a_harmonic_says_where() -> None:
    """Sulphuric and unemployment at depth 2: 'a period of 4.0 years' where what the cycle fits
    rises and falls every year (its 4-year frequency holds some power, so the cycle is not
    merely a yearly one): the paragraph now says where the data repeat most strongly."""
    from abcd_cli.decompose.components import decompose
    from abcd_cli.reporting.context import build_context
    from tests.reporting.test_report import _search_doc
    from tests.reporting.test_weak import AXIS, X, _model

    rng = np.random.default_rng(6)
    y = 2.0 * np.sin(2 * np.pi * X) + 0.8 * np.sin(2 * np.pi * X / 4.0)
    y = y + 0.3 * rng.standard_normal(X.size)
    model = _model(y, "Per(lengthscale=0.3, period=4.0, sd=1.5) + WN(sd=0.3)")
    dec = decompose(model, AXIS, extrapolate=0.1, seed=0)
    context = build_context(dec, "Output", "output.csv", _search_doc(model), figures=False)
    section = next(c for c in context["components"] if "period" in c["phrase"])
    assert "peaks at 1.0 year, not at its period" in section["paragraph"]
    assert "mostly rise and fall four times" in section["paragraph"]
