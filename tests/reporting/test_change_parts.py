"""A change the posterior finds names what changes there, from the components of the structure
holding it, read from their curves (reporting/change_parts.py): gas production's "a change
around 1980 (probability 0.99)" was tied to no component's words."""

from __future__ import annotations

import re

import numpy as np

from abcd_cli.data.scaling import Scaling
from abcd_cli.decompose.components import decompose
from abcd_cli.decompose.facts import Axis
from abcd_cli.engines.exact import negative_log_likelihood
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model, posterior_of
from abcd_cli.reporting.context import build_context
from tests.reporting.test_posterior_report import _structure
from tests.reporting.test_report import _search_doc

STEP = 2004.0


def _amounts(text: str) -> list[float]:
    """The (before, after) pairs of a change's words, in the data's units."""
    pairs = re.findall(r"from about ([−\d.,]+) before it to ([−\d.,]+) after", text)
    return [float(v.replace("−", "-").replace(",", "")) for pair in pairs for v in pair]


def _posterior_context(x: np.ndarray, y: np.ndarray, text: str) -> dict:
    """The report's context of a posterior holding the one structure ``text`` (user units)
    fitted to (x, y): its summary's findings name what changes at a change."""
    sc = Scaling.from_data(x, y)
    kernel = sc.kernel_in(parse_kernel(text))
    nll = sc.nll_out(negative_log_likelihood(kernel, sc.x_in(x), sc.y_in(y)), x.size)
    model = Model(kernel, sc, x, y, nll)
    dec = decompose(model, (Axis("year", "date", "level"),), extrapolate=0.1, seed=0)
    doc = _search_doc(model)
    doc["settings"].update({"method": "posterior", "pool": 1, "draws": 3})
    doc["posterior"] = {
        "prior": {"structures": "uniform over the pool", "parameters": "normal"},
        "draws": 3,
        "structures": [_structure(model.kernel, 1.0, model.bic)],
    }
    return build_context(
        dec, "Level", "level.csv", doc, figures=False, record=posterior_of(doc, model)
    )


def test_a_change_found_by_the_posterior_names_the_component_that_steps() -> None:
    """Eight years of monthly data, flat, then 5 higher from 2004 on; the structure holding the
    change is a level before it and a level after it, both measured from the series' mean. The
    change's finding says which components change and how, in the data's units."""
    x = 2000.0 + np.arange(96) / 12.0
    rng = np.random.default_rng(4)
    y = np.where(x >= STEP, 5.0, 0.0) + 0.2 * rng.standard_normal(x.size)
    text = f"CP(C(sd=3.0), C(sd=3.0), location={STEP}, steepness=0.01) + WN(sd=0.2)"
    context = _posterior_context(x, y, text)
    changes = [f for f in context["json"]["summary"]["findings"] if f["kind"] == "change"]
    assert changes
    words = changes[0]["text"]
    assert "component 1 (a level) rises" in words and "component 2 (a level) rises" in words
    before, after = y[x < STEP].mean() - y.mean(), y[x >= STEP].mean() - y.mean()
    first_before, first_after, second_before, second_after = _amounts(words)[:4]
    levels = sorted([(first_before, first_after), (second_before, second_after)])
    assert abs(levels[0][0] - before) < 0.3 and abs(levels[0][1]) < 0.3  # off after the step
    assert abs(levels[1][0]) < 0.3 and abs(levels[1][1] - after) < 0.3  # on after it
    stated = words.split(" (probability")[0].lower()
    assert any(stated in fact.lower() for fact in context["summary"]["facts"])


def test_a_smooth_function_at_a_change_is_said_by_its_signed_average() -> None:
    """A trend that climbs from −5 to 5 with a change at 2004 between two smooth functions: it
    is said by its curve's signed value averaged on each side, measured from the series' mean
    ('rises from about −2.51 on average before it to 2.56 after'), not by its |m| ('grows from
    about 2.5 to 2.6'), which a reader cannot place on a curve crossing the mean (airline's
    sampler report read 'grows from about 124 before it to 240 after')."""
    x = 2000.0 + np.arange(96) / 12.0
    rng = np.random.default_rng(5)
    y = np.linspace(-5.0, 5.0, x.size) + 0.2 * rng.standard_normal(x.size)
    text = (
        "CP(SE(lengthscale=3.0, sd=3.0), SE(lengthscale=3.0, sd=3.0), location=2004.0,"
        " steepness=0.01) + WN(sd=0.2)"
    )
    context = _posterior_context(x, y, text)
    changes = [f for f in context["json"]["summary"]["findings"] if f["kind"] == "change"]
    words = changes[0]["text"]
    assert "(a smooth function) rises from about −" in words and "on average before" in words
    assert "grows" not in words and "shrinks" not in words, words
    pairs = re.findall(r"from about ([−\d.,]+) on average before it to ([−\d.,]+) after", words)
    stated = [float(v.replace("−", "-")) for v in pairs[0]]
    before, after = y[x < STEP].mean() - y.mean(), y[x >= STEP].mean() - y.mean()
    assert abs(stated[0] - before) < 0.3 and abs(stated[1] - after) < 0.3, (stated, before, after)
