"""The words of certainty (reporting/certainty.py): how probabilities are written and which
tier a finding falls in."""

from __future__ import annotations

import pytest

from abcd_cli.decompose.certainty import Finding
from abcd_cli.decompose.components import Decomposition, decompose
from abcd_cli.decompose.facts import Axis
from abcd_cli.decompose.features import Feature
from abcd_cli.reporting.certainty import (
    FACT,
    FLOOR,
    LIKELY,
    finding_detail,
    finding_phrase,
    probability_range,
    probability_text,
    tier,
    wording,
)
from tests.reporting.test_report import fixed_model


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (1.0, "1.00"),
        (0.999, "> 0.99"),
        (0.98, "0.98"),
        (0.654, "0.65"),
        (0.001, "< 0.01"),
        (0.0, "0.00"),
    ],
)
def test_a_probability_is_never_rounded_to_a_certainty(p: float, text: str) -> None:
    assert probability_text(p) == text


def test_the_tiers_follow_the_stated_bars() -> None:
    assert wording(FACT) == "fact" and wording(FACT - 1e-9) == "likely"
    assert wording(LIKELY) == "likely" and wording(LIKELY - 1e-9) == "uncertain"
    assert wording(FLOOR) == "uncertain" and wording(FLOOR - 1e-9) is None


@pytest.mark.parametrize(
    ("low", "high", "text"),
    [
        (0.96, 0.999, "0.96 to over 0.99"),
        (0.001, 0.03, "under 0.01 to 0.03"),
        (0.6, 0.7, "0.60 to 0.70"),
        (1.0, 1.0, "1.00"),
    ],
)
def test_a_probability_range_reads_without_garble(low: float, high: float, text: str) -> None:
    """'0.96–> 0.99' was printed for a range whose upper end is above 0.99."""
    assert probability_range(low, high) == text


@pytest.fixture(scope="module")
def dec() -> Decomposition:
    """The fixed model's decomposition: monthly data from 2000 to 2008."""
    return decompose(fixed_model(), (Axis("year", "date", "sales"),), extrapolate=0.2, seed=0)


def test_a_change_before_the_data_begin_is_said_so_and_not_stated_as_a_fact(dec) -> None:
    """A change placed a year before the first observation, held by 0.95 of the weight, was
    'a change around 1999 (probability 0.95)' among the facts: the data cannot place it."""
    change = Feature("change", (0,), 0.95, value=1999.0, interval=(1998.5, 1999.6))
    finding = Finding(change, 0.9, 0.97)
    assert finding_phrase(finding, dec) == "a change before the data begin"
    assert "1999" not in finding_detail(finding, dec)
    assert tier(finding, dec) == "uncertain"


def test_a_change_within_the_data_keeps_its_time(dec) -> None:
    change = Feature("change", (0,), 0.95, value=2004.2, interval=(2004.0, 2004.4))
    finding = Finding(change, 0.9, 0.97)
    assert finding_phrase(finding, dec) == "a change around March 2004"
    assert tier(finding, dec) == "fact"
