"""What a component does along its inputs (``reporting/effects.py``): partial dependence of
functions whose answers are known (a line's rise, a parabola's peak, a product's slope growing
with its other input, shares in the order of the coefficients, a pure interaction carried by
no single input), the direction rules, the folding of small components, the words, and models
fitted to data through the decomposition (a line's size, a product's modulation)."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.data.scaling import Scaling
from abcd_cli.decompose.components import decompose
from abcd_cli.decompose.facts import Axis, ComponentFacts
from abcd_cli.engines.exact import negative_log_likelihood
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model
from abcd_cli.reporting.effects import (
    GRID_POINTS,
    MINOR_INPUT,
    SMALL_SHARE,
    Effect,
    averaging_rows,
    component_effect,
    component_effects,
    component_function,
    direction,
    effect_json,
    effect_of,
    effect_sentences,
    effect_summary,
    effects_of,
    folded_sentence,
    is_material,
    partial_dependence,
    summary_bullets,
)
from abcd_cli.reporting.numbers import format_percent
from abcd_cli.reporting.wording import format_amount, percent

RNG_SEED = 5


def uniform_inputs(n: int, ranges: list[tuple[float, float]], seed: int = RNG_SEED) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.uniform(lo, hi, n) for lo, hi in ranges])


def axes(*names: str, y: str = "mpg") -> tuple[Axis, ...]:
    return tuple(Axis("number", name, y) for name in names)


# -- the direction rules -----------------------------------------------------------------------

T = np.linspace(0.0, 1.0, 41)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (2.0 * T, "rises"),
        (-3.0 * T + 1.0, "falls"),
        (T + 0.03 * np.sin(40 * T), "rises"),  # wiggles well under a tenth of its size
        (-((T - 0.4) ** 2), "rises then falls"),
        ((T - 0.6) ** 2, "falls then rises"),
        (np.minimum(T / 0.85, 1.0) - 1.0 * np.maximum(T - 0.85, 0.0), "mostly rises"),
        (np.sin(6 * np.pi * T), "varies"),
        (np.full_like(T, 4.0), "flat"),
    ],
)
def test_direction_rules(values: np.ndarray, expected: str) -> None:
    assert direction(values) == expected


def test_a_peak_at_an_end_is_not_a_hump() -> None:
    """A rise that only levels off has its maximum at the end: it rises, without turning."""
    assert direction(1.0 - np.exp(-5.0 * T)) == "rises"


# -- partial dependence of known functions -----------------------------------------------------


def test_a_line_rises_by_its_slope_times_the_range() -> None:
    X = uniform_inputs(80, [(2.0, 12.0), (0.0, 1.0)])
    effect = effect_of(lambda Z: 3.0 * Z[:, 0], X, (0,))
    dep = effect.main
    assert dep.direction == "rises"
    assert dep.size == pytest.approx(3.0 * np.ptp(X[:, 0]), rel=1e-9)
    assert dep.grid[0] == X[:, 0].min() and dep.grid[-1] == X[:, 0].max()
    assert dep.share == 1.0 and effect.modulation is None and effect.joint == 0.0


def test_a_parabola_rises_then_falls_and_peaks_at_its_vertex() -> None:
    X = uniform_inputs(120, [(0.0, 10.0), (0.0, 1.0)])
    dep = effect_of(lambda Z: -((Z[:, 0] - 6.0) ** 2) + 0.0 * Z[:, 1], X, (0, 1)).along[0]
    assert dep.input == 0 and dep.direction == "rises then falls"
    step = np.ptp(X[:, 0]) / (GRID_POINTS - 1)
    assert abs(dep.turn - 6.0) <= step
    assert dep.size == pytest.approx((6.0 - X[:, 0].min()) ** 2, abs=step * 12.0)


def test_a_products_slope_along_one_input_grows_with_the_other() -> None:
    X = uniform_inputs(150, [(0.0, 10.0), (1.0, 3.0)])
    effect = effect_of(lambda Z: Z[:, 0] * Z[:, 1], X, (0, 1))
    m = effect.modulation
    assert effect.main.input == 0 and m is not None and (m.main, m.other) == (0, 1)
    q1, q3 = np.quantile(X[:, 1], [0.25, 0.75])
    assert (m.low, m.high) == pytest.approx((q1, q3))
    # along x1 the product is the line x2·x1: its change over x1's range is x2 · range
    assert m.change_low == pytest.approx(q1 * np.ptp(effect.main.grid), rel=1e-9)
    assert m.change_high == pytest.approx(q3 * np.ptp(effect.main.grid), rel=1e-9)
    assert is_material(m, effect.spread) and not m.opposite
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
    assert effect.main.input == 0 and m is not None
    assert m.opposite and m.change_low < 0 < m.change_high
    words = effect_summary(effect, axes("a", "b"))
    assert "rises by about" in words and "but falls by about" in words


def test_a_slight_dependence_on_the_other_input_is_not_worded() -> None:
    X = uniform_inputs(150, [(0.0, 10.0), (1.0, 3.0)])
    effect = effect_of(lambda Z: 3.0 * Z[:, 0] + 0.01 * Z[:, 0] * Z[:, 1], X, (0, 1))
    assert effect.modulation is None
    assert "steeply" not in effect_summary(effect, axes("a", "b"))


def test_inputs_are_ordered_by_the_variation_they_carry() -> None:
    X = uniform_inputs(200, [(0.0, 1.0)] * 3)
    effect = effect_of(lambda Z: 0.1 * Z[:, 0] + 5.0 * Z[:, 1] + 2.0 * Z[:, 2], X, (0, 1, 2))
    assert effect.inputs_by_share == (1, 2, 0)
    variances = np.array([0.01, 25.0, 4.0]) * np.var(X, axis=0)
    shares = [dep.share for dep in sorted(effect.along, key=lambda d: d.input)]
    assert shares == pytest.approx(variances / variances.sum(), rel=0.05)
    assert sum(shares) == pytest.approx(1.0)
    assert effect.joint == pytest.approx(0.0, abs=1e-9)  # a sum of one-input functions
    text = " ".join(effect_sentences(effect, axes("a", "b", "c")))
    assert text.index("Along b (") < text.index("Along c (")
    assert f"under {format_percent(MINOR_INPUT, decimals=0)} along a" in text


def test_a_pure_interaction_is_carried_by_no_single_input() -> None:
    X = uniform_inputs(200, [(0.0, 10.0), (0.0, 10.0)])
    X -= X.mean(axis=0) - 5.0  # centred on 5, so the product's main effects vanish
    effect = effect_of(lambda Z: (Z[:, 0] - 5.0) * (Z[:, 1] - 5.0), X, (0, 1))
    assert effect.joint > 0.99
    assert any("acting together" in s for s in effect_sentences(effect, axes("a", "b")))


def test_averaging_over_distinct_rows_gives_the_mean_over_all_rows() -> None:
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.uniform(0, 1, 90), rng.integers(0, 4, 90), rng.uniform(0, 1, 90)])

    def f(Z: np.ndarray) -> np.ndarray:
        return np.sin(3 * Z[:, 0]) * Z[:, 1] ** 2  # reads columns 0 and 1 only

    grid = np.linspace(0, 1, 7)
    rows, weights = averaging_rows(X, (0, 1), 0)
    assert rows.shape[0] == 4 and weights.sum() == 90
    brute = partial_dependence(f, X, 0, grid)
    assert partial_dependence(f, rows, 0, grid, weights=weights) == pytest.approx(brute)
    assert averaging_rows(X, (0,), 0)[0].shape[0] == 1  # a function of one input: one row


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


def fitted(text: str, names: tuple[str, ...], X: np.ndarray, y: np.ndarray) -> Model:
    """The kernel ``text`` (user units) conditioned on (X, y), its parameters as given."""
    sc = Scaling.from_data(X, y)
    inner = sc.kernel_in(parse_kernel(text, names))
    nll = sc.nll_out(negative_log_likelihood(inner, sc.x_in(X), sc.y_in(y)), y.size)
    return Model(inner, sc, X, y, nll, x_names=names)


@pytest.fixture(scope="module")
def lines() -> tuple[Model, object]:
    """y = 2a + 0.5b + 0·c + noise, fitted by one line per input."""
    X = uniform_inputs(50, [(0.0, 10.0), (0.0, 10.0), (0.0, 10.0)], seed=2)
    y = 2.0 * X[:, 0] + 0.5 * X[:, 1] + np.random.default_rng(3).normal(0, 0.05, 50)
    text = (
        "Lin[a](sd=1, location=5) + Lin[b](sd=1, location=5) + Lin[c](sd=0.01, location=5)"
        " + WN(sd=0.05)"
    )
    model = fitted(text, ("a", "b", "c"), X, y)
    return model, decompose(model, axes("a", "b", "c", y="y"), seed=0)


def test_a_fitted_lines_size_is_its_slope_times_the_range(lines) -> None:
    model, dec = lines
    by_input = {c.dims: c for c in dec.components if not c.is_noise}
    a = component_effect(model, by_input[(0,)])
    assert a is not None and a.main.direction == "rises"
    assert a.main.size == pytest.approx(2.0 * np.ptp(model.X[:, 0]), rel=0.03)
    f = component_function(model, by_input[(0,)].kernel)
    assert f(model.X) == pytest.approx(by_input[(0,)].data_mean, abs=1e-8)
    b = component_effect(model, by_input[(1,)])
    assert b.main.size == pytest.approx(0.5 * np.ptp(model.X[:, 1]), rel=0.1)
    assert component_effect(model, next(c for c in dec.components if c.is_noise)) is None


def test_the_summary_folds_the_component_that_does_not_matter(lines) -> None:
    model, dec = lines
    effects = component_effects(dec)
    small = [c for c in dec.components if c.share is not None and abs(c.share) < SMALL_SHARE]
    assert [c.dims for c in small] == [(2,)]
    assert all(e is None for e, c in zip(effects, dec.components, strict=True) if c in small)
    phrases = [f"component {c.index}" for c in dec.components]
    bullets = summary_bullets(dec, phrases, effects)
    assert len(bullets) == len(dec.components)  # the small one folded into the last bullet
    assert bullets[-1].startswith("One further component, under 2%")
    assert any("Along a (" in b and "y rises by about" in b for b in bullets)


def test_a_fitted_product_rises_more_steeply_where_the_other_is_higher() -> None:
    X = uniform_inputs(60, [(0.0, 10.0), (1.0, 3.0)], seed=4)
    y = X[:, 0] * X[:, 1] + np.random.default_rng(6).normal(0, 0.05, 60)
    text = "C(sd=10) + Lin[a](sd=1, location=0) * Lin[b](sd=1, location=0) + WN(sd=0.05)"
    model = fitted(text, ("a", "b"), X, y)
    dec = decompose(model, axes("a", "b", y="y"), seed=0)
    product = next(c for c in dec.components if c.dims == (0, 1))
    effect = component_effect(model, product)
    assert isinstance(effect, Effect) and effect.modulation is not None
    m = effect.modulation
    assert m.change_high / m.change_low == pytest.approx(m.high / m.low, rel=0.05)
    words = effect_sentences(effect, dec.axes)
    assert "more steeply at higher b" in words[0]


def test_effects_are_computed_once_per_decomposition(lines) -> None:
    _, dec = lines
    first = effects_of(dec)
    assert effects_of(dec) is first
    assert [e is None for e in first] == [e is None for e in component_effects(dec)]
