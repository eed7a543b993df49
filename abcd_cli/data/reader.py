"""Read a user's CSV file and validate it into a :class:`Series`.

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
  position 0..n-1 (named ``index``); two columns -> x then y; more -> x is the single column
  named like a time (``x``, ``t``, ``time``, ``date``, ``year``, ...) and y is the column named
  ``y``, or else the single other numeric column. Anything else is an error listing the columns.
* **Values.** Empty cells and ``NA``, ``N/A``, ``NaN``, ``null``, ``None``, ``-``, ``?``, ``.``
  are missing: such rows are dropped and counted. Any other non-number (or, for x, non-date) is
  an error naming the row; so are infinities.
* **Dates.** An x column that is not all numbers is read as dates, cell by cell, so formats
  may be mixed: ``2020-01-31``, ``2020-01-31 13:45``, ``2020/01/31``, ``31/01/2020``,
  ``01/31/2020`` (day or month first is decided once for the whole column: a part above 12
  settles it, else a part that never changes is the day, else it is an error), ``31.01.2020``,
  ``2020-01`` (monthly), ``2020-Q1``, AM/PM times, and through pandas anything with a 4-digit
  year such as ``Jan 2020`` or ``2020-01-31T13:45+02:00`` (converted to UTC). Dates become
  decimal years: year + (day_of_year - 1 + fraction of the day) / days_in_year
  (:mod:`abcd_cli.data.dates` reads the cells; the column-wide day/month decision is here).
* **Kind of x** (see :func:`is_year_column`). A column of dates is ``"date"``. A numeric
  column is ``"year"`` when its name mentions years (``year``, ``yr``, ``decimal_year``, ...)
  or when all its values lie in [1000, 3000] and its name is a neutral time name (``x``,
  ``t``, ``time``, ``date``, ...) or is missing; else ``"number"``.
* **Sanity.** At least :data:`MIN_POINTS` usable rows; neither y nor x constant; magnitudes within
  [1e-150, 1e150]; spreads not lost in rounding (y: 1e-12 of its magnitude, x: 1e-9).
* **Order.** Rows are sorted by x (stable); repeated x values are kept.
"""

from __future__ import annotations

import codecs
import csv
import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from abcd_cli.data.dates import (
    DAYS_PER_YEAR,
    DMY_DATE,
    DateParts,
    decimal_year,
    from_decimal_year,
    is_plain_date,
    numeric_date,
    written_dates,
)
from abcd_cli.data.time_units import counted, in_largest_unit
from abcd_cli.errors import InputError

#: Fewest usable rows accepted. The simplest models in the search already have two to four
#: hyper-parameters, and comparing models by BIC on fewer points than that is meaningless.
MIN_POINTS = 5
#: Largest accepted magnitude of a value: squares and products must stay finite.
MAX_MAGNITUDE = 1e150
#: Smallest accepted non-zero magnitude of a column: squares must not underflow to zero.
MIN_MAGNITUDE = 1e-150
#: y must vary by at least this fraction of its largest magnitude.
MIN_RELATIVE_Y_SPREAD = 1e-12
#: x must span at least this fraction of its largest magnitude.
MIN_RELATIVE_X_SPREAD = 1e-9
#: Numeric x values all inside this range may be decimal years.
YEAR_RANGE = (1000.0, 3000.0)
#: Files larger than this are refused (exact GP inference could not use them anyway).
MAX_FILE_BYTES = 256 * 1024 * 1024

X_KINDS = ("date", "year", "number")
MISSING_TOKENS = frozenset({"", "na", "n/a", "nan", "null", "none", "#n/a", "-", "?", "."})
TIME_NAMES = frozenset(
    {"x", "t", "time", "date", "year", "yr", "datetime", "date time", "timestamp", "decimal year"}
)
NEUTRAL_TIME_NAMES = frozenset(
    {"x", "t", "time", "date", "datetime", "date time", "timestamp", "decimal date", "period"}
)
YEAR_WORDS = frozenset({"year", "years", "yr", "yrs"})
DELIMITERS = {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe", " ": "whitespace"}

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_DECIMAL_COMMA = re.compile(r"[+-]?\d*,\d+(?:[eE][+-]?\d+)?", re.ASCII)
_INFINITY = re.compile(r"[+-]?(?:inf|infinity)", re.IGNORECASE)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")


@dataclass(frozen=True, eq=False)
class Series:
    """A validated time series: x sorted ascending (float64) and y (float64), in user units."""

    x: np.ndarray
    y: np.ndarray
    x_name: str
    y_name: str
    x_kind: str
    n_dropped: int = 0
    warnings: tuple[str, ...] = ()
    source: str = ""

    def __post_init__(self) -> None:
        if self.x_kind not in X_KINDS:
            raise ValueError(f"x_kind must be one of {X_KINDS}, not {self.x_kind!r}")
        for name in ("x", "y"):
            arr = np.array(getattr(self, name), dtype=np.float64)
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        if self.x.shape != self.y.shape or self.x.ndim != 1:
            raise ValueError("x and y must be one-dimensional arrays of the same length")

    def __len__(self) -> int:
        return int(self.x.size)

    @property
    def n(self) -> int:
        """Number of points."""
        return int(self.x.size)

    @property
    def spacing(self) -> float:
        """Median positive difference between consecutive x values (0.0 if there is none)."""
        steps = np.diff(self.x)
        steps = steps[steps > 0]
        return float(np.median(steps)) if steps.size else 0.0

    @property
    def time_unit(self) -> str:
        """``"years"`` when x is in decimal years (dates or year numbers), else ``""``."""
        return "years" if self.x_kind in ("date", "year") else ""

    def description(self) -> str:
        """One line: size, x range in the user's terms, spacing, y range, rows dropped."""
        name = Path(self.source).name if self.source else "data"
        dropped = f"{self.n_dropped} row{'' if self.n_dropped == 1 else 's'} dropped"
        if not self.n:
            return f"{name}: no points, {dropped}"
        return (
            f"{name}: {self.n} points, x {self.x_name!r} {_x_range_text(self)}, "
            f"median spacing {_spacing_text(self)}, y {self.y_name!r} from "
            f"{self.y.min():.6g} to {self.y.max():.6g}, {dropped}"
        )


@dataclass
class _Table:
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
        return [row[index] for row in self.rows]

    def where(self, row: int) -> str:
        """'row R (line L)' for the 0-based data row ``row``."""
        return f"row {row + 1} (line {self.lines[row]})"

    def listing(self) -> str:
        return ", ".join(f"{i + 1} {name!r}" for i, name in enumerate(self.names))


# ----------------------------------------------------------------------------- entry point


def load_series(path: str | Path, x: str | None = None, y: str | None = None) -> Series:
    """Read the CSV at ``path`` and return a validated :class:`Series`.

    ``x`` and ``y`` choose columns by name or 1-based number; see the module docstring for the
    defaults. Raises :class:`InputError` with a one-line message for any unusable input.
    """
    source = str(path)
    text, notes = _decode(_read_bytes(Path(path), source), source)
    table = _parse_table(text, source)
    table.notes[:0] = notes
    xi, yi = _choose_columns(table, x, y)
    yv = _numeric_values(table, yi)
    if xi is None:
        xv, kind, x_name = np.arange(len(table.rows), dtype=np.float64), "number", "index"
    else:
        xv, kind = _x_values(table, xi)
        x_name = table.names[xi]
    return _finish(table, xv, yv, kind, x_name, table.names[yi])


def _finish(
    table: _Table, xv: np.ndarray, yv: np.ndarray, kind: str, x_name: str, y_name: str
) -> Series:
    """Drop missing rows, check the values, sort by x and build the Series."""
    src, notes = table.source, list(table.notes)
    missing = np.isnan(xv) | np.isnan(yv)
    n_dropped = int(missing.sum())
    if n_dropped:
        notes.append(_dropped_note(table, missing))
    xv, yv = xv[~missing], yv[~missing]
    if xv.size < MIN_POINTS:
        extra = f" ({n_dropped} dropped for missing values)" if n_dropped else ""
        raise InputError(
            f"{src}: too few data points: at least {MIN_POINTS} rows with both x and y are "
            f"needed, found {xv.size}{extra}"
        )
    _check_y(yv, y_name, src)
    _check_x(xv, x_name, kind, src)
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


def _dropped_note(table: _Table, missing: np.ndarray) -> str:
    rows = [int(i) + 1 for i in np.flatnonzero(missing)]
    shown = ", ".join(map(str, rows[:5])) + (", ..." if len(rows) > 5 else "")
    plural = "s" if len(rows) > 1 else ""
    return f"dropped {len(rows)} row{plural} with missing values (data row{plural} {shown})"


# ----------------------------------------------------------------------------- reading


def _read_bytes(path: Path, source: str) -> bytes:
    """The file's bytes, or an InputError saying why they cannot be had."""
    try:
        if path.is_dir():
            raise InputError(f"{source}: is a directory, not a CSV file")
        if not path.exists():
            raise InputError(f"{source}: file not found")
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except PermissionError:
        raise InputError(f"{source}: permission denied: cannot read the file") from None
    except (OSError, ValueError) as exc:  # ValueError: a path with a NUL character
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise InputError(f"{source}: cannot read the file: {reason}") from None
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"{source}: file is larger than {MAX_FILE_BYTES // 2**20} MiB")
    return data


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


def _parse_table(text: str, source: str) -> _Table:
    """Split the text into a header and rows of equal width."""
    if not text.strip():
        raise InputError(f"{source}: the file is empty")
    delimiter = _sniff_delimiter([ln for ln in _LINE_BREAK.split(text) if ln.strip()][:200])
    records = _records(text, delimiter, source)
    if not records:
        raise InputError(f"{source}: the file holds no values")
    first_line, header = records[0]
    table = _Table(source, [], [], [], delimiter)
    if all(_is_number(c) or is_plain_date(c) for c in header):
        table.names = [f"column {i + 1}" for i in range(len(header))]
        table.unnamed = set(range(len(header)))
        table.headerless = True
        body = records
        if len(header) > 1:
            table.notes.append("the first line holds data, not column names; numbered the columns")
    else:
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


def _drop_empty_trailing_columns(table: _Table) -> None:
    """Drop unnamed trailing columns with no values (from lines ending in a delimiter)."""
    while len(table.names) > 1 and (len(table.names) - 1) in table.unnamed:
        last = len(table.names) - 1
        if any(len(row) > last and row[last] for row in table.rows):
            return
        table.names.pop()
        table.unnamed.discard(last)
        for row in table.rows:
            del row[last:]


def _check_widths(table: _Table, header_line: int) -> None:
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


# ----------------------------------------------------------------------------- columns


def _choose_columns(table: _Table, x: str | None, y: str | None) -> tuple[int | None, int]:
    """0-based indices of the x column (None: use the row position) and the y column."""
    xi = _find_column(table, x, "x") if x is not None else None
    yi = _find_column(table, y, "y") if y is not None else None
    if xi is not None and xi == yi:
        raise InputError(f"{table.source}: --x and --y both name column {table.names[xi]!r}")
    width = len(table.names)
    if x is None:
        if width == 1:
            return None, 0
        xi = _default_x(table, yi) if width > 2 else (0 if yi is None else 1 - yi)
    if yi is None:
        yi = _default_y(table, xi)
    return xi, yi


def _find_column(table: _Table, key: str, option: str) -> int:
    """The column named ``key`` (exactly, then ignoring case) or numbered ``key`` (1-based)."""
    names = table.names
    for match in (lambda n: n == key, lambda n: n.strip().lower() == key.strip().lower()):
        found = [i for i, name in enumerate(names) if match(name)]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            numbers = " and ".join(str(i + 1) for i in found)
            raise InputError(
                f"{table.source}: column name {key!r} is used by columns {numbers}; "
                f"pass --{option} as a column number instead"
            )
    text = key.strip()
    if re.fullmatch(r"[0-9]+", text) and 1 <= int(text) <= len(names):
        return int(text) - 1
    raise InputError(
        f"{table.source}: no column {key!r} (--{option}); available columns: {table.listing()}"
    )


def _default_x(table: _Table, exclude: int | None) -> int:
    found = [i for i, name in enumerate(table.names) if i != exclude and _norm(name) in TIME_NAMES]
    if len(found) == 1:
        return found[0]
    raise _ambiguous(table)


def _default_y(table: _Table, xi: int | None) -> int:
    others = [i for i in range(len(table.names)) if i != xi]
    if not others:
        raise InputError(
            f"{table.source}: has only one column ({table.names[0]!r}), so nothing is left for y"
        )
    if len(others) == 1:
        return others[0]
    named = [i for i in others if _norm(table.names[i]) == "y"]
    if len(named) == 1:
        return named[0]
    numeric = [i for i in others if i not in table.unnamed and _is_numeric_column(table, i)]
    if len(numeric) == 1:
        return numeric[0]
    raise _ambiguous(table)


def _ambiguous(table: _Table) -> InputError:
    return InputError(
        f"{table.source}: cannot tell which columns are x and y among {table.listing()}; "
        "pass --x and --y (names or numbers)"
    )


def _norm(name: str) -> str:
    return re.sub(r"[\s_.\-]+", " ", name.strip().lower()).strip()


def _is_numeric_column(table: _Table, index: int) -> bool:
    values, bad, _ = _numbers(table, index)
    return not bad and not np.all(np.isnan(values))


# ----------------------------------------------------------------------------- values


def _is_missing(cell: str) -> bool:
    return cell.strip().lower() in MISSING_TOKENS


def _is_number(cell: str) -> bool:
    return _to_float(cell, decimal_comma=False) is not None


def _to_float(cell: str, decimal_comma: bool) -> float | None:
    """The number written in ``cell`` (possibly infinite), or None if it is not a number."""
    text = cell.strip()
    if decimal_comma and _DECIMAL_COMMA.fullmatch(text):
        text = text.replace(",", ".")
    if _NUMBER.fullmatch(text):
        return float(text)
    if _INFINITY.fullmatch(text):
        return -math.inf if text.startswith("-") else math.inf
    return None


def _numbers(table: _Table, index: int) -> tuple[np.ndarray, list[int], list[str]]:
    """Column values (NaN where missing), rows that are not numbers, and notes."""
    cells = table.column(index)
    values, bad = _convert(cells, decimal_comma=False)
    if bad and table.delimiter == ";":
        comma_values, comma_bad = _convert(cells, decimal_comma=True)
        if not comma_bad:
            note = f"read ',' as the decimal mark in column {table.names[index]!r}"
            return comma_values, [], [note]
    return values, bad, []


def _convert(cells: list[str], decimal_comma: bool) -> tuple[np.ndarray, list[int]]:
    values = np.full(len(cells), np.nan)
    bad: list[int] = []
    for i, cell in enumerate(cells):
        if _is_missing(cell):
            continue
        number = _to_float(cell, decimal_comma)
        if number is None:
            bad.append(i)
        else:
            values[i] = number
    return values, bad


def _numeric_values(table: _Table, index: int) -> np.ndarray:
    """A numeric column's values, NaN where missing; an error for any other non-number."""
    values, bad, notes = _numbers(table, index)
    if bad:
        raise _not_a(table, index, bad, "a number")
    _check_finite(table, index, values)
    table.notes.extend(notes)
    return values


def _not_a(table: _Table, index: int, bad: list[int], what: str, hint: str = "") -> InputError:
    cell = table.rows[bad[0]][index]
    more = f" ({len(bad)} such values in the column)" if len(bad) > 1 else ""
    return InputError(
        f"{table.source}: {table.where(bad[0])}: column {table.names[index]!r} value "
        f"{_show(cell)} is not {what}{more}{hint}"
    )


def _show(cell: str) -> str:
    return repr(cell if len(cell) <= 40 else cell[:37] + "...")


def _check_finite(table: _Table, index: int, values: np.ndarray) -> None:
    infinite = np.flatnonzero(np.isinf(values))
    if infinite.size:
        row = int(infinite[0])
        raise InputError(
            f"{table.source}: {table.where(row)}: column {table.names[index]!r} value "
            f"{_show(table.rows[row][index])} is infinite or too large for a 64-bit number"
        )


def _x_values(table: _Table, index: int) -> tuple[np.ndarray, str]:
    """x values (NaN where missing) and their kind: numbers, year numbers or dates."""
    values, bad, notes = _numbers(table, index)
    if not bad:
        _check_finite(table, index, values)
        table.notes.extend(notes)
        kind = "year" if is_year_column(table.names[index], values[~np.isnan(values)]) else "number"
        if index in table.unnamed and kind == "number" and _in_year_range(values):
            kind = "year"
        return values, kind
    dates, bad_dates = _dates(table, index)
    if not bad_dates:
        return dates, "date"
    present = sum(not _is_missing(c) for c in table.column(index))
    numbers, dates_found = present - len(bad), present - len(bad_dates)
    if numbers == dates_found == 0:
        raise _not_a(table, index, bad, "a number or a date")
    if numbers >= dates_found:
        raise _not_a(table, index, bad, "a number")
    raise _not_a(table, index, bad_dates, "a date", "; write dates like 2020-01-31")


def is_year_column(name: str, values: np.ndarray) -> bool:
    """Whether numeric x values are decimal years (see the module docstring for the rule)."""
    words = set(re.split(r"[^a-z]+", name.lower()))
    if words & YEAR_WORDS or "year" in name.lower():
        return True
    return _norm(name) in NEUTRAL_TIME_NAMES and _in_year_range(values)


def _in_year_range(values: np.ndarray) -> bool:
    finite = values[np.isfinite(values)]
    low, high = YEAR_RANGE
    return bool(finite.size) and bool(np.all((finite >= low) & (finite <= high)))


# ----------------------------------------------------------------------------- dates


def _dates(table: _Table, index: int) -> tuple[np.ndarray, list[int]]:
    """Decimal years of a date column (NaN where missing) and the rows that are not dates."""
    cells = [cell.strip() for cell in table.column(index)]
    day_first = _day_first(table, index)
    found: dict[int, DateParts | None] = {}
    others: list[int] = []
    for i, cell in enumerate(cells):
        if _is_missing(cell):
            continue
        matched, found[i] = numeric_date(cell, day_first)
        if not matched and not _NUMBER.fullmatch(cell):
            others.append(i)
    found.update(zip(others, written_dates([cells[i] for i in others]), strict=True))
    values = np.full(len(cells), np.nan)
    bad: list[int] = []
    for i, parts in sorted(found.items()):
        if parts is None:
            bad.append(i)
        else:
            values[i] = decimal_year(*parts)
    return values, bad


def _day_first(table: _Table, index: int) -> bool:
    """Resolve a/b/yyyy dates: day first or month first, decided from the whole column."""
    matches = [(i, m) for i, c in enumerate(table.column(index)) if (m := DMY_DATE.fullmatch(c))]
    if not matches:
        return False
    firsts = {int(m.group(1)) for _, m in matches}
    seconds = {int(m.group(2)) for _, m in matches}
    name = table.names[index]
    if max(firsts) > 12 and max(seconds) > 12:
        raise InputError(
            f"{table.source}: column {name!r} mixes day/month/year and month/day/year dates; "
            "write dates like 2020-01-31"
        )
    if max(firsts) > 12 or (max(seconds) <= 12 and len(firsts) == 1 < len(seconds)):
        day_first = True
    elif max(seconds) > 12 or (len(seconds) == 1 < len(firsts)):
        day_first = False
    else:
        raise InputError(
            f"{table.source}: {table.where(matches[0][0])}: column {name!r} date "
            f"{_show(matches[0][1].group(0))} could be day/month or month/day; "
            "write dates like 2020-01-31"
        )
    if max(firsts) <= 12 and max(seconds) <= 12:
        order = "day/month/year" if day_first else "month/day/year"
        table.notes.append(f"read the dates in column {name!r} as {order}")
    return day_first


# ----------------------------------------------------------------------------- checks


def _check_magnitude(values: np.ndarray, name: str, source: str) -> float:
    biggest = float(np.max(np.abs(values)))
    if biggest > MAX_MAGNITUDE:
        raise InputError(
            f"{source}: column {name!r} has values as large as {biggest:.3g}; magnitudes above "
            f"{MAX_MAGNITUDE:.0e} would overflow the computations, so rescale the column"
        )
    if 0 < biggest < MIN_MAGNITUDE:
        raise InputError(
            f"{source}: column {name!r} has values no larger than {biggest:.3g}; magnitudes "
            f"below {MIN_MAGNITUDE:.0e} would underflow the computations, so rescale the column"
        )
    return biggest


def _check_y(values: np.ndarray, name: str, source: str) -> None:
    biggest = _check_magnitude(values, name, source)
    spread = float(np.ptp(values))
    if spread == 0:
        raise InputError(
            f"{source}: column {name!r} is constant (value {values[0]:.6g}): "
            "there is nothing to model"
        )
    if spread < MIN_RELATIVE_Y_SPREAD * biggest:
        raise InputError(
            f"{source}: column {name!r} varies by only {spread:.3g} at a size of {biggest:.6g} "
            f"(less than {MIN_RELATIVE_Y_SPREAD:.0e} of it), which is lost in rounding; "
            "subtract a baseline before saving the file"
        )


def _check_x(values: np.ndarray, name: str, kind: str, source: str) -> None:
    biggest = _check_magnitude(values, name, source)
    spread = float(np.ptp(values))
    if spread == 0:
        raise InputError(
            f"{source}: all x values in column {name!r} are equal ({values[0]:.10g}): "
            "at least two different x values are needed"
        )
    if spread < MIN_RELATIVE_X_SPREAD * biggest:
        if kind == "date":
            reason = (
                f"the dates span only {spread * 365.25 * 86400:.3g} seconds, too little to "
                "resolve in decimal years; give x as a number of seconds instead"
            )
        else:
            reason = (
                f"x spans only {spread:.3g} at a size of {biggest:.10g} (less than "
                f"{MIN_RELATIVE_X_SPREAD:.0e} of it), so distances between x values would lose "
                "their precision; subtract an offset from x first"
            )
        raise InputError(f"{source}: column {name!r}: {reason}")


# ----------------------------------------------------------------------------- description


def _x_range_text(series: Series) -> str:
    low, high = float(series.x[0]), float(series.x[-1])
    if series.x_kind == "date":
        start, end = from_decimal_year(low), from_decimal_year(high)
        if start is not None and end is not None:
            fmt = _date_format(series.spacing * DAYS_PER_YEAR)
            return f"from {start:{fmt}} to {end:{fmt}} (dates, as decimal years)"
    if series.x_kind in ("date", "year"):
        decimals = _year_decimals(series)
        return f"from {low:.{decimals}f} to {high:.{decimals}f} (decimal years)"
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
    step = series.spacing
    if not series.time_unit or step <= 0:
        return f"{step:.4g}"
    unit = "year" if step == 1 else "years"
    return f"{step:.4g} {unit} ({_human_duration(step)})"


def _human_duration(years: float) -> str:
    """'about 3 months', 'about 1 day', ... for a positive length in years: a whole count
    when within 5% of one, else three significant digits."""
    count, unit = in_largest_unit(years)
    if abs(count - round(count)) <= 0.05 * count:
        return f"about {counted(str(round(count)), unit)}"
    return f"about {counted(f'{count:.3g}', unit)}"


def load_inputs(path: str | Path, x: str | None = None) -> tuple[np.ndarray, list[str], str, str]:
    """Read the x column of a file of new inputs (for predictions), in the file's row order.

    Returns the values (decimal years for dates), the cells as written, the column name and its
    kind. The column is chosen as in :func:`load_series` (``x`` by name or number; otherwise the
    only column, or the one named like time). A missing x is an error: there is nothing to
    predict at.
    """
    source = str(path)
    text, notes = _decode(_read_bytes(Path(path), source), source)
    table = _parse_table(text, source)
    if x is not None:
        xi = _find_column(table, x, "x")
    elif len(table.names) <= 2:
        xi = 0
    else:
        xi = _default_x(table, None)
    cells = table.column(xi)
    missing = [i for i, cell in enumerate(cells) if _is_missing(cell)]
    if missing:
        raise InputError(
            f"{source}: column {table.names[xi]!r} has no value in {table.where(missing[0])}"
        )
    values, kind = _x_values(table, xi)
    return values, cells, table.names[xi], kind
