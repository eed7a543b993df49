"""The report's sections (reporting/sections.py): what the data section says levels are
measured from, and the summary's words on its method without jargon."""

from __future__ import annotations

import pytest

from abcd_cli.decompose.components import decompose
from abcd_cli.decompose.facts import Axis
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
