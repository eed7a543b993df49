"""Decimal years as each tool expects time: calendar dates (Prophet) or positions on a regular
grid (exponential smoothing and ARIMA), and each bundled series' known seasonal period.

The bundled x values follow the upstream conversion (``datasets/SOURCES.md``):
x = year + (day_of_year + hour/24) / 365 with a 1-based day of the year, so 1 January 00:00 is
year + 1/365. :func:`upstream_dates` inverts it exactly for daily and hourly series; for the
monthly and annual ones, whose x follow other conventions, it lands within a day or two of the
stated month or year, which neither Prophet nor the grid notices. In leap years 31 December
comes out as 1 January of the next year (the upstream conversion gives both the same x).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SECONDS_PER_DAY = 86400
#: grid step of each kind of series, in seconds of calendar time (month and year: not used)
STEP_SECONDS = {"day": SECONDS_PER_DAY, "hour": 3600}

#: the known seasonal period of each bundled series, in steps of its grid: one year for the
#: monthly series; a week for the daily births; a day for the hourly internet traffic. None: no
#: period a user would state (annual series; solar's ~11-year cycle is not fixed), or one too
#: long for a state-space model (temperature's 365-day year, births' and internet's longer
#: cycles): a seasonal state per step of the period, filtered over thousands of steps.
SEASONAL_PERIODS: dict[str, int | None] = {
    "01-airline": 12,
    "02-solar": None,
    "03-mauna": 12,
    "04-wheat": None,
    "05-temperature": None,
    "06-internet": 24,
    "07-call-centre": 12,
    "08-radio": 12,
    "09-gas-production": 12,
    "10-sulphuric": 12,
    "11-unemployment": 12,
    "12-births": 7,
    "13-wages": None,
}


def upstream_dates(x: np.ndarray) -> np.ndarray:
    """Calendar dates (``datetime64[s]``, any year) of decimal years made the upstream way."""
    x = np.asarray(x, dtype=float)
    year = np.floor(x + 1e-9)
    seconds = np.round(((x - year) * 365.0 - 1.0) * SECONDS_PER_DAY).astype(np.int64)
    jan1 = np.array([np.datetime64(f"{int(y):04d}-01-01", "s") for y in year])
    return jan1 + seconds.astype("timedelta64[s]")


def grid_kind(x: np.ndarray) -> str:
    """``year``, ``month``, ``day`` or ``hour``: the step of a series, from its median spacing."""
    gaps = np.diff(np.unique(np.asarray(x, dtype=float)))
    spacing = float(np.median(gaps)) if gaps.size else 1.0
    if spacing > 0.5:
        return "year"
    if spacing > 0.04:
        return "month"
    if spacing > 0.5 / 365:
        return "day"
    return "hour"


@dataclass(frozen=True)
class Grid:
    """A regular grid covering a split: every x's position on it, counted from the earliest."""

    kind: str
    train: np.ndarray  # position of each training point
    test: np.ndarray  # position of each test point

    @property
    def length(self) -> int:
        return int(max(self.train.max(), self.test.max())) + 1


def grid_positions(x: np.ndarray, kind: str, origin: float) -> np.ndarray:
    """Integer positions of ``x`` on a grid of ``kind`` whose cell 0 holds ``origin``.

    Years and months are counted from ``origin`` (12 months to the year, whichever day of the
    month each series' x stands for); days and hours from the calendar dates."""
    x = np.asarray(x, dtype=float)
    if kind in ("year", "month"):
        per_year = 1.0 if kind == "year" else 12.0
        return np.round(per_year * (x - origin)).astype(np.int64)
    seconds = upstream_dates(x).astype(np.int64) - upstream_dates(np.array([origin])).astype(
        np.int64
    )
    return np.round(seconds / STEP_SECONDS[kind]).astype(np.int64)


def make_grid(x_train: np.ndarray, x_test: np.ndarray) -> Grid:
    """The grid of a split: the step from all its x, positions from the earliest point."""
    every = np.concatenate([x_train, x_test])
    kind, origin = grid_kind(every), float(every.min())
    return Grid(kind, grid_positions(x_train, kind, origin), grid_positions(x_test, kind, origin))


def on_grid(grid: Grid, y_train: np.ndarray, length: int | None = None) -> np.ndarray:
    """The training values on the grid (``length`` cells, default the whole grid), NaN where no
    point falls; points that share a cell are averaged."""
    n = grid.length if length is None else length
    sums = np.bincount(grid.train, weights=np.asarray(y_train, dtype=float), minlength=n)[:n]
    counts = np.bincount(grid.train, minlength=n)[:n]
    out = np.full(n, np.nan)
    np.divide(sums, counts, out=out, where=counts > 0)
    return out


def filled(values: np.ndarray) -> np.ndarray:
    """``values`` with each missing cell filled by linear interpolation between its neighbours
    (before the first value and after the last: that value)."""
    cells = np.arange(values.size)
    seen = ~np.isnan(values)
    return np.interp(cells, cells[seen], values[seen])
