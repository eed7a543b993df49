"""How numbers, lengths, dates and lists are worded in the report."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.data.dates import calendar_year, decimal_year
from abcd_cli.data.reader import load_series
from abcd_cli.decompose.facts import Axis
from abcd_cli.kernels import Per
from abcd_cli.reporting.phrases import noun_phrase
from abcd_cli.reporting.wording import (
    format_amount,
    format_position,
    format_span,
    join_words,
    number_word,
    ordinal,
    percent,
    rate_unit,
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
    x = calendar_year(1958, 3, 14)  # numbers written as years are calendar fractions
    assert format_position(1716.0, YEAR) == "1716"
    assert format_position(1715.7, YEAR, 1.0) == "1715"  # September 1715, as dates read
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


# ------------------------------------------------------------------ units x counts time in

HOUR_IN_YEARS = 1.0 / (24 * 365.2425)


@pytest.mark.parametrize(
    ("axis", "period", "spacing", "period_text", "spacing_text"),
    [
        # (a) dates sampled hourly over a few weeks, with a daily cycle (x in decimal years)
        (Axis("date", "time", "load"), 24 * HOUR_IN_YEARS, HOUR_IN_YEARS, "1.0 day", "1.0 hour"),
        # (b) plain numbers in a column named 'hours', period 24
        (Axis("number", "hours", "load"), 24.0, 1.0, "1.0 day", "1.0 hour"),
        # (c) 't_s' sampled at 100 Hz, a heartbeat of 0.8 s
        (Axis("number", "t_s", "ppg"), 0.8, 0.01, "0.8 seconds", "0.01 seconds"),
        # (d) 'seconds'
        (Axis("number", "seconds", "ppg"), 0.8, 0.01, "0.8 seconds", "0.01 seconds"),
        # (e) 'day' and 'days', a weekly cycle
        (Axis("number", "day", "visits"), 7.0, 1.0, "1.0 week", "1.0 day"),
        (Axis("number", "days", "visits"), 7.0, 1.0, "1.0 week", "1.0 day"),
        # (f) plain x: no unit invented
        (Axis("number", "x", "y"), 2.5, 0.1, "2.5 units of x", "0.10 units of x"),
    ],
)
def test_periods_and_spacings_in_the_unit_that_fits(
    axis: Axis, period: float, spacing: float, period_text: str, spacing_text: str
) -> None:
    assert format_span(period, axis) == period_text
    assert format_span(spacing, axis) == spacing_text
    assert (
        noun_phrase(Per((1.0, period, 1.0)), axis)
        == f"a periodic function with a period of {period_text}"
    )


@pytest.mark.parametrize(
    ("length", "name", "expected"),
    [
        (36.0, "hours", "1.5 days"),
        (90.0, "time_min", "1.5 hours"),
        (800.0, "t_ms", "0.8 seconds"),
        (0.0125, "t_s", "0.013 seconds"),
        (3600.0, "Time (s)", "1.0 hour"),
        (12.0, "months", "1.0 year"),
        (28.0, "days", "4.0 weeks"),
        (365.2425, "days", "1.0 year"),
        (50.0, "minutes", "50.0 minutes"),
        (0.0, "seconds", "0 seconds"),
    ],
)
def test_lengths_convert_from_the_unit_the_name_gives(length: float, name: str, expected: str):
    assert format_span(length, Axis("number", name, "y")) == expected


def test_dated_lengths_keep_their_wording() -> None:
    for axis in (DATE, YEAR):
        assert format_span(1.0, axis) == "1.0 year"
        assert format_span(0.4, axis) == "4.8 months"
        assert format_span(float("inf"), axis) == "∞ years"


def test_a_year_of_hourly_dates_is_described_in_hours_and_days(tmp_path) -> None:
    start = np.datetime64("2023-06-01T00:00")
    stamps = start + np.arange(24 * 366) * np.timedelta64(1, "h")
    data = tmp_path / "hourly.csv"
    data.write_text(
        "time,temp\n"
        + "".join(f"{str(s).replace('T', ' ')},{i % 24}\n" for i, s in enumerate(stamps))
    )
    series = load_series(data)
    assert series.x_kind == "date" and series.x_unit == "year"
    axis = Axis(series.x_kind, series.x_name, series.y_name)
    steps = np.diff(series.x)
    # a leap year's hours are a little shorter in decimal years: still "1.0 hour", "1.0 day"
    assert {format_span(s, axis) for s in steps} == {"1.0 hour"}
    assert format_span(24 * steps.min(), axis) == format_span(24 * steps.max(), axis) == "1.0 day"
    assert format_span(series.x[-1] - series.x[0], axis) == "1.0 year"
    assert "years (about 1 hour), y 'temp'" in series.description()
    ends = [format_position(series.x[i], axis, 0.25) for i in (0, -1)]
    assert ends == ["June 2023", "May 2024"]


def test_positions_on_a_named_unit_axis_stay_plain_numbers() -> None:
    assert format_position(238.8, Axis("number", "hours", "y")) == "hours = 238.8"


@pytest.mark.parametrize(
    ("axis", "span", "unit", "size"),
    [
        (YEAR, 7.9, "year", 1.0),
        (DATE, 21 * 24 * HOUR_IN_YEARS, "week", 7 / 365.2425),
        (Axis("number", "hours", "y"), 200.0, "week", 168.0),
        (Axis("number", "hours", "y"), 30.0, "day", 24.0),
        (Axis("number", "t_s", "y"), 3.0, "second", 1.0),
        (NUMBER, 10.0, "unit of t", 1.0),
    ],
)
def test_a_rate_is_given_per_the_unit_the_span_is_counted_in(axis, span, unit, size) -> None:
    got_unit, got_size = rate_unit(span, axis)
    assert got_unit == unit and got_size == pytest.approx(size)


def test_a_year_is_the_calendar_year_a_point_falls_in() -> None:
    """Monthly data ending in December 1960 (1960.92) read 'from 1949 to 1961': the last year
    named came after the last observation."""
    for axis in (YEAR, DATE):
        assert format_position(1960.92, axis) == "1960"
        assert format_position(1960.0, axis) == "1960"
        assert format_position(1949.0 - 1e-12, axis) == "1949"
