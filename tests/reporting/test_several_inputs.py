"""The report of a model of several inputs: through the CLI to PDF, HTML and JSON (tiny
searches: the additive kernel fitted at level 0), components named by their inputs, partial
residuals against a direct computation, the variance table adding up, shuffled folds, the
extrapolation section only with a time input, and a model saved with the report predicting as
the searched one."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from pypdf import PdfReader

import abcd_cli
from abcd_cli.cli.main import main
from abcd_cli.data.scaling import Scaling
from abcd_cli.data.summary import InputSummaries
from abcd_cli.decompose.components import decompose, input_terms
from abcd_cli.decompose.facts import Axis
from abcd_cli.decompose.folds import blocks_along, shuffled_folds
from abcd_cli.decompose.input_terms import (
    MAX_SET_TERMS,
    additive_terms,
    order_sets,
    term_inputs,
    term_order,
)
from abcd_cli.decompose.ordering import contiguous_folds
from abcd_cli.decompose.partial import partial_residuals
from abcd_cli.decompose.variance import (
    MAX_SET_ROWS,
    input_shares,
    mean_shares,
    order_variances,
    saturated_inputs,
)
from abcd_cli.engines.exact import negative_log_likelihood
from abcd_cli.kernel_search.init import theta_bounds
from abcd_cli.kernels import Additive
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model
from abcd_cli.reporting.component_text import component_phrase
from abcd_cli.reporting.context import build_context
from abcd_cli.reporting.phrases import noun_phrase
from abcd_cli.reporting.render import render_html
from abcd_cli.reporting.wording import percent
from tests.sampling import gp_draw

TINY = ["--language", "additive", "--depth", "0", "--restarts", "1", "--jobs", "1", "--quiet"]
RANGES = {
    "weight": (1500.0, 4500.0),
    "horsepower": (50.0, 200.0),
    "year": (70.0, 82.0),
    "displacement": (70.0, 450.0),
    "acceleration": (8.0, 25.0),
    "cylinders": (3.0, 8.0),
}


def write_table(path: Path, names: list[str], n: int = 80, seed: int = 3) -> Path:
    """y from the first input smoothly, the second linearly, their product, and noise."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.uniform(0.0, 10.0, n) for _ in names])
    y = np.sin(X[:, 0]) + 0.3 * X[:, 1] + 0.05 * X[:, 0] * X[:, 1] + rng.normal(0, 0.2, n)
    frame = pd.DataFrame(
        {"y": y.round(4), **{name: X[:, d].round(4) for d, name in enumerate(names)}}
    )
    frame.to_csv(path, index=False)
    return path


def fixed_model(text: str, names: tuple[str, ...], n: int = 60, seed: int = 0) -> Model:
    """The kernel ``text`` (user units, inputs by name) fitted to nothing: a draw from it on
    uniform inputs over ``RANGES``, so the report is the same on every run."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.uniform(*RANGES[name], n) for name in names])
    kernel = parse_kernel(text, names)
    y = gp_draw(kernel.gram(X), rng) + 20.0
    sc = Scaling.from_data(X, y)
    inner = sc.kernel_in(kernel)
    nll = sc.nll_out(negative_log_likelihood(inner, sc.x_in(X), sc.y_in(y)), n)
    return Model(inner, sc, X, y, nll, x_names=names)


def axes_of(names: tuple[str, ...], y_name: str = "mpg") -> tuple[Axis, ...]:
    return tuple(Axis("number", name, y_name) for name in names)


CARS = (
    "SE[weight](lengthscale=900, sd=3) + Lin[year](sd=0.3, location=60)"
    " + SE[horsepower](lengthscale=60, sd=1) * Lin[year](sd=0.1, location=70)"
    " + SE[weight](lengthscale=2000, sd=1) * SE[horsepower](lengthscale=80, sd=1)"
    " * SE[year](lengthscale=8, sd=1) + WN(sd=0.5)"
)
CAR_INPUTS = ("weight", "horsepower", "year")


@pytest.fixture(scope="module")
def cars() -> tuple[Model, object]:
    model = fixed_model(CARS, CAR_INPUTS)
    return model, decompose(model, axes_of(CAR_INPUTS), seed=0)


# ----------------------------------------------------------------------------- the CLI


def test_two_inputs_through_the_cli_to_pdf_html_and_json(tmp_path: Path) -> None:
    data = write_table(tmp_path / "two.csv", ["a", "b"])
    pdf, model = tmp_path / "two.pdf", tmp_path / "model.json"
    run = CliRunner().invoke(main, ["report", str(data), "--y", "y", *TINY, "-o", str(pdf),
                                    "--json", str(model)])  # fmt: skip
    assert run.exit_code == 0, run.output
    text = "".join(page.extract_text() for page in PdfReader(pdf).pages)
    assert "Variance by input" in text and "a smooth function of a" in text
    assert "Extrapolation" not in text
    html, report = tmp_path / "two.html", tmp_path / "two.json"
    for out in (html, report):
        again = CliRunner().invoke(main, ["report", "--from-model", str(model), "-o", str(out)])
        assert again.exit_code == 0, again.output
    page = html.read_text()
    assert 'id="variance"' in page and 'id="extrapolation"' not in page
    assert "an interaction between a and b" in page
    doc = json.loads(report.read_text())
    assert [i["name"] for i in doc["data"]["inputs"]] == ["a", "b"]
    assert doc["forecast"] is None
    inputs = sorted(tuple(c["inputs"]) for c in doc["components"])
    assert inputs == [(), ("a",), ("a", "b"), ("b",)]
    assert sum(r["share"] for r in doc["variance"]["by_inputs"]) == pytest.approx(1.0)
    assert [r["label"] for r in doc["variance"]["additive"]["rows"]] == ["order 1", "order 2"]
    assert [r["name"] for r in doc["checks"]["rows"]] == ["quantile-quantile"]
    assert "left out" in doc["checks"]["text"]


def test_three_inputs_with_a_time_input_have_an_extrapolation_section(tmp_path: Path) -> None:
    data = write_table(tmp_path / "three.csv", ["a", "b", "day"], n=60)
    out = tmp_path / "three.html"
    run = CliRunner().invoke(main, ["report", str(data), "--y", "y", *TINY, "-o", str(out)])
    assert run.exit_code == 0, run.output
    page = out.read_text()
    assert 'id="extrapolation"' in page and "day is the time input" in page
    assert "a joint function of a, b and day" in page
    assert "reads three inputs and is not drawn" in page
    assert "blocks of consecutive day" in page


def test_bad_input_is_a_one_line_error_and_no_file(tmp_path: Path) -> None:
    data = write_table(tmp_path / "two.csv", ["a", "b"], n=20)
    out = tmp_path / "r.pdf"
    run = CliRunner().invoke(main, ["report", str(data), "--y", "y", "--x", "a,nope", *TINY,
                                    "-o", str(out)])  # fmt: skip
    assert run.exit_code == 2 and not out.exists()
    lines = run.output.strip().splitlines()
    assert len(lines) == 1 and "no column 'nope' (--x)" in lines[0]


def test_a_model_saved_with_the_report_predicts_the_same(tmp_path: Path) -> None:
    frame = pd.read_csv(write_table(tmp_path / "two.csv", ["a", "b"], n=50))
    found = abcd_cli.search(frame, y="y", language="additive", depth=0, restarts=1)
    abcd_cli.report(found, tmp_path / "r.json")
    facts = abcd_cli.report(found)
    assert isinstance(facts, dict) and facts["variance"]["by_inputs"]
    assert "a smooth function of a" in {c.description for c in found.components}
    saved = found.save(tmp_path / "model.json")
    new = pd.DataFrame({"b": [0.5, 9.0], "a": [1.0, 4.5]})
    new.to_csv(tmp_path / "new.csv", index=False)
    out = tmp_path / "pred.csv"
    run = CliRunner().invoke(
        main, ["predict", str(saved), str(tmp_path / "new.csv"), "-o", str(out)]
    )
    assert run.exit_code == 0, run.output
    expected = abcd_cli.predict(found, new)
    got = pd.read_csv(out)
    np.testing.assert_allclose(got["mean"], expected["mean"], rtol=1e-9)
    np.testing.assert_allclose(got["sd"], expected["sd"], rtol=1e-9)


# ----------------------------------------------------------------------------- naming


def test_components_are_named_by_their_inputs(cars) -> None:
    model, dec = cars
    phrases = {component_phrase(dec, c) for c in dec.components}
    assert "a smooth function of weight" in phrases
    assert any(p.startswith("a linearly") and p.endswith("function of year") for p in phrases)
    assert "an interaction between horsepower and year" in phrases
    (joint,) = [p for p in phrases if p.startswith("a joint function of ")]  # largest share first
    names = joint.removeprefix("a joint function of ").replace(" and ", ", ").split(", ")
    assert sorted(names) == ["horsepower", "weight", "year"]
    assert "uncorrelated noise" in phrases
    per = parse_kernel("Per(lengthscale=1.0, period=12.0, sd=1.0) * SE(lengthscale=50, sd=1)")
    month = noun_phrase(per, Axis("number", "month", "sales"), input_name="month")
    assert month.startswith("an approximately periodic function of month with a period of")
    lin = parse_kernel("Lin(sd=1.0, location=0.0)")
    assert noun_phrase(lin, Axis("number", "year", "y"), input_name="year") == (
        "a linear function of year"
    )


def test_the_additive_kernel_is_written_out_one_term_per_set_of_inputs() -> None:
    kernel = Additive.on_inputs(3, 2).with_values([2.0, 0.5, 1.0, 2.0, 3.0])
    terms = additive_terms(kernel)
    assert [term_inputs(t) for t in terms] == [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2)]
    X = np.random.default_rng(0).normal(size=(7, 3))
    total = sum(t.gram(X, X) for t in terms)
    np.testing.assert_allclose(total, kernel.gram(X, X), rtol=1e-12)
    many = Additive.on_inputs(MAX_SET_TERMS, 2)
    assert len(additive_terms(many)) == 2  # too many sets: one term per order


# ----------------------------------------------------------------------------- numbers


def test_partial_residuals_match_a_direct_computation(cars) -> None:
    model, dec = cars
    sc = model.scaling
    Xs, ys = sc.x_in(model.x), sc.y_in(model.y)
    alpha = np.linalg.solve(model.kernel.gram(Xs), ys)  # the prior mean is y's mean: ys has 0
    direct = {}
    for term in input_terms(model.kernel):
        mean = sc.y_scale * (term.gram(Xs, Xs) @ alpha)
        direct[sc.kernel_out(term).to_text()] = (mean, any(b.symbol == "WN" for b in term.bases()))
    for c in dec.components:
        others = sum(m for text, (m, noise) in direct.items()
                     if text != c.kernel.to_text() and not noise)  # fmt: skip
        expected = model.y - sc.y_shift - others
        np.testing.assert_allclose(c.partial, expected, rtol=1e-7, atol=1e-9)
    assert (
        partial_residuals(np.ones(3), [np.ones(3), np.full(3, 2.0)], [False, True])[1].tolist()
        == [0.0] * 3
    )


def test_the_variance_table_adds_up_to_the_total(cars) -> None:
    _, dec = cars
    v = dec.variance
    assert sum(s.share for s in v.by_inputs) == pytest.approx(1.0)
    assert sum(s.variance for s in v.by_inputs) == pytest.approx(v.total)
    assert sum(s.variance for s in v.by_order) == pytest.approx(v.total)
    fitted = sum(c.data_mean for c in dec.components if not c.is_noise)
    assert v.total == pytest.approx(float(np.var(fitted)))
    rng = np.random.default_rng(1)
    parts = [rng.normal(size=30) for _ in range(3)]
    shares = mean_shares(parts)
    whole = sum(parts)
    assert shares[0] == pytest.approx(np.cov(parts[0], whole)[0, 1] / np.var(whole, ddof=1))
    assert sum(shares) == pytest.approx(1.0)


def test_each_input_carries_the_shares_of_the_components_that_read_it(cars) -> None:
    _, dec = cars
    by_set = {s.inputs: s.share for s in dec.variance.by_inputs}
    weight, horsepower, year = dec.variance.by_input
    assert [s.label for s in (weight, horsepower, year)] == list(CAR_INPUTS)
    assert weight.alone == pytest.approx(by_set[(0,)])
    assert weight.overall == pytest.approx(by_set[(0,)] + by_set[(0, 1, 2)])
    assert horsepower.alone == 0.0
    assert horsepower.overall == pytest.approx(by_set[(1, 2)] + by_set[(0, 1, 2)])
    assert year.overall == pytest.approx(1.0 - by_set[(0,)])
    rows = input_shares([0.5, 0.3, 0.2], [(0,), (0, 1), (1,)], ["a", "b", "c"])
    flat = [v for r in rows for v in (r.alone, r.overall)]
    assert flat == pytest.approx([0.5, 0.8, 0.2, 0.5, 0.0, 0.0])
    context = build_context(dec, "t", "t.csv", {"trace": [], "settings": {}}, figures=False)
    assert [r["label"] for r in context["variance"]["by_input"]] == list(CAR_INPUTS)
    assert "No component reads" not in context["variance"]["text"]


def test_an_input_no_component_reads_is_said() -> None:
    names = ("weight", "horsepower", "year")
    model = fixed_model(
        "SE[weight](lengthscale=900, sd=3) + Lin[year](sd=0.3, location=60) + WN(sd=0.5)", names
    )
    dec = decompose(model, axes_of(names), seed=0)
    assert [(s.alone, s.overall) for s in dec.variance.by_input][1] == (0.0, 0.0)
    context = build_context(dec, "t", "t.csv", {"trace": [], "settings": {}}, figures=False)
    assert (
        "No component reads horsepower: the chosen model does not use it."
        in context["variance"]["text"]
    )


def test_an_additive_kernel_split_by_order_gets_its_shares_by_set_and_by_input() -> None:
    """Six inputs at order 2 make 21 sets, more than the report draws: its components are the
    two whole orders, each of its order (not six); the variance table writes them out into
    their sets again, whose shares add up to the order's, and each input's share is that of
    the sets holding it."""
    names = ("weight", "horsepower", "year", "displacement", "acceleration", "cylinders")
    members = ", ".join(
        f"SE[{n}](lengthscale={(hi - lo) / 3:.1f})"
        for n, (lo, hi) in ((n, RANGES[n]) for n in names)
    )
    model = fixed_model(f"Additive(R=2, sd1=2.0, sd2=1.0; {members}) + WN(sd=0.3)", names)
    dec = decompose(model, axes_of(names), seed=0)
    signal = [c for c in dec.components if c.share is not None]
    assert sorted(c.order for c in signal) == [1, 2]
    assert all(c.dims == tuple(range(6)) for c in signal)
    v = dec.variance
    assert [s.label for s in v.by_order] == ["order 1", "order 2"]
    for c in signal:
        assert v.by_order[c.order - 1].share == pytest.approx(c.share)
    assert (
        len(v.by_inputs) == MAX_SET_ROWS + 1
        and v.by_inputs[-1].label == "the other 6 sets of inputs"
    )
    assert sum(s.share for s in v.by_inputs) == pytest.approx(1.0)
    shown = [s.share for s in v.by_inputs[:-1]]
    assert shown == sorted(shown, reverse=True)
    one = {s.inputs: s.share for s in v.by_inputs if len(s.inputs) == 1}
    for row in v.by_input:
        if (row.input,) in one:
            assert row.alone == pytest.approx(one[(row.input,)])
    assert sum(r.alone for r in v.by_input) == pytest.approx(v.by_order[0].share)
    pairs_and_singles = sum(r.overall for r in v.by_input)
    assert pairs_and_singles == pytest.approx(v.by_order[0].share + 2 * v.by_order[1].share)
    context = build_context(dec, "t", "t.csv", {"trace": [], "settings": {}}, figures=False)
    assert sorted(
        c["order"] for c in context["components"] if c["inputs"] and c["share"] is not None
    ) == [1, 2]
    top = v.by_inputs[0]
    assert top.share == max(s.share for s in v.by_inputs[:-1])
    assert top.inputs in {(d,) for d in range(6)}  # order 1 carries the most here (sd 2 to 1)
    assert (
        f"The largest share, {percent(top.share)}, is that of {top.label}."
        in (context["variance"]["text"])
    )


def test_a_whole_order_written_out_as_its_sets_has_the_same_gram() -> None:
    """Six inputs at order 2: ``additive_terms`` gives the two whole orders; ``order_sets``
    writes order 2 out as its 15 pairs, whose Gram matrices add up to the order's."""
    members = ", ".join(f"SE@{d}(lengthscale={0.5 + d / 2})" for d in range(6))
    kernel = parse_kernel(f"Additive(R=2, sd1=0.7, sd2=1.3; {members})")
    order_one, order_two = additive_terms(kernel)
    assert (term_order(order_one), term_order(order_two)) == (1, 2)
    sets = order_sets(order_two, most=15)
    assert len(sets) == 15 and all(term_order(t) == 2 for t in sets)
    x = np.random.default_rng(1).normal(size=(7, 6))
    np.testing.assert_allclose(sum(t.gram(x) for t in sets), order_two.gram(x), rtol=1e-12)
    assert order_sets(order_two, most=14) == [order_two]
    assert [term_inputs(t) for t in order_sets(order_one, most=15)] == [(d,) for d in range(6)]


def test_the_additive_order_variances_add_up_to_the_prior_variance_at_a_point() -> None:
    """Σ_r σ_r² C(D, r) is k(x, x) of the additive kernel (each base kernel's k(x, x) = 1)."""
    kernel = parse_kernel(
        "Additive(R=3, sd1=0.7, sd2=1.3, sd3=0.4; SE(lengthscale=1), SE@1(lengthscale=2),"
        " SE@2(lengthscale=0.5), SE@3(lengthscale=3))"
    )
    rows = order_variances(kernel)
    assert [(r, c) for r, _, c, _ in rows] == [(1, 4), (2, 6), (3, 4)]
    assert [v for _, v, _, _ in rows] == pytest.approx([0.49, 1.69, 0.16])
    x = np.random.default_rng(0).normal(size=(5, 4))
    np.testing.assert_allclose(np.diag(kernel.gram(x)), sum(v for *_, v in rows), rtol=1e-12)


def test_a_lengthscale_at_its_bound_is_said(tmp_path: Path) -> None:
    names = ("weight", "horsepower")
    model = fixed_model(
        "Additive(R=2, sd1=2.0, sd2=1.0; SE[weight](lengthscale=800), SE[horsepower](lengthscale=40))"
        " + WN(sd=0.3)",
        names,
    )
    sc = model.scaling
    Xs, ys = sc.x_in(model.x), sc.y_in(model.y)
    assert saturated_inputs(model.kernel, Xs, ys) == []
    node = next(k for k in model.kernel.nodes() if isinstance(k, Additive))
    bounds = theta_bounds(node, InputSummaries.from_data(Xs, ys))
    at_bound = np.exp(bounds[3][1])  # the second input's lengthscale, at its upper bound
    values = list(node.own_values)
    values[3] = at_bound
    stretched = node.with_own_values(values)
    kernel = model.kernel.with_operands(
        [stretched if k is node else k for k in model.kernel.operands]
    )
    assert saturated_inputs(kernel, Xs, ys) == [1]
    flat = Model(kernel, sc, model.x, model.y, model.nll, x_names=names)
    dec = decompose(flat, axes_of(names), seed=0)
    context = build_context(dec, "t", "t.csv", {"trace": [], "settings": {}}, figures=False)
    assert (
        "lengthscale of the input horsepower reached its upper bound"
        in (context["variance"]["saturated"])
    )


def test_shuffled_folds_are_seeded_and_not_contiguous() -> None:
    first, again, other = shuffled_folds(100, 3), shuffled_folds(100, 3), shuffled_folds(100, 4)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other, strict=True))
    contiguous = contiguous_folds(100, 10)
    assert not any(np.array_equal(a, b) for a, b in zip(first, contiguous, strict=True))
    assert sorted(np.concatenate(first).tolist()) == list(range(100))
    times = np.array([5.0, 1.0, 3.0, 2.0, 4.0, 0.0])
    assert [f.tolist() for f in blocks_along(times, 3)] == [[1, 5], [2, 3], [0, 4]]


def test_the_decomposition_is_the_same_for_a_seed(cars) -> None:
    model, dec = cars
    names = ("weight", "horsepower", "year")
    again = decompose(model, axes_of(names), seed=0)
    assert [c.cv_mae for c in again.components] == [c.cv_mae for c in dec.components]
    assert dec.time_dim == 2 and dec.folds == "time"  # 'year' names a unit of time
    plain = decompose(model, axes_of(("weight", "horsepower", "yr_built")), seed=5)
    assert plain.time_dim is None and plain.folds == "shuffled"


def test_no_time_input_no_extrapolation_section() -> None:
    names = ("weight", "horsepower")
    model = fixed_model("SE[weight](lengthscale=900, sd=3) + Lin[horsepower](sd=0.05, location=40)"
                        " + C(sd=2) + WN(sd=0.5)", names)  # fmt: skip
    dec = decompose(model, axes_of(names), seed=0)
    context = build_context(dec, "t", "t.csv", {"trace": [], "settings": {}})
    assert context["forecast"] is None and context["json"]["forecast"] is None
    html = render_html(context)
    assert 'id="extrapolation"' not in html and 'href="#extrapolation"' not in html
    assert html.count("<img") == 1 + 2 + 1  # the data, the two components, the quantile check
    constant = next(
        c for c in context["components"] if not c["inputs"] and "noise" not in c["phrase"]
    )
    assert constant["phrase"] == "a constant" and "Its level is about" in constant["paragraph"]


def test_the_sides_of_a_change_along_one_input_are_named_by_it() -> None:
    """A changepoint in year between two smooth functions of weight: each side is a function
    of weight that applies before or after the change, not 'an interaction'."""
    names = ("weight", "year")
    model = fixed_model(
        "CP[year](SE[weight](lengthscale=900, sd=3), SE[weight](lengthscale=900, sd=1),"
        " location=76, steepness=0.1) + WN(sd=0.5)",
        names,
    )
    dec = decompose(model, axes_of(names), seed=0)
    phrases = sorted(component_phrase(dec, c) for c in dec.components if not c.is_noise)
    assert phrases == [
        "a smooth function of weight which applies from year = 76 onwards (in year)",
        "a smooth function of weight which applies until year = 76 (in year)",
    ]
