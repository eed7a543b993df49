"""Formula cells an Excel workbook holds without their saved values.

A workbook written by a program other than Excel (openpyxl, a script) may hold formulas whose
values were never computed: Excel computes them when it opens and saves the file, and a reader
of the file, pandas among them, finds empty cells. Such a sheet is refused with what to do
rather than read as missing values (issue 61).
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

from abcd_cli.errors import InputError

#: A formula element in a worksheet's XML (``<f>``, ``<f t="shared" .../>``, any prefix).
_FORMULA = re.compile(rb"<(?:\w+:)?f[\s>/]")


def check_saved_formulas(source: str, data: bytes) -> None:
    """Refuse a workbook whose first sheet has formula cells without a saved value, naming how
    many, the first, and what to do; a workbook without formulas is not parsed for this."""
    if not _has_formulas(data):
        return
    import openpyxl

    try:
        books = [
            openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=only)
            for only in (False, True)
        ]
        count, first = _unsaved(*(book.worksheets[0] for book in books))
    except Exception:  # a workbook openpyxl cannot read: the reader names the fault
        return
    if count:
        cells = "a cell" if count == 1 else f"{count:,} cells"
        raise InputError(
            f"{source}: {cells} of the first sheet (first {first}) hold formulas without saved"
            " values; open the workbook in Excel and save it (Excel computes and saves them),"
            " or export the sheet as CSV"
        )


def _has_formulas(data: bytes) -> bool:
    """Whether any worksheet of the workbook's zip archive holds a formula element."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return any(
                _FORMULA.search(archive.read(name))
                for name in archive.namelist()
                if name.startswith("xl/worksheets/") and name.endswith(".xml")
            )
    except (zipfile.BadZipFile, OSError, ValueError):  # the reader names the fault
        return False


def _unsaved(formulas: Any, values: Any) -> tuple[int, str]:
    """How many cells are formulas in ``formulas`` (the sheet read as written) with no value
    in ``values`` (the same sheet's saved values), and the first one's coordinate."""
    count, first = 0, ""
    for written, saved in zip(formulas.iter_rows(), values.iter_rows(), strict=False):
        for cell, value in zip(written, saved, strict=False):
            if getattr(cell, "data_type", None) == "f" and value.value is None:
                count += 1
                first = first or cell.coordinate
    return count, first
