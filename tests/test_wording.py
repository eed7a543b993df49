"""How numbers, lengths, dates and lists are worded in the report."""

from __future__ import annotations

import pytest

from abcd_cli.data.dates import decimal_year
from abcd_cli.reporting.wording import (
    format_amount,
    format_position,
    format_span,
    join_words,
    number_word,
    ordinal,
    percent,
)
from tests.axes import DATE, NUMBER, YEAR


@pytest.mark.parametrize(
    ("length", "expected"),
    [
        (1.0, "1.0 year"),
        (11.2, "11.2 years"),
        (0.0833, "1.0 month"),
        (0.5, "6.0 months"),
        (0.0192, "1.0 week"),
        (3 * 7 / 365.2425, "3.0 weeks"),
        (0.00274, "1.0 day"),
        (2 / 365.2425, "2.0 days"),
        (1 / (24 * 365.2425), "1.0 hour"),
        (5 / (24 * 365.2425), "5.0 hours"),
        (401.0, "401 years"),
    ],
)
def test_format_span_picks_time_unit_and_plural(length: float, expected: str) -> None:
    assert format_span(length, YEAR) == expected
    assert format_span(length, DATE) == expected


def test_format_span_on_number_axis_names_the_column() -> None:
    assert format_span(3.2, NUMBER) == "3.2 units of t"
    assert format_span(1.0, NUMBER) == "1.0 unit of t"
    assert "0.25" in format_span(0.25, NUMBER)


def test_format_position_year_axis_by_precision() -> None:
    x = decimal_year(1958, 3, 14)
    assert format_position(1716.0, YEAR) == "1716"
    assert format_position(1715.7, YEAR, 1.0) == "1716"  # labelled years round
    assert format_position(x, YEAR, 1 / 12) == "March 1958"
    assert format_position(x, YEAR, 1 / 365.25) == "14 March 1958"


def test_format_position_date_axis_by_precision() -> None:
    x = decimal_year(2020, 1, 31, seconds=13.5 * 3600)
    assert format_position(x, DATE, 2.0) == "2020"
    assert format_position(x, DATE, 0.1) == "January 2020"
    assert format_position(x, DATE, 2 / 365.25) == "31 January 2020"
    assert format_position(x, DATE, 1 / (24 * 365.25)) == "31 January 2020, 13:30"
    assert format_position(2020.9, DATE, 1.0) == "2020"  # a calendar year does not round up


def test_format_position_number_axis() -> None:
    assert format_position(4.25, NUMBER) == "t = 4.25"
    assert format_position(4.27, NUMBER, 1.0) == "t = 4.3"
    assert format_position(4.0, NUMBER, 0.01) == "t = 4"
    assert format_position(123.456, NUMBER, 0.1) == "t = 123.46"


@pytest.mark.parametrize(
    ("value", "expected"),
    [(280.3, "280"), (34.03, "34.0"), (0.18, "0.180"), (12345.6, "12,300"), (-4.56, "\u22124.56")],
)
def test_format_amount_three_significant_digits(value: float, expected: str) -> None:
    assert format_amount(value, YEAR) == expected


def test_format_amount_avoids_scientific_notation_for_ordinary_values() -> None:
    assert "e" not in format_amount(1_234_567.0, YEAR)
    assert "e" not in format_amount(0.000123, YEAR)


def test_ordinals_and_number_words_switch_to_digits_past_twelve() -> None:
    assert [ordinal(n) for n in (1, 12, 13, 21, 22, 23, 111)] == [
        "first",
        "twelfth",
        "13th",
        "21st",
        "22nd",
        "23rd",
        "111th",
    ]
    assert [number_word(n) for n in (0, 1, 12, 13)] == ["no", "one", "twelve", "13"]


def test_lists_and_percentages_in_prose() -> None:
    assert join_words([]) == ""
    assert join_words(["a"]) == "a"
    assert join_words(["a", "b"]) == "a and b"
    assert join_words(["a", "b", "c"], "or") == "a, b or c"
    assert percent(0.1234) == "12.3%"
    assert percent(0.0012, fine=True) == "0.12%"
    assert percent(0.0012) == "0.1%"
