"""abcd: automatic model discovery for time series with Gaussian processes.

The Python API (the ``abcd`` command line is a thin layer over it)::

    import abcd_cli

    series = abcd_cli.load("airline.csv")              # or a DataFrame, or (x, y) arrays
    found = abcd_cli.search(series, depth=4, seed=0)   # a FoundModel
    found.structure, found.bic, found.kernel, found.components
    found.save("airline.model.json")                   # as `abcd search --json` writes it
    abcd_cli.predict(found, [1961.0, 1961.5])          # DataFrame: mean, sd, quantiles
    abcd_cli.report(found, "airline.pdf")              # .pdf/.html/.json; no path: a dict

Importing the package does not import matplotlib or WeasyPrint: a report does, when made.
"""

# isort: off
from abcd_cli.version import __version__  # first: modules imported below import it from here
from abcd_cli.api import (
    AbcdWarning,
    SearchInterrupted,
    load,
    predict,
    report,
    search,
)
from abcd_cli.errors import AbcdError, InputError, RunError
from abcd_cli.found import Component, FoundModel, read_model

# isort: on

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
]
