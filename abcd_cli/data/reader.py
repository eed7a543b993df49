"""Read a user's CSV file (or Parquet file, or Excel workbook) and validate it into a
:class:`Series`.

The one entry point is :func:`load_series`. Every problem with the file becomes an
:class:`~abcd_cli.errors.InputError` whose one-line message names the file and, where it helps,
the column and the row; recoverable oddities (missing values, unsorted or repeated x) are fixed
and reported as sentences in :attr:`Series.warnings`. Nothing here prints.

Rules, in the order they are applied:

* **Reading.** UTF-8 (a byte-order mark is fine), UTF-16 with a byte-order mark, or, failing
  UTF-8, Windows-1252 with a warning. NUL bytes or other control characters mean "not a text
  file". Blank lines are ignored everywhere.
* **Delimiter.** Sniffed from the first lines: comma, tab, semicolon, pipe, then runs of
  whitespace; the one that splits the lines into the most consistent number (at least two) of
  fields wins, earlier ones winning ties. No delimiter means a single column. With a semicolon
  delimiter a column written with decimal commas (``1,5``) is read as decimals.
* **Header.** The first row holds the column names unless every cell in it is a number or a
  date, in which case the columns are called ``column 1``, ``column 2``, ... Every data row
  must have as many fields as the header (extra empty trailing fields are ignored).
* **Columns.** ``x`` and ``y`` pick columns by name (exact, then case-insensitive) or by
  1-based number. By default: one column -> it is y and x is the row
  position 0..n-1 (named ``index``); two columns -> x then y; more -> y is the column named
  ``y``, else the single numeric column other than the single column named like a time
  (``x``, ``t``, ``time``, ``date``, ``year``, ...; failing that, the single column whose name
  gives a unit of time, ``t_s``, ``hours``), and x is every other usable column (below).
  Anything else is an error listing the columns (the first few, then a count). Two columns
  that are read (x, the inputs, y) may not share a name (line breaks and tabs inside a name
  read as one space), nor, for predictions, two columns holding a model's input by name.
* **Several inputs** (:mod:`abcd_cli.data.inputs`). ``x`` may name several columns (``a,b,c``
  or a list). Without ``x``, a file of more than two columns has y as given (else as above)
  and every other column holding numbers or dates as an input;
  columns of text, unnamed columns (an index) and columns with at most one value are left out
  and named in a warning, and a warning names the inputs when there are several. A row with a
  missing cell in y or any input is dropped and counted. The rows keep their order (x is
  (N, D)); each input is checked as x is below.
* **Values.** Empty cells and ``NA``, ``N/A``, ``NaN``, ``null``, ``None``, ``-``, ``?``, ``.``
  are missing: such rows are dropped and counted. Any other non-number (or, for x, non-date) is
  an error naming the row; so are infinities.
* **Dates.** An x column that is not all numbers is read as dates, cell by cell, so formats
  may be mixed: ``2020-01-31``, ``2020-01-31 13:45``, ``2020/01/31``, ``31/01/2020``,
  ``01/31/2020`` (day or month first is decided once for the whole column: a part above 12
  settles it, else a part that never changes is the day, else it is an error), ``31.01.2020``,
  ``2020-01`` (monthly), ``2020-Q1``, AM/PM times, and through pandas anything with a 4-digit
  year such as ``Jan 2020`` or ``2020-01-31T13:45+02:00`` (converted to UTC, with a warning
  naming the offsets; years 1 to 9999 only). Dates become
  decimal years on a uniform axis, 2000 + (days since 2000-01-01) / 365.2425, so every hour is
  the same step in x
  (:mod:`abcd_cli.data.dates` reads the cells; the column-wide day/month decision is in
  :mod:`abcd_cli.data.values`).
* **Kind of x** (see :func:`is_year_column`). A column of dates is ``"date"``. A numeric
  column is ``"year"`` when its name mentions years (``year``, ``yr``, ``decimal_year``, ...)
  or when all its values lie in [1000, 3000] and its name is a neutral time name (``x``,
  ``t``, ``time``, ``date``, ...) or is missing; else ``"number"``.
* **Unit of x** (:attr:`Series.x_unit`). ``"year"`` for dates and years; for numbers, the unit
  of time the column's name gives (``t_s``, ``hours``, ``days_since_onset``:
  :func:`~abcd_cli.data.time_units.unit_of_name`), else none. The report states lengths from it.
* **Sanity.** At least :data:`MIN_POINTS` usable rows; neither y nor x constant; magnitudes within
  [1e-150, 1e150]; spreads not lost in rounding (y: 1e-12 of its magnitude, x: 1e-9).
* **Order.** Rows are sorted by x (stable); repeated x values are kept.
* **Parquet and Excel** (:mod:`~abcd_cli.data.formats`). A ``.parquet`` or ``.xlsx`` file (told
  by its first bytes, else its suffix; ``.xls`` is refused) is read by pandas into the cells a
  CSV file of the same data would hold, and then by every rule above; an ``.xlsx`` file's
  first sheet is read.

Each rule lives in its own module: :mod:`~abcd_cli.data.table` (reading, delimiter, header),
:mod:`~abcd_cli.data.columns` (columns), :mod:`~abcd_cli.data.values` (values, dates, kind of x),
:mod:`~abcd_cli.data.checks` (sanity) and :mod:`~abcd_cli.data.series` (order, the
:class:`Series` record and its description). This module is the entry point for files and
keeps the names other modules import from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from abcd_cli.data.cells import is_missing, show
from abcd_cli.data.checks import MIN_POINTS, check_magnitude
from abcd_cli.data.columns import default_x, find_column
from abcd_cli.data.declared import check_text_rows
from abcd_cli.data.formats import file_format, format_table
from abcd_cli.data.inputs import InputKeys
from abcd_cli.data.series import Series, series_from_table
from abcd_cli.data.table import Table, capped, read_source, text_table
from abcd_cli.data.values import x_values
from abcd_cli.errors import InputError

__all__ = ["MIN_POINTS", "Series", "load_inputs", "load_series"]


def load_series(path: str | Path, x: InputKeys = None, y: str | None = None) -> Series:
    """Read the CSV (Parquet, xlsx) file at ``path`` and return a validated :class:`Series`.

    ``x`` (one column, or several inputs as a list or as ``"a,b,c"``) and ``y`` choose columns
    by name or 1-based number; see the module docstring for the defaults. Raises
    :class:`InputError` with a one-line message for any unusable input.
    """
    return series_from_table(read_data(path), x, y)


def load_inputs(
    path: str | Path, names: Sequence[str], x: str | None = None
) -> tuple[np.ndarray, list[list[str]], list[str], list[str]]:
    """Read the input columns of a file of new inputs (for predictions) for a model of the
    inputs ``names``, in the file's row order.

    With one input the column is chosen as in :func:`load_series`: ``x`` by name or number,
    otherwise the only column (of one or two), or the one named like time. With several, each
    is the column of its name (in any order, other columns ignored). Returns
    X (M, D) in the order of ``names`` (decimal years for dates), each column's cells as
    written, its label (one input: its name in the file; several: the model's name) and its
    kind. A column that is not there, or a missing cell, is an error naming it.
    """
    table = read_data(path)
    if len(names) == 1:
        chosen = [_one_input(table, x)]
        labels = [table.names[chosen[0]]]
    else:
        chosen = [_named_input(table, name) for name in names]
        labels = list(names)
    values, cells, kinds = [], [], []
    for xi in chosen:
        column = table.column(xi)
        missing = [i for i, cell in enumerate(column) if is_missing(cell)]
        if missing:
            raise InputError(
                f"{table.source}: column {show(table.names[xi])} has no value in"
                f" {table.where(missing[0])}"
            )
        column_values, kind = x_values(table, xi)
        check_magnitude(column_values, table.names[xi], table.source)
        values.append(column_values)
        cells.append(column)
        kinds.append(kind)
    return np.column_stack(values), cells, labels, kinds


def read_data(path: str | Path) -> Table:
    """The table of cells of the file at ``path``: CSV text, a Parquet file or a workbook."""
    source, data = read_source(path)
    kind = file_format(path, data)
    if kind is None:
        check_text_rows(source, data)
        return text_table(source, data)
    return format_table(source, data, kind)


def _one_input(table: Table, x: str | None) -> int:
    """The column of a one-input model's new inputs: ``x``, the only one or the time-like one."""
    if x is not None:
        return find_column(table, x, "x")
    if len(table.names) <= 2:
        return 0
    try:
        return default_x(table, None)
    except InputError:
        raise InputError(
            f"{table.source}: cannot tell which column holds x among {table.listing()};"
            " pass --x (a name or number)"
        ) from None


def _named_input(table: Table, name: str) -> int:
    """The column named like one of a model's several inputs."""
    exact = [i for i, column in enumerate(table.names) if column == name]
    if len(exact) > 1:
        raise InputError(
            f"{table.source}: column name {show(name)}, an input of the model, is used by"
            f" columns {capped([i + 1 for i in exact])}; give each column a name of its own"
        )
    try:
        return exact[0] if exact else find_column(table, name, "x")
    except InputError:
        raise InputError(
            f"{table.source}: no column {show(name)}, an input of the model; available"
            f" columns: {table.listing()}"
        ) from None
