"""The validated :class:`Series` record, how a table of cells becomes one, and its description.

:func:`series_from_table` is what every source of data shares once its cells are in a
:class:`~abcd_cli.data.table.Table` (a CSV file in :mod:`abcd_cli.data.reader`, a DataFrame in
:mod:`abcd_cli.data.frames`): choose the columns, convert them, drop rows with missing values,
check the values and sort by x. With several inputs x is (N, D), one column per input, and the
rows keep the table's order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from abcd_cli.arrays import as_2d
from abcd_cli.data.checks import check_count, check_x, check_y
from abcd_cli.data.dates import DAYS_PER_YEAR, from_decimal_year
from abcd_cli.data.inputs import InputKeys, choose_inputs, not_periodic_note
from abcd_cli.data.table import LISTED_COLUMNS, Table, capped, check_distinct_names
from abcd_cli.data.time_units import counted, in_largest_unit, unit_of_name
from abcd_cli.data.values import numeric_values

X_KINDS = ("date", "year", "number")
#: Dropped rows listed by number in the note about them.
_LISTED_ROWS = 5


@dataclass(frozen=True, eq=False)
class Series:
    """A validated time series: x sorted ascending (float64) and y (float64), in user units.

    With several inputs x is (N, D) in the table's row order; ``x_names`` and ``x_kinds`` give
    each column's name and kind, ``x_name`` is the names joined by ", " and ``x_kind`` is
    ``"number"`` (no one input is the time axis). With one, they are (x_name,) and (x_kind,)
    and x is the vector (N,) it was given as. ``X`` is x as (N, D) whatever D (a read-only
    view of x).
    """

    x: np.ndarray
    y: np.ndarray
    x_name: str
    y_name: str
    x_kind: str
    n_dropped: int = 0
    warnings: tuple[str, ...] = ()
    source: str = ""
    x_names: tuple[str, ...] = ()
    x_kinds: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("x", "y"):
            arr = np.array(getattr(self, name), dtype=np.float64)
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        X = self.X
        if X.ndim != 2 or X.shape[0] != self.y.size or self.y.ndim != 1 or X.shape[1] < 1:
            raise ValueError("x must be (N,) or (N, D) and y (N,), of the same length N")
        names = tuple(self.x_names) or (self.x_name,)
        kinds = tuple(self.x_kinds) or (self.x_kind,)
        if len(names) != X.shape[1] or len(kinds) != X.shape[1]:
            raise ValueError("x_names and x_kinds need one entry per input column")
        for kind in (self.x_kind, *kinds):
            if kind not in X_KINDS:
                raise ValueError(f"x_kind must be one of {X_KINDS}, not {kind!r}")
        object.__setattr__(self, "x_names", names)
        object.__setattr__(self, "x_kinds", kinds)

    def __len__(self) -> int:
        return int(self.y.size)

    @property
    def X(self) -> np.ndarray:
        """x as (N, D), one column per input (a time series' x is one column)."""
        return as_2d(self.x)

    @property
    def n(self) -> int:
        """Number of points."""
        return int(self.y.size)

    @property
    def n_dims(self) -> int:
        """Number of inputs: 1 for a time series, D for an (N, D) x."""
        return len(self.x_names)

    @property
    def spacing(self) -> float:
        """Median positive difference between consecutive sorted values of the first input (the
        only one of a time series; 0.0 if there is none)."""
        steps = np.diff(np.sort(self.X[:, 0]))
        steps = steps[steps > 0]
        return float(np.median(steps)) if steps.size else 0.0

    @property
    def x_unit(self) -> str | None:
        """The unit of time x counts: ``"year"`` for decimal years (dates or year numbers),
        else the unit x's column name gives (``t_s``: ``"second"``; see
        :func:`~abcd_cli.data.time_units.unit_of_name`), else None."""
        if self.n_dims > 1:
            return None
        return "year" if self.x_kind in ("date", "year") else unit_of_name(self.x_name)

    def description(self) -> str:
        """One line: size, x range in the user's terms, spacing, y range, rows dropped."""
        name = Path(self.source).name if self.source else "data"
        dropped = f"{self.n_dropped} row{'' if self.n_dropped == 1 else 's'} dropped"
        if not self.n:
            return f"{name}: no points, {dropped}"
        if self.n_dims > 1:
            return (
                f"{name}: {self.n} points, {self.n_dims} inputs {_inputs_text(self)}, y"
                f" {self.y_name!r} from {self.y.min():.6g} to {self.y.max():.6g}, {dropped}"
            )
        return (
            f"{name}: {self.n} points, x {self.x_name!r} {_x_range_text(self)}, "
            f"median spacing {_spacing_text(self)}, y {self.y_name!r} from "
            f"{self.y.min():.6g} to {self.y.max():.6g}, {dropped}"
        )


def series_from_table(table: Table, x: InputKeys = None, y: str | None = None) -> Series:
    """The validated :class:`Series` of a table's cells, its columns chosen by ``x`` (one
    column or several) and ``y`` (names or 1-based numbers, or None for the defaults:
    :mod:`abcd_cli.data.inputs`); its source names it in messages."""
    choice = choose_inputs(table, x, y)
    role = "x" if len(choice.inputs) == 1 else "inputs"
    check_distinct_names(table, {**dict.fromkeys(choice.inputs, role), choice.y: "y"})
    table.notes.extend(choice.notes)
    yv = numeric_values(table, choice.y)
    y_name = table.names[choice.y]
    if not choice.inputs:
        xv = np.arange(len(table.rows), dtype=np.float64)
        return _validated(table, xv, yv, "number", "index", y_name)
    columns = [choice.values(table, i) for i in choice.inputs]
    names = [table.names[i] for i in choice.inputs]
    if len(columns) == 1:
        (xv, kind), name = columns[0], names[0]
        return _validated(table, xv, yv, kind, name, y_name)
    X = np.column_stack([values for values, _ in columns])
    return _validated_inputs(table, X, yv, names, [kind for _, kind in columns], y_name)


def _validated_inputs(
    table: Table, X: np.ndarray, yv: np.ndarray, names: list[str], kinds: list[str], y_name: str
) -> Series:
    """Several inputs: drop rows with a missing cell, check y and each input, keep the order."""
    src, notes = table.source, list(table.notes)
    missing = np.isnan(yv) | np.isnan(X).any(axis=1)
    n_dropped = _note_dropped(notes, missing)
    X, yv = X[~missing], yv[~missing]
    check_count(int(yv.size), n_dropped, src)
    check_y(yv, y_name, src)
    for d, (name, kind) in enumerate(zip(names, kinds, strict=True)):
        check_x(X[:, d], name, kind, src)
    repeated = int(yv.size - np.unique(X, axis=0).shape[0])
    if repeated:
        notes.append(
            f"{repeated} repeated input{'s' if repeated > 1 else ''} (rows with the same values"
            " in every input column) kept as repeated measurements"
        )
    periodic = not_periodic_note(X, names)
    if periodic:
        notes.append(periodic)
    return Series(
        X, yv, ", ".join(names), y_name, "number", n_dropped, tuple(notes), src,
        tuple(names), tuple(kinds),
    )  # fmt: skip


def _validated(
    table: Table, xv: np.ndarray, yv: np.ndarray, kind: str, x_name: str, y_name: str
) -> Series:
    """Drop missing rows, check the values, sort by x and build the Series."""
    src, notes = table.source, list(table.notes)
    missing = np.isnan(xv) | np.isnan(yv)
    n_dropped = _note_dropped(notes, missing)
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


def _note_dropped(notes: list[str], missing: np.ndarray) -> int:
    """How many rows ``missing`` drops; the note saying so is added to ``notes``."""
    n_dropped = int(missing.sum())
    if n_dropped:
        notes.append(_dropped_note(missing))
    return n_dropped


def _dropped_note(missing: np.ndarray) -> str:
    rows = [int(i) + 1 for i in np.flatnonzero(missing)]
    shown = ", ".join(map(str, rows[:_LISTED_ROWS])) + (", ..." if len(rows) > _LISTED_ROWS else "")
    plural = "s" if len(rows) > 1 else ""
    return f"dropped {len(rows)} row{plural} with missing values (data row{plural} {shown})"


# ----------------------------------------------------------------------------- description


def _inputs_text(series: Series) -> str:
    """Each input's name and range: 'a' from 0 to 1 (plain numbers, no time unit), ...; the
    first ``LISTED_COLUMNS``, then '... and N more'."""
    parts = []
    shown = list(zip(series.x_names, series.x_kinds, strict=True))[:LISTED_COLUMNS]
    for d, (name, kind) in enumerate(shown):
        column = Series(np.sort(series.X[:, d]), series.y, name, series.y_name, kind)
        text = _x_range_text(column).removesuffix(" (plain numbers, no time unit)")
        parts.append(f"{name!r} {text}")
    return capped(parts + [""] * (series.n_dims - len(parts)), LISTED_COLUMNS, pair=False)


def _x_range_text(series: Series) -> str:
    low, high = float(series.x[0]), float(series.x[-1])
    if series.x_kind == "date":
        start, end = from_decimal_year(low), from_decimal_year(high)
        if start is not None and end is not None:
            fmt = _date_format(series.spacing * DAYS_PER_YEAR)
            first, last = (f"{d:{fmt.replace('%Y', f'{d.year:04d}')}}" for d in (start, end))
            return f"from {first} to {last} (dates, as decimal years)"
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
