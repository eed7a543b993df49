"""The one number formatter of the report: tables, paragraphs, the appendix and the JSON text.

Every number the report prints passes through :func:`format_number` (percentages and p-values
through its two wrappers), so a table cell and a sentence never write one value two ways:

* ``digits`` significant figures (rounding may carry: 9.996 → ``10.0``), or exactly
  ``decimals`` decimals when a caller needs a fixed number (a table column, a count of 1.5);
* thousands separated by commas (``grouping=False`` for a year);
* scientific notation only for magnitudes of 10¹⁵ and above or below 10⁻⁶;
* a true minus sign (U+2212), also in exponents;
* an integer (``int``) printed whole; ``None`` and NaN as an em dash, infinities as ``∞``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

MINUS = "\u2212"
DASH = "\u2014"
#: Magnitudes (powers of ten) from which, and below which, numbers are written 1.23e+15.
SCIENTIFIC_FROM = 15
SCIENTIFIC_BELOW = -6
#: The most decimals a table column gets.
MAX_COLUMN_DECIMALS = 6


def _rounded(value: float, digits: int) -> tuple[float, int]:
    """``value`` (non-zero) rounded to ``digits`` significant figures, and the decimals that
    show it: d − 1 − ⌊log₁₀|v|⌋ (never fewer than none), taken after any carry."""
    magnitude = math.floor(math.log10(abs(value)))
    rounded = round(value, digits - 1 - magnitude)
    if rounded != 0:
        magnitude = math.floor(math.log10(abs(rounded)))
    return rounded, max(0, digits - 1 - magnitude)


def format_number(
    value: float | None,
    digits: int = 3,
    *,
    decimals: int | None = None,
    grouping: bool = True,
    signed: bool = False,
    trim: bool = False,
) -> str:
    """``value`` with ``digits`` significant figures, or ``decimals`` decimals when given.

    ``signed`` writes ``+`` before positive numbers; ``trim`` cuts trailing zeros after the
    decimal point (``4.50`` → ``4.5``, ``4.00`` → ``4``).
    """
    if value is None:
        return DASH
    x = float(value)
    if math.isnan(x):
        return DASH
    if math.isinf(x):
        return ("+" if signed and x > 0 else MINUS if x < 0 else "") + "∞"
    sign = "+" if signed else ""
    comma = "," if grouping else ""
    if decimals is None and isinstance(value, int):
        decimals = 0
    if decimals is None and x == 0:
        return "0"
    if decimals is None:
        magnitude = math.floor(math.log10(abs(x)))
        if magnitude >= SCIENTIFIC_FROM or magnitude < SCIENTIFIC_BELOW:
            return f"{x:{sign}.{max(digits - 1, 0)}e}".replace("-", MINUS)
        x, decimals = _rounded(x, digits)
    text = f"{x:{sign}{comma}.{decimals}f}"
    if trim and "." in text:
        text = text.rstrip("0").rstrip(".")
    if trim and text == "-0":
        text = "0"
    return text.replace("-", MINUS)


def decimals_for(values: float | Iterable[float | None] | None, digits: int = 4) -> int:
    """How many decimals show the largest finite magnitude in ``values`` with ``digits``
    significant figures (at most :data:`MAX_COLUMN_DECIMALS`), so that a whole table column
    can share them."""
    if values is None or isinstance(values, (int, float)):
        values = [values]
    finite = [abs(float(v)) for v in values if v is not None and math.isfinite(float(v))]
    largest = max(finite, default=0.0)
    if largest == 0:
        return 0
    return min(_rounded(largest, digits)[1], MAX_COLUMN_DECIMALS)


def format_percent(fraction: float | None, decimals: int = 1, signed: bool = False) -> str:
    """A fraction as a percentage: ``0.972`` → ``97.2%``; ``signed`` adds ``+`` to gains."""
    if fraction is None or math.isnan(float(fraction)):
        return DASH
    return format_number(100.0 * float(fraction), decimals=decimals, signed=signed) + "%"


def format_pvalue(value: float | None) -> str:
    """A p-value with three decimals, ``< 0.001`` below that."""
    if value is None or math.isnan(float(value)):
        return DASH
    return "< 0.001" if float(value) < 0.001 else format_number(value, decimals=3)
