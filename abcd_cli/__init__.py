"""abcd: automatic model discovery for time series with Gaussian processes.

The Python API (the ``abcd`` command line is a thin layer over it)::

    import abcd_cli

    series = abcd_cli.load("airline.csv")              # or a DataFrame, or (x, y) arrays
    found = abcd_cli.search(series, depth=4, seed=0)   # a FoundModel
    found.structure, found.bic, found.kernel, found.components
    found.save("airline.model.json")                   # as `abcd search --json` writes it
    abcd_cli.predict(found, [1961.0, 1961.5])          # DataFrame: mean, sd, quantiles
    abcd_cli.report(found, "airline.pdf")              # .pdf/.html/.json; no path: a dict
    abcd_cli.update(found, "new.csv")                  # new rows, no new search

The API's names are imported on first use (PEP 562), so ``import abcd_cli`` (and
``from abcd_cli import __version__``, which any module may do) imports nothing else; matplotlib
and WeasyPrint are imported only when a report is made.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: Each public name of the API and the module defining it.
_API = {
    "load": "abcd_cli.api",
    "search": "abcd_cli.api",
    "predict": "abcd_cli.api",
    "report": "abcd_cli.reports",
    "update": "abcd_cli.api",
    "AbcdWarning": "abcd_cli.api",
    "SearchInterrupted": "abcd_cli.api",
    "FoundModel": "abcd_cli.found",
    "Component": "abcd_cli.found",
    "read_model": "abcd_cli.found",
    "AbcdError": "abcd_cli.errors",
    "InputError": "abcd_cli.errors",
    "RunError": "abcd_cli.errors",
}

__all__ = [
    "AbcdError",
    "AbcdWarning",
    "Component",
    "FoundModel",
    "InputError",
    "RunError",
    "SearchInterrupted",
    "__version__",
    "load",
    "predict",
    "read_model",
    "report",
    "search",
    "update",
]

if TYPE_CHECKING:
    from abcd_cli.api import (
        AbcdWarning,
        SearchInterrupted,
        load,
        predict,
        search,
        update,
    )
    from abcd_cli.errors import AbcdError, InputError, RunError
    from abcd_cli.found import Component, FoundModel, read_model
    from abcd_cli.reports import report


def __getattr__(name: str) -> Any:
    """The API's names, imported from their modules on first use."""
    if name not in _API:
        raise AttributeError(f"module 'abcd_cli' has no attribute {name!r}")
    value = getattr(importlib.import_module(_API[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_API})
