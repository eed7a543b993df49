"""How the report writes numbers, lengths, dates and lists in English.

Every number goes through :func:`abcd_cli.reporting.numbers.format_number`. Amounts of y get
three significant digits; lengths along an x that counts time (a calendar axis in decimal
years, ``abcd_cli.data.dates``, or plain numbers whose column's name gives their unit, such as
``t_s`` or ``hours``: ``Axis.unit``) are given in the largest unit that fits (years down to
seconds, :mod:`abcd_cli.data.time_units`); positions on a calendar axis are a year, a month, a
day or an hour, as precise as the data's spacing makes sensible.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from abcd_cli.data.dates import DAYS_PER_YEAR, from_calendar_year, from_decimal_year
from abcd_cli.data.time_units import MONTH_NAMES, convert, counted, in_largest_unit
from abcd_cli.decompose.facts import Axis
from abcd_cli.reporting.numbers import format_number, format_percent

# fmt: off
_NUMBER_WORDS = (
    "no", "one", "two", "three", "four", "five", "six",
    "seven", "eight", "nine", "ten", "eleven", "twelve",
)
_ORDINALS = (
    "first", "second", "third", "fourth", "fifth", "sixth",
    "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth",
)
# fmt: on


def _unit_count(value: float) -> str:
    """A count of units: one decimal from 1 to 100, three digits above, two below."""
    if abs(value) >= 99.95:
        return format_number(value, 3)
    if abs(value) >= 0.95:
        return format_number(value, decimals=1)
    return format_number(value, 2)


def _time_count(value: float) -> str:
    """A count of a unit of time: as :func:`_unit_count`, but below one (only seconds go
    there) two significant digits without trailing zeros, ``0.8`` and ``0.013``."""
    if abs(value) >= 0.95:
        return _unit_count(value)
    return format_number(value, 2, trim=True)


def percent(fraction: float, fine: bool = False) -> str:
    """A fraction as a percentage; ``fine`` keeps two decimals below 1% (small MAE changes)."""
    return format_percent(fraction, decimals=2 if fine and abs(100.0 * fraction) < 1 else 1)


def format_amount(value: float, axis: Axis) -> str:
    """An amount of y (a level, an error, a standard deviation): 3 significant digits."""
    return format_number(float(value), 3)


def reference_name(prior_mean: str) -> str:
    """What a model's levels are measured from, in words, for its ``prior_mean`` ("data",
    "zero" or "constant"): the series' mean, zero or the model's constant level."""
    return {"zero": "zero", "constant": "the model's constant level"}.get(
        prior_mean, "the series' mean"
    )


def format_span(length: float, axis: Axis) -> str:
    """A length along x, in x's units: when x counts time (``axis.unit``), in the largest unit
    it fills (24 hours: ``1.0 day``; 0.8 seconds: ``0.8 seconds``), else ``units of x``."""
    length = abs(float(length))
    unit = axis.unit
    if unit is None:
        return f"{counted(_unit_count(length), 'unit')} of {axis.x_name}"
    if not math.isfinite(length):
        return counted(format_number(length), "year" if axis.is_time else unit)
    count, name = in_largest_unit(length, unit)
    return counted(_time_count(count), name)


def rate_unit(span: float, axis: Axis) -> tuple[str, float]:
    """The unit a rate of change over x is given per, and that unit's length in x's units: the
    unit the data's ``span`` is counted in when x counts time (8 years: per year; 3 weeks: per
    week), else one unit of x (``unit of t``)."""
    if axis.unit is None:
        return f"unit of {axis.x_name}", 1.0
    if not math.isfinite(span) or span <= 0:
        return axis.unit, 1.0
    _, name = in_largest_unit(span, axis.unit)
    return name, convert(1.0, name, axis.unit)


def format_position(x: float, axis: Axis, precision: float | None = None) -> str:
    """A point on x. ``precision`` is a typical length (x units) that sets the detail shown:
    a year, a month, a day or an hour on time axes (a year when omitted), decimals otherwise."""
    x = float(x)
    if not axis.is_time:
        return f"{axis.x_name} = {_plain_number(x, precision)}"
    days = DAYS_PER_YEAR * (1.0 if precision is None else abs(precision))
    if days >= 182:  # the calendar year the point falls in: 1960.92 is December 1960
        return str(math.floor(x + 1e-9))
    # dates are on the uniform axis; numbers written as years are calendar fractions
    moment = from_decimal_year(x) if axis.kind == "date" else from_calendar_year(x)
    if moment is None:
        return format_number(x, decimals=4, grouping=False)
    month = MONTH_NAMES[moment.month - 1]
    if days >= 14:
        return f"{month} {moment.year}"
    if days >= 0.5:
        return f"{moment.day} {month} {moment.year}"
    return f"{moment.day} {month} {moment.year}, {moment:%H:%M}"


def place_in_data(
    x: float, axis: Axis, span: tuple[float, float] | None, precision: float | None = None
) -> str:
    """A point on x as the data can place it: ``format_position`` within the data's ``span``
    (first, last x), 'before the data begin' or 'after the data end' outside it, where no
    observation says when; also when rounding to ``precision`` would print a time outside
    it (a change at 1933.8 of data that begin in March 1934 is not 'around 1933')."""
    if span is None:
        return format_position(x, axis, precision)
    first, last = span
    if x < first:
        return "before the data begin"
    if x > last:
        return "after the data end"
    shown = format_position(x, axis, precision)
    if shown < format_position(first, axis, precision) and shown.isdigit():
        return format_position(first, axis, precision)
    if shown > format_position(last, axis, precision) and shown.isdigit():
        return format_position(last, axis, precision)
    return shown


def _plain_number(x: float, precision: float | None) -> str:
    """x with decimals to match ``precision`` (or 4 significant digits), trailing zeros cut."""
    if not math.isfinite(x):
        return format_number(x)
    if precision is not None and precision > 0:
        decimals = max(0, 1 - math.floor(math.log10(precision)))
    else:
        magnitude = math.floor(math.log10(abs(x))) if x != 0 else 0
        decimals = max(0, 3 - magnitude)
    return format_number(x, decimals=min(decimals, 10), trim=True)


def ordinal(n: int) -> str:
    """The ordinal of n in words up to twelve ("first"), then in digits ("13th", "21st")."""
    if 1 <= n <= len(_ORDINALS):
        return _ORDINALS[n - 1]
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def number_word(n: int) -> str:
    """n in words from zero ("no") to twelve, then in digits."""
    return _NUMBER_WORDS[n] if 0 <= n < len(_NUMBER_WORDS) else str(n)


def join_words(items: Sequence[str], word: str = "and") -> str:
    """A list in prose: ``a``, ``a and b``, ``a, b and c`` (``word`` in place of "and")."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {word} {items[-1]}"


def capitalise(text: str) -> str:
    """The first letter in upper case, the rest as it is."""
    return text[:1].upper() + text[1:]
