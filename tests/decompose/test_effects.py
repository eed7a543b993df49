"""What a component does along its inputs, in numbers (``decompose/effects.py``): partial
dependence of functions whose answers are known (a line's rise, a parabola's peak, a product's
slope growing with its other input, shares in the order of the coefficients, a pure interaction
carried by no single input), the direction rules, and models fitted to data through the
decomposition (a line's size, a product's modulation, no effect for a component too small to
matter, the effects computed once by ``decompose`` for several inputs and none for a series)."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.data.scaling import Scaling
from abcd_cli.decompose.components import Decomposition, decompose
from abcd_cli.decompose.effects import (
    GRID_POINTS,
    SMALL_SHARE,
    Effect,
    averaging_rows,
    component_effect,
    component_effects,
    component_function,
    direction,
    effect_of,
    is_material,
    partial_dependence,
)
from abcd_cli.decompose.facts import Axis
from abcd_cli.engines.exact import negative_log_likelihood
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model

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
    assert is_material(m, effect.spread)


def test_a_slope_shrinking_with_the_other_input_falls() -> None:
    X = uniform_inputs(150, [(0.0, 10.0), (1.0, 3.0)])
    effect = effect_of(lambda Z: -Z[:, 0] * (4.0 - Z[:, 1]), X, (0, 1))
    assert effect.main.direction == "falls"


def test_a_slope_changing_sign_has_changes_of_both_signs() -> None:
    X = uniform_inputs(150, [(-5.0, 5.0), (0.0, 4.0)])
    X[:, 0] -= X[:, 0].mean()  # so that the product adds nothing along b alone
    effect = effect_of(lambda Z: Z[:, 0] * (Z[:, 1] - 2.0) + 0.3 * Z[:, 0], X, (0, 1))
    m = effect.modulation
    assert effect.main.input == 0 and m is not None
    assert m.change_low < 0 < m.change_high


def test_a_slight_dependence_on_the_other_input_is_not_material() -> None:
    X = uniform_inputs(150, [(0.0, 10.0), (1.0, 3.0)])
    effect = effect_of(lambda Z: 3.0 * Z[:, 0] + 0.01 * Z[:, 0] * Z[:, 1], X, (0, 1))
    assert effect.modulation is None


def test_inputs_are_ordered_by_the_variation_they_carry() -> None:
    X = uniform_inputs(200, [(0.0, 1.0)] * 3)
    effect = effect_of(lambda Z: 0.1 * Z[:, 0] + 5.0 * Z[:, 1] + 2.0 * Z[:, 2], X, (0, 1, 2))
    assert effect.inputs_by_share == (1, 2, 0)
    variances = np.array([0.01, 25.0, 4.0]) * np.var(X, axis=0)
    shares = [dep.share for dep in sorted(effect.along, key=lambda d: d.input)]
    assert shares == pytest.approx(variances / variances.sum(), rel=0.05)
    assert sum(shares) == pytest.approx(1.0)
    assert effect.joint == pytest.approx(0.0, abs=1e-9)  # a sum of one-input functions


def test_a_pure_interaction_is_carried_by_no_single_input() -> None:
    X = uniform_inputs(200, [(0.0, 10.0), (0.0, 10.0)])
    X -= X.mean(axis=0) - 5.0  # centred on 5, so the product's main effects vanish
    effect = effect_of(lambda Z: (Z[:, 0] - 5.0) * (Z[:, 1] - 5.0), X, (0, 1))
    assert effect.joint > 0.99


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


# -- fitted models -----------------------------------------------------------------------------


def fitted(text: str, names: tuple[str, ...], X: np.ndarray, y: np.ndarray) -> Model:
    """The kernel ``text`` (user units) conditioned on (X, y), its parameters as given."""
    sc = Scaling.from_data(X, y)
    inner = sc.kernel_in(parse_kernel(text, names))
    nll = sc.nll_out(negative_log_likelihood(inner, sc.x_in(X), sc.y_in(y)), y.size)
    return Model(inner, sc, X, y, nll, x_names=names)


def fitted_lines() -> tuple[Model, Decomposition]:
    """y = 2a + 0.5b + 0·c + noise, fitted by one line per input, and its decomposition."""
    X = uniform_inputs(50, [(0.0, 10.0), (0.0, 10.0), (0.0, 10.0)], seed=2)
    y = 2.0 * X[:, 0] + 0.5 * X[:, 1] + np.random.default_rng(3).normal(0, 0.05, 50)
    text = (
        "Lin[a](sd=1, location=5) + Lin[b](sd=1, location=5) + Lin[c](sd=0.01, location=5)"
        " + WN(sd=0.05)"
    )
    model = fitted(text, ("a", "b", "c"), X, y)
    return model, decompose(model, axes("a", "b", "c", y="y"), seed=0)


def fitted_product() -> tuple[Model, Decomposition]:
    """y = a·b + noise, fitted by a constant and the product of two lines."""
    X = uniform_inputs(60, [(0.0, 10.0), (1.0, 3.0)], seed=4)
    y = X[:, 0] * X[:, 1] + np.random.default_rng(6).normal(0, 0.05, 60)
    text = "C(sd=10) + Lin[a](sd=1, location=0) * Lin[b](sd=1, location=0) + WN(sd=0.05)"
    model = fitted(text, ("a", "b"), X, y)
    return model, decompose(model, axes("a", "b", y="y"), seed=0)


@pytest.fixture(scope="module")
def lines() -> tuple[Model, Decomposition]:
    return fitted_lines()


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


def test_a_component_that_does_not_matter_has_no_effect(lines) -> None:
    model, dec = lines
    effects = component_effects(model, dec.components)
    small = [c for c in dec.components if c.share is not None and abs(c.share) < SMALL_SHARE]
    assert [c.dims for c in small] == [(2,)]
    assert all(e is None for e, c in zip(effects, dec.components, strict=True) if c in small)


def test_a_fitted_products_change_grows_with_the_other_input() -> None:
    model, dec = fitted_product()
    product = next(c for c in dec.components if c.dims == (0, 1))
    effect = component_effect(model, product)
    assert isinstance(effect, Effect) and effect.modulation is not None
    m = effect.modulation
    assert m.change_high / m.change_low == pytest.approx(m.high / m.low, rel=0.05)


def test_effects_are_computed_once_per_decomposition(lines) -> None:
    """``decompose`` carries one effect per component for several inputs (the summary and
    each component's paragraph read the same ones), the same ``component_effects`` gives."""
    model, dec = lines
    assert isinstance(dec.effects, tuple) and len(dec.effects) == len(dec.components)
    again = component_effects(model, dec.components)
    assert [e is None for e in dec.effects] == [e is None for e in again]
    for e, c in zip(dec.effects, dec.components, strict=True):
        assert e is None or (e.index == c.index and e.share == c.share)
    for e, f in zip(dec.effects, again, strict=True):
        if e is not None:
            assert e.inputs_by_share == f.inputs_by_share
            assert [d.size for d in e.along] == pytest.approx([d.size for d in f.along])


def test_a_series_has_no_effects() -> None:
    """A series' components are drawn along its one input: no partial dependence is taken."""
    x = np.linspace(0.0, 10.0, 40)[:, None]
    y = 0.3 * x[:, 0] + np.random.default_rng(7).normal(0, 0.1, 40)
    model = fitted("Lin(sd=1, location=5) + WN(sd=0.1)", ("t",), x, y)
    dec = decompose(model, axes("t", y="y"), seed=0)
    assert dec.series is not None and dec.effects == ()
