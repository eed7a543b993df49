"""Terms of one kind gathered into one component, terms switched off over the data kept apart
(decompose/merging.py, through decompose/components.py: component_terms)."""

from __future__ import annotations

import numpy as np

from abcd_cli.decompose.components import component_terms
from abcd_cli.kernels.text import parse_kernel

X = np.linspace(0.0, 10.0, 50)[:, None]


def _per(period: float) -> str:
    return f"Per(lengthscale=1, period={period}, sd=1)"


def _structures(text: str) -> tuple[list[str], list[str]]:
    components, off = component_terms(parse_kernel(text), X)
    return sorted(c.structure for c in components), [t.structure for t in off]


def test_terms_of_one_period_are_one_component_and_other_periods_stay_apart() -> None:
    lin = "Lin(sd=1, location=0)"
    text = f"{_per(1.0)} * {lin} + {_per(1.02)} * {lin} * {lin} + {_per(3.0)} + WN(sd=1)"
    components, off = _structures(text)
    assert components == ["Lin * Lin * Per + Lin * Per", "Per", "WN"]
    assert off == []


def test_periods_further_apart_than_the_tolerance_are_not_gathered() -> None:
    components, _ = _structures(f"{_per(1.0)} + {_per(1.2)} + WN(sd=1)")
    assert components == ["Per", "Per", "WN"]


def test_smooth_terms_gather_within_a_factor_of_two_of_lengthscale() -> None:
    near, _ = _structures("SE(lengthscale=1, sd=1) + SE(lengthscale=1.8, sd=1) + WN(sd=1)")
    far, _ = _structures("SE(lengthscale=1, sd=1) + SE(lengthscale=2.5, sd=1) + WN(sd=1)")
    assert near == ["SE + SE", "WN"]
    assert far == ["SE", "SE", "WN"]


def test_polynomial_trends_gather_but_a_constant_and_a_gated_trend_do_not() -> None:
    lin = "Lin(sd=1, location=0)"
    components, _ = _structures(f"{lin} + {lin} * {lin} + C(sd=1) + WN(sd=1)")
    assert components == ["C", "Lin + Lin * Lin", "WN"]
    gated, _ = _structures(f"CP({lin}, {lin}, location=5, steepness=0.1) + WN(sd=1)")
    assert len(gated) == 3  # each side of the change is its own trend


def test_a_term_switched_off_over_the_whole_data_is_kept_apart() -> None:
    text = "CP(SE(lengthscale=1, sd=1), C(sd=1), location=-100, steepness=0.1) + WN(sd=1)"
    components, off = _structures(text)
    assert off == ["Before * SE"]
    assert len(components) == 2 and components[-1] == "WN"


def test_the_decomposition_judges_switches_on_the_data_in_its_own_units() -> None:
    """A change inside years 1950-2000 keeps both sides (the gates are read where the data
    lie, not at the internal units' few numbers around zero)."""
    from abcd_cli.data.scaling import Scaling
    from abcd_cli.decompose.components import decompose
    from abcd_cli.decompose.facts import Axis
    from abcd_cli.model import Model

    x = np.linspace(1950.0, 2000.0, 60)
    y = np.where(x < 1975, 0.0, 3.0) + np.sin(x)
    sc = Scaling.from_data(x, y)
    text = "CP(SE(lengthscale=5, sd=1), Lin(sd=0.1, location=1960), location=1975, steepness=1)"
    kernel = sc.kernel_in(parse_kernel(text + " + WN(sd=0.5)"))
    dec = decompose(Model(kernel, sc, x, y, 0.0), (Axis("year", "year", "y"),), seed=0)
    assert sorted(c.kernel.structure for c in dec.components) == [
        "After * Lin",
        "Before * SE",
        "WN",
    ]
    assert dec.dropped == ()
