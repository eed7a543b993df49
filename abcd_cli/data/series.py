"""The validated :class:`Series` record, how a table of cells becomes one, and its description.

:func:`series_from_table` is what every source of data shares once its cells are in a
:class:`~abcd_cli.data.table.Table` (a CSV file in :mod:`abcd_cli.data.reader`, a DataFrame in
:mod:`abcd_cli.data.frames`): choose the columns, convert them, drop rows with missing values,
check the values and sort by x.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from abcd_cli.data.checks import check_count, check_x, check_y
from abcd_cli.data.columns import choose_columns
from abcd_cli.data.dates import DAYS_PER_YEAR, from_decimal_year
from abcd_cli.data.table import Table
from abcd_cli.data.time_units import counted, in_largest_unit, unit_of_name
from abcd_cli.data.values import numeric_values, x_values

X_KINDS = ("date", "year", "number")
#: Dropped rows listed by number in the note about them.
_LISTED_ROWS = 5


@dataclass(frozen=True, eq=False)
class Series:
    """A validated time series: x sorted ascending (float64) and y (float64), in user units."""

    x: np.ndarray
    y: np.ndarray
    x_name: str
    y_name: str
    x_kind: str
    n_dropped: int = 0
    warnings: tuple[str, ...] = ()
    source: str = ""

    def __post_init__(self) -> None:
        if self.x_kind not in X_KINDS:
            raise ValueError(f"x_kind must be one of {X_KINDS}, not {self.x_kind!r}")
        for name in ("x", "y"):
            arr = np.array(getattr(self, name), dtype=np.float64)
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        if self.x.shape != self.y.shape or self.x.ndim != 1:
            raise ValueError("x and y must be one-dimensional arrays of the same length")

    def __len__(self) -> int:
        return int(self.x.size)

    @property
    def n(self) -> int:
        """Number of points."""
        return int(self.x.size)

    @property
    def spacing(self) -> float:
        """Median positive difference between consecutive x values (0.0 if there is none)."""
        steps = np.diff(self.x)
        steps = steps[steps > 0]
        return float(np.median(steps)) if steps.size else 0.0

    @property
    def x_unit(self) -> str | None:
        """The unit of time x counts: ``"year"`` for decimal years (dates or year numbers),
        else the unit x's column name gives (``t_s``: ``"second"``; see
        :func:`~abcd_cli.data.time_units.unit_of_name`), else None."""
        return "year" if self.x_kind in ("date", "year") else unit_of_name(self.x_name)

    def description(self) -> str:
        """One line: size, x range in the user's terms, spacing, y range, rows dropped."""
        name = Path(self.source).name if self.source else "data"
        dropped = f"{self.n_dropped} row{'' if self.n_dropped == 1 else 's'} dropped"
        if not self.n:
            return f"{name}: no points, {dropped}"
        return (
            f"{name}: {self.n} points, x {self.x_name!r} {_x_range_text(self)}, "
            f"median spacing {_spacing_text(self)}, y {self.y_name!r} from "
            f"{self.y.min():.6g} to {self.y.max():.6g}, {dropped}"
        )


def series_from_table(table: Table, x: str | None = None, y: str | None = None) -> Series:
    """The validated :class:`Series` of a table's cells, its columns chosen by ``x`` and ``y``
    (names or 1-based numbers, or None for the defaults); its source names it in messages."""
    xi, yi = choose_columns(table, x, y)
    yv = numeric_values(table, yi)
    if xi is None:
        xv, kind, x_name = np.arange(len(table.rows), dtype=np.float64), "number", "index"
    else:
        xv, kind = x_values(table, xi)
        x_name = table.names[xi]
    return _validated(table, xv, yv, kind, x_name, table.names[yi])


def _validated(
    table: Table, xv: np.ndarray, yv: np.ndarray, kind: str, x_name: str, y_name: str
) -> Series:
    """Drop missing rows, check the values, sort by x and build the Series."""
    src, notes = table.source, list(table.notes)
    missing = np.isnan(xv) | np.isnan(yv)
    n_dropped = int(missing.sum())
    if n_dropped:
        notes.append(_dropped_note(missing))
    xv, yv = xv[~missing], yv[~missing]
    check_count(int(xv.size), n_dropped, src)
    check_y(yv, y_name, src)
    check_x(xv, x_name, kind, src)
    order = np.argsort(xv, kind="stable")
    if np.any(np.diff(xv) < 0):
        notes.append("x was not sorted; sorted the rows by x")
    xv, yv = xv[order], yv[order]
    repeated = int(xv.size - np.unique(xv).size)
    if repeated:
        notes.append(
            f"{repeated} repeated x value{'s' if repeated > 1 else ''} kept as repeated "
            "measurements"
        )
    return Series(xv, yv, x_name, y_name, kind, n_dropped, tuple(notes), src)


def _dropped_note(missing: np.ndarray) -> str:
    rows = [int(i) + 1 for i in np.flatnonzero(missing)]
    shown = ", ".join(map(str, rows[:_LISTED_ROWS])) + (", ..." if len(rows) > _LISTED_ROWS else "")
    plural = "s" if len(rows) > 1 else ""
    return f"dropped {len(rows)} row{plural} with missing values (data row{plural} {shown})"


# ----------------------------------------------------------------------------- description


def _x_range_text(series: Series) -> str:
    low, high = float(series.x[0]), float(series.x[-1])
    if series.x_kind == "date":
        start, end = from_decimal_year(low), from_decimal_year(high)
        if start is not None and end is not None:
            fmt = _date_format(series.spacing * DAYS_PER_YEAR)
            return f"from {start:{fmt}} to {end:{fmt}} (dates, as decimal years)"
    if series.x_kind in ("date", "year"):
        decimals = _year_decimals(series)
        return f"from {low:.{decimals}f} to {high:.{decimals}f} (decimal years)"
    if series.x_unit is not None:
        return f"from {low:.6g} to {high:.6g} ({series.x_unit}s, from the column's name)"
    return f"from {low:.6g} to {high:.6g} (plain numbers, no time unit)"


def _date_format(days: float) -> str:
    if days >= 360:
        return "%Y"
    if days >= 28:
        return "%Y-%m"
    if days >= 0.9:
        return "%Y-%m-%d"
    if days >= 1 / 1440:
        return "%Y-%m-%d %H:%M"
    return "%Y-%m-%d %H:%M:%S"


def _year_decimals(series: Series) -> int:
    if np.all(series.x == np.round(series.x)):
        return 0
    if series.spacing <= 0:
        return 6
    return int(min(8, max(1, math.ceil(-math.log10(series.spacing)) + 1)))


def _spacing_text(series: Series) -> str:
    """The median spacing in x's unit, and in the largest unit it fills when that is another
    (``0.08333 years (about 1 month)``, ``3600 seconds (about 1 hour)``, ``1 hour``)."""
    step, unit = series.spacing, series.x_unit
    if unit is None or step <= 0:
        return f"{step:.4g}"
    text = f"{step:.4g} {unit}" + ("" if step == 1 else "s")
    human = _human_duration(step, unit)
    return text if human is None else f"{text} ({human})"


def _human_duration(length: float, unit: str) -> str | None:
    """'about 3 months', 'about 1 day', ... for a positive length counted in ``unit``: a whole
    count when within 5% of one, else three significant digits; None when the largest unit it
    fills is ``unit`` itself (other than years, which always get the reading)."""
    count, name = in_largest_unit(length, unit)
    if name == unit != "year":
        return None
    if abs(count - round(count)) <= 0.05 * count:
        return f"about {counted(str(round(count)), name)}"
    return f"about {counted(f'{count:.3g}', name)}"
