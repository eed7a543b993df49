"""Time units and their words, shared by the data layer and the report's wording.

x on a calendar axis is in decimal years (:mod:`abcd_cli.data.dates`); plain numbers may be
counted in a unit their column's name gives (:func:`unit_of_name`: ``t_s``, ``hours``,
``Time (min)``). Every unit's size is given in years, so a length in any unit converts to any
other. Nothing here formats a number: callers write the count their own way and pass the text.
"""

from __future__ import annotations

import re

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
#: The units x may be counted in, with their length in years: those of :data:`UNITS` and the
#: millisecond (lengths are written in seconds at the least, so 800 ms is "0.8 seconds").
UNIT_YEARS: dict[str, float] = dict(UNITS) | {"millisecond": 1.0 / (86.4e6 * DAYS_PER_YEAR)}
#: A length is counted in the largest unit it fills to at least this fraction.
FILLS_UNIT = 0.95

#: Words naming a unit of time in a column's name, anywhere in it (``hours``, ``days_since``).
UNIT_WORDS: dict[str, str] = {
    "millisecond": "millisecond",
    "milliseconds": "millisecond",
    "second": "second",
    "seconds": "second",
    "minute": "minute",
    "minutes": "minute",
    "hour": "hour",
    "hours": "hour",
    "day": "day",
    "days": "day",
    "week": "week",
    "weeks": "week",
    "month": "month",
    "months": "month",
    "year": "year",
    "years": "year",
}
#: Abbreviations, read as a unit only as a name's last word (``t_s``, ``time (min)``,
#: ``elapsed_hr``): elsewhere they are often other words (``min_temp``, ``hr_bpm``).
UNIT_ABBREVIATIONS: dict[str, str] = {
    "ms": "millisecond",
    "msec": "millisecond",
    "s": "second",
    "sec": "second",
    "secs": "second",
    "min": "minute",
    "mins": "minute",
    "h": "hour",
    "hr": "hour",
    "hrs": "hour",
    "d": "day",
    "yr": "year",
    "yrs": "year",
}
#: One-letter abbreviations, which name a unit only after another word: ``s``, ``h`` or ``d``
#: alone is as likely a distance, a height or a diameter.
_ONE_LETTER = frozenset({"s", "h", "d"})

# fmt: off
MONTH_NAMES = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)
# fmt: on


def in_largest_unit(length: float, unit: str = "year") -> tuple[float, str]:
    """A non-negative length counted in ``unit`` (a key of :data:`UNIT_YEARS`) as (count,
    unit name): the largest unit of :data:`UNITS` with count ≥ 0.95, seconds at the least.
    ``in_largest_unit(0.25)`` is ``(3.0, "month")``; ``in_largest_unit(36, "hour")`` is
    ``(1.5, "day")``."""
    years = length * UNIT_YEARS[unit]
    for name, size in UNITS:
        if years / size >= FILLS_UNIT or name == "second":
            return years / size, name
    raise AssertionError("unreachable")


def convert(length: float, unit: str, to: str) -> float:
    """A length counted in ``unit`` counted in ``to``: length · size(unit) / size(to)."""
    return length * UNIT_YEARS[unit] / UNIT_YEARS[to]


def counted(count_text: str, unit: str) -> str:
    """``count_text`` followed by ``unit``, plural unless the count is one: ``2.5 months``,
    ``1 day``, ``1.0 year``."""
    singular = count_text in ("1", "1.0")
    return f"{count_text} {unit}" if singular else f"{count_text} {unit}s"


def name_words(name: str) -> list[str]:
    """A column name's words in lower case, split at anything but a letter and where a lower
    case letter meets a capital: ``timeHours`` → time, hours; ``Time (s)`` → time, s."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name)
    return [w for w in re.split(r"[^a-z]+", spaced.lower()) if w]


def unit_of_name(name: str) -> str | None:
    """The unit of time a column's name says its numbers count, or None.

    A name with ``per`` in it names a rate, not a unit. A word right after ``of`` names what
    is counted within, not the unit (``hour_of_day`` counts hours, ``day_of_week`` days). Of
    the other words: two different units give none; else a last word that is a unit word or
    an abbreviation names it (``t_s``, ``time_hours``, ``Time [min]``; the one-letter ``s``,
    ``h``, ``d`` only after another word), else the single unit word among them
    (``days_since_onset``). Letters inside a word never count (``mass``, ``times``).
    """
    words = name_words(name)
    if "per" in words:
        return None
    kept = [w for i, w in enumerate(words) if i == 0 or words[i - 1] != "of"]
    found = {UNIT_WORDS[w] for w in kept if w in UNIT_WORDS}
    last = kept[-1] if kept else ""
    if last in UNIT_ABBREVIATIONS and (len(kept) > 1 or last not in _ONE_LETTER):
        found.add(UNIT_ABBREVIATIONS[last])
    return found.pop() if len(found) == 1 else None
