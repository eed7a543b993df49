"""The report's sections (reporting/sections.py): what the data section says levels are
measured from, and the summary's words on its method without jargon."""

from __future__ import annotations

import pytest

from abcd_cli.decompose.components import decompose
from abcd_cli.decompose.facts import Axis
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model
from abcd_cli.reporting.component_text import component_phrase
from abcd_cli.reporting.context import build_context
from abcd_cli.reporting.sections import format_mean
from tests.reporting.test_report import _search_doc, fixed_model


@pytest.fixture(scope="module")
def context() -> dict:
    model = fixed_model()
    dec = decompose(model, (Axis("year", "date", "sales"),), extrapolate=0.2, seed=0)
    return build_context(dec, "Sales", "sales.csv", _search_doc(model), figures=False)


def test_the_series_mean_that_levels_are_measured_from_is_stated_once(context) -> None:
    """Levels such as 'about −66.1' were relative to a mean the report never stated."""
    model = fixed_model()
    mean = format_mean(model.scaling.y_shift, model.scaling.y_scale)
    description = context["data"]["description"]
    assert f"The mean of sales is {mean}" in description
    assert "measured from that mean" in description


def test_the_summary_names_no_jargon(context) -> None:
    summary = context["summary"]
    text = " ".join([summary["intro"], summary["explained"], summary["method"]])
    assert "BIC" not in text and "Laplace" not in text and "nats" not in text


def test_the_mean_is_stated_to_the_precision_of_the_spread() -> None:
    """Solar's mean read '1,360' (it is 1,360.65) beside levels of a few tenths: a level of
    −0.501 from it placed the series below every observation."""
    assert format_mean(1360.65, 0.45) == "1,360.65"
    assert format_mean(280.3, 119.0) == "280"
    assert format_mean(31000.4, 15000.0) == "31,000"


def test_two_smooth_components_that_read_alike_name_their_scales() -> None:
    """Solar's summary read 'A smooth function which applies before 1652 and after 1722.'
    twice, for terms varying over 31.7 and 2.2 years."""
    first = fixed_model()
    text = "SE(lengthscale=3.0, sd=5.0) + SE(lengthscale=0.2, sd=2.0) + WN(sd=1.0)"
    kernel = first.scaling.kernel_in(parse_kernel(text))
    model = Model(kernel, first.scaling, first.x, first.y, first.nll)
    dec = decompose(model, (Axis("year", "date", "sales"),), extrapolate=0.2, seed=0)
    smooth = [c for c in dec.components if not c.is_noise]
    phrases = [component_phrase(dec, c) for c in smooth]
    assert len(set(phrases)) == 2
    assert any("a smooth function on a scale of about 3.0 years" in p for p in phrases)
    noise = next(c for c in dec.components if c.is_noise)
    assert component_phrase(dec, noise) == "uncorrelated noise"


def test_the_body_names_no_lengthscale_and_no_posterior_mean(context) -> None:
    """'typical lengthscale', 'posterior means' and 'lengthscales within a factor of two'
    were statisticians' words in the body of every report (the appendix keeps the kernel)."""
    import json
    from pathlib import Path

    words = [context["summary"], context["forecast"]] + [
        {k: c[k] for k in ("phrase", "paragraph", "extrapolation")} for c in context["components"]
    ]
    text = json.dumps(words, default=str) + Path("templates/_component.html").read_text()
    assert "lengthscale" not in text and "posterior mean" not in text


def test_the_spacing_of_the_data_is_said_as_it_is() -> None:
    """Temperature and births: 'typically 2.0 days apart' and '4.0 days apart' hid gaps of one
    day to a month; Mauna Loa's months with a few missing keep their spacing."""
    import numpy as np

    from abcd_cli.reporting.sections import _spacing_words
    from tests.axes import YEAR

    days = np.cumsum(np.random.default_rng(0).choice([1, 1, 2, 2, 3, 9, 31], 400)) / 365.25
    assert _spacing_words(1981.0 + days, YEAR).startswith("at irregular intervals, from 1.0 day")
    months = 1958.0 + np.arange(540) / 12.0
    assert _spacing_words(months, YEAR) == "typically 1.0 month apart"
    gapped = np.delete(months, [100, 101, 102, 300])
    assert (
        _spacing_words(gapped, YEAR) == "typically 1.0 month apart, with gaps of up to 4.0 months"
    )
