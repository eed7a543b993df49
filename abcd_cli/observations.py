"""New observations of a model's columns, read to update it (``abcd update``'s NEW.csv).

The columns are the model's inputs and y, found by their names (``x`` and ``y`` name others:
by name or 1-based number, several inputs as a list or ``"a,b"``), and read by the CSV reader's
rules for values, dates and year numbers (:mod:`abcd_cli.data`). Unlike a series to search,
new observations may be few: a single row will do, and one x value may repeat. Rows missing a
value are dropped and counted. Each input's kind (dates or years against plain numbers) must be
the one the model was fitted to, as ``abcd predict`` checks it
(:meth:`~abcd_cli.fitted.FittedSearch.checked_x`). A series' new rows are sorted by x.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from abcd_cli.arrays import as_2d
from abcd_cli.data.cells import show
from abcd_cli.data.checks import check_magnitude
from abcd_cli.data.frames import frame_table
from abcd_cli.data.inputs import choose_inputs
from abcd_cli.data.reader import read_data
from abcd_cli.data.series import Series
from abcd_cli.data.table import Table, capped
from abcd_cli.data.values import numeric_values
from abcd_cli.errors import InputError
from abcd_cli.fitted import FittedSearch


@dataclass(frozen=True)
class Observations:
    """New rows on the model's axes: X (M, D) in the order of the model's inputs, y (M,), where
    they came from, the rows dropped for a missing value and notes on what was fixed."""

    X: np.ndarray
    y: np.ndarray
    source: str
    n_dropped: int = 0
    notes: tuple[str, ...] = ()

    @property
    def n(self) -> int:
        return int(self.y.size)


def read_observations(found: FittedSearch, data: Any, x: Any = None, y: Any = None) -> Observations:
    """The new observations of ``found``'s columns in ``data``: the path of a CSV file (``-``:
    standard input; or a Parquet file or workbook, as the reader takes them), a pandas
    DataFrame, a :class:`~abcd_cli.data.series.Series` (``abcd_cli.load``'s, its columns
    already chosen) or an ``(x, y)`` pair of arrays (x: (M,) or (M, D), numbers or datetimes).
    ``x``/``y`` choose a file's or frame's columns when their names differ from the model's.
    InputError with one line for anything unusable."""
    if isinstance(data, Series):
        if x is not None or y is not None:
            raise TypeError("x and y choose columns of a CSV file or DataFrame, not of a Series")
        return _from_series(found, data)
    table = _table(found, data, x, y)
    keys = [str(k) for k in x] if isinstance(x, list | tuple) else x
    choice = choose_inputs(
        table, list(found.x_names) if keys is None else keys, found.y_name if y is None else y
    )
    names = [table.names[i] for i in choice.inputs]
    if len(names) != len(found.x_names):
        raise InputError(
            f"{table.source}: the model reads {len(found.x_names)} input(s)"
            f" ({capped(list(map(repr, found.x_names)))}), not {len(names)}"
            f" ({capped(list(map(repr, names)))})"
        )
    values = [choice.values(table, i) for i in choice.inputs]
    X = np.column_stack([v for v, _ in values])
    yv = numeric_values(table, choice.y)
    missing = np.isnan(yv) | np.isnan(X).any(axis=1)
    if missing.all():
        raise InputError(
            f"{table.source}: no row holds a value in every column read"
            f" ({capped([show(n) for n in [*names, table.names[choice.y]]])})"
        )
    X, yv = X[~missing], yv[~missing]
    check_magnitude(yv, table.names[choice.y], table.source)
    for d, (name, (_, kind)) in enumerate(zip(names, values, strict=True)):
        check_magnitude(X[:, d], name, table.source)
        X[:, d] = found.checked_x(X[:, d], kind, f"{table.source}: column {name!r}", d)
    dropped = int(missing.sum())
    notes = list(table.notes)
    if dropped:
        notes.append(f"dropped {dropped} row{'s' if dropped > 1 else ''} missing a value")
    return _sorted(Observations(X, yv, table.source, dropped, tuple(notes)))


def _table(found: FittedSearch, data: Any, x: Any, y: Any) -> Table:
    """The cells of a data file (CSV, Parquet, xlsx), a DataFrame, or an (x, y) pair written as
    the model's columns."""
    if isinstance(data, str | os.PathLike):
        return read_data(data)
    if isinstance(data, pd.DataFrame):
        return frame_table(data, "DataFrame")
    if isinstance(data, tuple | list) and len(data) == 2:
        if x is not None or y is not None:
            raise TypeError("x and y choose columns of a CSV file or DataFrame, not of arrays")
        xs, ys = data
        names = found.x_names
        columns = [xs] if len(names) == 1 else list(np.asarray(xs).T)
        if len(columns) != len(names) or np.ndim(columns[0]) != 1:
            raise InputError(
                f"arrays: x must hold {len(names)} column(s), the model's inputs, not"
                f" {np.shape(xs)}"
            )
        frame = {**dict(zip(names, columns, strict=True)), found.y_name: ys}
        if len(frame) != len(names) + 1 or len({len(c) for c in frame.values()}) != 1:
            raise InputError("arrays: x and y must hold one value per row, under distinct names")
        return frame_table(pd.DataFrame(frame), "arrays")
    raise TypeError(
        "update() takes new data as a CSV path, a pandas DataFrame, a Series from"
        f" abcd_cli.load or an (x, y) pair of arrays, not {type(data).__name__}"
    )


def _from_series(found: FittedSearch, series: Series) -> Observations:
    """A loaded series' rows, its inputs of the model's number and kinds."""
    if series.n_dims != len(found.x_names):
        raise InputError(
            f"{series.source or 'data'}: the model reads {len(found.x_names)} input(s), the"
            f" series holds {series.n_dims}"
        )
    X = np.array(series.X, dtype=float)
    for d, (name, kind) in enumerate(zip(series.x_names, series.x_kinds, strict=True)):
        X[:, d] = found.checked_x(X[:, d], kind, f"{series.source}: column {name!r}", d)
    return _sorted(Observations(X, np.array(series.y), series.source or "data", series.n_dropped))


def _sorted(new: Observations) -> Observations:
    """A series' rows in x order (stable); several inputs' rows as given."""
    X = as_2d(new.X)
    if X.shape[1] > 1:
        return new
    order = np.argsort(X[:, 0], kind="stable")
    return Observations(X[order], new.y[order], new.source, new.n_dropped, new.notes)
