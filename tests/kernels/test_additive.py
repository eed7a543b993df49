"""The additive kernel of every order up to R: its Gram matrix against the explicit sum over
subsets of inputs, its diagonal and gradients, its text form, units, starts and bounds, the
``additive`` language, and a fit that finds a first-order function first-order."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from abcd_cli.cli.main import main
from abcd_cli.data.scaling import Scaling
from abcd_cli.data.summary import InputSummaries
from abcd_cli.errors import InputError
from abcd_cli.kernel_search.grammar import LANGUAGES, start_kernels
from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.init import initial_values, invalid_reason, theta_bounds, value_bounds
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels import RQ, SE, WN, Additive, Inputs, Per
from abcd_cli.kernels.additive import (
    MAX_ORDER,
    elementary_symmetric,
    elementary_symmetric_adjoint,
)
from abcd_cli.kernels.algebra import count_params, scale_kernel, simplify
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model

RNG = np.random.default_rng(31)


def _random(kernel: Additive, rng: np.random.Generator) -> Additive:
    """Every parameter log-uniform on [0.3, 3]."""
    return kernel.with_values(np.exp(rng.uniform(np.log(0.3), np.log(3.0), kernel.n_params)))


def _unit(base):
    """A base kernel's own Gram matrix with its sd at 1 (what the additive kernel multiplies)."""
    values = list(base.params)
    values[base.names.index("sd")] = 1.0
    return type(base)(tuple(values), base.dim)


def _by_subsets(kernel: Additive, X: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """Σ_r σ_r² Σ_{|S| = r} Π_{d ∈ S} k_d(x_d, z_d), summed over the subsets one by one."""
    z = [_unit(b).gram(X, Z) for b in kernel.members]
    K = np.zeros((X.shape[0], Z.shape[0]))
    for r, sd in enumerate(kernel.sds, start=1):
        for subset in itertools.combinations(range(len(z)), r):
            K += sd**2 * np.prod([z[d] for d in subset], axis=0)
    return K


CASES = [(D, R) for D in range(1, 6) for R in range(1, D + 1)]


@pytest.mark.parametrize(("D", "R"), CASES)
def test_gram_is_the_sum_over_every_subset_of_at_most_R_inputs(D: int, R: int) -> None:
    rng = np.random.default_rng(100 * D + R)
    X, Z = rng.normal(size=(12, D)), rng.normal(size=(7, D))
    kernel = _random(Additive.on_inputs(D, R), rng)
    K = kernel.gram(X, Z)
    np.testing.assert_allclose(K, _by_subsets(kernel, X, Z), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(kernel.gram(X), _by_subsets(kernel, X, X), rtol=1e-12, atol=1e-13)


def test_mixed_base_kernels_and_a_subset_of_inputs() -> None:
    kernel = _random(Additive(2, (SE(dim=0), RQ(dim=2), Per(dim=3))), RNG)
    X, Z = RNG.normal(size=(10, 4)), RNG.normal(size=(6, 4))
    np.testing.assert_allclose(kernel.gram(X, Z), _by_subsets(kernel, X, Z), rtol=1e-12)


def test_newton_girard_matches_the_elementary_symmetric_polynomials() -> None:
    z = [RNG.uniform(size=5) for _ in range(4)]
    _, e = elementary_symmetric(z, 4)
    for r in range(1, 5):
        direct = sum(
            np.prod([z[d] for d in s], axis=0) for s in itertools.combinations(range(4), r)
        )
        np.testing.assert_allclose(e[r], direct, rtol=1e-13)
    # the adjoint with ē_r = 1 for one r is ∂e_r/∂z_d = e_{r-1}(z without z_d)  (eq. 1.11)
    p, e = elementary_symmetric(z, 3)
    grad = elementary_symmetric_adjoint(z, p, e, [0.0, 0.0, 0.0, 1.0])
    for d in range(4):
        others = [z[j] for j in range(4) if j != d]
        np.testing.assert_allclose(grad[d], elementary_symmetric(others, 2)[1][2], rtol=1e-12)


KERNELS = [
    _random(Additive.on_inputs(3, 2), np.random.default_rng(1)),
    _random(Additive.on_inputs(4, 4), np.random.default_rng(2)),
    _random(Additive.on_inputs(5, 3), np.random.default_rng(3)),
    _random(Additive(2, (SE(dim=0), RQ(dim=1), Per(dim=2))), np.random.default_rng(4)),
    _random(Additive.on_inputs(1, 1), np.random.default_rng(5)),
]
X = RNG.normal(size=(15, 5))
Z = np.concatenate([X[[0, 4]], RNG.normal(size=(5, 5))])


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.structure)
def test_diag_is_the_diagonal_of_the_gram_matrix(kernel: Additive) -> None:
    np.testing.assert_allclose(kernel.diag(X), np.diag(kernel.gram(X)), rtol=1e-14)
    c, n = kernel.diag_parts(X)
    np.testing.assert_allclose(c, kernel.diag(X), rtol=1e-14)
    assert not n.any()


def _numeric_gradient(f, theta: np.ndarray, h: float = 1e-6) -> np.ndarray:
    out = np.empty_like(theta)
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = h
        out[i] = (f(theta + e) - f(theta - e)) / (2 * h)
    return out


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.structure)
@pytest.mark.parametrize("square", [True, False], ids=["square", "rectangular"])
def test_gradient_matches_finite_differences(kernel: Additive, square: bool) -> None:
    other = None if square else Z
    G = np.random.default_rng(9).normal(size=(X.shape[0], (X if square else Z).shape[0]))
    if square:
        G = G + G.T
    K, contract = kernel.vjp(X, other)
    np.testing.assert_allclose(K, kernel.gram(X, other), rtol=1e-14)
    numeric = _numeric_gradient(
        lambda t: float(np.sum(G * kernel.with_theta(t).gram(X, other))), kernel.theta()
    )
    scale = max(np.abs(numeric).max(), 1e-3)
    np.testing.assert_allclose(contract(G), numeric, rtol=1e-5, atol=1e-7 * scale)
    # forward mode (every dK/dθ) gives the same contraction
    _, dK = kernel._eval(Inputs(X, other), grad=True)
    assert len(dK) == kernel.n_params
    np.testing.assert_allclose([np.vdot(G, d) for d in dK], contract(G), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.structure)
def test_diagonal_gradient_matches_finite_differences(kernel: Additive) -> None:
    gc, gn = RNG.normal(size=X.shape[0]), RNG.normal(size=X.shape[0])
    _, _, contract = kernel.diag_vjp(X)
    numeric = _numeric_gradient(
        lambda t: float(gc @ kernel.with_theta(t).diag_parts(X)[0]), kernel.theta()
    )
    np.testing.assert_allclose(contract(gc, gn), numeric, rtol=1e-5, atol=1e-8)


def test_one_input_of_order_one_is_the_squared_exponential() -> None:
    x = RNG.normal(size=(20, 1))
    additive = parse_kernel("Additive(R=1, sd1=1.7; SE(lengthscale=0.6))")
    se = SE((0.6, 1.7))
    np.testing.assert_allclose(additive.gram(x), se.gram(x), rtol=1e-15)
    np.testing.assert_allclose(additive.gram(x, x[:5] + 0.1), se.gram(x, x[:5] + 0.1), rtol=1e-15)
    np.testing.assert_allclose(additive.diag(x), se.diag(x))
    assert additive.variance() == pytest.approx(1.7**2)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.structure)
def test_text_round_trip(kernel: Additive) -> None:
    assert parse_kernel(kernel.to_text()) == kernel
    assert parse_kernel(kernel.structure).structure == kernel.structure
    unknown = parse_kernel(kernel.structure)
    assert unknown.n_params == kernel.n_params and not unknown.is_fitted
    within = parse_kernel(f"{kernel.to_text()} + WN(sd=0.1)")
    assert within.operands[0] == kernel


def test_text_form_reads_as_documented() -> None:
    kernel = parse_kernel(
        "Additive(R=2, sd1=0.9, sd2=0.1; SE(lengthscale=1.2), SE@2(lengthscale=0.4))"
    )
    assert [b.dim for b in kernel.members] == [0, 2]
    assert kernel.sds == (0.9, 0.1)
    assert kernel.structure == "Additive(R=2; SE, SE@2)"
    assert kernel.param_names() == [
        "Additive[root].sd1",
        "Additive[root].sd2",
        "Additive[root].SE.lengthscale",
        "Additive[root].SE@2.lengthscale",
    ]
    # members are kept in input order whatever order they are written in
    assert parse_kernel("Additive(R=1; SE@2, SE)").structure == "Additive(R=1; SE, SE@2)"


@pytest.mark.parametrize(
    "text",
    [
        "Additive(R=3; SE, SE@1)",  # an order above the number of inputs
        "Additive(R=0; SE)",
        "Additive(R=1.5; SE, SE@1)",
        "Additive(SE, SE@1)",  # no ';' and no order
        "Additive(; SE, SE@1)",
        "Additive(R=2, sd1=1.0; SE, SE@1)",  # one sd of two
        "Additive(R=1, sd3=1.0; SE)",
        "Additive(R=1; WN)",  # noise is no base kernel
        "Additive(R=1; Lin)",
        "Additive(R=2; SE, SE)",  # the same input twice
        "Additive(R=1; SE(lengthscale=1.0, sd=2.0))",  # the sd is fixed at 1
        "Additive(R=1; SE(period=1.0))",
        "Additive(R=1; Nope)",
        "Additive(R=1; SE@x)",
    ],
)
def test_malformed_text_is_an_input_error(text: str) -> None:
    with pytest.raises(InputError):
        parse_kernel(text)


def test_units_scale_each_lengthscale_by_its_own_input_and_the_order_sds_by_y() -> None:
    kernel = KERNELS[0]
    sc = Scaling((10.0, -3.0, 0.5), (2.0, 0.01, 300.0), 4.0, 5.0)
    user = sc.kernel_out(kernel)
    for b, u, scale in zip(kernel.members, user.members, sc.x_scale, strict=True):
        assert u.param("lengthscale") == pytest.approx(b.param("lengthscale") * scale)
        assert u.param("sd") == 1.0
    np.testing.assert_allclose(user.sds, 5.0 * np.array(kernel.sds))
    xs = RNG.normal(size=(8, 3))
    np.testing.assert_allclose(user.gram(sc.x_out(xs)), 25.0 * kernel.gram(xs), rtol=1e-12)
    np.testing.assert_allclose(sc.kernel_in(user).values(), kernel.values(), rtol=1e-14)
    np.testing.assert_allclose(scale_kernel(kernel, 4.0).gram(xs), 4.0 * kernel.gram(xs))


def test_starts_and_bounds_come_from_each_inputs_own_summary() -> None:
    X3 = np.column_stack(
        [RNG.uniform(0, 1, 90), RNG.uniform(1000, 5000, 90), RNG.uniform(-1e-3, 1e-3, 90)]
    )
    y = RNG.normal(size=90)
    summaries = InputSummaries.from_data(X3, y)
    kernel = Additive.on_inputs(3, 2)
    names = kernel.param_names()
    bounds = dict(zip(names, theta_bounds(kernel, summaries), strict=True))
    for d, head in enumerate(["SE", "SE@1", "SE@2"]):
        lo, hi = value_bounds("SE", "lengthscale", summaries.for_dim(d))
        assert bounds[f"Additive[root].{head}.lengthscale"] == pytest.approx(
            (math.log(lo), math.log(hi))
        )
    for _ in range(5):
        values = initial_values(kernel, summaries, RNG)
        for d in range(3):
            lo, hi = value_bounds("SE", "lengthscale", summaries.for_dim(d))
            assert lo <= values[2 + d] <= hi
        assert invalid_reason(kernel.with_values(values), summaries) == ""
    assert count_params(kernel + WN()) == 2 + 3 + 1


def test_simplify_and_white_noise_products_keep_the_kernel() -> None:
    kernel = KERNELS[0]
    assert simplify(kernel + WN((0.1,))).structure == "Additive(R=2; SE, SE@1, SE@2) + WN"
    noise = simplify(WN((0.5,)) * kernel)
    assert isinstance(noise, WN)
    assert noise.param("sd") ** 2 == pytest.approx(0.25 * kernel.variance())
    np.testing.assert_allclose(kernel.variance(), kernel.diag(X[:2, :3]))


def test_the_additive_language_starts_from_every_input_up_to_the_order() -> None:
    additive = LANGUAGES["additive"]
    assert not additive.searches
    assert [k.structure for k in start_kernels(additive, 3)] == [
        "Additive(R=3; SE, SE@1, SE@2) + WN"
    ]
    assert [k.structure for k in start_kernels(additive, 3, 2)] == [
        "Additive(R=2; SE, SE@1, SE@2) + WN"
    ]
    assert start_kernels(additive, 1, 4)[0].structure == "Additive(R=1; SE) + WN"
    (wide,) = start_kernels(additive, 14)
    assert wide.operands[0].order == MAX_ORDER and len(wide.operands[0].members) == 14
    for bad in (0, MAX_ORDER + 1, 2.0, True):
        with pytest.raises(InputError, match="max_order"):
            SearchSettings(language="additive", max_order=bad)
    assert "max_order" not in SearchSettings().to_dict()
    assert SearchSettings(max_order=2).to_dict()["max_order"] == 2


def _first_order_data() -> tuple[np.ndarray, np.ndarray]:
    """200 points of f(x) = sin(x1) + x2², a sum of one-input functions, and noise sd 0.1."""
    rng = np.random.default_rng(2026)
    X = rng.uniform(-2.5, 2.5, size=(200, 2))
    return X, np.sin(X[:, 0]) + X[:, 1] ** 2 + rng.normal(0.0, 0.1, 200)


def test_a_first_order_function_is_fitted_with_most_variance_in_the_first_order() -> None:
    X, y = _first_order_data()
    result = run_search(X, y, SearchSettings(language="additive", restarts=3))
    model = result.model
    assert [t.structure for t in result.trace] == ["Additive(R=2; SE, SE@1) + WN"]
    additive, noise = model.kernel.operands
    # each order's share of the prior variance, σ_r² C(D, r), as in the paper's table 1.1
    first, second = additive.sds[0] ** 2 * 2, additive.sds[1] ** 2 * 1
    assert first > 10 * second, additive.to_text(digits=3)
    assert model.user_kernel.operands[1].param("sd") == pytest.approx(0.1, rel=0.3)
    doc = json.loads(json.dumps(result.to_dict()))
    assert doc["settings"]["language"] == "additive" and "max_order" not in doc["settings"]
    back = Model.from_dict(doc)
    assert back.kernel == model.kernel
    mean, sd = back.predict(X[:5])
    np.testing.assert_allclose(mean, model.predict(X[:5])[0], rtol=1e-10)
    truth = np.sin(X[:5, 0]) + X[:5, 1] ** 2
    np.testing.assert_allclose(mean, truth, atol=0.1)


def test_the_command_line_fits_the_additive_language_and_records_the_order(tmp_path: Path) -> None:
    """On one input the additive model is σ₁² SE + WN; the order is recorded; too high an order is
    refused."""
    x = np.linspace(0.0, 6.0, 50)
    data, out = tmp_path / "d.csv", tmp_path / "m.json"
    data.write_text("x,y\n" + "".join(f"{a},{math.sin(a)}\n" for a in x))
    args = ["search", str(data), "--language", "additive", "--max-order", "3", "--restarts", "2"]
    result = CliRunner().invoke(main, [*args, "--jobs", "1", "--quiet", "--json", str(out)])
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["settings"]["max_order"] == 3
    assert [t["structure"] for t in doc["trace"]] == ["Additive(R=1; SE) + WN"]
    bad = CliRunner().invoke(main, [*args, "--max-order", str(MAX_ORDER + 1)])
    assert bad.exit_code == 2


def test_the_command_line_fits_an_additive_model_below_full_order_on_several_inputs(
    tmp_path: Path,
) -> None:
    """Three inputs and --max-order 2: one additive kernel of orders 1 and 2 over the three
    inputs, named by their columns; the recorded order is 2."""
    rng = np.random.default_rng(5)
    X = rng.uniform(0.0, 5.0, (60, 3))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] * X[:, 2] + rng.normal(0.0, 0.1, 60)
    data, out = tmp_path / "d.csv", tmp_path / "m.json"
    rows = "".join(f"{a:.4f},{b:.4f},{c:.4f},{v:.4f}\n" for (a, b, c), v in zip(X, y, strict=True))
    data.write_text("u,v,w,y\n" + rows)
    args = ["search", str(data), "--y", "y", "--language", "additive", "--max-order", "2"]
    run = CliRunner().invoke(
        main, [*args, "--restarts", "1", "--jobs", "1", "--quiet", "--json", str(out)]
    )
    assert run.exit_code == 0, run.output
    doc = json.loads(out.read_text())
    assert doc["settings"]["max_order"] == 2
    assert [t["structure"] for t in doc["trace"]] == ["Additive(R=2; SE[u], SE[v], SE[w]) + WN"]
