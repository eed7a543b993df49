"""Parameter specifications: what one kernel parameter means, declared once.

A ``Param`` names a parameter and says how the optimiser sees it (``log`` for a positive value,
``raw`` for a location), what a change of units does to it (``unit``), where a search starts it
(``start``: one random draw from the data summary), where it may go (``bounds``), what a fitted
value must satisfy to be reported (``check``), and the words the report uses for it.

Every number a summary provides is in the fitter's internal units. The draws below are written
with the exact sequence of generator calls the search has always made: changing one of them
changes every search result for a given seed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal, Protocol

import numpy as np

Unit = Literal["scale", "scale_per_x", "length", "location", "none"]
Role = Literal["smooth", "periodic", "linear", "constant", "noise", "gate"]

# Log-space bounds are kept this far around the data's own scales.
SD_RANGE = (1e-4, 1e3)  # times the spread of y
ALPHA_RANGE = (1e-3, 1e3)
LEVEL_REACH = 10.0  # a constant kernel's sd may reach this many times |mean of y|
PER_SMOOTHNESS_RANGE = (1e-2, 1e4)  # the periodic kernel's unitless lengthscale
PERIOD_SLACK = 1e-9  # relative tolerance of the period check (the optimiser stops at a bound)


class DataScales(Protocol):
    """The data's scales that starts, bounds and checks read, in the fitter's units: one
    input's range, spacing and periodogram peaks, with the spread and level of y (what
    ``data.summary.DataSummary`` holds; the kernels do not import the data layer)."""

    @property
    def x_min(self) -> float: ...
    @property
    def x_max(self) -> float: ...
    @property
    def x_range(self) -> float: ...
    @property
    def spacing(self) -> float: ...
    @property
    def min_spacing(self) -> float: ...
    @property
    def short_spacing(self) -> float: ...
    @property
    def y_sd(self) -> float: ...
    @property
    def y_level(self) -> float: ...
    @property
    def periods(self) -> tuple[float, ...]: ...


Start = Callable[[DataScales, np.random.Generator], float]
Bounds = Callable[[DataScales], tuple[float, float]]
Check = Callable[[float, DataScales], str]


@dataclass(frozen=True)
class Param:
    """One parameter of a kernel: its name, transform, unit kind, start, bounds, check, words."""

    name: str
    unit: Unit
    start: Start
    bounds: Bounds
    transform: Literal["log", "raw"] = "log"
    check: Check | None = None  # '' when a fitted value may be reported, else why not
    words: str = ""

    @property
    def positive(self) -> bool:
        return self.transform == "log"

    def reason(self, value: float, s: DataScales) -> str:
        """Why a fitted value may not be reported ('' when it may)."""
        return self.check(value, s) if self.check is not None else ""


# ------------------------------------------------------------------------------------------
# Random draws (the generator calls are part of the search's reproducibility)
# ------------------------------------------------------------------------------------------


def log_uniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    """exp(U(log lo, log hi))."""
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def log_normal(rng: np.random.Generator, centre: float, sd: float = 1.0) -> float:
    """centre · exp(N(0, sd²))."""
    return float(centre * math.exp(rng.normal(0.0, sd)))


def period_limits(s: DataScales) -> tuple[float, float]:
    """Periods a model may report: from two short spacings (the Nyquist period of the densest
    sampling, the 10th percentile of the gaps) to half the range of x."""
    return 2.0 * s.short_spacing, max(0.5 * s.x_range, 4.0 * s.short_spacing)


# ------------------------------------------------------------------------------------------
# Standard deviations (unit "scale": an sd of y)
# ------------------------------------------------------------------------------------------


def _sd_bounds(s: DataScales) -> tuple[float, float]:
    """[1e-4, 1e3] times the spread of y."""
    return SD_RANGE[0] * s.y_sd, SD_RANGE[1] * s.y_sd


def _sd_start(s: DataScales, rng: np.random.Generator) -> float:
    """Log-normal about half the spread of y."""
    return log_normal(rng, 0.5 * s.y_sd)


def _noise_sd_start(s: DataScales, rng: np.random.Generator) -> float:
    """Log-normal about a tenth of the spread of y."""
    return log_normal(rng, 0.1 * s.y_sd)


def _level_sd_bounds(s: DataScales) -> tuple[float, float]:
    """As any sd, but reaching 10 |mean of y|: an uncentred series' level lies beyond its spread."""
    return SD_RANGE[0] * s.y_sd, max(SD_RANGE[1] * s.y_sd, LEVEL_REACH * s.y_level)


def _slope_sd_start(s: DataScales, rng: np.random.Generator) -> float:
    """Log-normal about the spread of y per range of x."""
    return log_normal(rng, s.y_sd / s.x_range)


def _slope_sd_bounds(s: DataScales) -> tuple[float, float]:
    """From 1e-4 spread per range of x to 1e3 spread per smallest gap."""
    return SD_RANGE[0] * s.y_sd / s.x_range, SD_RANGE[1] * s.y_sd / s.min_spacing


SD = Param("sd", "scale", _sd_start, _sd_bounds, words="standard deviation")
NOISE_SD = replace(SD, start=_noise_sd_start)
LEVEL_SD = replace(SD, bounds=_level_sd_bounds)
SLOPE_SD = Param(
    "sd", "scale_per_x", _slope_sd_start, _slope_sd_bounds, words="standard deviation per unit x"
)

# ------------------------------------------------------------------------------------------
# Lengthscales, periods, shape
# ------------------------------------------------------------------------------------------


def _lengthscale_start(s: DataScales, rng: np.random.Generator) -> float:
    """Log-uniform from two typical gaps to the range of x (from the range itself when two
    gaps exceed it, as for an input of two values)."""
    return log_uniform(rng, min(2.0 * s.spacing, s.x_range), s.x_range)


def _lengthscale_bounds(s: DataScales) -> tuple[float, float]:
    """From a tenth of the smallest gap to 1000 ranges of x."""
    return 0.1 * s.min_spacing, 1e3 * s.x_range


def _periodic_smoothness_start(s: DataScales, rng: np.random.Generator) -> float:
    """Log-normal about 1 (unitless) with log-sd 0.7."""
    return log_normal(rng, 1.0, 0.7)


def _periodic_smoothness_bounds(s: DataScales) -> tuple[float, float]:
    return PER_SMOOTHNESS_RANGE


def _period_start(s: DataScales, rng: np.random.Generator) -> float:
    """Mostly near a periodogram peak inside the period limits (the strongest half the time, 2%
    log-normal jitter), otherwise log-uniform over the limits (from two typical gaps)."""
    lo, hi = period_limits(s)
    near = [p for p in s.periods if lo <= p <= hi]
    u = rng.uniform()
    if near and u < 0.8:
        i = 0 if u < 0.5 or len(near) == 1 else int(rng.integers(1, len(near)))
        return float(near[i] * math.exp(rng.normal(0.0, 0.02)))
    return log_uniform(rng, min(max(lo, 2.0 * s.spacing), hi), hi)


def _period_check(value: float, s: DataScales) -> str:
    lo, hi = period_limits(s)
    if lo * (1 - PERIOD_SLACK) <= value <= hi * (1 + PERIOD_SLACK):
        return ""
    return "period outside the range the data can show"


def _alpha_start(s: DataScales, rng: np.random.Generator) -> float:
    """Log-normal about 1."""
    return log_normal(rng, 1.0)


def _alpha_bounds(s: DataScales) -> tuple[float, float]:
    return ALPHA_RANGE


LENGTHSCALE = Param(
    "lengthscale", "length", _lengthscale_start, _lengthscale_bounds, words="lengthscale"
)
PERIODIC_SMOOTHNESS = Param(
    "lengthscale",
    "none",
    _periodic_smoothness_start,
    _periodic_smoothness_bounds,
    words="lengthscale relative to the period",
)
PERIOD = Param(
    "period", "length", _period_start, period_limits, check=_period_check, words="period"
)
ALPHA = Param("alpha", "none", _alpha_start, _alpha_bounds, words="shape (alpha)")

# ------------------------------------------------------------------------------------------
# Locations and the shape of a change
# ------------------------------------------------------------------------------------------


def _offset_start(s: DataScales, rng: np.random.Generator) -> float:
    """Uniform from one range of x before the data to one range after it."""
    return float(rng.uniform(s.x_min - s.x_range, s.x_max + s.x_range))


def _offset_bounds(s: DataScales) -> tuple[float, float]:
    return s.x_min - 10.0 * s.x_range, s.x_max + 10.0 * s.x_range


def _change_start(s: DataScales, rng: np.random.Generator) -> float:
    """Uniform over the data without its first and last tenth."""
    return float(rng.uniform(s.x_min + 0.1 * s.x_range, s.x_max - 0.1 * s.x_range))


def _change_bounds(s: DataScales) -> tuple[float, float]:
    return s.x_min, s.x_max


def _change_check(value: float, s: DataScales) -> str:
    return "" if s.x_min <= value <= s.x_max else "change located outside the data"


def _steepness_start(s: DataScales, rng: np.random.Generator) -> float:
    """Log-uniform from one typical gap to a tenth of the range (at least two gaps)."""
    return log_uniform(rng, s.spacing, max(0.1 * s.x_range, 2.0 * s.spacing))


def _steepness_bounds(s: DataScales) -> tuple[float, float]:
    return 0.05 * s.min_spacing, s.x_range


def _width_start(s: DataScales, rng: np.random.Generator) -> float:
    """Uniform between 5% and 50% of the range of x."""
    return float(rng.uniform(0.05, 0.5) * s.x_range)


def _width_bounds(s: DataScales) -> tuple[float, float]:
    return s.min_spacing, s.x_range


OFFSET = Param(
    "location", "location", _offset_start, _offset_bounds, transform="raw", words="zero crossing"
)
CHANGE_LOCATION = Param(
    "location",
    "location",
    _change_start,
    _change_bounds,
    transform="raw",
    check=_change_check,
    words="location",
)
STEEPNESS = Param("steepness", "length", _steepness_start, _steepness_bounds, words="steepness")
WIDTH = Param("width", "length", _width_start, _width_bounds, words="width")


def derived(specs: tuple[Param, ...]) -> dict[str, tuple]:
    """The class attributes every kernel derives from its specs: names, positive, units."""
    return {
        "names": tuple(p.name for p in specs),
        "positive": tuple(p.positive for p in specs),
        "units": tuple(p.unit for p in specs),
    }
