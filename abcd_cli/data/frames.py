"""Series from a pandas DataFrame or from arrays, by the same rules as a CSV file.

The frame's cells are written as the text a CSV file would hold (numbers in full precision,
datetimes as ``YYYY-MM-DD HH:MM:SS.ffffff`` in UTC, or ``YYYY-MM-DD`` when every one in the
column is at midnight, missing values as empty cells) and read by
:func:`~abcd_cli.data.series.series_from_table`, the CSV reader's own column, value, date and
sanity rules, so a frame and the CSV written from it give the same
:class:`~abcd_cli.data.series.Series`: a datetime column becomes
decimal years on a uniform axis, 2000 + (days since 2000-01-01) / 365.2425.

Columns: the frame's column labels are the names (a default ``RangeIndex`` of labels counts as
no header: ``column 1``, ``column 2``, ...). A ``DatetimeIndex``, ``PeriodIndex`` or named index
holds x and becomes the first column; an unnamed plain index is ignored. Rows are reported as
``row R (index I)``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import numpy as np
import pandas as pd

from abcd_cli.data.cells import clean_name
from abcd_cli.data.dates import decimal_year, offset_text, offsets_note
from abcd_cli.data.series import Series, series_from_table
from abcd_cli.data.table import Table
from abcd_cli.errors import InputError


@dataclass
class _FrameTable(Table):
    """A table of a frame's cells; its rows are named by the frame's index labels."""

    labels: list[str] = field(default_factory=list)

    def where(self, row: int) -> str:
        return f"row {row + 1} (index {self.labels[row]})"


def series_from_frame(
    frame: pd.DataFrame | pd.Series,
    x: str | int | Sequence[str | int] | None = None,
    y: str | int | None = None,
    source: str = "DataFrame",
) -> Series:
    """The validated :class:`Series` of a DataFrame (or a pandas Series: its values are y).

    ``x`` (one column or a list of several inputs) and ``y`` choose columns by label or 1-based
    number, with the CSV reader's defaults (:mod:`abcd_cli.data.inputs`); ``source`` names the
    data in messages and reports.
    """
    table = frame_table(frame, source)
    keys = None if x is None else str(x) if isinstance(x, str | int) else [str(k) for k in x]
    return series_from_table(table, keys, None if y is None else str(y))


def series_from_arrays(x: Any, y: Any, source: str = "arrays") -> Series:
    """The validated :class:`Series` of y at x (numbers or datetimes); with ``x`` None, x is
    the position 0..n-1, as for a one-column CSV file."""
    y_values = _one_dimensional(y, "y", source)
    if x is None:
        return series_from_frame(pd.DataFrame({"y": y_values}), source=source)
    x_values = _one_dimensional(x, "x", source)
    if len(x_values) != len(y_values):
        raise InputError(f"{source}: x has {len(x_values)} values but y has {len(y_values)}")
    return series_from_frame(pd.DataFrame({"x": x_values, "y": y_values}), source=source)


def decimal_years(values: Any) -> np.ndarray:
    """Datetimes (anything ``pandas.to_datetime`` reads; aware ones in UTC) as decimal years."""
    stamps = pd.DatetimeIndex(pd.to_datetime(values, utc=True)).tz_localize(None)
    seconds = stamps.hour * 3600.0 + stamps.minute * 60.0 + stamps.second
    seconds = seconds + stamps.microsecond / 1e6 + stamps.nanosecond / 1e9
    return np.array(
        [
            math.nan if pd.isna(s) else decimal_year(s.year, s.month, s.day, sec)
            for s, sec in zip(stamps, seconds, strict=True)
        ]
    )


def is_datetime_like(values: Any) -> bool:
    """Whether ``values`` hold datetimes (a datetime dtype, or datetime/date objects)."""
    array = np.asarray(values) if not isinstance(values, pd.Series | pd.Index) else values
    dtype = getattr(array, "dtype", None)
    if dtype is not None and pd.api.types.is_datetime64_any_dtype(dtype):
        return True
    flat = np.asarray(values, dtype=object).ravel()
    present = [v for v in flat if not _is_missing(v)]
    return bool(present) and all(isinstance(v, datetime | date) for v in present)


# ----------------------------------------------------------------------------- cells


def _one_dimensional(values: Any, name: str, source: str) -> Any:
    if isinstance(values, pd.Series | pd.Index):
        values = values.to_numpy()
    array = np.asarray(values)
    if array.ndim != 1:
        raise InputError(f"{source}: {name} must be one-dimensional, not of shape {array.shape}")
    return array


def frame_table(frame: pd.DataFrame | pd.Series, source: str) -> Table:
    """The frame's cells as text, with the index as the first column when it holds x."""
    if isinstance(frame, pd.Series):
        frame = frame.to_frame(name="y" if frame.name is None else frame.name)
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, not {type(frame).__name__}")
    index = frame.index
    if isinstance(index, pd.DatetimeIndex | pd.PeriodIndex) or index.name is not None:
        frame = frame.reset_index(names=str(index.name) if index.name is not None else "date")
    if frame.shape[1] == 0 or frame.shape[0] == 0:
        raise InputError(f"{source}: the DataFrame holds no values")
    headerless = isinstance(frame.columns, pd.RangeIndex)
    if headerless:
        names = [f"column {i + 1}" for i in range(frame.shape[1])]
    else:
        names = [clean_name(_label(c)) for c in frame.columns]
    columns = [_cells(frame.iloc[:, i]) for i in range(frame.shape[1])]
    rows = [list(row) for row in zip(*columns, strict=True)]
    notes = [
        note
        for i, name in enumerate(names)
        if (note := _zone_note(name, frame.iloc[:, i])) is not None
    ]
    return _FrameTable(
        source=source,
        names=names,
        rows=rows,
        lines=list(range(2, len(rows) + 2)),
        delimiter=",",
        unnamed=set(range(len(names))) if headerless else set(),
        headerless=headerless,
        notes=notes,
        labels=[str(label) for label in index],
    )


def _zone_note(name: str, column: pd.Series) -> str | None:
    """The warning that a column's aware datetimes (other than UTC) are read as UTC: naming
    its time zone, or the offsets of a column of datetime objects; else None."""
    zone = getattr(column.dtype, "tz", None)
    if zone is not None:
        if str(zone) in ("UTC", "UTC+00:00", "Etc/UTC", "GMT"):
            return None
        return f"column {name!r} gives times in the time zone {zone}; they are read as UTC"
    if column.dtype != object:
        return None
    zones = [
        offset_text(value.utcoffset())
        for value in column
        if isinstance(value, datetime) and value.tzinfo is not None
    ]
    return offsets_note(name, zones)


def _label(label: Any) -> str:
    if isinstance(label, tuple):  # MultiIndex columns
        return " ".join(str(part) for part in label if str(part))
    return str(label)


def _cells(column: pd.Series) -> list[str]:
    """One column's values as the text a CSV file would hold."""
    if isinstance(column.dtype, pd.PeriodDtype):
        column = column.dt.to_timestamp()
    if pd.api.types.is_datetime64_any_dtype(column.dtype):
        if getattr(column.dt, "tz", None) is not None:
            column = column.dt.tz_convert("UTC").dt.tz_localize(None)
        return cell_texts(column)
    return cell_texts(column.astype(object))


def cell_texts(values: Iterable[Any]) -> list[str]:
    """Values as the text a CSV file would hold; datetimes (in UTC) as dates alone when every
    datetime among them is at midnight."""
    values = list(values)
    stamps = [_utc(v) for v in values if isinstance(v, datetime) and not _is_missing(v)]
    whole_days = bool(stamps) and all(stamp == stamp.normalize() for stamp in stamps)
    return [_cell(value, whole_days) for value in values]


def _utc(value: datetime) -> pd.Timestamp:
    stamp = pd.Timestamp(value)
    return stamp if stamp.tzinfo is None else stamp.tz_convert("UTC").tz_localize(None)


def _cell(value: Any, whole_days: bool = False) -> str:
    if _is_missing(value):
        return ""
    if isinstance(value, pd.Timestamp | datetime):
        stamp = _utc(value)
        return stamp.date().isoformat() if whole_days else stamp.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, bool | np.bool_):
        return str(value)
    if isinstance(value, float | np.floating):
        return repr(float(value))
    if isinstance(value, int | np.integer):
        return str(int(value))
    return str(value)


def _is_missing(value: Any) -> bool:
    if value is None or value is pd.NaT:
        return True
    try:
        return bool(pd.isna(value)) if np.ndim(value) == 0 else False
    except (TypeError, ValueError):
        return False
