"""What a component does along its inputs, in words (``reporting/effects.py``): the words of
partial dependence of functions whose answers are known (a line's rise, a parabola's peak, a
product's slope growing with its other input, shares in the order of the coefficients, a pure
interaction carried by no single input), the folding of small components, and the words of
models fitted to data through the decomposition (a line's size, a product's modulation). Their
numbers are tested in ``tests/decompose/test_effects.py``."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.decompose.components import Decomposition
from abcd_cli.decompose.effects import SMALL_SHARE, Modulation, effect_of
from abcd_cli.decompose.facts import ComponentFacts
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model
from abcd_cli.reporting.effects import (
    MINOR_INPUT,
    effect_json,
    effect_sentences,
    effect_summary,
    folded_sentence,
    opposite,
    small_sentence,
    summary_bullets,
)
from abcd_cli.reporting.numbers import format_percent
from abcd_cli.reporting.wording import format_amount, percent
from tests.decompose.test_effects import axes, fitted_lines, fitted_product, uniform_inputs

# -- the words of known functions --------------------------------------------------------------


def test_a_products_steeper_slope_is_worded_and_recorded() -> None:
    X = uniform_inputs(150, [(0.0, 10.0), (1.0, 3.0)])
    effect = effect_of(lambda Z: Z[:, 0] * Z[:, 1], X, (0, 1))
    m = effect.modulation
    assert m is not None and not opposite(m)
    words = effect_summary(effect, axes("x1", "x2"))
    assert "more steeply at higher x2" in words
    record = effect_json(effect, ("x1", "x2"))
    assert [a["input"] for a in record["along"]] == ["x1", "x2"]
    assert record["modulation"]["by"] == "x2" and record["modulation"]["at"] == [m.low, m.high]


def test_a_slope_shrinking_with_the_other_input_is_less_steep() -> None:
    X = uniform_inputs(150, [(0.0, 10.0), (1.0, 3.0)])
    effect = effect_of(lambda Z: -Z[:, 0] * (4.0 - Z[:, 1]), X, (0, 1))
    assert effect.main.direction == "falls"
    words = effect_summary(effect, axes("weight", "power"))
    assert words.startswith("Along weight (")
    assert "mpg falls by about" in words and "less steeply at higher power" in words


def test_a_slope_changing_sign_is_worded_both_ways() -> None:
    X = uniform_inputs(150, [(-5.0, 5.0), (0.0, 4.0)])
    X[:, 0] -= X[:, 0].mean()  # so that the product adds nothing along b alone
    effect = effect_of(lambda Z: Z[:, 0] * (Z[:, 1] - 2.0) + 0.3 * Z[:, 0], X, (0, 1))
    m = effect.modulation
    assert m is not None and opposite(m)
    words = effect_summary(effect, axes("a", "b"))
    assert "rises by about" in words and "but falls by about" in words


def test_the_smaller_of_two_changes_of_opposite_signs_must_be_large_enough() -> None:
    """Below ``OPPOSITE`` of the larger, a change of the other sign is 'less steeply'."""
    assert opposite(Modulation(0, 1, 1.0, 2.0, -1.0, 4.0))
    assert not opposite(Modulation(0, 1, 1.0, 2.0, -0.5, 4.0))
    assert not opposite(Modulation(0, 1, 1.0, 2.0, 1.0, 4.0))


def test_a_slight_dependence_on_the_other_input_is_not_worded() -> None:
    X = uniform_inputs(150, [(0.0, 10.0), (1.0, 3.0)])
    effect = effect_of(lambda Z: 3.0 * Z[:, 0] + 0.01 * Z[:, 0] * Z[:, 1], X, (0, 1))
    assert "steeply" not in effect_summary(effect, axes("a", "b"))


def test_inputs_are_named_by_the_variation_they_carry() -> None:
    X = uniform_inputs(200, [(0.0, 1.0)] * 3)
    effect = effect_of(lambda Z: 0.1 * Z[:, 0] + 5.0 * Z[:, 1] + 2.0 * Z[:, 2], X, (0, 1, 2))
    text = " ".join(effect_sentences(effect, axes("a", "b", "c")))
    assert text.index("Along b (") < text.index("Along c (")
    assert f"under {format_percent(MINOR_INPUT, decimals=0)} along a" in text


def test_a_pure_interaction_is_worded_as_inputs_acting_together() -> None:
    X = uniform_inputs(200, [(0.0, 10.0), (0.0, 10.0)])
    X -= X.mean(axis=0) - 5.0  # centred on 5, so the product's main effects vanish
    effect = effect_of(lambda Z: (Z[:, 0] - 5.0) * (Z[:, 1] - 5.0), X, (0, 1))
    assert any("acting together" in s for s in effect_sentences(effect, axes("a", "b")))


# -- small components --------------------------------------------------------------------------


def facts(index: int, share: float | None) -> ComponentFacts:
    empty = np.zeros(0)
    return ComponentFacts(
        index=index,
        kernel=parse_kernel("C(sd=1)", ("a",)),
        x_grid=empty,
        mean=empty,
        sd=empty,
        data_mean=empty,
        cum_r2=0.0,
        delta_r2=0.0,
        residual_r2=0.0,
        cv_mae_before=1.0,
        cv_mae=1.0,
        is_noise=share is None,
        share=share,
    )


def test_small_components_fold_into_one_sentence() -> None:
    shares = [0.6, 0.35, 0.01, 0.015, 0.005, None]
    components = [facts(k + 1, s) for k, s in enumerate(shares)]
    assert folded_sentence(components) == (
        "Three further components, each under 2% of the fitted mean's variance, together"
        f" explain {percent(0.03)} of it."
    )
    one = folded_sentence(components[:3])
    assert one.startswith("One further component, under 2%") and percent(0.01) in one
    assert folded_sentence(components[:2]) == ""
    tiny = folded_sentence([facts(1, 1e-7), facts(2, 2e-7)])
    assert tiny.endswith("together explain less than 0.1% of it.")
    assert "offset" in folded_sentence([facts(1, -0.012), facts(2, -0.01)])
    assert "under 5%" in folded_sentence(components, threshold=0.05)


# -- the words ---------------------------------------------------------------------------------


def test_a_falling_line_is_worded_with_its_size_and_range() -> None:
    X = uniform_inputs(60, [(1613.0, 5140.0)])
    X[0, 0], X[1, 0] = 1613.0, 5140.0
    effect = effect_of(lambda Z: -0.004 * Z[:, 0], X, (0,))
    assert effect_summary(effect, axes("weight")) == (
        f"Along weight (1,613 to 5,140), mpg falls by about"
        f" {format_amount(0.004 * 3527.0, axes('weight')[0])}."
    )


def test_an_input_counting_years_reads_later_and_keeps_its_digits() -> None:
    X = uniform_inputs(150, [(0.0, 10.0), (1970.0, 1982.0)])
    X[0, 1], X[1, 1] = 1970.0, 1982.0
    effect = effect_of(lambda Z: -Z[:, 0] * (1990.0 - Z[:, 1]), X, (0, 1))
    words = " ".join(effect_sentences(effect, axes("weight", "model_year")))
    assert "less steeply at later model_year" in words
    assert "model_year (1970 to 1982)" in words and "1,9" not in words


def test_a_hump_names_where_it_peaks() -> None:
    X = uniform_inputs(100, [(0.0, 10.0)])
    effect = effect_of(lambda Z: -((Z[:, 0] - 4.0) ** 2), X, (0,))
    words = effect_summary(effect, axes("a"))
    assert "rises by about" in words and "then falls by about" in words
    assert "peaking near 4" in words


# -- fitted models -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lines() -> tuple[Model, Decomposition]:
    return fitted_lines()


def test_the_summary_folds_the_component_that_does_not_matter(lines) -> None:
    _, dec = lines
    phrases = [f"component {c.index}" for c in dec.components]
    bullets = summary_bullets(dec, phrases)  # the decomposition's own effects
    assert bullets == summary_bullets(dec, phrases, dec.effects)
    assert len(bullets) == len(dec.components)  # the small one folded into the last bullet
    assert bullets[-1].startswith("One further component, under 2%")
    assert any("Along a (" in b and "y rises by about" in b for b in bullets)


def test_a_small_components_paragraph_says_it_is_too_small() -> None:
    X = uniform_inputs(60, [(0.0, 10.0)])
    effect = effect_of(lambda Z: Z[:, 0], X, (0,), share=SMALL_SHARE / 2)
    assert effect_sentences(effect, axes("a")) == [small_sentence(SMALL_SHARE / 2)]


def test_a_fitted_product_rises_more_steeply_where_the_other_is_higher() -> None:
    _, dec = fitted_product()
    product = next(c for c in dec.components if c.dims == (0, 1))
    effect = dec.effects[product.index - 1]
    assert effect is not None and effect.modulation is not None
    words = effect_sentences(effect, dec.axes)
    assert "more steeply at higher b" in words[0]
