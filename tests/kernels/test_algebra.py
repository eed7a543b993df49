"""Canonical form, simplification, sum-of-products form and the BIC parameter count."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.kernels import SE, WN, C, Lin, Per, total
from abcd_cli.kernels.algebra import (
    canonical,
    count_params,
    simplify,
    structure_key,
    sum_of_products,
)
from abcd_cli.kernels.text import parse_kernel

X = np.linspace(-2.0, 3.0, 30)


def test_equal_structures_compare_and_hash_equal():
    a = canonical(parse_kernel("(SE + Lin) * Per"))
    b = canonical(parse_kernel("Per * (Lin + SE)"))
    assert a == b and hash(a) == hash(b)
    assert structure_key(parse_kernel("SE + (Lin + Per)")) == structure_key(
        parse_kernel("Per + Lin + SE")
    )


def test_canonical_keeps_changepoint_order():
    assert structure_key(parse_kernel("CP(SE, Lin)")) != structure_key(parse_kernel("CP(Lin, SE)"))
    assert canonical(parse_kernel("CP(Lin + SE, C)")).structure == "CP(Lin + SE, C)"


def test_canonical_form_keeps_the_function():
    k = parse_kernel(
        "(SE(lengthscale=1.0, sd=2.0) + Lin(sd=0.5, location=1.0)) * Per(lengthscale=1.0, period=0.7, sd=1.5)"
    )
    np.testing.assert_allclose(canonical(k).gram(X), k.gram(X), rtol=1e-12)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("SE * SE", "SE"),
        ("WN * SE", "WN"),
        ("WN * Per * C", "WN"),
        ("WN * Lin * SE", "Lin * WN"),
        ("C * Lin", "Lin"),
        ("C * C", "C"),
        ("WN + WN + SE", "SE + WN"),
        ("C + SE + C", "C + SE"),
        ("SE * (C + C)", "SE"),
    ],
)
def test_simplification_rules(text, expected):
    assert simplify(parse_kernel(text)).structure == expected


def test_simplification_keeps_the_function():
    k = parse_kernel(
        "SE(lengthscale=1.0, sd=2.0) * SE(lengthscale=2.0, sd=0.5) * C(sd=3.0) * Lin(sd=0.5, location=1.0)"
        " + WN(sd=0.1) * Per(lengthscale=1.0, period=0.7, sd=1.5) + WN(sd=0.2) + C(sd=1.0) + C(sd=2.0)"
    )
    s = simplify(k)
    assert s.structure == "C + Lin * SE + WN"
    np.testing.assert_allclose(s.gram(X), k.gram(X), rtol=1e-10)


def test_simplify_keeps_known_values_when_merging_unknown():
    k = simplify(C() * SE((2.0, 3.0)))
    assert k == SE((2.0, 3.0))
    assert simplify(WN((0.5,)) + WN()).values().tolist() == [0.5]


def test_worked_example_of_thesis_4_1_1():
    """SE × (WN × Lin + CP(C, Per)) → WN × Lin + SE × σ + SE × Per × σ̄."""
    terms = sum_of_products(parse_kernel("SE * (WN * Lin + CP(C, Per))"))
    assert sorted(t.structure for t in terms) == ["After * Per * SE", "Before * SE", "Lin * WN"]


def test_sum_of_products_keeps_the_function():
    k = parse_kernel(
        "SE(lengthscale=1.0, sd=2.0) * (WN(sd=0.3) * Lin(sd=0.5, location=0.0)"
        " + CP(C(sd=1.0), Per(lengthscale=1.0, period=0.7, sd=1.5), location=0.5, steepness=0.3))"
        " + CW(Lin(sd=0.2, location=1.0), SE(lengthscale=0.5, sd=1.0), location=1.0, width=1.0, steepness=0.1)"
    )
    terms = sum_of_products(k)
    assert len(terms) == 5
    np.testing.assert_allclose(total(terms).gram(X), k.gram(X), rtol=1e-10, atol=1e-12)


def test_constants_under_a_change_point_keep_their_product():
    """Both sides of CP(C·C, (C + Per)·(C + WN)) leave constants beside gates only: all of
    them multiply into the one constant kept (wages' level was once scaled by its first only)."""
    k = parse_kernel(
        "CP(C(sd=2.0) * C(sd=3.0), (C(sd=8.0) + Per(lengthscale=1.0, period=0.7, sd=0.5))"
        " * (C(sd=15.0) + WN(sd=0.2)), location=0.5, steepness=2.0)"
    )
    terms = sum_of_products(k)
    assert "Before(location=0.5, steepness=2.0) * C(sd=6.0)" in [t.to_text() for t in terms]
    np.testing.assert_allclose(total(terms).gram(X), k.gram(X), rtol=1e-10, atol=1e-12)


def test_parameter_count_follows_reference_rule():
    # base: own; sum: sum; product: sum - (factors - 1); CP: 2 + operands; CW: 3 + operands.
    assert count_params(SE()) == 2 and count_params(WN()) == 1 and count_params(Per()) == 3
    assert count_params(Lin() * Per()) == 2 + 3 - 1
    assert count_params(parse_kernel("Lin * Per + SE + WN * Lin")) == 4 + 2 + 2
    assert count_params(parse_kernel("CP(SE, Lin)")) == 2 + 2 + 2
    assert count_params(parse_kernel("CW(SE, C) * Lin")) == (3 + 2 + 1) + 2 - 1
    assert count_params(C() + Lin()) == 3
