"""What a Parquet file or an Excel workbook declares of its size, checked before its cells are
read (issue 61): a small compressed file may unpack to gigabytes.

* **Parquet**: the row count and the row groups' uncompressed bytes in its footer.
* **xlsx**: the uncompressed size of every member of its zip archive (the reader never unpacks
  more than a member declares), and the first sheet's rows as its dimension states them.

Each must be within :data:`abcd_cli.limits.ROWS` and :data:`abcd_cli.limits.FILE_BYTES`;
otherwise an :class:`~abcd_cli.errors.InputError` names the file, the size and how to raise
the limit. A file whose metadata cannot be read is left to the reader, which names its fault.
"""

from __future__ import annotations

import io
import zipfile

from abcd_cli.errors import InputError
from abcd_cli.limits import FILE_BYTES, ROWS, mib


def check_parquet_size(source: str, data: bytes) -> None:
    """Refuse a Parquet file that declares more rows or uncompressed bytes than the limits."""
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(io.BytesIO(data)).metadata
    except Exception:  # a damaged footer: the reader says why
        return
    unpacked = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    _check(source, meta.num_rows, unpacked)


def check_workbook_size(source: str, data: bytes) -> None:
    """Refuse a workbook whose members unpack to more than the size limit, or whose first
    sheet states more rows than the row limit."""
    try:
        members = zipfile.ZipFile(io.BytesIO(data)).infolist()
    except (zipfile.BadZipFile, ValueError, OSError):
        return
    _check(source, None, sum(member.file_size for member in members))
    import openpyxl

    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True)
    except Exception:  # the reader says why
        return
    try:
        rows = book.worksheets[0].max_row if book.worksheets else None
    except Exception:  # a dimension it cannot read
        rows = None
    finally:
        book.close()
    _check(source, rows, 0)


def _check(source: str, rows: int | None, unpacked: int) -> None:
    """Refuse ``rows`` above the row limit or ``unpacked`` bytes above the size limit."""
    size = FILE_BYTES.value()
    if unpacked > size:
        raise InputError(
            f"{source}: unpacks to {mib(unpacked)}, more than the {mib(size)} a file may hold;"
            f" {FILE_BYTES.raise_hint()}"
        )
    most = ROWS.value()
    if rows is not None and rows > most:
        raise InputError(
            f"{source}: holds {rows:,} rows, more than the {most:,} a file may hold; thin or"
            f" aggregate the data, or {ROWS.raise_hint()}"
        )


def check_text_rows(source: str, data: bytes) -> None:
    """Refuse CSV text of more lines than the row limit allows (a header and that many rows),
    counted before the text is split into cells."""
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    _check(source, lines - 1 if lines > 1 else None, 0)
