"""GP engines behind one interface (``abcd_cli.engines.base.Engine``), chosen by name here only.

``exact`` (dense Cholesky), ``skc`` (inducing-point bounds, ``engines/sparse.py``) and
``statespace`` (the Kalman filter or the Cholesky, the cheaper: ``engines/statespace``). This
registry is the one list of engines: the search settings' check, the CLI's ``--engine``, the
model file's check and ``auto`` all read it. Another engine arrives as a sibling module and one
line in ``_ENGINES`` ("name": "module:Class", imported only when asked for), or at run time
through ``register_engine``; what it can do it declares on its class (``capabilities``).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from abcd_cli.engines.base import Engine

_ENGINES: dict[str, str | type[Engine]] = {
    "exact": "abcd_cli.engines.exact:ExactEngine",
    "skc": "abcd_cli.engines.sparse:SparseEngine",
    "statespace": "abcd_cli.engines.statespace.engine:StateSpaceEngine",
}
_BUILT_IN = frozenset(_ENGINES)
#: The engine a model without an engine record uses, and ``auto``'s choice for short series.
DEFAULT_ENGINE = "exact"
#: ``auto``'s choice for long series (``kernel_search.engine_choice``).
LONG_SERIES_ENGINE = "skc"
#: The choice that lets the series' length decide (not an engine).
AUTO = "auto"


def engine_names() -> tuple[str, ...]:
    """The names ``get_engine`` knows."""
    return tuple(_ENGINES)


def engine_choices() -> tuple[str, ...]:
    """What a search may be told to use: ``auto`` or an engine's name."""
    return (AUTO, *engine_names())


def unknown_engine(name: object, choices: tuple[str, ...] | None = None) -> str:
    """The one-line message refusing ``name``, listing ``choices`` (default: the engines)."""
    listed = ", ".join(engine_names() if choices is None else choices)
    return f"unknown engine {name!r} (choose from {listed})"


def register_engine(name: str, engine: str | type[Engine]) -> None:
    """Make ``engine`` (a class, or "module:Class" imported when first asked for) known as
    ``name``; ValueError when the name is taken or is ``auto``."""
    if name in _ENGINES or name == AUTO:
        raise ValueError(f"the engine name {name!r} is taken")
    _ENGINES[name] = engine


def unregister_engine(name: str) -> None:
    """Forget an engine ``register_engine`` added (the built-in ones stay)."""
    if name in _BUILT_IN:
        raise ValueError(f"the {name} engine is built in")
    _ENGINES.pop(name, None)


def engine_class(name: str) -> type[Engine]:
    """The class registered as ``name``; ValueError (``unknown_engine``) for an unknown one."""
    try:
        entry = _ENGINES[name]
    except (KeyError, TypeError):
        raise ValueError(unknown_engine(name)) from None
    if isinstance(entry, str):
        module, cls = entry.split(":")
        return getattr(import_module(module), cls)
    return entry


def get_engine(name: str = DEFAULT_ENGINE, **options: Any) -> Engine:
    """The engine called ``name``, built with ``options``; ValueError for an unknown name."""
    return engine_class(name)(**options)
