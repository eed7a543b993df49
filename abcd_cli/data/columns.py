"""Which columns of a :class:`~abcd_cli.data.table.Table` hold x and y.

``x`` and ``y`` pick columns by name (exact, then case-insensitive) or by 1-based number. By
default: one column -> it is y and x is the row position; two columns -> x then y; more -> x is
the single column named like a time (failing that, the single column whose name gives a unit
of time, such as ``t_s`` or ``hours``) and y is the column named ``y``, or else the single other
numeric column. Anything else is an error listing the columns. These are the rules for one
input; :mod:`abcd_cli.data.inputs` chooses several on top of them.
"""

from __future__ import annotations

import re
from collections.abc import Collection

import numpy as np

from abcd_cli.data.cells import clean_name, normalized_name, show
from abcd_cli.data.table import Table, capped
from abcd_cli.data.time_units import unit_of_name
from abcd_cli.data.values import column_numbers
from abcd_cli.errors import InputError

TIME_NAMES = frozenset(
    {"x", "t", "time", "date", "year", "yr", "datetime", "date time", "timestamp", "decimal year"}
)


def choose_columns(table: Table, x: str | None, y: str | None) -> tuple[int | None, int]:
    """0-based indices of the x column (None: use the row position) and the y column."""
    xi = find_column(table, x, "x") if x is not None else None
    yi = find_column(table, y, "y") if y is not None else None
    if xi is not None and xi == yi:
        raise InputError(f"{table.source}: --x and --y both name column {show(table.names[xi])}")
    width = len(table.names)
    if x is None:
        if width == 1:
            return None, 0
        xi = default_x(table, yi) if width > 2 else (0 if yi is None else 1 - yi)
    if yi is None:
        yi = default_y(table, () if xi is None else (xi,))
    return xi, yi


def find_column(table: Table, key: str, option: str) -> int:
    """The column named ``key`` (exactly, then ignoring case) or numbered ``key`` (1-based);
    ``option`` (``x`` or ``y``) names the command-line option in messages."""
    names = table.names
    key = clean_name(key) or key  # as the names were read: line breaks inside as spaces
    for match in (lambda n: n == key, lambda n: n.strip().lower() == key.strip().lower()):
        found = [i for i, name in enumerate(names) if match(name)]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            numbers = capped([i + 1 for i in found])
            raise InputError(
                f"{table.source}: column name {show(key)} is used by columns {numbers}; "
                f"pass --{option} as a column number instead"
            )
    text = key.strip()
    if re.fullmatch(r"[0-9]+", text) and 1 <= int(text) <= len(names):
        return int(text) - 1
    raise InputError(
        f"{table.source}: no column {show(key)} (--{option}); available columns: {table.listing()}"
    )


def default_x(table: Table, exclude: int | None) -> int:
    """The single column named like a time, other than ``exclude``; when none is, the single
    column whose name gives a unit of time (``t_s``, ``hours``); else an error."""
    others = [(i, name) for i, name in enumerate(table.names) if i != exclude]
    named = [i for i, name in others if normalized_name(name) in TIME_NAMES]
    if not named:
        named = [i for i, name in others if unit_of_name(name) is not None]
    if len(named) == 1:
        return named[0]
    raise _ambiguous(table)


def default_y(table: Table, exclude: Collection[int]) -> int:
    """The only column not in ``exclude``, else the one named ``y``, else the only other
    numeric column with a name; else an error."""
    others = [i for i in range(len(table.names)) if i not in exclude]
    if not others and len(table.names) == 1:
        raise InputError(
            f"{table.source}: has only one column ({show(table.names[0])}), so nothing is left"
            " for y"
        )
    if not others:
        raise InputError(
            f"{table.source}: --x names every column ({table.listing()}), so nothing is left for y"
        )
    if len(others) == 1:
        return others[0]
    named = [i for i in others if normalized_name(table.names[i]) == "y"]
    if len(named) == 1:
        return named[0]
    numeric = [i for i in others if i not in table.unnamed and _is_numeric_column(table, i)]
    if len(numeric) == 1:
        return numeric[0]
    taken = [i for i in exclude if normalized_name(table.names[i]) == "y"]
    raise _ambiguous(table, taken[0] if taken else None)


def _ambiguous(table: Table, taken_y: int | None = None) -> InputError:
    """The error for columns the defaults cannot tell apart; ``taken_y``: the column named
    like y that --x took."""
    if taken_y is not None:
        return InputError(
            f"{table.source}: --x takes column {show(table.names[taken_y])}, so which column"
            f" holds y among {table.listing()} must be given: pass --y (a name or number)"
        )
    return InputError(
        f"{table.source}: cannot tell which columns are x and y among {table.listing()}; "
        "pass --x and --y (names or numbers)"
    )


def _is_numeric_column(table: Table, index: int) -> bool:
    values, bad, _ = column_numbers(table, index)
    return not bad and not np.all(np.isnan(values))
