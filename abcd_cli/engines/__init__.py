"""GP engines behind one interface (``abcd_cli.engines.base.Engine``), chosen by name.

``exact`` (dense Cholesky), ``skc`` (inducing-point bounds, ``engines/sparse.py``) and
``statespace`` (the Kalman filter or the Cholesky, the cheaper: ``engines/statespace``); another
engine arrives as a sibling module and one line in ``_ENGINES``: "name": "module:Class",
imported only when asked for.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from abcd_cli.engines.base import Engine

_ENGINES: dict[str, str] = {
    "exact": "abcd_cli.engines.exact:ExactEngine",
    "skc": "abcd_cli.engines.sparse:SparseEngine",
    "statespace": "abcd_cli.engines.statespace.engine:StateSpaceEngine",
}
DEFAULT_ENGINE = "exact"


def engine_names() -> tuple[str, ...]:
    """The names ``get_engine`` knows."""
    return tuple(_ENGINES)


def get_engine(name: str = DEFAULT_ENGINE, **options: Any) -> Engine:
    """The engine called ``name``, built with ``options``; ValueError for an unknown name."""
    try:
        module, cls = _ENGINES[name].split(":")
    except KeyError:
        raise ValueError(
            f"unknown engine {name!r} (choose from {', '.join(engine_names())})"
        ) from None
    return getattr(import_module(module), cls)(**options)
