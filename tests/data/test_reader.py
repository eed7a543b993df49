"""Tests for abcd_cli.data.reader: reading and validating a user's CSV into a Series."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abcd_cli.data.dates import decimal_year, from_decimal_year
from abcd_cli.data.reader import MIN_POINTS, Series, load_series
from abcd_cli.errors import AbcdError, InputError

DATASETS = Path(__file__).resolve().parents[2] / "datasets"

BUNDLED = {
    "01-airline": 144,
    "02-solar": 402,
    "03-mauna": 545,
    "04-wheat": 370,
    "05-temperature": 1000,
    "06-internet": 1000,
    "07-call-centre": 180,
    "08-radio": 240,
    "09-gas-production": 476,
    "10-sulphuric": 462,
    "11-unemployment": 408,
    "12-births": 1000,
    "13-wages": 735,
}

GOOD = "x,y\n1,10\n2,20\n3,15\n4,30\n5,25\n"


def write(tmp_path: Path, content: str | bytes, name: str = "data.csv") -> Path:
    """Write text (UTF-8) or bytes to tmp_path/name and return the path."""
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_bytes(content.encode("utf-8"))
    return path


def load_text(tmp_path: Path, content: str | bytes, **kwargs: str) -> Series:
    return load_series(write(tmp_path, content), **kwargs)


def input_error(tmp_path: Path, content: str | bytes, **kwargs: str) -> str:
    """Load content expecting an InputError; return its message after basic checks."""
    path = write(tmp_path, content)
    with pytest.raises(InputError) as info:
        load_series(path, **kwargs)
    message = str(info.value)
    assert "\n" not in message
    assert str(path) in message
    return message


# ----------------------------------------------------------------------------- errors


def test_error_types() -> None:
    assert issubclass(InputError, AbcdError) and InputError.exit_code == 2
    assert str(InputError("two\nlines")) == "two lines"


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.csv"
    with pytest.raises(InputError, match="absent.csv: file not found"):
        load_series(path)


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory"):
        load_series(tmp_path)


def test_permission_denied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, GOOD)

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "open", refuse)
    with pytest.raises(InputError, match="permission denied"):
        load_series(path)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads all")
def test_unreadable_file_mode(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    path.chmod(0)
    with pytest.raises(InputError, match="permission denied"):
        load_series(path)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("", "the file is empty"),
        ("\n \n\t\n", "the file is empty"),
        ("x,y\n", "has a header line but no data rows"),
        ("x,y\n\n\n", "has a header line but no data rows"),
        (b"x,y\n1,\x002\n", "binary file (it contains NUL bytes)"),
        (b"\x81\x8d\x8f\x90\x9d\xff\xfe", "not valid UTF-8"),
        (b"x,y\n1,2\x01\x02\n", "control character"),
        (b"x,y\n1,\xc2\x85\n", "control character"),
    ],
    ids=["empty", "blank", "header-only", "header-blank", "nul", "undecodable", "ctrl", "c1"],
)
def test_unreadable_content(tmp_path: Path, content: str | bytes, expected: str) -> None:
    assert expected in input_error(tmp_path, content)


def test_ragged_row_is_named(tmp_path: Path) -> None:
    message = input_error(tmp_path, "x,y\n1,2\n2,3,4\n3,4\n4,5\n5,6\n")
    assert "row 2 (line 3) has 3 fields but the header (line 1) has 2" in message


def test_short_row_is_named(tmp_path: Path) -> None:
    message = input_error(tmp_path, "x;y\n1;2\n\n2;3\n3\n4;5\n5;6\n")
    assert "row 3 (line 5) has 1 field but the header" in message
    assert "semicolon" in message


def test_too_few_points(tmp_path: Path) -> None:
    message = input_error(tmp_path, "x,y\n1,2\n2,3\n3,5\n")
    assert f"at least {MIN_POINTS} rows" in message
    assert "found 3" in message


def test_too_few_points_after_dropping(tmp_path: Path) -> None:
    message = input_error(tmp_path, "x,y\n1,2\n2,\n3,5\n4,NA\n5,6\n6,7\n")
    assert "found 4 (2 dropped for missing values)" in message


def test_constant_y(tmp_path: Path) -> None:
    message = input_error(tmp_path, "t,y\n1,3\n2,3\n3,3\n4,3.0\n5,3\n")
    assert message.endswith("column 'y' is constant (value 3): there is nothing to model")


def test_non_numeric_y_names_row_and_value(tmp_path: Path) -> None:
    message = input_error(tmp_path, "x,y\n1,2\n2,3\n3,abc\n4,5\n5,6\n6,oops\n")
    assert "row 3 (line 4): column 'y' value 'abc' is not a number" in message
    assert "2 such values" in message


def test_row_numbers_count_blank_lines_and_crlf(tmp_path: Path) -> None:
    message = input_error(tmp_path, "x,y\r\n\r\n1,2\r\n\r\n2,abc\r\n3,4\r\n")
    assert "row 2 (line 5)" in message


@pytest.mark.parametrize("bad", ["inf", "-Infinity", "1e400"])
def test_infinity_is_refused(tmp_path: Path, bad: str) -> None:
    message = input_error(tmp_path, f"x,y\n1,2\n2,{bad}\n3,4\n4,5\n5,6\n")
    assert "row 2 (line 3)" in message
    assert "infinite" in message


def test_infinite_x_is_refused(tmp_path: Path) -> None:
    message = input_error(tmp_path, "x,y\n1,2\n2,3\ninf,4\n4,5\n5,6\n")
    assert "row 3 (line 4): column 'x' value 'inf' is infinite" in message


def test_huge_y_is_refused(tmp_path: Path) -> None:
    message = input_error(tmp_path, "x,y\n1,2\n2,3e200\n3,4\n4,5\n5,6\n")
    assert "column 'y' has values as large as 3e+200" in message
    assert "rescale" in message


def test_tiny_y_is_refused(tmp_path: Path) -> None:
    message = input_error(tmp_path, "x,y\n1,2e-200\n2,3e-200\n3,4e-200\n4,5e-200\n5,1e-200\n")
    assert "underflow" in message


def test_y_spread_lost_in_rounding(tmp_path: Path) -> None:
    rows = "".join(f"{i},{1e12 + i * 1e-3!r}\n" for i in range(6))
    message = input_error(tmp_path, "x,y\n" + rows)
    assert "column 'y' varies by only" in message
    assert "rounding" in message


def test_x_range_tiny_relative_to_magnitude(tmp_path: Path) -> None:
    rows = "".join(f"{1e9 + i * 1e-3!r},{i % 3}\n" for i in range(6))
    message = input_error(tmp_path, "x,y\n" + rows)
    assert "column 'x': x spans only" in message
    assert "subtract an offset" in message


def test_equal_x_is_refused(tmp_path: Path) -> None:
    message = input_error(tmp_path, "x,y\n5,1\n5,2\n5,3\n5,4\n5,6\n")
    assert "all x values in column 'x' are equal (5)" in message


def test_dates_within_a_second_are_refused(tmp_path: Path) -> None:
    rows = "".join(f"2020-01-01T00:00:00.{i:03d}Z,{i % 3}\n" for i in range(6))
    # The fractional seconds are beyond the regex; pandas parses them.
    message = input_error(tmp_path, "time,y\n" + rows)
    assert "the dates span only" in message


# ----------------------------------------------------------------------------- columns


def test_unknown_column_lists_columns(tmp_path: Path) -> None:
    body = "date,sales,cost\n" + "".join(f"202{i},{i},{i * 2}\n" for i in range(6))
    message = input_error(tmp_path, body, y="profit")
    assert "no column 'profit' (--y); available columns: 1 'date', 2 'sales', 3 'cost'" in message


def test_column_number_out_of_range(tmp_path: Path) -> None:
    message = input_error(tmp_path, GOOD, x="3")
    assert "no column '3' (--x)" in message


def test_ambiguous_columns_ask_for_options(tmp_path: Path) -> None:
    body = "a,b,c\n" + "".join(f"{i},{i + 1},{i * 2}\n" for i in range(6))
    message = input_error(tmp_path, body)
    assert "cannot tell which columns are x and y among 1 'a', 2 'b', 3 'c'" in message
    assert "pass --x and --y" in message


def test_a_column_named_with_a_unit_of_time_is_x_when_none_is_named_like_time(
    tmp_path: Path,
) -> None:
    body = "ppg,t_s,y\n" + "".join(f"{i % 3},{i * 0.01},{i * 2}\n" for i in range(6))
    series = load_text(tmp_path, body, x="t_s")
    assert (series.x_name, series.y_name, series.x_unit) == ("t_s", "y", "second")
    # without --x every other numeric column is an input
    assert load_text(tmp_path, body).x_names == ("ppg", "t_s")
    # y is the single numeric column besides the one named like a time (a name like a time
    # comes first); with two names with units that is ambiguous
    named = "hours,time,v\n" + "".join(f"{i},{i + 1},{i * 2}\n" for i in range(6))
    assert "pass --x and --y" in input_error(tmp_path, named)
    unit = "t_s,w,v\n" + "".join(f"{i},{i + 1},{i * 2}\n" for i in range(6))
    assert "pass --x and --y" in input_error(tmp_path, unit)
    one_other = "ppg,t_s,note\n" + "".join(f"{i},{i + 1},n{i}\n" for i in range(6))
    series = load_text(tmp_path, one_other)
    assert (series.x_name, series.y_name, series.x_unit) == ("t_s", "ppg", "second")


def test_several_numeric_candidates_for_y(tmp_path: Path) -> None:
    body = "time,a,b\n" + "".join(f"{i},{i + 1},{i * 2}\n" for i in range(6))
    assert "pass --x and --y" in input_error(tmp_path, body)
    series = load_text(tmp_path, body, y="b")
    assert series.x_names == ("time", "a") and series.y_name == "b"
    series = load_text(tmp_path, body, x="time", y="b")
    assert series.x_name == "time" and series.y_name == "b"


@pytest.mark.parametrize("key", ["²", "0", "-1", " ", "", "١"])
def test_odd_column_keys(tmp_path: Path, key: str) -> None:
    assert "available columns: 1 'x', 2 'y'" in input_error(tmp_path, GOOD, x=key)


def test_same_column_for_x_and_y(tmp_path: Path) -> None:
    assert "both name column 'y'" in input_error(tmp_path, GOOD, x="y", y="2")


def test_duplicate_column_names(tmp_path: Path) -> None:
    body = "t,v,v\n" + "".join(f"{i},{i + 1},{i * 2}\n" for i in range(6))
    assert "used by columns 2 and 3" in input_error(tmp_path, body, y="v")
    assert load_text(tmp_path, body, x="t", y="3").y.tolist() == [0, 2, 4, 6, 8, 10]
    assert "column name 'v' is used by columns 2 and 3" in input_error(tmp_path, body, y="3")


def test_single_column_with_x_option(tmp_path: Path) -> None:
    body = "v\n1\n2\n4\n3\n5\n"
    assert "nothing is left for y" in input_error(tmp_path, body, x="v")


def test_two_columns_default(tmp_path: Path) -> None:
    series = load_text(tmp_path, "when,level\n1,10\n2,20\n3,15\n4,30\n5,25\n")
    assert (series.x_name, series.y_name) == ("when", "level")
    assert series.x.tolist() == [1, 2, 3, 4, 5]
    assert series.y.tolist() == [10, 20, 15, 30, 25]


def test_two_columns_with_only_y_given(tmp_path: Path) -> None:
    series = load_text(tmp_path, "a,b\n1,10\n2,20\n3,15\n4,30\n5,25\n", y="a")
    assert (series.x_name, series.y_name) == ("b", "a")


def test_one_column_uses_row_index(tmp_path: Path) -> None:
    series = load_text(tmp_path, "level\n3\n1\nNA\n4\n1\n5\n")
    assert series.x_name == "index" and series.x_kind == "number"
    # The missing row keeps its place in time: x is the data row position.
    assert series.x.tolist() == [0, 1, 3, 4, 5]
    assert series.y.tolist() == [3, 1, 4, 1, 5]
    assert series.n_dropped == 1


def test_many_columns_time_name_and_single_numeric(tmp_path: Path) -> None:
    body = "Date,sales,region\n" + "".join(
        f"2020-0{i + 1}-01,{i * 3 % 5},north\n" for i in range(6)
    )
    series = load_text(tmp_path, body)
    assert (series.x_name, series.y_name, series.x_kind) == ("Date", "sales", "date")


def test_many_columns_named_y_wins(tmp_path: Path) -> None:
    body = "t,other,y\n" + "".join(f"{i},{i * i},{i % 3}\n" for i in range(6))
    series = load_text(tmp_path, body)
    assert (series.x_names, series.y_name) == (("t", "other"), "y")
    assert load_text(tmp_path, body, x="t").x_name == "t"


def test_pandas_index_column_is_ignored(tmp_path: Path) -> None:
    body = ",time,value\n" + "".join(f"{i},{i / 10},{i % 4}\n" for i in range(6))
    series = load_text(tmp_path, body)
    assert (series.x_name, series.y_name) == ("time", "value")


def test_columns_by_name_number_and_case(tmp_path: Path) -> None:
    body = "id,Time,Value,Other\n" + "".join(f"{i},{i * 2},{i % 3},{i}\n" for i in range(6))
    by_name = load_text(tmp_path, body, x="time", y="VALUE")
    by_number = load_text(tmp_path, body, x="2", y="3")
    assert by_name.x.tolist() == by_number.x.tolist() == [0, 2, 4, 6, 8, 10]
    assert by_name.y_name == by_number.y_name == "Value"


def test_column_name_wins_over_number(tmp_path: Path) -> None:
    body = "t,v,2\n" + "".join(f"{i},{i % 3},{i * 10}\n" for i in range(6))
    series = load_text(tmp_path, body, y="2")
    assert series.y_name == "2" and series.y.tolist() == [0, 10, 20, 30, 40, 50]


# ----------------------------------------------------------------------------- values


def test_missing_values_are_dropped_and_counted(tmp_path: Path) -> None:
    body = "x,y\n1,2\n2,\n3,NA\n4,NaN\n5,6\n6,7\nN/A,8\n8,9\n9,10\n"
    series = load_text(tmp_path, body)
    assert series.n_dropped == 4
    assert series.x.tolist() == [1, 5, 6, 8, 9]
    assert "dropped 4 rows with missing values (data rows 2, 3, 4, 7)" in series.warnings


def test_unsorted_x_is_sorted_stably(tmp_path: Path) -> None:
    series = load_text(tmp_path, "x,y\n3,30\n1,10\n2,21\n2,20\n5,50\n4,40\n")
    assert series.x.tolist() == [1, 2, 2, 3, 4, 5]
    assert series.y.tolist() == [10, 21, 20, 30, 40, 50]
    assert "x was not sorted; sorted the rows by x" in series.warnings
    assert "1 repeated x value kept as repeated measurements" in series.warnings


def test_repeated_x_allowed(tmp_path: Path) -> None:
    series = load_text(tmp_path, "x,y\n1,1\n1,2\n2,3\n2,4\n2,5\n3,6\n")
    assert series.n == 6
    assert "3 repeated x values kept as repeated measurements" in series.warnings
    assert not any("sorted" in w for w in series.warnings)


def test_clean_file_has_no_warnings(tmp_path: Path) -> None:
    series = load_text(tmp_path, GOOD)
    assert series.warnings == ()
    assert series.n_dropped == 0
    assert series.source == str(tmp_path / "data.csv")


@pytest.mark.parametrize(
    "content",
    [
        "x;y\n1;10\n2;20\n3;15\n4;30\n5;25\n",
        "x\ty\n1\t10\n2\t20\n3\t15\n4\t30\n5\t25\n",
        "x   y\n1  10\n 2 20\n3      15\n4\t30\n5 25  \n",
        "x|y\n1|10\n2|20\n3|15\n4|30\n5|25\n",
        "x, y\n1, 10\n2, 20\n3, 15\n4, 30\n5, 25\n",
        '"x","y"\n"1","10"\n"2","20"\n"3","15"\n"4","30"\n"5","25"\n',
        "x,y,\n1,10,\n2,20,\n3,15,\n4,30,\n5,25,\n",
        "x,y\n1,10,\n2,20\n3,15\n4,30\n5,25\n",
        "\ufeffx,y\n1,10\n2,20\n3,15\n4,30\n5,25\n",
        "x,y\r1,10\r2,20\r3,15\r4,30\r5,25\r",
    ],
    ids=[
        "semicolon",
        "tab",
        "whitespace",
        "pipe",
        "comma-space",
        "quoted",
        "trailing-delim",
        "extra-empty-field",
        "bom",
        "cr-only",
    ],
)
def test_delimiters_and_dialects(tmp_path: Path, content: str) -> None:
    series = load_text(tmp_path, content)
    assert (series.x_name, series.y_name) == ("x", "y")
    assert series.x.tolist() == [1, 2, 3, 4, 5]
    assert series.y.tolist() == [10, 20, 15, 30, 25]


def test_utf16_with_bom(tmp_path: Path) -> None:
    series = load_text(tmp_path, "x\ty\n1\t10\n2\t20\n3\t15\n4\t30\n5\t25\n".encode("utf-16"))
    assert series.y.tolist() == [10, 20, 15, 30, 25]


def test_windows_1252_falls_back_with_warning(tmp_path: Path) -> None:
    body = "temps,température °C\n1,10\n2,20\n3,15\n4,30\n5,25\n".encode("cp1252")
    series = load_text(tmp_path, body)
    assert series.y_name == "température °C"
    assert any("Windows-1252" in w for w in series.warnings)


def test_decimal_comma_with_semicolons(tmp_path: Path) -> None:
    series = load_text(tmp_path, "x;y\n1;1,5\n2;2,25\n3;-0,5\n4;3\n5;NA\n6;4,0\n")
    assert series.y.tolist() == [1.5, 2.25, -0.5, 3.0, 4.0]
    assert "read ',' as the decimal mark in column 'y'" in series.warnings


def test_headerless_numbers(tmp_path: Path) -> None:
    series = load_text(tmp_path, "1990,3\n1991,4\n1992,2\n1993,6\n1994,5\n")
    assert (series.x_name, series.y_name) == ("column 1", "column 2")
    assert series.n == 5 and series.x_kind == "year"
    assert any("numbered the columns" in w for w in series.warnings)


def test_series_is_immutable(tmp_path: Path) -> None:
    series = load_text(tmp_path, GOOD)
    with pytest.raises(dataclasses.FrozenInstanceError):
        series.x_name = "other"  # type: ignore[misc]
    with pytest.raises(ValueError):
        series.x[0] = 99.0
    assert series.x.dtype == np.float64 and series.y.dtype == np.float64


def test_spacing_is_median_positive_difference(tmp_path: Path) -> None:
    series = load_text(tmp_path, "x,y\n0,1\n1,2\n1,3\n2,4\n4,5\n5,6\n")
    assert series.spacing == 1.0


# ----------------------------------------------------------------------------- x kinds


@pytest.mark.parametrize(
    ("name", "values", "kind"),
    [
        ("year", [1990, 1991, 1992, 1993, 1994], "year"),
        ("Year", [0, 1, 2, 3, 4], "year"),
        ("decimal_year", [2000.1, 2000.2, 2000.3, 2000.4, 2000.5], "year"),
        ("x", [1949.04, 1949.12, 1949.21, 1949.29, 1949.37], "year"),
        ("time", [1500, 1600, 1700, 1800, 1900], "year"),
        ("x", [0, 1, 2, 3, 4], "number"),
        ("x", [999, 1500, 2000, 2500, 3000], "number"),
        ("price", [1500, 1600, 1700, 1800, 1900], "number"),
        ("t", [-1, 0, 1, 2, 3], "number"),
    ],
)
def test_x_kind_of_numeric_columns(
    tmp_path: Path, name: str, values: list[float], kind: str
) -> None:
    body = f"{name},y\n" + "".join(f"{v},{i % 3}\n" for i, v in enumerate(values))
    assert load_text(tmp_path, body).x_kind == kind


def test_decimal_year_formula() -> None:
    year = 365.2425
    assert decimal_year(2000, 1, 1) == 2000.0
    assert decimal_year(2020, 1, 1) == pytest.approx(2000 + 7305 / year, abs=1e-12)
    assert decimal_year(1999, 12, 31, 43200.0) == pytest.approx(2000 - 0.5 / year, abs=1e-12)
    for y in range(1900, 2101):  # 1 January stays within about a day of the integer year
        assert abs(decimal_year(y, 1, 1) - y) < 1.5 / year
    moment = from_decimal_year(decimal_year(2019, 3, 4, 3600.0))
    assert moment is not None and moment.isoformat() == "2019-03-04T01:00:00"


def test_decimal_years_are_evenly_spaced_across_leap_years() -> None:
    """An hour is the same step in x in 2015 and in the leap year 2016, so hourly data lie on
    one regular grid and a daily cycle has one period in x."""
    hour = 3600.0
    steps = [
        decimal_year(2015, 12, 31, 23 * hour) - decimal_year(2015, 12, 31, 22 * hour),
        decimal_year(2016, 1, 1, 0.0) - decimal_year(2015, 12, 31, 23 * hour),
        decimal_year(2016, 2, 29, 13 * hour) - decimal_year(2016, 2, 29, 12 * hour),
        decimal_year(2017, 1, 1, hour) - decimal_year(2017, 1, 1, 0.0),
    ]
    assert np.allclose(steps, 1.0 / (24 * 365.2425), rtol=1e-8, atol=0)


DATE_CASES = {
    "iso": (["2020-01-31", "2020-02-29", "2020-03-31"], [(2020, 1, 31), (2020, 2, 29)]),
    "iso-time": (["2020-01-01 12:00", "2020-01-02 00:00", "2020-01-03T06:00:00"], None),
    "slashes": (["2020/01/31", "2020/02/15", "2020/03/01"], [(2020, 1, 31)]),
    "day-first": (["31/01/2020", "01/02/2020", "15/02/2020"], [(2020, 1, 31), (2020, 2, 1)]),
    "month-first": (["01/31/2020", "02/01/2020", "02/15/2020"], [(2020, 1, 31), (2020, 2, 1)]),
    "monthly": (["2020-01", "2020-02", "2020-03"], [(2020, 1, 1), (2020, 2, 1)]),
    "month-name": (["Jan 2020", "Feb 2020", "Mar 2020"], [(2020, 1, 1), (2020, 2, 1)]),
    "quarters": (["2020-Q1", "2020Q2", "Q3 2020"], [(2020, 1, 1), (2020, 4, 1)]),
    "mixed": (["2020-01-31", "15/02/2020", "Mar 3, 2020"], [(2020, 1, 31), (2020, 2, 15)]),
    "dots": (["31.01.2020", "01.02.2020", "15.02.2020"], [(2020, 1, 31), (2020, 2, 1)]),
    "am-pm": (["1/15/2020 8:30 PM", "1/16/2020 12:00 AM", "1/17/2020"], None),
    "long-names": (["31 January 2020", "1 February 2020", "February 2, 2020"], None),
}


@pytest.mark.parametrize("case", sorted(DATE_CASES))
def test_date_formats(tmp_path: Path, case: str) -> None:
    cells, expected = DATE_CASES[case]
    extra = ["2020-04-15", "2020-05-15", "2020-06-15"]
    body = "date,value\n" + "".join(f'"{c}",{i % 4}\n' for i, c in enumerate(cells + extra))
    series = load_text(tmp_path, body)
    assert series.x_kind == "date"
    assert series.n == 6
    assert np.all(np.diff(series.x) > 0)
    for found, day in zip(series.x, expected or [], strict=False):
        assert found == pytest.approx(decimal_year(*day))


def test_date_time_fraction(tmp_path: Path) -> None:
    cells = ["2020-01-01 12:00", "2020-01-02", "2020-01-03", "2020-01-04", "2020-01-05"]
    body = "time,y\n" + "".join(f"{c},{i % 2}\n" for i, c in enumerate(cells))
    series = load_text(tmp_path, body)
    assert series.x[0] == pytest.approx(2020 + 0.5 / 366)


def test_am_pm_times(tmp_path: Path) -> None:
    cells = [
        "1/15/2020 8:30 PM",
        "1/16/2020 12:00 AM",
        "1/17/2020 12:00 pm",
        "1/18/2020",
        "1/19/2020",
    ]
    body = "time,y\n" + "".join(f"{c},{i % 2}\n" for i, c in enumerate(cells))
    x = load_text(tmp_path, body).x
    assert x[0] == pytest.approx(decimal_year(2020, 1, 15, 20.5 * 3600))
    assert x[1] == pytest.approx(decimal_year(2020, 1, 16, 0.0))
    assert x[2] == pytest.approx(decimal_year(2020, 1, 17, 12 * 3600))


def test_timezone_offsets_become_utc(tmp_path: Path) -> None:
    cells = ["2020-01-01T02:00:00+02:00", "2020-01-02", "2020-01-03", "2020-01-04", "2020-01-05"]
    body = "time,y\n" + "".join(f"{c},{i % 2}\n" for i, c in enumerate(cells))
    assert load_text(tmp_path, body).x[0] == pytest.approx(2020.0)


def test_ambiguous_day_month_is_refused(tmp_path: Path) -> None:
    body = "date,y\n01/02/2020,1\n02/03/2020,2\n03/04/2020,3\n04/05/2020,4\n05/06/2020,5\n"
    message = input_error(tmp_path, body)
    assert "could be day/month or month/day" in message
    assert "row 1 (line 2)" in message


def test_monthly_day_first_inferred_from_constant_day(tmp_path: Path) -> None:
    body = "date,y\n" + "".join(f"01/{m:02d}/2020,{m % 3}\n" for m in range(1, 7))
    series = load_text(tmp_path, body)
    assert series.x[1] == pytest.approx(decimal_year(2020, 2, 1))
    assert "read the dates in column 'date' as day/month/year" in series.warnings


def test_mixed_day_and_month_first_is_refused(tmp_path: Path) -> None:
    body = "date,y\n13/01/2020,1\n01/14/2020,2\n01/15/2020,3\n01/16/2020,4\n01/17/2020,5\n"
    assert "mixes day/month/year and month/day/year" in input_error(tmp_path, body)


def test_bad_date_is_named(tmp_path: Path) -> None:
    body = "date,y\n2020-01-01,1\n2020-02-30,2\n2020-03-01,3\n2020-04-01,4\n2020-05-01,5\n"
    message = input_error(tmp_path, body)
    assert "row 2 (line 3): column 'date' value '2020-02-30' is not a date" in message


def test_column_neither_numbers_nor_dates(tmp_path: Path) -> None:
    body = "when,y\nmon,1\ntue,2\nwed,3\nthu,4\nfri,5\n"
    message = input_error(tmp_path, body)
    assert "row 1 (line 2): column 'when' value 'mon' is not a number or a date" in message


def test_mostly_numeric_x_with_a_word(tmp_path: Path) -> None:
    message = input_error(tmp_path, "x,y\n1,1\n2,2\nnow,3\n4,4\n5,5\n")
    assert "row 3 (line 4): column 'x' value 'now' is not a number" in message


# ----------------------------------------------------------------------------- description


def test_description_of_airline() -> None:
    text = load_series(DATASETS / "01-airline.csv").description()
    assert text.startswith("01-airline.csv: 144 points, x 'x' from 1949.042 to 1960.958")
    assert "(decimal years)" in text and "about 1 month" in text
    assert "y 'y' from 104 to 622" in text and text.endswith("0 rows dropped")
    assert "\n" not in text


def test_description_of_dates(tmp_path: Path) -> None:
    body = "month,sales\n" + "".join(f"2021-{m:02d}-01,{m * 7 % 5}\n" for m in range(1, 13))
    body += "2022-01-01,\n"
    text = load_text(tmp_path, body).description()
    assert "x 'month' from 2021-01 to 2021-12 (dates, as decimal years)" in text
    assert "about 1 month" in text and text.endswith("1 row dropped")


def test_description_of_plain_numbers(tmp_path: Path) -> None:
    text = load_text(tmp_path, GOOD).description()
    assert "from 1 to 5 (plain numbers, no time unit), median spacing 1," in text


@pytest.mark.parametrize(
    ("name", "step", "unit", "spacing"),
    [
        ("hours", 1.0, "hour", "median spacing 1 hour,"),
        ("t_s", 0.01, "second", "median spacing 0.01 seconds,"),
        ("Time (s)", 3600.0, "second", "median spacing 3600 seconds (about 1 hour),"),
        ("days", 7.0, "day", "median spacing 7 days (about 1 week),"),
        ("dose", 1.0, None, "(plain numbers, no time unit), median spacing 1,"),
    ],
)
def test_description_of_numbers_in_a_unit_the_name_gives(
    tmp_path: Path, name: str, step: float, unit: str | None, spacing: str
) -> None:
    body = f"{name},y\n" + "".join(f"{i * step},{i * 7 % 5}\n" for i in range(10))
    series = load_text(tmp_path, body)
    assert series.x_kind == "number" and series.x_unit == unit
    text = series.description()
    assert spacing in text
    if unit:
        assert f"({unit}s, from the column's name)" in text


# ----------------------------------------------------------------------------- bundled


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_bundled_datasets(name: str) -> None:
    series = load_series(DATASETS / f"{name}.csv")
    assert series.n == BUNDLED[name]
    assert series.x_kind == "year"
    assert (series.x_name, series.y_name) == ("x", "y")
    assert np.all(np.diff(series.x) >= 0)
    assert np.all(np.isfinite(series.y))
    assert series.n_dropped == 0


def test_mauna_keeps_negative_centred_y() -> None:
    series = load_series(DATASETS / "03-mauna.csv")
    assert series.y.min() < 0 < series.y.max()
    assert series.warnings == ()


def test_internet_is_sorted_with_repeats_kept() -> None:
    series = load_series(DATASETS / "06-internet.csv")
    assert "x was not sorted; sorted the rows by x" in series.warnings
    assert any("repeated x values kept" in w for w in series.warnings)
    assert np.unique(series.x).size < series.n


# ----------------------------------------------------------------------------- fuzzing

CELLS = st.one_of(
    st.sampled_from(
        ["1", "2.5", "-3", "1e5", "NA", "", "abc", "2020-01-01", "31/01/2020", "Jan 2020", "inf"]
    ),
    st.integers(-5, 3000).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=6),
)


@st.composite
def csv_texts(draw: st.DrawFn) -> str:
    delimiter = draw(st.sampled_from([",", ";", "\t", "|", " ", "  "]))
    rows = draw(st.lists(st.lists(CELLS, min_size=1, max_size=4), max_size=10))
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return newline.join(delimiter.join(row) for row in rows)


VALUES = st.one_of(
    st.integers(-3, 2100).map(str),
    st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: f"{v:.4g}"),
    st.sampled_from(["", "NA", "nan", "x", "1e999", "2020-02-30", "1,5"]),
)


@st.composite
def numeric_csv_texts(draw: st.DrawFn) -> str:
    """Mostly well-formed files, so that the success path is exercised too."""
    delimiter = draw(st.sampled_from([",", ";", "\t", " "]))
    width = draw(st.integers(1, 3))
    names = draw(
        st.lists(st.sampled_from(["x", "y", "t", "date", "v", ""]), min_size=width, max_size=width)
    )
    rows = draw(st.lists(st.lists(VALUES, min_size=width, max_size=width), max_size=12))
    return "\n".join(delimiter.join(row) for row in [names, *rows]) + "\n"


@pytest.fixture(scope="module")
def fuzz_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz") / "fuzz.csv"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(content=st.one_of(csv_texts(), numeric_csv_texts(), st.binary(max_size=200)))
def test_any_input_loads_or_raises_input_error(fuzz_file: Path, content: str | bytes) -> None:
    fuzz_file.write_bytes(content.encode() if isinstance(content, str) else content)
    try:
        series = load_series(fuzz_file)
    except InputError as exc:
        assert "\n" not in str(exc) and str(exc).startswith(str(fuzz_file))
    else:
        assert series.n >= MIN_POINTS
        assert np.all(np.isfinite(series.x)) and np.all(np.isfinite(series.y))
        assert np.all(np.diff(series.x) >= 0)
        assert "\n" not in series.description()


@settings(max_examples=100, deadline=None)
@given(x=st.none() | st.text(max_size=4), y=st.none() | st.text(max_size=4))
def test_any_column_options_load_or_raise_input_error(
    fuzz_file: Path, x: str | None, y: str | None
) -> None:
    fuzz_file.write_text("t,v,w\n" + "".join(f"{i},{i % 3},{i * i}\n" for i in range(6)))
    try:
        series = load_series(fuzz_file, x=x, y=y)
    except InputError as exc:
        assert "\n" not in str(exc)
    else:
        assert series.n == 6
