"""A delimited text file as a :class:`Table` of string cells: bytes, text, delimiter, records.

The reading, delimiter and header rules are those listed in :mod:`abcd_cli.data.reader`. Every
problem becomes an :class:`~abcd_cli.errors.InputError` naming the file; a recoverable oddity
(a non-UTF-8 file, a first line of data) becomes a sentence in :attr:`Table.notes`.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from abcd_cli.bounded import read_bounded, read_limited
from abcd_cli.data.cells import clean_name, is_number, show
from abcd_cli.data.dates import is_plain_date
from abcd_cli.errors import InputError
from abcd_cli.files import STANDARD_STREAM

#: The delimiters tried, in order of preference, and their names in messages.
DELIMITERS = {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe", " ": "whitespace"}
#: Columns listed by name in a message (the rest are counted).
LISTED_COLUMNS = 8
#: Lines read to sniff the delimiter.
_SNIFFED_LINES = 200

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")


@dataclass
class Table:
    """Cells of a delimited text file, as strings, with the file line of each data row."""

    source: str
    names: list[str]
    rows: list[list[str]]
    lines: list[int]
    delimiter: str
    unnamed: set[int] = field(default_factory=set)
    headerless: bool = False
    notes: list[str] = field(default_factory=list)

    def column(self, index: int) -> list[str]:
        """The cells of the 0-based column ``index``, one per data row."""
        return [row[index] for row in self.rows]

    def where(self, row: int) -> str:
        """'row R (line L)' for the 0-based data row ``row``."""
        return f"row {row + 1} (line {self.lines[row]})"

    def listing(self, limit: int = LISTED_COLUMNS) -> str:
        """The columns as '1 'name', 2 'name', ...' for messages: the first ``limit``, each
        name shortened when long, then '... and N more'."""
        short = [name if len(name) <= 20 else name[:17] + "..." for name in self.names]
        return capped([f"{i + 1} {name!r}" for i, name in enumerate(short)], limit, pair=False)


def capped(items: Sequence[object], limit: int = LISTED_COLUMNS, pair: bool = True) -> str:
    """Items joined for a one-line message: 'a and b' (unless not ``pair``), 'a, b, c', or
    the first ``limit`` then '... and N more'."""
    if pair and len(items) == 2:
        return f"{items[0]} and {items[1]}"
    shown = ", ".join(map(str, items[:limit]))
    return shown if len(items) <= limit else f"{shown}, ... and {len(items) - limit:,} more"


def check_distinct_names(table: Table, chosen: dict[int, str]) -> None:
    """An InputError naming the first name that several of the ``chosen`` columns (0-based
    index: its role, such as 'x' or 'y') share, with their numbers and roles: the series,
    its reports and the inputs a model reads by name could not tell them apart. Columns
    numbered by the reader (no name in the file) are told apart by their numbers."""
    seen: dict[str, list[int]] = {}
    for i in sorted(chosen):
        if i not in table.unnamed:
            seen.setdefault(table.names[i], []).append(i)
    for name, columns in seen.items():
        if len(columns) > 1:
            listed = capped([i + 1 for i in columns])
            roles = " and ".join(dict.fromkeys(chosen[i] for i in columns))
            raise InputError(
                f"{table.source}: column name {show(name)} is used by columns {listed},"
                f" {'both' if len(columns) == 2 else 'all'} read (as {roles}); give each column"
                " a name of its own"
            )


def read_table(path: str | Path) -> Table:
    """The table of the CSV file at ``path``, with the notes of its decoding first."""
    return text_table(*read_source(path))


def read_source(path: str | Path) -> tuple[str, bytes]:
    """The name of the file at ``path`` in messages (``-``: standard input) and its bytes."""
    if not str(path).strip():
        raise InputError("no data file given: its name is empty")
    source = "standard input" if str(path) == STANDARD_STREAM else str(path)
    return source, _read_bytes(Path(path), source)


def text_table(source: str, data: bytes) -> Table:
    """The table of a delimited text file's bytes, with the notes of its decoding first."""
    text, notes = _decode(data, source)
    table = _parse_table(text, source)
    table.notes[:0] = notes
    return table


# ----------------------------------------------------------------------------- reading


def _read_bytes(path: Path, source: str) -> bytes:
    """The file's bytes (``-``: standard input's), at most the size limit, or an InputError
    saying why they cannot be had (:mod:`abcd_cli.bounded`)."""
    if str(path) == STANDARD_STREAM:
        stream = getattr(sys.stdin, "buffer", None)
        if sys.stdin is None or stream is None:
            raise InputError("standard input cannot be read here")
        return read_limited(stream, source)
    return read_bounded(path, source, "CSV file")


def _decode(data: bytes, source: str) -> tuple[str, list[str]]:
    """Decode the bytes as text; refuse binary data."""
    notes: list[str] = []
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError:
            raise InputError(f"{source}: is not readable UTF-16 text") from None
    elif b"\x00" in data:
        raise InputError(f"{source}: looks like a binary file (it contains NUL bytes), not CSV")
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            try:
                text = data.decode("cp1252")
            except UnicodeDecodeError:
                raise InputError(
                    f"{source}: is not a text file: byte 0x{data[exc.start]:02x} at offset "
                    f"{exc.start} is not valid UTF-8"
                ) from None
            notes.append("the file is not UTF-8; read it as Windows-1252 (Latin-1)")
    text = text.removeprefix("\ufeff")
    if bad := _CONTROL.search(text):
        raise InputError(
            f"{source}: looks like a binary file (control character {bad.group(0)!r} at "
            f"character {bad.start()}), not CSV text"
        )
    return text, notes


# ----------------------------------------------------------------------------- tokenising


def _parse_table(text: str, source: str) -> Table:
    """Split the text into a header and rows of equal width."""
    if not text.strip():
        raise InputError(f"{source}: the file is empty")
    sample = [line for line in _LINE_BREAK.split(text) if line.strip()][:_SNIFFED_LINES]
    delimiter = _sniff_delimiter(sample)
    return records_table(_records(text, delimiter, source), Table(source, [], [], [], delimiter))


def records_table(records: Sequence[tuple[int, list[str]]], table: Table) -> Table:
    """Fill the empty ``table`` with the records, (line, fields), of a file: the header rule
    (a first record of numbers and dates is data), the rows, and checks of their widths."""
    source = table.source
    if not records:
        raise InputError(f"{source}: the file holds no values")
    first_line, header = records[0]
    if all(is_number(cell) or is_plain_date(cell) for cell in header):
        table.names = [f"column {i + 1}" for i in range(len(header))]
        table.unnamed = set(range(len(header)))
        table.headerless = True
        body = records
        if len(header) > 1:
            table.notes.append("the first line holds data, not column names; numbered the columns")
    else:
        header = [clean_name(name) for name in header]
        table.names = [name or f"column {i + 1}" for i, name in enumerate(header)]
        table.unnamed = {i for i, name in enumerate(header) if not name}
        body = records[1:]
        if not body:
            raise InputError(f"{source}: has a header line but no data rows")
    for line, row in body:
        table.rows.append(row)
        table.lines.append(line)
    _drop_empty_trailing_columns(table)
    _check_widths(table, first_line)
    return table


def _sniff_delimiter(sample: Sequence[str]) -> str:
    """The delimiter that splits the sample lines into the most consistent field count (>= 2)."""
    best, best_score = "", 0.0
    for delimiter in DELIMITERS:
        counts = [len(_split_line(line, delimiter)) for line in sample]
        mode = max(set(counts), key=counts.count)
        score = counts.count(mode) / len(counts) if mode >= 2 else 0.0
        if score > best_score:
            best, best_score = delimiter, score
    return best


def _split_line(line: str, delimiter: str) -> list[str]:
    if delimiter == " ":
        return line.split()
    try:
        return next(csv.reader([line], delimiter=delimiter, skipinitialspace=True), [])
    except csv.Error:
        return [line]


def _records(text: str, delimiter: str, source: str) -> list[tuple[int, list[str]]]:
    """Non-blank records as (file line where the record starts, stripped fields)."""
    out: list[tuple[int, list[str]]] = []
    if delimiter == " ":
        for number, line in enumerate(_LINE_BREAK.split(text), start=1):
            if fields := line.split():
                out.append((number, fields))
        return out
    # With no delimiter found, still split on commas so that a stray one is reported.
    reader = csv.reader(
        io.StringIO(text, newline=""), delimiter=delimiter or ",", skipinitialspace=True
    )
    end = 0
    try:
        for record in reader:
            start, end = end + 1, reader.line_num
            fields = [f.strip() for f in record]
            if any(fields) or len(fields) > 1:
                out.append((start, fields))
    except csv.Error as exc:
        raise InputError(f"{source}: line {reader.line_num}: cannot parse the CSV: {exc}") from None
    return out


def _drop_empty_trailing_columns(table: Table) -> None:
    """Drop unnamed trailing columns with no values (from lines ending in a delimiter)."""
    while len(table.names) > 1 and (len(table.names) - 1) in table.unnamed:
        last = len(table.names) - 1
        if any(len(row) > last and row[last] for row in table.rows):
            return
        table.names.pop()
        table.unnamed.discard(last)
        for row in table.rows:
            del row[last:]


def _check_widths(table: Table, header_line: int) -> None:
    """Every row must have as many fields as the header; empty extra fields are ignored."""
    width = len(table.names)
    what = DELIMITERS.get(table.delimiter, "no")
    for i, row in enumerate(table.rows):
        while len(row) > width and not row[-1]:
            row.pop()
        if len(row) != width:
            first = "first row" if table.headerless else "header"
            raise InputError(
                f"{table.source}: {table.where(i)} has {len(row)} field"
                f"{'s' if len(row) != 1 else ''} but the {first} (line {header_line}) has "
                f"{width} ({what} delimiter)"
            )
