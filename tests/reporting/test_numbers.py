"""The report's one number formatter: significant figures, fixed decimals, percentages and
p-values, and that a table cell and a sentence write one value the same way."""

from __future__ import annotations

import pytest

from abcd_cli.decompose.facts import ModelCheck
from abcd_cli.reporting.describe import describe_checks
from abcd_cli.reporting.numbers import decimals_for, format_number, format_percent, format_pvalue
from abcd_cli.reporting.render import environment
from abcd_cli.reporting.wording import format_amount, percent
from tests.axes import YEAR

M = "\u2212"


@pytest.mark.parametrize(
    ("value", "digits", "expected"),
    [
        (280.3, 3, "280"),
        (0.18, 3, "0.180"),
        (12345.6, 3, "12,300"),  # significant figures, also left of the point
        (9.996, 3, "10.0"),  # rounding carries into the next power of ten
        (99.96, 3, "100"),
        (-0.012345, 3, f"{M}0.0123"),
        (0.000123, 3, "0.000123"),
        (1_234_567.0, 3, "1,230,000"),
        (4.2e-7, 3, f"4.20e{M}07"),  # scientific only below 10⁻⁶ ...
        (3.1e15, 2, "3.1e+15"),  # ... and from 10¹⁵
        (0.0, 3, "0"),
        (-0.0, 3, "0"),
        (3, 3, "3"),  # an int is a count: whole
        (12345, 3, "12,345"),
        (None, 3, "\u2014"),
        (float("nan"), 3, "\u2014"),
        (float("-inf"), 3, f"{M}∞"),
    ],
)
def test_significant_figures(value, digits, expected) -> None:
    assert format_number(value, digits) == expected


def test_fixed_decimals_signs_grouping_and_trimming() -> None:
    assert format_number(1234.5678, decimals=2) == "1,234.57"
    assert format_number(-3.14159, decimals=0) == f"{M}3"
    assert format_number(0.02, decimals=1, signed=True) == "+0.0"
    assert format_number(12000.5, decimals=4, grouping=False) == "12000.5000"
    assert format_number(4.50, decimals=3, trim=True) == "4.5"
    assert format_number(-0.3, decimals=0, trim=True) == "0"


def test_decimals_for_a_column_uses_the_largest_value_after_rounding() -> None:
    assert decimals_for([8.581, 3.279, None, float("nan")]) == 3
    assert decimals_for([1000.0], 5) == 1
    assert decimals_for([9.99996]) == 2  # 10.00, four figures
    assert decimals_for([1e-12]) == 6
    assert decimals_for([0.0, None]) == 0


def test_percentages_and_p_values() -> None:
    assert format_percent(0.972) == "97.2%"
    assert format_percent(-0.031, signed=True) == f"{M}3.1%"
    assert format_percent(0.0, signed=True) == "+0.0%"
    assert format_pvalue(0.0004) == "< 0.001"
    assert format_pvalue(0.0412) == "0.041"
    assert format_pvalue(None) == "\u2014"


@pytest.mark.parametrize("value", [-4.56, 0.000123, 123456.0, 2.5e16, -7.5e-8])
def test_a_paragraph_and_a_table_write_a_number_alike(value: float) -> None:
    """Prose amounts and the table's number filter share the notation, separators and sign."""
    table = environment().from_string("{{ v | number(digits=3) }}").render(v=value)
    assert format_amount(value, YEAR) == table


def test_a_percentage_reads_the_same_in_the_table_and_in_prose() -> None:
    table = environment().from_string("{{ v | percent }}").render(v=-0.0742)
    assert percent(-0.0742) == table == f"{M}7.4%"


def test_a_flagged_check_states_the_p_value_the_table_shows() -> None:
    for p, shown in ((0.0057, "p = 0.006"), (0.0004, "p < 0.001"), (0.0234, "p = 0.023")):
        check = ModelCheck("periodogram", "largest peak", p)
        table = environment().filters["pvalue"](p)
        assert shown in describe_checks([check])
        assert shown.endswith(table)
