"""A cycle made only of rough terms (reporting/rough_cycle.py): said by what its curve shows,
not as a regular repeating shape ('an approximately periodic function with a period of 1.0
year ... Within each period it has a sharp, spiky shape ... and this pattern recurs every
period' for a periodic factor whose features are narrower than the data's spacing)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from abcd_cli.data.scaling import Scaling
from abcd_cli.decompose.components import Decomposition, decompose
from abcd_cli.decompose.facts import ComponentFacts
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model
from abcd_cli.reporting.describe import component_paragraph, describe_extrapolation, noun_phrase
from abcd_cli.reporting.rough_cycle import ROUGH_PHRASE, is_rough_cycle, period_correlation
from tests.axes import YEAR

#: a periodic factor with features of about three days on monthly data (noise-like there)
NARROW = "SE(lengthscale=5.0, sd=1.0) * Per(lengthscale=0.05, period=1.0, sd=1.0) + WN(sd=0.3)"
#: a smooth factor of about five weeks, shorter than the period
SHORT = "SE(lengthscale=0.1, sd=1.0) * Per(lengthscale=3.0, period=1.0, sd=1.0) + WN(sd=0.3)"


#: SHORT with its smooth factor's size almost nil: a fitted curve flat at zero in its band
FAINT = SHORT.replace("SE(lengthscale=0.1, sd=1.0)", "SE(lengthscale=0.1, sd=1e-9)")


def _decomposed(x: np.ndarray, y: np.ndarray, kernel: str) -> Decomposition:
    """The series (x, y) decomposed under ``kernel`` (user units), its fit as given."""
    scaling = Scaling.from_data(x, y)
    return decompose(Model(scaling.kernel_in(parse_kernel(kernel)), scaling, x, y, 0.0), (YEAR,))


def _made_decomposition(kernel: str) -> Decomposition:
    """Twenty years of monthly data with no yearly pattern (a moving sum of white noise over
    two months plus noise), decomposed under ``kernel``."""
    rng = np.random.default_rng(2)
    x = 1990.0 + np.arange(0.0, 20.0, 1.0 / 12.0)
    moving = np.convolve(rng.standard_normal(x.size + 1), np.ones(2), "valid")
    y = 5.0 + moving + 0.3 * rng.standard_normal(x.size)
    return _decomposed(x, y, kernel)


def _made(kernel: str) -> tuple[ComponentFacts, np.ndarray]:
    """:func:`_made_decomposition`'s component that is not noise, and the data's times."""
    dec = _made_decomposition(kernel)
    return next(c for c in dec.components if not c.is_noise), dec.model.X[:, 0]


@pytest.mark.parametrize("kernel", [NARROW, SHORT])
def test_a_cycle_of_rough_terms_is_not_said_as_a_repeating_shape(kernel: str) -> None:
    cycle, x = _made(kernel)
    assert is_rough_cycle(cycle.kernel, x)
    assert noun_phrase(cycle.kernel, YEAR, x_data=x) == ROUGH_PHRASE
    text = component_paragraph(cycle, YEAR, x_data=x)
    for false in ("periodic function", "Within each period", "recurs every period", "amplitude"):
        assert false not in text
    assert "Its covariance holds a period of 1.0 year" in text
    size = float(re.findall(r"standard deviation of about ([\d.]*\d)", text)[0])
    assert size == pytest.approx(float(np.std(cycle.data_mean)), rel=0.01)
    r = float(re.findall(r"apart correlate at ([−\d.]*\d)", text)[0].replace("−", "-"))
    assert r == pytest.approx(period_correlation(cycle, 1.0, x), abs=0.006)
    assert ("do recur" in text) == (r >= 0.5)
    assert "keep repeating" not in describe_extrapolation(cycle, YEAR, x_data=x)


def test_the_rough_terms_reason_follows_the_kernel() -> None:
    narrow, x = _made(NARROW)
    assert "narrower than the spacing of the data (1.0 month)" in component_paragraph(
        narrow, YEAR, x_data=x
    )
    short, x = _made(SHORT)
    text = component_paragraph(short, YEAR, x_data=x)
    assert "changes over only about 1.2 months, less than a period" in text
    fading = describe_extrapolation(short, YEAR, x_data=x)
    assert "dies away" in fading


def test_a_cycle_with_a_smooth_shape_is_not_rough() -> None:
    x = 1990.0 + np.arange(0.0, 20.0, 1.0 / 12.0)
    smooth = parse_kernel("SE(lengthscale=5.0, sd=1.0) * Per(lengthscale=1.0, period=1.0, sd=1.0)")
    assert not is_rough_cycle(smooth, x)
    assert not is_rough_cycle(smooth, None)


def test_a_rough_cycle_flat_inside_its_band_is_said_flat_and_not_given_a_shape() -> None:
    """Airline by the sampler: a cycle of fitted sd 4e-10 inside a band of ±0.0003, drawn as
    a line at zero, was said to be 'a pattern of jumps' whose values 'recur a period later'."""
    from abcd_cli.reporting.curves import flat_in_band

    cycle, x = _made(FAINT)
    assert flat_in_band(cycle) and not flat_in_band(_made(SHORT)[0])
    text = component_paragraph(cycle, YEAR, x_data=x)
    assert "its fitted curve is flat at zero" in text
    for false in ("recur", "jumps", "correlate"):
        assert false not in text
    after = describe_extrapolation(cycle, YEAR, x_data=x)
    assert "stays flat at zero" in after and "irregular values" not in after


def test_a_flat_cycle_is_headed_and_opened_by_what_its_curve_shows() -> None:
    """Airline by the sampler: a component flat at zero was headed and opened as
    'short-term irregular variation' (read from its kernel alone), while its paragraph said
    its fitted curve is flat at zero; nor may it be a cycle repeating at a harmonic, or a weak
    cycle for any reason but that."""
    from abcd_cli.reporting.component_text import section_phrases
    from abcd_cli.reporting.curves import repeat_harmonic
    from abcd_cli.reporting.rough_cycle import FLAT_PHRASE
    from abcd_cli.reporting.weak import weak_cycle_reason

    dec = _made_decomposition(FAINT)
    x = dec.model.X[:, 0]
    cycle = next(c for c in dec.components if not c.is_noise)
    phrase = section_phrases(dec)[cycle.index - 1]
    assert phrase == FLAT_PHRASE and ROUGH_PHRASE not in phrase
    text = component_paragraph(cycle, YEAR, x_data=x)
    assert f"is {FLAT_PHRASE}." in text and ROUGH_PHRASE not in text
    assert repeat_harmonic(cycle, x) is None
    assert (weak_cycle_reason(dec, cycle) or "").startswith("its fitted curve is flat at zero")
    rough = _made_decomposition(SHORT)  # a rough cycle with a curve keeps its words
    rough_cycle = next(c for c in rough.components if not c.is_noise)
    assert section_phrases(rough)[rough_cycle.index - 1] == ROUGH_PHRASE


def test_rough_terms_finer_than_the_spacing_are_said_to_be_scatter() -> None:
    """Temperature's yearly cycle plus a term of 1.3 days on data two days apart: 'explains
    97.6%' counted the scatter that term fits through the observations as the cycle's; the
    paragraph, and the summary beside its 97.6%, say what share of the component that scatter
    is, from its own fitted values."""
    from abcd_cli.reporting.summary import summary_sentences

    rng = np.random.default_rng(3)
    x = 2000.0 + np.arange(600) / 60.0  # ten years, about six days apart
    y = 4.0 * np.sin(2 * np.pi * x) + 1.5 * rng.standard_normal(x.size)
    text = (
        "Per(lengthscale=3.0, period=1.0, sd=3.0) + SE(lengthscale=0.0036, sd=1.0)"
        " * Per(lengthscale=3.0, period=1.0, sd=1.5) + WN(sd=0.3)"
    )
    dec = _decomposed(x, y, text)
    cycle = next(c for c in dec.components if not c.is_noise)
    paragraph = component_paragraph(cycle, YEAR, x_data=x)
    said = re.findall(
        r"scatter from one observation to the next, much as noise is: it makes up"
        r" about (\d+)% of the component's variance at the data",
        paragraph,
    )
    assert said, paragraph
    share = cycle.rough_sd**2 / np.var(cycle.data_mean)
    assert abs(int(said[0]) - 100 * share) <= 0.5 and 10 < int(said[0]) < 90
    summary = summary_sentences(dec.components, YEAR, x_data=x)["explained"]
    assert f"About {said[0]}% of component {cycle.index}'s variance at the data is scatter" in (
        summary
    )
    smooth = text.replace("lengthscale=0.0036", "lengthscale=0.1")  # five weeks: no scatter
    dec = _decomposed(x, y, smooth)
    cycle = next(c for c in dec.components if not c.is_noise)
    assert "much as noise is" not in component_paragraph(cycle, YEAR, x_data=x)
    assert "scatter" not in summary_sentences(dec.components, YEAR, x_data=x)["explained"]


def test_a_rough_cycle_whose_jumps_repeat_every_period_is_said_as_a_cycle() -> None:
    """Births' week on daily data: a periodic factor with features narrower than the spacing
    is rough by its kernel, but what it fits recurs a period later in the data, so it is the
    cycle it is, not 'short-term irregular variation' that does not repeat."""
    from abcd_cli.reporting.rough_cycle import said_as_rough

    rng = np.random.default_rng(4)
    x = 1990.0 + np.arange(0.0, 20.0, 1.0 / 12.0)
    y = np.where(np.round((x - 1990.0) * 12) % 12 == 6, 5.0, 0.0) + 0.1 * rng.standard_normal(
        x.size
    )
    cycle = next(c for c in _decomposed(x, y, NARROW).components if not c.is_noise)
    assert is_rough_cycle(cycle.kernel, x) and not said_as_rough(cycle, x)
    assert period_correlation(cycle, 1.0, x) >= 0.9
    text = component_paragraph(cycle, YEAR, x_data=x)
    assert ROUGH_PHRASE not in text and "period of 1.0 year" in text, text
    irregular, x_irregular = _made(NARROW)  # no pattern: rough, as before
    assert said_as_rough(irregular, x_irregular)


def test_cycles_of_three_and_four_months_together_are_a_yearly_pattern() -> None:
    """Wine sales (held out): Per(3 months) × Per(4 months), each with features of hours on
    monthly data, was 'short-term irregular variation ... Its covariance holds a period of
    3.0 months ... Nor do its values recur a period later', though together they give each
    month of the year its own level and the data recur every year."""
    from abcd_cli.reporting.component_text import section_phrases

    rng = np.random.default_rng(5)
    x = 1980.0 + np.arange(0.0, 15.0, 1.0 / 12.0)
    months = np.array([3.0, -1.0, 0.5, 2.0, -2.5, 1.0, -0.5, 0.0, -1.5, 2.5, 4.0, -7.5])
    y = months[np.round((x % 1.0) * 12).astype(int) % 12] + 0.3 * rng.standard_normal(x.size)
    kernel = (
        "Per(lengthscale=0.01, period=0.25, sd=2.0) * Per(lengthscale=0.01, period=0.333333,"
        " sd=1.5) + WN(sd=0.3)"
    )
    dec = _decomposed(x, y, kernel)
    cycle = next(c for c in dec.components if not c.is_noise)
    phrase = section_phrases(dec)[cycle.index - 1]
    assert phrase.startswith("a periodic function with a period of 1.0 year"), phrase
    paragraph = component_paragraph(cycle, YEAR, x_data=x)
    assert "3.0 months" not in paragraph and "hours wide" not in paragraph
    assert "its features are narrower than the finest step of the data (1.0 month)" in paragraph
