"""Dates in a user's file: one cell read as a calendar date, and dates as decimal years.

The common numeric forms (``2020-01-31``, ``31/01/2020``, ``2020-01``, ``2020-Q1``, with optional
times and AM/PM) are read by regular expressions; other spellings with a four-digit year
(``Jan 2020``, ``2020-01-31T13:45+02:00``) by pandas, converted to UTC (the caller warns of
the offsets: :func:`offsets_note`). Whether ``a/b/yyyy`` is
day or month first is decided for a whole column by the caller (``abcd_cli.data.values``).

A date becomes a decimal year on a uniform axis: 2000 + (days since 2000-01-01 00:00) / 365.2425.
Every hour is then the same step in x, in leap years too, so hourly or daily data are evenly
spaced and a daily cycle has one period in x. (Calendar fractions, year + (day_of_year - 1) /
days_in_year, change the step at every new year: a daily cycle's period in x then differs
between 365- and 366-day years and its phase slips.) A year's 1 January lies within about a
day of the integer year.
"""

from __future__ import annotations

import calendar
import math
import re
import warnings
from collections.abc import Sequence
from datetime import date, datetime, timedelta

import numpy as np
import pandas as pd
from pandas.tseries.api import guess_datetime_format

#: Mean length of a Gregorian year in days (the unit of x on time axes is this year).
DAYS_PER_YEAR = 365.2425
#: The moment at which x is EPOCH_YEAR exactly.
EPOCH = datetime(2000, 1, 1)
EPOCH_YEAR = 2000.0
#: A calendar date and the seconds into its day.
DateParts = tuple[int, int, int, float]

_TIME = r"(?:[ T]+(\d{1,2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?(?:\s*([AP]M))?)?"
_ISO_DATE = re.compile(
    r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})" + _TIME + r"\s*Z?", re.IGNORECASE | re.ASCII
)
DMY_DATE = re.compile(r"(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})" + _TIME, re.IGNORECASE | re.ASCII)
_YEAR_MONTH = re.compile(r"(\d{4})[-/](\d{1,2})", re.ASCII)
_YEAR_QUARTER = re.compile(r"(\d{4})\s*[-/ ]?\s*Q([1-4])", re.IGNORECASE | re.ASCII)
_QUARTER_YEAR = re.compile(r"Q([1-4])\s*[-/ ]?\s*(\d{4})", re.IGNORECASE | re.ASCII)


def is_plain_date(cell: str) -> bool:
    """Whether a cell is plainly a date (used to tell a header row from data)."""
    text = cell.strip()
    return any(p.fullmatch(text) for p in (_ISO_DATE, DMY_DATE, _YEAR_MONTH, _YEAR_QUARTER))


def numeric_date(cell: str, day_first: bool) -> tuple[bool, DateParts | None]:
    """Whether a common numeric date form matched, and its parts (None if not a real date)."""
    if m := _YEAR_QUARTER.fullmatch(cell):
        return True, _valid(int(m.group(1)), 3 * int(m.group(2)) - 2, 1)
    if m := _QUARTER_YEAR.fullmatch(cell):
        return True, _valid(int(m.group(2)), 3 * int(m.group(1)) - 2, 1)
    if m := _YEAR_MONTH.fullmatch(cell):
        return True, _valid(int(m.group(1)), int(m.group(2)), 1)
    if m := _ISO_DATE.fullmatch(cell):
        return True, _valid(int(m.group(1)), int(m.group(2)), int(m.group(3)), m.groups()[3:])
    if m := DMY_DATE.fullmatch(cell):
        a, b = int(m.group(1)), int(m.group(2))
        day, month = (a, b) if day_first else (b, a)
        return True, _valid(int(m.group(3)), month, day, m.groups()[3:])
    return False, None


def _valid(year: int, month: int, day: int, time: Sequence[str | None] = ()) -> DateParts | None:
    """The parts of a real calendar date; ``time`` is (hour, minute, second, AM/PM) text."""
    try:
        date(year, month, day)
    except ValueError:
        return None
    hour, minute, second, half = (*time, None, None, None, None)[:4]
    h, mi, s = int(hour or 0), int(minute or 0), float(second or 0)
    if half:
        if not 1 <= h <= 12:
            return None
        h = h % 12 + (12 if half.upper() == "PM" else 0)
    if h > 23 or mi > 59 or s >= 61:
        return None
    return year, month, day, h * 3600.0 + mi * 60.0 + s


def written_dates(cells: list[str], zones: list[str] | None = None) -> list[DateParts | None]:
    """Other date spellings ('Jan 2020', '31 January 2020', ISO with offsets) via pandas.

    The format guessed from the first cell parses the column in one go; cells it misses are
    parsed one by one, each in its own format. Cells without a 4-digit year are not dates.
    The caller leaves out cells that are plain numbers (pandas would read ``2020`` as a date).
    Times with a time-zone offset are converted to UTC; ``zones``, when given, receives the
    offset of each such cell (``+02:00``).
    """
    plausible = [bool(re.search(r"[0-9]{4}", c)) for c in cells]
    out: list[DateParts | None] = [None] * len(cells)
    candidates = [c for c, ok in zip(cells, plausible, strict=True) if ok]
    stamps = iter(_parse_with_guessed_format(candidates))
    for i, ok in enumerate(plausible):
        if ok:
            stamp, offset = next(stamps)
            if stamp is None:
                stamp, offset = _pandas_date(cells[i])
            parts = None if stamp is None else _stamp_parts(stamp)
            if parts is not None and not 1 <= parts[0] <= 9999:  # no calendar date: year 0, BC
                parts = None
            out[i] = parts
            if parts is not None and offset is not None and zones is not None:
                zones.append(offset)
    return out


#: Stamp (UTC, naive) and the cell's time-zone offset (None: the cell gives none).
_Parsed = tuple[pd.Timestamp | None, str | None]
_OFFSET = re.compile(r"(?<=[0-9\s])(?:([+-])([0-9]{2}):?([0-9]{2})?|Z|UTC|GMT)$", re.I | re.ASCII)


def _parse_with_guessed_format(cells: list[str]) -> list[_Parsed]:
    """Timestamps (UTC, naive) in the format guessed from the first cell, None where it fails,
    each with its cell's time-zone offset when the format has one."""
    if not cells:
        return []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fmt = guess_datetime_format(cells[0])
            if fmt is None:
                return [(None, None)] * len(cells)
            parsed = pd.to_datetime(pd.Series(cells), format=fmt, errors="coerce", utc=True)
        parsed = parsed.dt.tz_localize(None)
    except Exception:  # an odd guessed format; fall back to parsing cell by cell
        return [(None, None)] * len(cells)
    aware = "%z" in fmt or "%Z" in fmt
    return [
        (None, None) if pd.isna(stamp) else (stamp, _offset_of(cell, fmt) if aware else None)
        for cell, stamp in zip(cells, parsed, strict=True)
    ]


def _offset_of(cell: str, fmt: str) -> str:
    """The time-zone offset a cell parsed in an aware format gives, as ``+HH:MM``."""
    if m := _OFFSET.search(cell.strip()):
        sign, hours, minutes = m.groups()
        return f"{sign}{hours}:{minutes or '00'}" if sign else "+00:00"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return offset_text(pd.to_datetime(cell, format=fmt).utcoffset())
    except Exception:  # it parsed in the column's go; name it by its last word otherwise
        return cell.split()[-1][:12] if cell.split() else "?"


def offset_text(offset: timedelta | None) -> str:
    """A UTC offset as ``+HH:MM`` (``+00:00`` for None)."""
    minutes = round((offset or timedelta()).total_seconds() / 60)
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def offsets_note(name: str, zones: Sequence[str]) -> str | None:
    """The warning that a column's times with time-zone offsets were read as UTC, naming the
    offsets seen (at most three); None when there were none but UTC's own."""
    distinct = list(dict.fromkeys(zones))
    if not any(zone != "+00:00" for zone in distinct):
        return None
    shown = ", ".join(distinct[:3]) + (" and others" if len(distinct) > 3 else "")
    return f"column {name!r} gives times with time-zone offsets ({shown}); they are read as UTC"


def _stamp_parts(stamp: pd.Timestamp) -> DateParts:
    seconds = stamp.hour * 3600.0 + stamp.minute * 60.0 + stamp.second
    seconds += stamp.microsecond / 1e6 + stamp.nanosecond / 1e9
    return int(stamp.year), int(stamp.month), int(stamp.day), seconds


def _pandas_date(cell: str) -> _Parsed:
    """One cell parsed by pandas in whatever format it is written (UTC, naive) and its
    time-zone offset if it gives one; (None, None) if it is not a date."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            stamp = pd.to_datetime(cell, format="mixed")
        if stamp is pd.NaT or not isinstance(stamp, pd.Timestamp):
            return None, None
        offset = None
        if stamp.tzinfo is not None:
            offset = offset_text(stamp.utcoffset())
            stamp = stamp.tz_convert("UTC").tz_localize(None)
        return stamp, offset
    except Exception:  # pandas/dateutil raise many types for odd text; any means "not a date"
        return None, None


def decimal_year(year: int, month: int, day: int, seconds: float = 0.0) -> float:
    """EPOCH_YEAR + (days since EPOCH + fraction of the day) / DAYS_PER_YEAR (module docstring)."""
    days = (date(year, month, day) - EPOCH.date()).days + seconds / 86400.0
    return EPOCH_YEAR + days / DAYS_PER_YEAR


def from_decimal_year(value: float) -> datetime | None:
    """The datetime of a decimal year (to the nearest second), or None if out of range."""
    if not math.isfinite(value) or not 1 <= value < 10000:
        return None
    try:
        return EPOCH + timedelta(seconds=round((value - EPOCH_YEAR) * DAYS_PER_YEAR * 86400.0))
    except (OverflowError, ValueError):
        return None


def calendar_year(year: int, month: int, day: int, seconds: float = 0.0) -> float:
    """year + (day_of_year - 1 + fraction of the day) / days_in_year: how decimal years that
    a user writes as numbers (1985.5, mid-1985) are read, for dates given to a model fitted
    to such numbers."""
    day_of_year = date(year, month, day).timetuple().tm_yday
    days_in_year = 366 if calendar.isleap(year) else 365
    return year + (day_of_year - 1 + seconds / 86400.0) / days_in_year


def from_calendar_year(value: float) -> datetime | None:
    """The datetime of a number read as ``calendar_year`` (to the nearest second), or None."""
    if not math.isfinite(value) or not 1 <= value < 10000:
        return None
    year = int(value)
    days_in_year = 366 if calendar.isleap(year) else 365
    seconds = round((value - year) * days_in_year * 86400.0)
    try:
        return datetime(year, 1, 1) + timedelta(seconds=seconds)
    except OverflowError:
        return None


def as_calendar_years(x: np.ndarray) -> np.ndarray:
    """Decimal years of dates (``decimal_year``) as ``calendar_year`` reads the same moments."""
    out = np.full(np.shape(x), math.nan)
    for i, value in enumerate(np.ravel(x)):
        moment = from_decimal_year(float(value))
        if moment is not None:
            seconds = moment.hour * 3600.0 + moment.minute * 60.0 + moment.second
            out.flat[i] = calendar_year(moment.year, moment.month, moment.day, seconds)
    return out
