"""The text of one cell or column name: missing values, numbers, and how a cell is quoted.

The rules are those of :mod:`abcd_cli.data.reader`: ``NA``, ``N/A``, ``NaN``, ``null``,
``None``, ``-``, ``?``, ``.`` and empty cells are missing; a number is a plain decimal or
scientific literal (with a decimal comma when the caller allows it) or an infinity.
"""

from __future__ import annotations

import math
import re

MISSING_TOKENS = frozenset({"", "na", "n/a", "nan", "null", "none", "#n/a", "-", "?", "."})

#: A number as written in a cell: decimal or scientific, with a point as the decimal mark.
NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_DECIMAL_COMMA = re.compile(r"[+-]?\d*,\d+(?:[eE][+-]?\d+)?", re.ASCII)
_INFINITY = re.compile(r"[+-]?(?:inf|infinity)", re.IGNORECASE)


def is_missing(cell: str) -> bool:
    """Whether the cell holds no value."""
    return cell.strip().lower() in MISSING_TOKENS


def is_number(cell: str) -> bool:
    """Whether the cell holds a number (decimal point only)."""
    return to_float(cell, decimal_comma=False) is not None


def to_float(cell: str, decimal_comma: bool) -> float | None:
    """The number written in ``cell`` (possibly infinite), or None if it is not a number."""
    text = cell.strip()
    if decimal_comma and _DECIMAL_COMMA.fullmatch(text):
        text = text.replace(",", ".")
    if NUMBER.fullmatch(text):
        return float(text)
    if _INFINITY.fullmatch(text):
        return -math.inf if text.startswith("-") else math.inf
    return None


def show(cell: str) -> str:
    """The cell quoted for a message, shortened when long."""
    return repr(cell if len(cell) <= 40 else cell[:37] + "...")


def normalized_name(name: str) -> str:
    """A column name in lower case with runs of spaces, ``_``, ``.`` and ``-`` as one space."""
    return re.sub(r"[\s_.\-]+", " ", name.strip().lower()).strip()


_LINE_BREAKS = re.compile(r"\s*[\r\n\t\v\f]\s*")


def clean_name(name: str) -> str:
    """A column name on one line: line breaks and tabs inside it (a quoted header cell can
    hold them) become one space, so that messages and reports stay one line per name."""
    return _LINE_BREAKS.sub(" ", name).strip()
