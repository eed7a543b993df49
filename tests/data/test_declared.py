"""A Parquet file or a workbook is refused by the size it declares, before its cells are read
(issue 61); the bombs run under a 3 GiB address-space limit (``tests/limited.py``)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import openpyxl
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import abcd_cli
from abcd_cli.errors import InputError
from tests.limited import one_error_line, run_limited

SHEET = "xl/worksheets/sheet1.xml"
SHEET_HEAD = (
    b'<?xml version="1.0"?><worksheet'
    b' xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
)


def parquet_bomb(path: Path, row_groups: int = 100) -> Path:
    """A Parquet file under 1 MB holding 10⁸ rows (4.8 GB once read)."""
    table = pa.table({"x": pa.array([0.0] * 1_000_000), "y": pa.array([1.0] * 1_000_000)})
    with pq.ParquetWriter(path, table.schema, compression="zstd") as writer:
        for _ in range(row_groups):
            writer.write_table(table)
    return path


def workbook(path: Path, sheet: bytes, rows: int = 0, row: bytes = b"") -> Path:
    """An xlsx file whose first sheet's XML is ``sheet`` followed by ``rows`` copies of
    ``row`` and the closing tags, written in pieces."""
    book = openpyxl.Workbook()
    book.active.append(["x", "y"])
    blank = io.BytesIO()
    book.save(blank)
    source = zipfile.ZipFile(io.BytesIO(blank.getvalue()))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            if info.filename != SHEET:
                out.writestr(info.filename, source.read(info.filename))
                continue
            with out.open(SHEET, "w", force_zip64=True) as handle:
                handle.write(sheet)
                block = row * 10_000
                for _ in range(rows // 10_000):
                    handle.write(block)
                handle.write(b"</sheetData></worksheet>")
    return path


def test_a_parquet_bomb_is_refused_by_its_row_count_within_3_gib(tmp_path: Path) -> None:
    """Before: decompressed whole (4.8 GB), then MemoryError."""
    parquet_bomb(tmp_path / "bomb.parquet")
    line = one_error_line(run_limited("describe-data", "bomb.parquet", cwd=tmp_path))
    assert "holds 100,000,000 rows, more than the 1,000,000" in line
    assert "ABCD_MAX_ROWS" in line


def test_a_workbook_bomb_is_refused_by_its_unpacked_size_within_3_gib(tmp_path: Path) -> None:
    """8 million rows in 2.5 MB of zip: 313 MiB of XML, that openpyxl and pandas held whole."""
    row = b"<row><c><v>1</v></c><c><v>2</v></c></row>"
    workbook(tmp_path / "bomb.xlsx", SHEET_HEAD + b"<sheetData>", 8_000_000, row)
    line = one_error_line(run_limited("describe-data", "bomb.xlsx", cwd=tmp_path))
    assert "bomb.xlsx: unpacks to 313 MiB, more than the 256 MiB" in line
    assert "ABCD_MAX_FILE_MB" in line


def test_a_sheet_is_refused_by_the_rows_its_dimension_states(tmp_path: Path) -> None:
    rows = b"".join(
        b'<row r="%d"><c r="A%d"><v>%d</v></c><c r="B%d"><v>%d</v></c></row>' % (i, i, i, i, i * i)
        for i in range(1, 8)
    )
    head = SHEET_HEAD + b'<dimension ref="A1:B5000000"/><sheetData>' + rows
    path = workbook(tmp_path / "tall.xlsx", head)
    with pytest.raises(InputError, match=r"tall.xlsx: holds 5,000,000 rows, more than the"):
        abcd_cli.load(path)


def test_the_row_limit_is_raised_by_its_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame = pd.DataFrame({"x": range(30), "y": [float(i % 7) for i in range(30)]})
    frame.to_parquet(tmp_path / "d.parquet", index=False)
    frame.to_csv(tmp_path / "d.csv", index=False)
    monkeypatch.setenv("ABCD_MAX_ROWS", "20")
    for name in ("d.parquet", "d.csv"):
        with pytest.raises(InputError, match=rf"{name}: holds 30 rows, more than the 20"):
            abcd_cli.load(tmp_path / name)
    monkeypatch.setenv("ABCD_MAX_ROWS", "30")
    assert abcd_cli.load(tmp_path / "d.parquet").n == abcd_cli.load(tmp_path / "d.csv").n == 30
