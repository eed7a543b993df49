"""Which columns of a :class:`~abcd_cli.data.table.Table` are the inputs, for one or several.

* ``x`` names the inputs: one column (a name or a 1-based number) or several, as a list or as
  the text ``a,b,c`` (text that is itself a column's name names that one column). One input
  is chosen exactly as :func:`~abcd_cli.data.columns.choose_columns` chooses x.
* Without ``x``, a table of one or two columns is read as :func:`choose_columns` reads it.
  With more, y is ``y`` when given, else the column named ``y``, else the column
  :func:`choose_columns` takes for y; every other column that holds numbers or dates is an
  input (dates become decimal years). Left out, and named in a note: columns holding neither
  (text, or numbers mixed with words), columns without a name in a file with a header (such
  as an index written by pandas), and columns with no value or a single one. With several
  inputs a note names them.
* A column named in ``x`` that holds neither numbers nor dates is an error when it is read
  (:func:`~abcd_cli.data.values.x_values`), as for one input.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from abcd_cli.arrays import as_2d, columns
from abcd_cli.data.cells import normalized_name, show
from abcd_cli.data.columns import choose_columns, default_y, find_column
from abcd_cli.data.table import Table, capped
from abcd_cli.data.values import input_values, x_values
from abcd_cli.errors import InputError
from abcd_cli.limits import INPUTS

#: Ways to give the input columns: None (the defaults), one key, or several.
InputKeys = str | Sequence[str] | None

#: Fewest distinct values an input of several needs for periodic kernels to be tried on it. A
#: period is at most half the input's range (``kernels.params.period_limits``), so at least two
#: cycles lie in the data; each must be drawn by at least four distinct values to show a shape
#: that repeats rather than a few levels (a count of cylinders, a 0/1 code).
MIN_PERIODIC_VALUES = 8


def periodic_inputs(X: np.ndarray) -> tuple[int, ...]:
    """The inputs (columns of ``X``) periodic kernels may act on: the only one when there is
    one (a series' cycles, whatever its length), else each holding at least
    ``MIN_PERIODIC_VALUES`` distinct values."""
    if as_2d(X).shape[1] == 1:
        return (0,)  # no values to count (a long series' sort saved)
    return _periodic_of(_distinct_counts(X))


def _periodic_of(counts: list[int]) -> tuple[int, ...]:
    """``periodic_inputs`` from each input's count of distinct values."""
    if len(counts) == 1:
        return (0,)
    return tuple(d for d, count in enumerate(counts) if count >= MIN_PERIODIC_VALUES)


def _distinct_counts(X: np.ndarray) -> list[int]:
    """How many distinct values each input (column of ``X``, or ``X`` itself) holds."""
    return [int(np.unique(column).size) for column in columns(X)]


def not_periodic_note(X: np.ndarray, names: Sequence[str]) -> str | None:
    """The note naming the inputs of several that periodic kernels are not tried on, if any."""
    counts = _distinct_counts(X)
    allowed = set(_periodic_of(counts))
    left = [
        f"{show(name)} ({counts[d]} values)" for d, name in enumerate(names) if d not in allowed
    ]
    if not left:
        return None
    return (
        f"no periodic kernels on {capped(left)}: a cycle needs at least"
        f" {MIN_PERIODIC_VALUES} distinct values of its input"
    )


@dataclass(frozen=True)
class Choice:
    """The chosen columns: the inputs (none: x is the row position) and y, with notes on the
    columns left out, and the values already read of automatically chosen inputs."""

    inputs: tuple[int, ...]
    y: int
    notes: tuple[str, ...] = ()
    read: dict[int, tuple[np.ndarray, str]] = field(default_factory=dict)

    def values(self, table: Table, index: int) -> tuple[np.ndarray, str]:
        """The input column's values (decimal years for dates) and its kind."""
        return self.read[index] if index in self.read else x_values(table, index)


def choose_inputs(table: Table, x: InputKeys, y: str | None) -> Choice:
    """The input and y columns of ``table`` by the rules of the module docstring."""
    keys = input_keys(table, x)
    if (keys is not None and len(keys) == 1) or (keys is None and len(table.names) <= 2):
        xi, yi = choose_columns(table, None if keys is None else keys[0], y)
        return Choice(() if xi is None else (xi,), yi)
    if keys is not None:
        return _named(table, keys, y)
    return _automatic(table, y)


def input_keys(table: Table, x: InputKeys) -> list[str] | None:
    """The keys of the input columns: None for the defaults; text naming a column (exactly,
    or ignoring case) is that one column, other text with commas is split at them."""
    if x is None:
        return None
    if not isinstance(x, str):
        keys = [str(key) for key in x]
        if not keys:
            raise InputError(f"{table.source}: no input column given (--x)")
        return keys
    lowered = [name.strip().lower() for name in table.names]
    if "," not in x or x in table.names or x.strip().lower() in lowered:
        return [x]
    return [key.strip() for key in x.split(",")]


def _named(table: Table, keys: list[str], y: str | None) -> Choice:
    inputs = [find_column(table, key, "x") for key in keys]
    for i, xi in enumerate(inputs):
        if xi in inputs[:i]:
            raise InputError(f"{table.source}: --x names column {show(table.names[xi])} twice")
    yi = find_column(table, y, "y") if y is not None else default_y(table, inputs)
    if yi in inputs:
        raise InputError(f"{table.source}: --x and --y both name column {show(table.names[yi])}")
    return Choice(tuple(inputs), yi)


def _automatic(table: Table, y: str | None) -> Choice:
    """y as given or by default, and every other column that can be an input."""
    if y is not None:
        yi = find_column(table, y, "y")
    else:
        named_y = [i for i, name in enumerate(table.names) if normalized_name(name) == "y"]
        yi = named_y[0] if len(named_y) == 1 else choose_columns(table, None, None)[1]
    inputs: list[int] = []
    read: dict[int, tuple[np.ndarray, str]] = {}
    left_out: dict[str, list[str]] = {}
    for i, name in enumerate(table.names):
        if i == yi:
            continue
        reason, values = _unusable(table, i)
        if reason:
            left_out.setdefault(reason, []).append(show(name))
            continue
        inputs.append(i)
        read[i] = values  # type: ignore[assignment]
    if not inputs:
        raise InputError(
            f"{table.source}: no column other than y holds numbers or dates to use as x, among"
            f" {table.listing()}; pass --x and --y (names or numbers)"
        )
    notes = []
    if len(inputs) > 1:
        names = capped([show(table.names[i]) for i in inputs])
        notes.append(
            f"used {len(inputs)} inputs, every column holding numbers or dates but y: {names}"
            " (choose others with --x)"
        )
    notes += [f"left out {_columns(names)} {reason}" for reason, names in left_out.items()]
    return Choice(tuple(inputs), yi, tuple(notes), read)


def _unusable(table: Table, index: int) -> tuple[str, tuple[np.ndarray, str] | None]:
    """Why a column cannot be an input ('' when it can) and, when it can, its values."""
    if index in table.unnamed and not table.headerless:
        return "without a name (an index?)", None
    values = input_values(table, index)
    if values is None:
        return "holding neither numbers nor dates", None
    present = values[0][~np.isnan(values[0])]
    if present.size == 0:
        return "with no values", None
    if np.all(present == present[0]):
        return "with a single value", None
    return "", values


def _columns(names: list[str]) -> str:
    """'column 'a'' or 'columns 'a', 'b''."""
    return f"column{'s' if len(names) > 1 else ''} {capped(names)}"


def check_input_count(n_inputs: int, source: str) -> None:
    """Refuse a search over more input columns than :data:`abcd_cli.limits.INPUTS`: every
    base kernel on every input makes a level's candidates grow with their number."""
    most = INPUTS.value()
    if n_inputs > most:
        raise InputError(
            f"{source}: {n_inputs:,} input columns, more than the {most} one search takes; name"
            f" the inputs to search with --x a,b,c (x=[...] in Python), or {INPUTS.raise_hint()}"
        )
