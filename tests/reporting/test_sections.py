"""The report's sections (reporting/sections.py): what the data section says levels are
measured from, and the summary's words on its method without jargon."""

from __future__ import annotations

import pytest

from abcd_cli.decompose.components import decompose
from abcd_cli.decompose.facts import Axis
from abcd_cli.reporting.context import build_context
from abcd_cli.reporting.wording import format_amount
from tests.reporting.test_report import _search_doc, fixed_model


@pytest.fixture(scope="module")
def context() -> dict:
    model = fixed_model()
    dec = decompose(model, (Axis("year", "date", "sales"),), extrapolate=0.2, seed=0)
    return build_context(dec, "Sales", "sales.csv", _search_doc(model), figures=False)


def test_the_series_mean_that_levels_are_measured_from_is_stated_once(context) -> None:
    """Levels such as 'about −66.1' were relative to a mean the report never stated."""
    model = fixed_model()
    mean = format_amount(model.scaling.y_shift, Axis("year", "date", "sales"))
    description = context["data"]["description"]
    assert f"The mean of sales is {mean}" in description
    assert "measured from that mean" in description


def test_the_summary_names_no_jargon(context) -> None:
    summary = context["summary"]
    text = " ".join([summary["intro"], summary["explained"], summary["method"]])
    assert "BIC" not in text and "Laplace" not in text and "nats" not in text
