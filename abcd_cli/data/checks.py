"""Sanity checks on a series' values before any model sees them.

At least :data:`MIN_POINTS` usable rows; neither y nor x constant; magnitudes within
[:data:`MIN_MAGNITUDE`, :data:`MAX_MAGNITUDE`]; spreads not lost in rounding (y:
:data:`MIN_RELATIVE_Y_SPREAD` of its magnitude, x: :data:`MIN_RELATIVE_X_SPREAD`). Each failure
is an :class:`~abcd_cli.errors.InputError` naming the file and the column.
"""

from __future__ import annotations

import numpy as np

from abcd_cli.data.cells import show
from abcd_cli.data.dates import from_decimal_year
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


def check_count(n_points: int, n_dropped: int, source: str) -> None:
    """At least :data:`MIN_POINTS` rows with both x and y."""
    if n_points < MIN_POINTS:
        extra = f" ({n_dropped} dropped for missing values)" if n_dropped else ""
        raise InputError(
            f"{source}: too few data points: at least {MIN_POINTS} rows with both x and y are "
            f"needed, found {n_points}{extra}"
        )


def check_y(values: np.ndarray, name: str, source: str) -> None:
    """y within the magnitude limits, not constant, and varying by more than rounding."""
    biggest = check_magnitude(values, name, source)
    spread = float(np.ptp(values))
    if spread == 0:
        raise InputError(
            f"{source}: column {show(name)} is constant (value {values[0]:.6g}): "
            "there is nothing to model"
        )
    if spread < MIN_RELATIVE_Y_SPREAD * biggest:
        raise InputError(
            f"{source}: column {show(name)} varies by only {spread:.3g} at a size of {biggest:.6g} "
            f"(less than {MIN_RELATIVE_Y_SPREAD:.0e} of it), which is lost in rounding; "
            "subtract a baseline before saving the file"
        )


def check_x(values: np.ndarray, name: str, kind: str, source: str) -> None:
    """x within the magnitude limits, with two different values, spanning more than rounding."""
    biggest = check_magnitude(values, name, source)
    spread = float(np.ptp(values))
    if spread == 0:
        moment = from_decimal_year(float(values[0])) if kind == "date" else None
        shown = f"{values[0]:.10g}" if moment is None else f"{moment:%Y-%m-%d %H:%M:%S}"
        raise InputError(
            f"{source}: all x values in column {show(name)} are equal ({shown}): "
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
        raise InputError(f"{source}: column {show(name)}: {reason}")


def check_magnitude(values: np.ndarray, name: str, source: str) -> float:
    """The largest magnitude of the values, if within [MIN_MAGNITUDE, MAX_MAGNITUDE] (or 0);
    an InputError naming the column otherwise (of the data, or of new inputs to predict at)."""
    biggest = float(np.max(np.abs(values)))
    if biggest > MAX_MAGNITUDE:
        raise InputError(
            f"{source}: column {show(name)} has values as large as {biggest:.3g}; magnitudes above "
            f"{MAX_MAGNITUDE:.0e} would overflow the computations, so rescale the column"
        )
    if 0 < biggest < MIN_MAGNITUDE:
        raise InputError(
            f"{source}: column {show(name)} has values no larger than {biggest:.3g}; magnitudes "
            f"below {MIN_MAGNITUDE:.0e} would underflow the computations, so rescale the column"
        )
    return biggest


def check_given_inputs(values: np.ndarray, name: str, source: str) -> None:
    """New inputs given as numbers (the API's ``predict``) refused as the command line refuses
    a file's cells: a missing value (NaN) or an infinite one names its row (1-based), then the
    magnitudes are checked (:func:`check_magnitude`)."""
    for bad, problem in ((np.isnan(values), "missing"), (np.isinf(values), "infinite")):
        rows = np.flatnonzero(bad)
        if rows.size and problem == "missing":
            raise InputError(f"{source}: column {show(name)} has no value in row {rows[0] + 1}")
        if rows.size:
            raise InputError(
                f"{source}: row {rows[0] + 1}: column {show(name)} value"
                f" {show(repr(float(values[rows[0]])))} is"
                " infinite or too large for a 64-bit number"
            )
    if values.size:
        check_magnitude(values, name, source)
