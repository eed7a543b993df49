"""Kernel text is faithful: for random kernels of every registered class and operator (sums,
products, change operators, the additive kernel, several inputs named or numbered), the text
``Kernel.to_text`` writes reads back (``parse_kernel``) into a kernel with the same Gram matrix,
in the same units; and the conversions between the user's units and the internal ones a model
file uses (``Scaling.kernel_out`` / ``kernel_in``, eq. in ``data/scaling.py``) keep it: the
user-unit kernel on the user's inputs is y_scale² times the internal one on the internal inputs,
and its text, read back and converted in, is the internal kernel again."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from abcd_cli.data.scaling import Scaling
from abcd_cli.kernels import BASE_KERNELS, COMPOSITES, OPERATORS, Kernel, Product, Sum
from abcd_cli.kernels.additive import Additive, _admissible
from abcd_cli.kernels.algebra import carries_scale
from abcd_cli.kernels.text import parse_kernel

N_DIMS = 3
NAMES = ("year", "weight [kg]", "dose")
RNG = np.random.default_rng(65)
#: Inputs in internal units (centred, unit spread) and the scaling a model file would keep for
#: them: a date-like first input (Seattle's hourly temperatures: shift 2010.5, scale 0.288).
X_INTERNAL = RNG.normal(size=(25, N_DIMS))
SCALING = Scaling((2010.5012197803171, 71.3, -4.2), (0.2884818709918696, 12.5, 3.1), 52.03, 9.64)
X_USER = SCALING.x_out(X_INTERNAL)

#: A parameter's value: unconstrained (a location) anywhere near the inputs, or positive over
#: six orders of magnitude; never a round number, so that any loss of digits shows.
UNCONSTRAINED = st.floats(-3.0, 3.0, allow_nan=False)
POSITIVE = st.floats(-4.0, 3.0, allow_nan=False).map(lambda u: float(np.exp(u + 1e-3)))


@st.composite
def valued(draw: st.DrawFn, kernel: Kernel) -> Kernel:
    """``kernel`` with every parameter drawn."""
    specs = kernel.param_specs()
    values = [draw(POSITIVE if spec.positive else UNCONSTRAINED) for spec, _ in specs]
    return kernel.with_values(values) if values else kernel


@st.composite
def base_kernels(draw: st.DrawFn) -> Kernel:
    """Any registered base kernel on any input."""
    cls = BASE_KERNELS[draw(st.sampled_from(sorted(BASE_KERNELS)))]
    return draw(valued(cls(dim=draw(st.integers(0, N_DIMS - 1)))))


@st.composite
def additive_kernels(draw: st.DrawFn) -> Kernel:
    """The additive kernel on two or three inputs, each with an admissible base kernel."""
    admissible = sorted(name for name, cls in BASE_KERNELS.items() if _admissible(cls))
    dims = draw(st.lists(st.integers(0, N_DIMS - 1), min_size=1, max_size=N_DIMS, unique=True))
    members = tuple(BASE_KERNELS[draw(st.sampled_from(admissible))](dim=d) for d in dims)
    return draw(valued(Additive(draw(st.integers(1, len(members))), members)))


def combined(children: st.SearchStrategy[Kernel]) -> st.SearchStrategy[Kernel]:
    """Sums, products and every change operator of smaller kernels."""
    pairs = st.lists(children, min_size=2, max_size=3)
    operators = st.builds(
        lambda name, a, b, dim: OPERATORS[name](a, b, dim=dim),
        st.sampled_from(sorted(OPERATORS)),
        children,
        children,
        st.integers(0, N_DIMS - 1),
    ).flatmap(valued)
    return st.one_of(
        pairs.map(lambda ks: Sum(tuple(ks))), pairs.map(lambda ks: Product(tuple(ks))), operators
    )


KERNELS = st.recursive(st.one_of(base_kernels(), additive_kernels()), combined, max_leaves=6)
#: Derandomised, so that a run in CI draws what a run here drew.
PROPERTY = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
#: Rescaling a kernel's parameters moves its Gram matrix's last bits: an additive kernel's
#: orders (Newton-Girard sums of products) lose up to ~1e-8 relatively. A broken convention
#: (a scale applied twice, a location scaled as a length) moves it by far more.
RESCALED_RTOL = 1e-7


def test_every_registered_class_is_drawn() -> None:
    """The strategies above read the registries, so a new class is covered when it registers."""
    assert set(COMPOSITES) == {"Additive"}
    assert {"C", "Lin", "SE", "Per", "RQ", "WN"} <= set(BASE_KERNELS)
    assert {"CP", "CW"} <= set(OPERATORS)


@PROPERTY
@given(KERNELS)
def test_text_reads_back_into_the_same_kernel(kernel: Kernel) -> None:
    back = parse_kernel(kernel.to_text())
    assert back == kernel
    np.testing.assert_array_equal(back.gram(X_INTERNAL), kernel.gram(X_INTERNAL))


@PROPERTY
@given(KERNELS)
def test_text_with_column_names_reads_back(kernel: Kernel) -> None:
    back = parse_kernel(kernel.to_text(names=NAMES), NAMES)
    assert back == kernel
    np.testing.assert_array_equal(back.gram(X_INTERNAL), kernel.gram(X_INTERNAL))


@PROPERTY
@given(KERNELS)
def test_user_units_are_the_internal_kernel_rescaled(kernel: Kernel) -> None:
    """k(x, x') = y_scale² k_s(x_s, x_s'), x = x_shift + x_scale·x_s (``data/scaling.py``); a
    kernel with no sd to carry the scale (a lone gate) is no model's, the grammar refuses it."""
    assume(carries_scale(kernel))
    user = SCALING.kernel_out(kernel)
    expected = SCALING.y_scale**2 * kernel.gram(X_INTERNAL)
    np.testing.assert_allclose(
        user.gram(X_USER), expected, rtol=RESCALED_RTOL, atol=1e-10 * np.abs(expected).max()
    )


@PROPERTY
@given(KERNELS)
def test_user_text_reads_back_into_the_internal_kernel(kernel: Kernel) -> None:
    """What a model file keeps (the user-unit kernel's text) gives the internal kernel back."""
    assume(carries_scale(kernel))
    text = SCALING.kernel_out(kernel).to_text(names=NAMES)
    back = SCALING.kernel_in(parse_kernel(text, NAMES))
    expected = kernel.gram(X_INTERNAL)
    np.testing.assert_allclose(
        back.gram(X_INTERNAL), expected, rtol=RESCALED_RTOL, atol=1e-10 * np.abs(expected).max()
    )
    np.testing.assert_allclose(back.values(), kernel.values(), rtol=1e-9, atol=1e-12)


def test_six_digits_lose_a_date_like_location() -> None:
    """Why kernels kept for reuse are written in full: six significant digits of a changewindow
    at 2010.505 keep it only to ±0.005 (about two days of a window two weeks wide)."""
    from abcd_cli.kernels import CW, SE, WN

    kernel = CW(SE((0.34, 3.7)), WN((0.17,)), (0.0137, 0.13, 0.005))
    rounded = SCALING.kernel_in(parse_kernel(SCALING.kernel_out(kernel).to_text(digits=6)))
    location = rounded.values()[0]
    assert abs(location - 0.0137) * SCALING.x_scale[0] > 1e-4
    full = SCALING.kernel_in(parse_kernel(SCALING.kernel_out(kernel).to_text()))
    assert abs(full.values()[0] - 0.0137) < 1e-12
