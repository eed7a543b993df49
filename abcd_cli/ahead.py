"""The next N steps past a model's data, at the data's own spacing: the x of ``--ahead N``.

Dates step by the calendar frequency their last points keep (monthly data: the first of each
following month), found by pandas' ``infer_freq``; dates without one, years and plain numbers
step by the median gap between distinct x values, x_k = x_last + k · median(Δx), k = 1 ... N.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from abcd_cli.data.dates import from_decimal_year
from abcd_cli.errors import InputError

if TYPE_CHECKING:
    from abcd_cli.fitted import FittedSearch

#: Distinct dates at the end of the data from which a calendar frequency is inferred when the
#: whole series keeps none (a gap or an irregular start).
TAIL_DATES = 25
#: Significant digits kept of a stepped number (drops the last bits of x_last + k·Δx).
DIGITS = 15


@dataclass(frozen=True)
class FutureInputs:
    """The next steps' x: ``values`` on the model's axis (decimal years for dates and years),
    ``given`` as a user would write them (datetimes for a model of dates, else numbers)."""

    values: np.ndarray
    given: list[Any]


def future_inputs(found: FittedSearch, steps: int) -> FutureInputs:
    """The ``steps`` next x values after the model's data, at its spacing (module docstring).
    A model of several inputs, or ``steps`` < 1, raises InputError."""
    if isinstance(steps, bool) or not isinstance(steps, int | np.integer) or steps < 1:
        raise InputError(f"ahead must be a whole number of steps of at least 1, not {steps!r}")
    if len(found.x_names) > 1:
        raise InputError(
            f"ahead forecasts a series of one input; this model has {len(found.x_names)}"
            " inputs: give their values in a file of new inputs (X.csv) instead"
        )
    x = np.unique(np.asarray(found.model.x, dtype=float).ravel())
    if x.size < 2:
        raise InputError("ahead needs a model fitted to at least two distinct x values")
    if found.x_kinds[0] == "date":
        dates = _calendar_steps(x, int(steps))
        if dates is not None:
            return dates
    gap = float(np.median(np.diff(x)))
    values = np.array([float(f"{x[-1] + k * gap:.{DIGITS}g}") for k in range(1, steps + 1)])
    if found.x_kinds[0] == "date":
        return FutureInputs(values, [from_decimal_year(v) for v in values])
    return FutureInputs(values, [float(v) for v in values])


def _calendar_steps(x: np.ndarray, steps: int) -> FutureInputs | None:
    """The next dates at the calendar frequency of the data (of the whole, else of its last
    TAIL_DATES dates), or None when they keep none."""
    import pandas as pd

    from abcd_cli.data.frames import decimal_years

    moments = pd.DatetimeIndex([from_decimal_year(v) for v in x])
    for tail in (moments, moments[-TAIL_DATES:]):
        with warnings.catch_warnings():  # pandas 3 warns that it will return an offset
            warnings.simplefilter("ignore")
            freq = pd.infer_freq(tail) if len(tail) >= 3 else None
        if freq is not None:
            future = pd.date_range(moments[-1], periods=steps + 1, freq=freq)[1:]
            return FutureInputs(decimal_years(future), [stamp.to_pydatetime() for stamp in future])
    return None
