"""Units of time: which unit a column's name gives its numbers, and lengths converted between
units and counted in the largest one they fill."""

from __future__ import annotations

import pytest

from abcd_cli.data.dates import DAYS_PER_YEAR
from abcd_cli.data.time_units import (
    UNIT_YEARS,
    UNITS,
    convert,
    in_largest_unit,
    name_words,
    unit_of_name,
)


@pytest.mark.parametrize(
    ("name", "unit"),
    [
        ("seconds", "second"),
        ("Seconds", "second"),
        ("second", "second"),
        ("sec", "second"),
        ("secs", "second"),
        ("t_s", "second"),
        ("time_s", "second"),
        ("Time (s)", "second"),
        ("elapsed_sec", "second"),
        ("tSec", "second"),
        ("t_ms", "millisecond"),
        ("time [ms]", "millisecond"),
        ("ms", "millisecond"),
        ("milliseconds", "millisecond"),
        ("min", "minute"),
        ("t_min", "minute"),
        ("minutes", "minute"),
        ("Minute", "minute"),
        ("hours", "hour"),
        ("Hours", "hour"),
        ("HOURS", "hour"),
        ("hour", "hour"),
        ("time_hours", "hour"),
        ("timeHours", "hour"),
        ("t_h", "hour"),
        ("t_hr", "hour"),
        ("hrs", "hour"),
        ("hour_of_day", "hour"),
        ("day", "day"),
        ("days", "day"),
        ("Days", "day"),
        ("t_d", "day"),
        ("days_since_onset", "day"),
        ("day_of_year", "day"),
        ("day_of_week", "day"),
        ("week", "week"),
        ("weeks", "week"),
        ("week_of_year", "week"),
        ("month", "month"),
        ("months", "month"),
        ("years", "year"),
        ("t_yr", "year"),
        ("time_of_day_hours", "hour"),  # the last word names the unit
    ],
)
def test_a_name_that_names_a_unit_gives_it(name: str, unit: str) -> None:
    assert unit_of_name(name) == unit


@pytest.mark.parametrize(
    "name",
    [
        "x",
        "t",
        "time",
        "date",
        "index",
        "s",  # one letter alone: as likely a distance
        "h",
        "d",
        "mass",  # letters inside a word never count
        "times",
        "status",
        "ts",
        "dose",
        "distance",
        "hd",
        "min_temp",  # an abbreviation counts only as the last word
        "hr_bpm",
        "km_per_hour",  # a rate, not a unit
        "hours_days",  # two units: no guess
        "time_of_day",  # a word after "of" is what is counted within, not the unit
        "",
        "123",
    ],
)
def test_a_name_without_a_unit_gives_none(name: str) -> None:
    assert unit_of_name(name) is None


def test_names_split_into_words_at_non_letters_and_case_changes() -> None:
    assert name_words("Time (s)") == ["time", "s"]
    assert name_words("timeHours") == ["time", "hours"]
    assert name_words("t_10ms") == ["t", "ms"]
    assert name_words("HOURS") == ["hours"]


@pytest.mark.parametrize(
    ("length", "unit", "count", "name"),
    [
        (24.0, "hour", 1.0, "day"),
        (36.0, "hour", 1.5, "day"),
        (90.0, "minute", 1.5, "hour"),
        (0.8, "second", 0.8, "second"),
        (800.0, "millisecond", 0.8, "second"),
        (7.0, "day", 1.0, "week"),
        (14.0, "day", 2.0, "week"),
        (12.0, "month", 1.0, "year"),
        (3600.0, "second", 1.0, "hour"),
        (1.0, "year", 1.0, "year"),
        (0.25, "year", 3.0, "month"),
        (DAYS_PER_YEAR, "day", 1.0, "year"),
    ],
)
def test_a_length_in_any_unit_is_counted_in_the_largest_it_fills(length, unit, count, name):
    got_count, got_name = in_largest_unit(length, unit)
    assert got_name == name and got_count == pytest.approx(count)


@pytest.mark.parametrize(
    ("length", "unit", "name"),
    [
        # 0.95 of the larger unit is the boundary: just above it, the larger unit; below, the smaller
        (0.951 * 60.0, "minute", "hour"),
        (0.949 * 60.0, "minute", "minute"),
        (0.951 * 24.0, "hour", "day"),
        (0.949 * 24.0, "hour", "hour"),
        (0.951 * 60.0, "second", "minute"),
        (0.949 * 60.0, "second", "second"),
        (0.951 * 7.0, "day", "week"),
        (0.949 * 7.0, "day", "day"),
        (0.951 * 12.0, "month", "year"),
        (0.949 * 12.0, "month", "month"),
        (28.0, "day", "week"),  # four weeks do not fill a month (30.4 days)
        (29.0, "day", "month"),
    ],
)
def test_the_unit_changes_where_the_length_fills_95_percent_of_the_larger(length, unit, name):
    assert in_largest_unit(length, unit)[1] == name


def test_seconds_are_the_smallest_unit_a_length_is_counted_in() -> None:
    assert in_largest_unit(0.001, "second") == pytest.approx((0.001, "second"))
    assert in_largest_unit(5.0, "millisecond")[1] == "second"
    assert UNITS[-1][0] == "second" and "millisecond" not in dict(UNITS)


def test_conversions_between_units_are_exact_ratios() -> None:
    assert convert(1.0, "day", "hour") == pytest.approx(24.0, rel=1e-15)
    assert convert(1.0, "hour", "second") == pytest.approx(3600.0, rel=1e-15)
    assert convert(1.0, "week", "day") == pytest.approx(7.0, rel=1e-15)
    assert convert(1.0, "year", "day") == pytest.approx(DAYS_PER_YEAR, rel=1e-15)
    assert convert(1.0, "year", "month") == pytest.approx(12.0, rel=1e-15)
    assert convert(1.0, "second", "millisecond") == pytest.approx(1000.0, rel=1e-15)
    assert set(UNIT_YEARS) == {name for name, _ in UNITS} | {"millisecond"}
