"""Time units and their words, shared by the data summary and the report's wording.

x on a time axis is in decimal years (:mod:`abcd_cli.data.dates`), so every length here is in
years. Nothing here formats a number: callers write the count their own way and pass the text.
"""

from __future__ import annotations

from abcd_cli.data.dates import DAYS_PER_YEAR

#: Units for lengths of time: name and length in years, largest first.
UNITS: tuple[tuple[str, float], ...] = (
    ("year", 1.0),
    ("month", 1.0 / 12.0),
    ("week", 7.0 / DAYS_PER_YEAR),
    ("day", 1.0 / DAYS_PER_YEAR),
    ("hour", 1.0 / (24.0 * DAYS_PER_YEAR)),
    ("minute", 1.0 / (1440.0 * DAYS_PER_YEAR)),
    ("second", 1.0 / (86400.0 * DAYS_PER_YEAR)),
)
#: A length is counted in the largest unit it fills to at least this fraction.
FILLS_UNIT = 0.95

# fmt: off
MONTH_NAMES = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)
# fmt: on


def in_largest_unit(years: float) -> tuple[float, str]:
    """A non-negative length of time as (count, unit): the largest unit with count ≥ 0.95,
    seconds at the least. ``in_largest_unit(0.25)`` is ``(3.0, "month")``."""
    for unit, size in UNITS:
        if years / size >= FILLS_UNIT or unit == "second":
            return years / size, unit
    raise AssertionError("unreachable")


def counted(count_text: str, unit: str) -> str:
    """``count_text`` followed by ``unit``, plural unless the count is one: ``2.5 months``,
    ``1 day``, ``1.0 year``."""
    singular = count_text in ("1", "1.0")
    return f"{count_text} {unit}" if singular else f"{count_text} {unit}s"
