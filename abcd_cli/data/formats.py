"""Parquet files and Excel workbooks as the CSV reader's :class:`~abcd_cli.data.table.Table`.

A file's format is told by its first bytes (so standard input works too), else by its suffix:
``.parquet``, ``.xlsx``/``.xlsm``, ``.xls``; anything else is CSV text. pandas reads the file
and its cells become the text a CSV file of the same data would hold
(:func:`~abcd_cli.data.frames.cell_texts`: numbers in full precision, date and datetime cells
as ISO dates), so every later rule and check is the CSV reader's own.

* **Parquet** (pyarrow): a table of named columns, read as a DataFrame is
  (:func:`~abcd_cli.data.frames.frame_table`; a saved DatetimeIndex or named index is the
  first column); rows are named ``row R (index I)``.
* **xlsx** (openpyxl): the first sheet, from its first column holding anything; blank rows
  are skipped and the first row is the header unless it holds only numbers and dates, as in a
  CSV file; rows are named ``row R (sheet row L)``. Text cells are kept as written (``NA`` is
  missing, ``#DIV/0!`` is not a number), as in a CSV file.
* **xls** (the old binary workbook) is refused: save it as ``.xlsx``.

The engines are the ``files`` extra; without one, the message names it. A file the engine
cannot read is an :class:`~abcd_cli.errors.InputError` with the engine's reason.
"""

from __future__ import annotations

import importlib
import io
import warnings
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from abcd_cli.data.declared import check_parquet_size, check_workbook_size
from abcd_cli.data.formulas import check_saved_formulas
from abcd_cli.data.frames import cell_texts, frame_table
from abcd_cli.data.table import Table, records_table
from abcd_cli.errors import InputError

PARQUET, XLSX, XLS = "parquet", "xlsx", "xls"
INSTALL_HINT = "pip install 'abcd-cli[files]'"
_SUFFIXES = {".parquet": PARQUET, ".xlsx": XLSX, ".xlsm": XLSX, ".xls": XLS}
_ZIP, _OLE = b"PK\x03\x04", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_PARQUET_MAGIC = b"PAR1"
_NAMES = {PARQUET: "a Parquet file", XLSX: "an Excel workbook"}
_ENGINES = {PARQUET: "pyarrow", XLSX: "openpyxl"}


@dataclass
class _SheetTable(Table):
    """A table of a sheet's cells; its rows are named by their rows in the sheet."""

    def where(self, row: int) -> str:
        return f"row {row + 1} (sheet row {self.lines[row]})"


def file_format(path: str | Path, data: bytes) -> str | None:
    """The format of the file at ``path`` holding ``data``: ``"parquet"``, ``"xlsx"``,
    ``"xls"``, or None for CSV text."""
    if data.startswith(_PARQUET_MAGIC) and data.endswith(_PARQUET_MAGIC) and len(data) > 8:
        return PARQUET
    if data.startswith(_ZIP):
        return XLSX
    if data.startswith(_OLE):
        return XLS
    return _SUFFIXES.get(Path(str(path)).suffix.lower())


def format_table(source: str, data: bytes, kind: str) -> Table:
    """The table of a Parquet file or an Excel workbook (``kind``) holding ``data``."""
    if kind == XLS:
        raise InputError(
            f"{source}: old Excel .xls workbooks are not read; save it as .xlsx (or CSV) and"
            " give that file"
        )
    try:
        importlib.import_module(_ENGINES[kind])
    except ImportError:
        raise InputError(
            f"{source}: reading {_NAMES[kind]} needs the {_ENGINES[kind]} package: {INSTALL_HINT}"
        ) from None
    with warnings.catch_warnings():  # openpyxl warns of styles and extensions it skips
        warnings.simplefilter("ignore")
        if kind == PARQUET:
            check_parquet_size(source, data)
        else:
            check_workbook_size(source, data)
            check_saved_formulas(source, data)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if kind == PARQUET:
                frame = pd.read_parquet(io.BytesIO(data), engine="pyarrow")
            else:
                with pd.ExcelFile(io.BytesIO(data), engine="openpyxl") as book:
                    sheets = book.sheet_names
                    frame = book.parse(0, header=None, dtype=object, na_filter=False)
    except Exception as exc:  # a damaged file makes the engines raise nearly anything
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{source}: cannot read it as {_NAMES[kind]}: {reason}") from None
    if kind == PARQUET:
        if frame.shape[0] == 0 or frame.shape[1] == 0:
            raise InputError(f"{source}: the file holds no values")
        return frame_table(frame, source)
    return _sheet_table(frame, source, sheets)


def _sheet_table(frame: pd.DataFrame, source: str, sheets: list[str]) -> Table:
    """The first sheet's cells as the records of a CSV file, with its row numbers as lines."""
    columns = [cell_texts(frame.iloc[:, i]) for i in range(frame.shape[1])]
    while columns and not any(columns[0]):
        columns.pop(0)
    records = [(i + 1, list(row)) for i, row in enumerate(zip(*columns, strict=True)) if any(row)]
    if not records:
        raise InputError(f"{source}: the first sheet, {sheets[0]!r}, is empty")
    table = records_table(records, _SheetTable(source, [], [], [], ","))
    if len(sheets) > 1:
        table.notes.append(
            f"read the first sheet, {sheets[0]!r}, of {len(sheets)}; move the sheet to read to"
            " the front of the workbook"
        )
    return table
