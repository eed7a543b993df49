"""A column's cells as numbers or decimal-year dates, and the kind of an x column.

The value, date and kind-of-x rules are those listed in :mod:`abcd_cli.data.reader`: missing
cells become NaN, any other non-number (or, for x, non-date) is an error naming the row, and so
are infinities. :mod:`abcd_cli.data.dates` reads each date cell; whether a/b/yyyy dates are day
or month first is decided here, once for the whole column.
"""

from __future__ import annotations

import re

import numpy as np

from abcd_cli.data.cells import NUMBER, is_missing, normalized_name, show, to_float
from abcd_cli.data.dates import (
    DMY_DATE,
    DateParts,
    decimal_year,
    numeric_date,
    offsets_note,
    written_dates,
)
from abcd_cli.data.table import Table
from abcd_cli.errors import InputError

#: Numeric x values all inside this range may be decimal years.
YEAR_RANGE = (1000.0, 3000.0)
NEUTRAL_TIME_NAMES = frozenset(
    {"x", "t", "time", "date", "datetime", "date time", "timestamp", "decimal date", "period"}
)
YEAR_WORDS = frozenset({"year", "years", "yr", "yrs"})
#: The rule above in words, for messages that tell the user how to name a column.
YEAR_RULE = (
    "numbers are read as years in a column named like a year ('year', 'yr', 'decimal_year',"
    " ...), or named x, t, time, date or period with every value from"
    f" {YEAR_RANGE[0]:.0f} to {YEAR_RANGE[1]:.0f}; other numbers are plain numbers"
)
#: Largest day or month number that can be a month.
_MONTHS = 12


def column_numbers(table: Table, index: int) -> tuple[np.ndarray, list[int], list[str]]:
    """Column values (NaN where missing), rows that are not numbers, and notes.

    With a semicolon delimiter, a column that reads only with a decimal comma is read so.
    """
    cells = table.column(index)
    values, bad = _convert(cells, decimal_comma=False)
    if bad and table.delimiter == ";":
        comma_values, comma_bad = _convert(cells, decimal_comma=True)
        if not comma_bad:
            note = f"read ',' as the decimal mark in column {show(table.names[index])}"
            return comma_values, [], [note]
    return values, bad, []


def numeric_values(table: Table, index: int) -> np.ndarray:
    """A numeric column's values, NaN where missing; an error for any other non-number."""
    values, bad, notes = column_numbers(table, index)
    if bad:
        raise _not_a(table, index, bad, "a number")
    _check_finite(table, index, values)
    table.notes.extend(notes)
    return values


def x_values(table: Table, index: int) -> tuple[np.ndarray, str]:
    """x values (NaN where missing) and their kind: numbers, year numbers or dates."""
    values, bad, notes = column_numbers(table, index)
    if not bad:
        _check_finite(table, index, values)
        table.notes.extend(notes)
        kind = "year" if is_year_column(table.names[index], values[~np.isnan(values)]) else "number"
        if index in table.unnamed and kind == "number" and _in_year_range(values):
            kind = "year"
        return values, kind
    dates, bad_dates = _dates(table, index)
    if not bad_dates:
        return dates, "date"
    present = sum(not is_missing(c) for c in table.column(index))
    numbers, dates_found = present - len(bad), present - len(bad_dates)
    if numbers == dates_found == 0:
        raise _not_a(table, index, bad, "a number or a date")
    if numbers >= dates_found:
        raise _not_a(table, index, bad, "a number")
    raise _not_a(table, index, bad_dates, "a date", "; write dates like 2020-01-31")


def input_values(table: Table, index: int) -> tuple[np.ndarray, str] | None:
    """As :func:`x_values`, or None when the column holds neither numbers nor dates (a column
    of text, or numbers mixed with words), for a column chosen as an input only if it can be
    one."""
    _, bad, _ = column_numbers(table, index)
    if not bad:
        return x_values(table, index)
    dates, bad_dates = _dates(table, index)
    return None if bad_dates else (dates, "date")


def is_year_column(name: str, values: np.ndarray) -> bool:
    """Whether numeric x values are decimal years (see :mod:`abcd_cli.data.reader` for the
    rule)."""
    words = set(re.split(r"[^a-z]+", name.lower()))
    if words & YEAR_WORDS or "year" in name.lower():
        return True
    return normalized_name(name) in NEUTRAL_TIME_NAMES and _in_year_range(values)


# ----------------------------------------------------------------------------- numbers


def _convert(cells: list[str], decimal_comma: bool) -> tuple[np.ndarray, list[int]]:
    values = np.full(len(cells), np.nan)
    bad: list[int] = []
    for i, cell in enumerate(cells):
        if is_missing(cell):
            continue
        number = to_float(cell, decimal_comma)
        if number is None:
            bad.append(i)
        else:
            values[i] = number
    return values, bad


def _not_a(table: Table, index: int, bad: list[int], what: str, hint: str = "") -> InputError:
    cell = table.rows[bad[0]][index]
    more = f" ({len(bad)} such values in the column)" if len(bad) > 1 else ""
    return InputError(
        f"{table.source}: {table.where(bad[0])}: column {show(table.names[index])} value "
        f"{show(cell)} is not {what}{more}{hint}"
    )


def _check_finite(table: Table, index: int, values: np.ndarray) -> None:
    infinite = np.flatnonzero(np.isinf(values))
    if infinite.size:
        row = int(infinite[0])
        raise InputError(
            f"{table.source}: {table.where(row)}: column {show(table.names[index])} value "
            f"{show(table.rows[row][index])} is infinite or too large for a 64-bit number"
        )


def _in_year_range(values: np.ndarray) -> bool:
    finite = values[np.isfinite(values)]
    low, high = YEAR_RANGE
    return bool(finite.size) and bool(np.all((finite >= low) & (finite <= high)))


# ----------------------------------------------------------------------------- dates


def _dates(table: Table, index: int) -> tuple[np.ndarray, list[int]]:
    """Decimal years of a date column (NaN where missing) and the rows that are not dates;
    when every cell is a date, a note on times given with time-zone offsets (read as UTC)."""
    cells = [cell.strip() for cell in table.column(index)]
    day_first = _day_first(table, index)
    found: dict[int, DateParts | None] = {}
    others: list[int] = []
    for i, cell in enumerate(cells):
        if is_missing(cell):
            continue
        matched, found[i] = numeric_date(cell, day_first)
        if not matched and not NUMBER.fullmatch(cell):
            others.append(i)
    zones: list[str] = []
    found.update(zip(others, written_dates([cells[i] for i in others], zones), strict=True))
    values = np.full(len(cells), np.nan)
    bad: list[int] = []
    for i, parts in sorted(found.items()):
        if parts is None:
            bad.append(i)
        else:
            values[i] = decimal_year(*parts)
    note = offsets_note(table.names[index], zones)
    if not bad and note and note not in table.notes:
        table.notes.append(note)
    return values, bad


def _day_first(table: Table, index: int) -> bool:
    """Resolve a/b/yyyy dates: day first or month first, decided from the whole column."""
    matches = [(i, m) for i, c in enumerate(table.column(index)) if (m := DMY_DATE.fullmatch(c))]
    if not matches:
        return False
    firsts = {int(m.group(1)) for _, m in matches}
    seconds = {int(m.group(2)) for _, m in matches}
    name = table.names[index]
    if max(firsts) > _MONTHS and max(seconds) > _MONTHS:
        raise InputError(
            f"{table.source}: column {show(name)} mixes day/month/year and month/day/year dates; "
            "write dates like 2020-01-31"
        )
    if max(firsts) > _MONTHS or (max(seconds) <= _MONTHS and len(firsts) == 1 < len(seconds)):
        day_first = True
    elif max(seconds) > _MONTHS or (len(seconds) == 1 < len(firsts)):
        day_first = False
    else:
        raise InputError(
            f"{table.source}: {table.where(matches[0][0])}: column {show(name)} date "
            f"{show(matches[0][1].group(0))} could be day/month or month/day; "
            "write dates like 2020-01-31"
        )
    if max(firsts) <= _MONTHS and max(seconds) <= _MONTHS:
        order = "day/month/year" if day_first else "month/day/year"
        table.notes.append(f"read the dates in column {show(name)} as {order}")
    return day_first
