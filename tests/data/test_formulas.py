"""A workbook's formulas without saved values are named as such (issue 61)."""

from __future__ import annotations

from pathlib import Path

import openpyxl
from click.testing import CliRunner

from abcd_cli.cli.main import main


def test_formulas_without_saved_values_are_named_not_called_missing(tmp_path: Path) -> None:
    """Before: "too few data points ... (5 dropped for missing values)"."""
    book = openpyxl.Workbook()
    book.active.append(["x", "y"])
    for row in range(2, 9):
        book.active.append([row, f"=A{row}*2"])
    book.save(tmp_path / "formulas.xlsx")
    result = CliRunner().invoke(main, ["describe-data", str(tmp_path / "formulas.xlsx")])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"Error: {tmp_path / 'formulas.xlsx'}: 7 cells of the first sheet (first B2) hold"
        " formulas without saved values; open the workbook in Excel and save it (Excel computes"
        " and saves them), or export the sheet as CSV"
    ]
