"""A small declarative check of a parsed JSON document's shape.

A schema is built from the kinds below: :class:`Obj` (required and optional keys),
:class:`List`, :class:`Text`, :class:`Bool`, :class:`Whole` and :class:`Number` (with
ranges), :class:`Numbers` (a list of numbers), :class:`Rows` (rows of numbers of one width),
:class:`Choice`, :class:`Nullable`, :class:`Either` and :class:`Anything`. :func:`check` walks
a document along it and raises :class:`~abcd_cli.errors.InputError` with one line naming the
file and the first part refused by its path::

    model file m.json: notes must be a list of text, not 5
    model file m.json: notes must be a list of text; notes[1] is 5
    model file m.json: data.y must be a list of finite numbers within ±1e+150; data.y[0] is inf

Each kind describes itself (``what``: the words after "must be"; ``many``: its plural, after
"a list of"), so a schema needs no messages of its own. :func:`refuse` words a check no kind
expresses (one field against another) the same way; :func:`load_json` reads a file, refusing
a missing, unreadable or too deeply nested one in one line.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from abcd_cli.bounded import read_bounded
from abcd_cli.errors import InputError

#: How deeply lists and objects may nest in a document (a model file needs 6 levels).
MAX_DEPTH = 32


class Refused(Exception):
    """The part of a document at ``path`` that a schema refuses, and why (``problem``);
    ``at`` is the innermost part at fault (a list's item, when the list is named)."""

    def __init__(self, path: str, problem: str, at: str | None = None) -> None:
        super().__init__(f"{path} {problem}")
        self.path, self.problem, self.at = path, problem, path if at is None else at


def shown(value: Any) -> str:
    """A short rendering of a JSON value for a message: ``nan``, ``5``, ``"oops"``, ``null``,
    ``a list of 3 items``, ``an object``."""
    if value is None:
        return "null"
    if isinstance(value, bool | np.bool_):
        return "true" if value else "false"
    if isinstance(value, int | np.integer):
        text = str(value)
        return text if len(text) <= 24 else f"a whole number of {len(text)} digits"
    if isinstance(value, float | np.floating):
        return repr(float(value))
    if isinstance(value, str):
        return json.dumps(value if len(value) <= 40 else value[:40] + "...")
    if isinstance(value, list | tuple):
        return f"a list of {len(value)} item{'s' * (len(value) != 1)}" if value else "[]"
    if isinstance(value, Mapping):
        return "an object" if value else "{}"
    return f"a {type(value).__name__}"


def join(path: str, key: str | int) -> str:
    """The path of ``key`` (an object's key or a list's index) inside ``path``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    )


def _is_list(value: Any) -> bool:
    return isinstance(value, list | tuple)


class Spec:
    """One expected shape. ``what`` completes "must be ..."; ``many`` names several."""

    what: str = "a value"
    many: str = "values"

    def check(self, value: Any, path: str) -> None:
        """Raise :class:`Refused` when ``value`` (at ``path``) does not have this shape."""
        raise NotImplementedError

    def refuse(self, value: Any, path: str) -> NoReturn:
        raise Refused(path, f"must be {self.what}, not {shown(value)}")


@dataclass(frozen=True)
class Anything(Spec):
    """Any JSON value (its nesting is still bounded by :func:`check`)."""

    def check(self, value: Any, path: str) -> None:
        return None


@dataclass(frozen=True)
class Text(Spec):
    """A string."""

    what = many = "text"

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, str):
            self.refuse(value, path)


@dataclass(frozen=True)
class Bool(Spec):
    """true or false."""

    what = "true or false"
    many = "true-or-false values"

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, bool):
            self.refuse(value, path)


@dataclass(frozen=True)
class Whole(Spec):
    """A whole number (not a boolean, nor 3.0) from ``min`` to ``max`` (None: no limit)."""

    min: int | None = None
    max: int | None = None

    def _range(self) -> str:
        if self.min is not None and self.max is not None:
            return f" from {self.min} to {self.max}"
        if self.min is not None:
            return f" of at least {self.min}"
        return "" if self.max is None else f" of at most {self.max}"

    @property
    def what(self) -> str:  # type: ignore[override]
        return "a whole number" + self._range()

    @property
    def many(self) -> str:  # type: ignore[override]
        return "whole numbers" + self._range()

    def check(self, value: Any, path: str) -> None:
        if (
            not isinstance(value, int | np.integer)
            or isinstance(value, bool)
            or (self.min is not None and value < self.min)
            or (self.max is not None and value > self.max)
        ):
            self.refuse(value, path)


@dataclass(frozen=True)
class Number(Spec):
    """A finite number (whole or not, not a boolean): at least ``min``, above ``above``, at
    most ``max``, below ``below``, within ±``magnitude`` (each None: no such limit)."""

    min: float | None = None
    above: float | None = None
    max: float | None = None
    below: float | None = None
    magnitude: float | None = None

    def _range(self) -> str:
        parts = [] if self.above is None else [f"above {self.above:g}"]
        if self.min is not None and self.max is not None:
            parts.append(f"from {self.min:g} to {self.max:g}")
        else:
            parts += [] if self.min is None else [f"of at least {self.min:g}"]
            parts += [] if self.max is None else [f"of at most {self.max:g}"]
        parts += [] if self.below is None else [f"below {self.below:g}"]
        parts += [] if self.magnitude is None else [f"within ±{self.magnitude:g}"]
        return "".join((" and " if i else " ") + part for i, part in enumerate(parts))

    @property
    def what(self) -> str:  # type: ignore[override]
        return "a finite number" + self._range()

    @property
    def many(self) -> str:  # type: ignore[override]
        return "finite numbers" + self._range()

    def accepts(self, values: np.ndarray) -> np.ndarray:
        """Which of ``values`` (floats) are finite and within the limits (without warnings:
        comparisons with NaN are only false)."""
        ok = np.isfinite(values)
        for limit, within in (
            (self.min, np.greater_equal),
            (self.above, np.greater),
            (self.max, np.less_equal),
            (self.below, np.less),
        ):
            if limit is not None:
                ok &= within(values, limit)
        if self.magnitude is not None:
            ok &= np.abs(values) <= self.magnitude
        return ok

    def first_refused(self, items: list[Any]) -> int | None:
        """The index of the first of ``items`` refused (not a number, a whole number too large
        for a float, or out of the limits), or None; all at once, for long lists."""
        bad = next((i for i, v in enumerate(items) if not _is_number(v)), None)
        if bad is not None:
            return bad
        try:
            values = np.array(items, dtype=float)
        except OverflowError:  # a whole number beyond 1.8e308
            return next(i for i, v in enumerate(items) if abs(v) > 1e308)
        refused = np.flatnonzero(~self.accepts(values))
        return int(refused[0]) if refused.size else None

    def check(self, value: Any, path: str) -> None:
        if self.first_refused([value]) is not None:
            self.refuse(value, path)


def _list_of(min_len: int, max_len: int | None = None) -> tuple[str, str]:
    """The words before what a list holds: "a list of at least 2 " and "lists of ..."."""
    if max_len is not None:
        count = f"{max_len} " if min_len == max_len else f"{min_len} to {max_len} "
    else:
        count = f"at least {min_len} " if min_len > 1 else ""
    if min_len == 1 and max_len is None:
        return "a non-empty list of ", "non-empty lists of "
    return f"a list of {count}", f"lists of {count}"


class _Sequence(Spec):
    """A list whose items are named in its own message when one is refused as a whole:
    "notes must be a list of text; notes[1] is 5"."""

    def describe(self) -> tuple[str, str, str]:
        """The words before what the list holds ("a list of at least 2 "), their plural, and
        what it holds ("finite numbers")."""
        raise NotImplementedError

    @property
    def what(self) -> str:  # type: ignore[override]
        first, _, holds = self.describe()
        return first + holds

    @property
    def many(self) -> str:  # type: ignore[override]
        _, plural, holds = self.describe()
        return plural + holds

    def refuse_item(self, item: Any, path: str, at: str) -> NoReturn:
        raise Refused(path, f"must be {self.what}; {at} is {shown(item)}", at=at)


@dataclass(frozen=True)
class Numbers(_Sequence):
    """A list of at least ``min_len`` numbers, each as ``number`` requires (checked at once:
    a list of a million numbers takes a fraction of a second)."""

    number: Number = field(default_factory=Number)
    min_len: int = 0

    def describe(self) -> tuple[str, str, str]:
        return (*_list_of(self.min_len), self.number.many)

    def check(self, value: Any, path: str) -> None:
        if not _is_list(value) or len(value) < self.min_len:
            self.refuse(value, path)
        bad = self.number.first_refused(list(value))
        if bad is not None:
            self.refuse_item(value[bad], path, join(path, bad))


@dataclass(frozen=True)
class Rows(_Sequence):
    """A list of at least ``min_len`` rows, each a list of ``width`` numbers as ``number``
    requires (``width`` None: any width, the same for every row)."""

    number: Number = field(default_factory=Number)
    width: int | None = None
    min_len: int = 0

    def describe(self) -> tuple[str, str, str]:
        rows = "equally long rows of" if self.width is None else f"rows of {self.width}"
        return (*_list_of(self.min_len), f"{rows} {self.number.many}")

    def check(self, value: Any, path: str) -> None:
        if not _is_list(value) or len(value) < self.min_len:
            self.refuse(value, path)
        width = self.width
        for i, row in enumerate(value):
            if not _is_list(row) or not row or len(row) != (width or len(row)):
                self.refuse_item(row, path, join(path, i))
            width = len(row)
        flat = [v for row in value for v in row]
        bad = self.number.first_refused(flat)
        if bad is not None:
            row, column = divmod(bad, width or 1)
            self.refuse_item(flat[bad], path, f"{path}[{row}][{column}]")


@dataclass(frozen=True)
class List(_Sequence):
    """A list of ``min_len`` to ``max_len`` items (None: no upper limit), each an ``item``."""

    item: Spec
    min_len: int = 0
    max_len: int | None = None

    def describe(self) -> tuple[str, str, str]:
        return (*_list_of(self.min_len, self.max_len), self.item.many)

    def check(self, value: Any, path: str) -> None:
        if (
            not _is_list(value)
            or len(value) < self.min_len
            or (self.max_len is not None and len(value) > self.max_len)
        ):
            self.refuse(value, path)
        for i, item in enumerate(value):
            try:
                self.item.check(item, join(path, i))
            except Refused as exc:
                if exc.at != join(path, i):
                    raise  # a part inside the item: named by its own path
                self.refuse_item(item, path, exc.at)


@dataclass(frozen=True, init=False)
class Choice(Spec):
    """One of the given values, or of those ``live()`` gives as each value is checked (a
    registry, which may have grown since import)."""

    options: Collection[Any] | Callable[[], Collection[Any]]

    def __init__(self, *options: Any, live: Callable[[], Collection[Any]] | None = None) -> None:
        object.__setattr__(self, "options", options if live is None else live)

    @property
    def current(self) -> Collection[Any]:
        return self.options() if callable(self.options) else self.options

    @property
    def what(self) -> str:  # type: ignore[override]
        return "one of " + ", ".join(json.dumps(o) for o in self.current)

    @property
    def many(self) -> str:  # type: ignore[override]
        return "values among " + ", ".join(json.dumps(o) for o in self.current)

    def check(self, value: Any, path: str) -> None:
        if isinstance(value, bool) or value not in self.current:
            self.refuse(value, path)


@dataclass(frozen=True)
class Nullable(Spec):
    """``spec`` or null."""

    spec: Spec

    @property
    def what(self) -> str:  # type: ignore[override]
        return f"{self.spec.what} or null"

    @property
    def many(self) -> str:  # type: ignore[override]
        return f"{self.spec.many} or nulls"

    def check(self, value: Any, path: str) -> None:
        if value is None:
            return
        try:
            self.spec.check(value, path)
        except Refused as exc:
            if exc.at == path:  # refused as a whole: null would have done
                self.refuse(value, path)
            raise


@dataclass(frozen=True, init=False)
class Either(Spec):
    """One of several shapes, tried in order. When none fits, the value is refused as a
    whole, unless exactly one of them refused a part inside it (the value had that shape's
    type): then that part is named."""

    specs: tuple[Spec, ...]

    def __init__(self, *specs: Spec) -> None:
        object.__setattr__(self, "specs", specs)

    @property
    def what(self) -> str:  # type: ignore[override]
        return " or ".join(s.what for s in self.specs)

    @property
    def many(self) -> str:  # type: ignore[override]
        return " or ".join(s.many for s in self.specs)

    def check(self, value: Any, path: str) -> None:
        inside = []
        for spec in self.specs:
            try:
                spec.check(value, path)
                return
            except Refused as exc:
                inside += [exc] if exc.at != path else []
        if len(inside) == 1:
            raise inside[0]
        self.refuse(value, path)


@dataclass(frozen=True)
class Obj(Spec):
    """An object with every key of ``required``, any of ``optional``, and other keys as
    ``extra`` allows (None: none; by default any value). ``noun`` and ``nouns`` name it."""

    required: Mapping[str, Spec] = field(default_factory=dict)
    optional: Mapping[str, Spec] = field(default_factory=dict)
    extra: Spec | None = field(default_factory=Anything)
    noun: str = "an object"
    nouns: str = "objects"

    @property
    def what(self) -> str:  # type: ignore[override]
        return self.noun

    @property
    def many(self) -> str:  # type: ignore[override]
        return self.nouns

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, Mapping):
            self.refuse(value, path)
        for key, spec in self.required.items():
            if key not in value:
                raise Refused(join(path, key), "is missing")
            spec.check(value[key], join(path, key))
        for key, item in value.items():
            if key in self.required:
                continue
            spec = self.optional.get(key, self.extra)
            if spec is None:
                known = ", ".join([*self.required, *self.optional])
                raise Refused(join(path, str(key)), f"is not a known field (known: {known})")
            spec.check(item, join(path, str(key)))


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether lists and objects nest more than ``limit`` levels in ``value`` (a loop of
    references counts as too deep); without recursion, so any depth is safe to ask about."""
    stack = [(value, 1)] if _is_list(value) or isinstance(value, Mapping) else []
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, Mapping) else item
        stack.extend((c, depth + 1) for c in children if _is_list(c) or isinstance(c, Mapping))
    return False


def check(value: Any, spec: Spec, where: str, path: str = "", max_depth: int = MAX_DEPTH) -> None:
    """Raise :class:`InputError` "``where``: ``path`` ``problem``" for the first part of
    ``value`` (found at ``path`` in its document) that ``spec`` refuses, or when ``value``
    nests more than ``max_depth`` levels."""
    if too_deep(value, max_depth):
        where_path = f"{where}: {path}" if path else where
        raise InputError(f"{where_path} nests lists or objects more than {max_depth} levels deep")
    try:
        spec.check(value, path)
    except Refused as exc:
        refuse(where, exc.path, exc.problem)


def refuse(where: str, path: str, problem: str) -> NoReturn:
    """Raise the :class:`InputError` that :func:`check` raises, "``where``: ``path``
    ``problem``", for a check no kind expresses (one field against another)."""
    raise InputError(f"{where}: {path or 'the document'} {problem}")


def load_json(path: str | Path, what: str) -> Any:
    """The JSON document in the file at ``path``; InputError naming it as ``what`` (e.g.
    "model file") when it is missing, a device, larger than the size limit
    (:data:`abcd_cli.limits.FILE_BYTES`), unreadable, not JSON or nested too deeply to parse.
    JSON's NaN and Infinity are read as floats: :class:`Number` refuses them."""
    if not Path(path).exists():
        raise InputError(f"{what} {path} does not exist")
    data = read_bounded(path, f"{what} {path}", what)
    try:
        return json.loads(data.decode("utf-8"))
    except RecursionError:
        raise InputError(f"{what} {path} nests lists or objects too deeply to be read") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"cannot read {what} {path}: {exc}") from None
