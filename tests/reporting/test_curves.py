"""The words on a component's size across the data read from its own fitted curve
(reporting/curves.py: size_profile), never from its change factors' parameters alone."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.kernels import SE, After, Before, C, Inside, Per
from abcd_cli.reporting.curves import level_side, repeat_harmonic, size_profile
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


def test_a_curve_whose_swings_shrink_is_said_to_shrink() -> None:
    kernel = prod(SE((0.5, 1.0)), Before((1970.0, 3.0)))
    mean = np.exp(-(GRID - 1960.0) / 5.0) * np.cos(2 * np.pi * GRID / 0.7)
    phrase, _ = _heading(kernel, mean)
    assert phrase.endswith("whose size shrinks across the data")


def test_a_level_that_shrinks_towards_the_mean_says_which_way_it_moves() -> None:
    """Gas production, component 1: a level rising from −19,400 to −78 under a soft gate was
    'a smooth function which fades across the data', which a reader takes for 'falls'. It
    now says where it goes: towards the series' mean, up from below."""
    kernel = prod(SE((20.0, 1.0)), Before((1970.0, 3.0)))
    below = -19400.0 * np.exp(-(GRID - 1960.0) / 3.0)
    facts = make_facts(kernel, below, grid=GRID)
    reference = "the series' mean"
    phrase = noun_phrase(
        kernel,
        YEAR,
        x_data=DATA,
        strength=size_profile(facts, DATA),
        side=level_side(facts, DATA),
        reference=reference,
    )
    assert phrase == "a smooth function which rises towards the series' mean across the data"
    paragraph = component_paragraph(facts, YEAR, x_data=DATA, reference=reference)
    assert "rises towards the series' mean" in paragraph and "fade" not in paragraph
    # the mirror image falls towards it; a level moving away says so
    above = make_facts(kernel, -below, grid=GRID)
    assert component_paragraph(above, YEAR, x_data=DATA, reference=reference).startswith(
        "This component is a smooth function which falls towards the series' mean across"
    )
    level = prod(C((1.0,)), Before((1970.0, 3.0)))
    assert noun_phrase(
        level,
        YEAR,
        x_data=DATA,
        strength=size_profile(facts, DATA),
        side=level_side(facts, DATA),
        reference=reference,
    ) == ("a level which rises towards the series' mean across the data")  # not 'a constant'
    growing = make_facts(prod(SE((20.0, 1.0)), After((1970.0, 3.0))), below[::-1], grid=GRID)
    assert "which falls further below zero across the data" in component_paragraph(
        growing, YEAR, x_data=DATA
    )


def _cycle_decomposition(y: np.ndarray, kernel_text: str):
    """The quarterly series ``y`` of tests/reporting/test_weak.py decomposed by a model."""
    from abcd_cli.decompose.components import decompose
    from tests.reporting.test_weak import AXIS, _model

    return decompose(_model(y, kernel_text), AXIS, extrapolate=0.1, seed=0)


def _cycle_context(y: np.ndarray, kernel_text: str) -> dict:
    from abcd_cli.reporting.context import build_context
    from tests.reporting.test_report import _search_doc

    dec = _cycle_decomposition(y, kernel_text)
    return build_context(dec, "Output", "output.csv", _search_doc(dec.model), figures=False)


def harmonic_series() -> np.ndarray:
    """Quarterly data that rise and fall every year, with some 4-year power, for a 4-year
    cycle (``HARMONIC_KERNEL``) to fit."""
    from tests.reporting.test_weak import X

    rng = np.random.default_rng(6)
    y = 2.0 * np.sin(2 * np.pi * X) + 0.8 * np.sin(2 * np.pi * X / 4.0)
    return y + 0.3 * rng.standard_normal(X.size)


HARMONIC_KERNEL = "Per(lengthscale=0.3, period=4.0, sd=1.5) + WN(sd=0.3)"


@pytest.fixture(scope="module")
def harmonic_context() -> dict:
    """A 4-year cycle fitted to data that rise and fall every year, with some 4-year power."""
    return _cycle_context(harmonic_series(), HARMONIC_KERNEL)


def test_a_cycle_whose_data_peak_at_a_harmonic_says_where(harmonic_context) -> None:
    """Sulphuric and unemployment at depth 2: 'a period of 4.0 years' where what the cycle fits
    rises and falls every year (its 4-year frequency holds some power, so the cycle is not
    merely a yearly one): the paragraph now says where the data repeat most strongly."""
    section = next(c for c in harmonic_context["components"] if "periodic" in c["phrase"])
    assert "peaks at 1.0 year, not at its period" in section["paragraph"]
    assert "mostly rise and fall four times" in section["paragraph"]


def test_a_cycle_whose_data_peak_at_a_harmonic_is_not_headed_by_its_period(
    harmonic_context,
) -> None:
    """Sulphuric and unemployment at depth 2: the heading and the summary's bullet said 'a
    period of 4.0 years' while what the cycle fits mostly rises and falls every year (said
    only in the paragraph). Both now lead with the yearly repetition."""
    words = "that mostly rises and falls every 1.0 year, its pattern repeating every 4.0 years"
    section = next(c for c in harmonic_context["components"] if "periodic" in c["phrase"])
    assert section["phrase"].endswith(f"a periodic function {words}")
    (bullet,) = [b for b in harmonic_context["summary"]["bullets"] if "periodic" in b]
    assert f"a periodic function {words}" in bullet
    assert "with a period of 4.0 years" not in bullet + section["phrase"]


def test_a_cycle_longer_than_the_data_is_a_slow_swing() -> None:
    """A fitted period longer than the data (wheat's and wages' century-long cycles were the
    reviewer's concern): not 'a periodic function with a period of 80.0 years', which the data
    cannot show, but a slow swing with less than one cycle seen, its period placed against
    the span in the paragraph, and its repeating past the data said as an assumption."""
    from tests.reporting.test_weak import X

    rng = np.random.default_rng(7)
    y = 3.0 * np.sin(2 * np.pi * (X - 1960.0) / 80.0) + 0.3 * rng.standard_normal(X.size)
    context = _cycle_context(y, "Per(lengthscale=1.0, period=80.0, sd=3.0) + WN(sd=0.3)")
    section = next(c for c in context["components"] if "swing" in c["phrase"])
    assert section["phrase"] == "a slow swing with less than one cycle seen in the data"
    assert "80.0 years" not in section["phrase"]
    assert (
        "Its fitted period, 80.0 years, is longer than the span of the data"
        in (section["paragraph"])
    )
    assert "they show a slow swing, not that it repeats" in section["paragraph"]
    assert "the model's assumption, not something the data show" in section["extrapolation"]
    (bullet,) = [b for b in context["summary"]["bullets"] if "swing" in b]
    assert bullet == "A slow swing with less than one cycle seen in the data."


def test_a_harmonic_cycles_further_clause_reads_as_a_clause_of_its_own() -> None:
    """Sulphuric (depth 3): '... its pattern repeating every 3.0 years which is strongest
    around 1975', and wages: '... every 104 years whose amplitude changes', where the clause
    attached to the years; it now joins the phrase as a second clause."""
    kernel = prod(Per((0.5, 4.0, 1.0)), Inside((1979.0, 19.0, 12.8)))
    envelope = 1.0 + 3.0 * np.exp(-(((GRID - 1968.0) / 4.0) ** 2))
    facts = make_facts(kernel, envelope * np.sin(2 * np.pi * GRID), grid=GRID)
    phrase = noun_phrase(kernel, YEAR, x_data=DATA, strength=size_profile(facts, DATA), harmonic=4)
    assert phrase.startswith(
        "a periodic function that mostly rises and falls every 1.0 year, its pattern repeating"
        " every 4.0 years, and which is strongest around"
    )


@pytest.mark.parametrize(("wave", "claimed"), [(1.0, False), (2.0, True)])
def test_a_harmonic_is_claimed_only_where_the_curve_rises_and_falls_that_often(
    wave: float, claimed: bool
) -> None:
    """Unemployment: 'mostly rises and falls every 6.0 months' above a yearly shape of one tall
    spike and a small second bump (its periodogram peaks at 6 months; its curve rises and
    falls once a year). A 4-year spike beside a 2-year wave of amplitude 1 reads the same way;
    with amplitude 2 the curve shows both rises and falls and the words say so."""
    from tests.reporting.test_weak import X

    rng = np.random.default_rng(6)
    spike = 6.0 * (((X - 1960.0) % 4.0) == 1.0)
    y = spike + wave * np.sin(2 * np.pi * X / 2.0) + 0.2 * rng.standard_normal(X.size)
    dec = _cycle_decomposition(y, HARMONIC_KERNEL)
    cycle = next(c for c in dec.components if not c.is_noise)
    assert (repeat_harmonic(cycle, X) == 2) is claimed


def test_a_steady_amplitude_that_still_grows_says_so() -> None:
    """Mauna Loa: 'its amplitude ... stays about 3.04 across the data' while its swings grow
    from about 2.75 to 3.3, within the quarter that counts as steady."""
    from abcd_cli.reporting.amplitude_text import amplitude_sentence
    from abcd_cli.reporting.curves import Amplitudes

    centres = np.arange(1958.5, 2004.0)
    growing = Amplitudes(centres, 2.75 + 0.012 * (centres - 1958.5) + 0.1 * np.sin(centres))
    text = amplitude_sentence(growing, YEAR, DATA)
    assert growing.steady and "stays about" in text
    assert "though it grows slowly, from about 2.7" in text and "to about 3.2" in text
    flat = Amplitudes(centres, 3.0 + 0.1 * np.sin(centres))
    assert amplitude_sentence(flat, YEAR, DATA).endswith("stays about 2.99 across the data.")
