"""Where the data lie and how a component moves over them: the data's range and spacing,
whether a sequence rises or falls, a noise's standard deviation across the data.

``x_data`` (the data's x values, optional) gives the data range and spacing; without it the
whole of ``facts.x_grid`` stands in for the data range.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from abcd_cli.decompose.facts import ComponentFacts
from abcd_cli.kernels import BaseKernel, Kernel


def data_range(x_data: np.ndarray | None) -> tuple[float, float] | None:
    """The smallest and largest x of the data; None when there are none."""
    if x_data is None or len(x_data) == 0:
        return None
    x = np.asarray(x_data, dtype=float)
    return float(np.min(x)), float(np.max(x))


#: A cycle of which the data hold fewer than this many periods is said as a slow swing: the
#: data cannot show that it repeats, so its period heads no sentence.
SLOW_CYCLES = 2.0


def cycles_in_data(period: float, x_data: np.ndarray | None) -> float | None:
    """How many periods of a cycle the data span: (max x − min x) / period; None without
    data or a period."""
    span = data_range(x_data)
    if span is None or not np.isfinite(period) or period <= 0:
        return None
    return (span[1] - span[0]) / period


def data_spacing(x_data: np.ndarray | None) -> float | None:
    """The median step between distinct x values; None with fewer than two of them."""
    if x_data is None or len(x_data) < 2:
        return None
    steps = np.diff(np.unique(np.asarray(x_data, dtype=float)))
    return float(np.median(steps)) if len(steps) else None


def coarse_precision(x_data: np.ndarray | None) -> float | None:
    """Precision for a fitted location with no sharp meaning (a Lin zero): 1/20 of the range."""
    span = data_range(x_data)
    if span is None:
        return None
    return max(data_spacing(x_data) or 0.0, 0.05 * (span[1] - span[0])) or None


def ends_precision(x_data: np.ndarray | None) -> float | None:
    """Precision for the data's ends and the forecast's end on a calendar axis: a quarter of
    the range, never finer than the spacing (a year from a span of two years; the day for a
    few weeks of hourly data)."""
    span = data_range(x_data)
    if span is None:
        return None
    return max(data_spacing(x_data) or 0.0, 0.25 * (span[1] - span[0])) or None


def classify_trend(values: np.ndarray, tolerance: float = 0.01) -> str:
    """Classify a sequence as "increasing", "decreasing", "flat" or "not monotonic"; a dip (or
    rise) smaller than ``tolerance`` of the total range is ignored."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    if len(values) < 2:
        return "flat"
    spread = float(np.ptp(values))
    if spread <= 1e-12 * max(1.0, float(np.max(np.abs(values)))):
        return "flat"
    allowed = tolerance * spread
    if np.max(np.maximum.accumulate(values) - values) <= allowed:
        return "increasing"
    if np.max(values - np.minimum.accumulate(values)) <= allowed:
        return "decreasing"
    return "not monotonic"


# A standard deviation or amplitude driven by linear factors is a rough estimate: a dip of
# under a tenth of its range (near a linear factor's zero at the edge of the data) does not hide
# an overall rise or fall.
DIP_TOLERANCE = 0.1


def lin_trend(lins: Sequence[BaseKernel], x_range: tuple[float, float] | None) -> str | None:
    """How the amplitude ∏|x - location| changes across the data, None if the range is unknown."""
    if x_range is None or not lins:
        return None
    xs = np.linspace(x_range[0], x_range[1], 401)
    amplitude = np.prod([np.abs(xs - k.param("location")) for k in lins], axis=0)
    return classify_trend(amplitude, DIP_TOLERANCE)


def in_data_range(
    facts: ComponentFacts, x_data: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """x_grid and the component's mean restricted to the data range (all of it if unknown),
    with the data's first and last x added (the mean interpolated there) where the grid
    misses them: 'at its strongest ... 33.3' and '33.6 at the end of the data' of one rising
    level read the grid's last point inside the data and the data's own end."""
    x = np.asarray(facts.x_grid, dtype=float)
    mean = np.asarray(facts.mean, dtype=float)
    span = data_range(x_data)
    if span is None:
        return x, mean
    tol = 1e-9 * max(1.0, abs(span[1] - span[0]))
    mask = (x >= span[0] - tol) & (x <= span[1] + tol)
    if mask.sum() < 2:
        return x, mean
    inside = x[mask]
    ends = [e for e in span if x[0] <= e <= x[-1] and np.min(np.abs(inside - e)) > tol]
    if not ends:
        return inside, mean[mask]
    xs = np.sort(np.concatenate([inside, ends]))
    return xs, np.interp(xs, x, mean)


def noise_profile(kernel: Kernel, span: tuple[float, float]) -> np.ndarray:
    """The noise's prior standard deviation across ``span`` (k(x, x) includes white noise)."""
    xs = np.linspace(span[0], span[1], 201)
    return np.sqrt(np.maximum(kernel.diag(xs), 0.0))


def overall_direction(values: np.ndarray) -> str | None:
    """'increasing' when a non-monotonic profile ends at its maximum at least twice its start
    and never dips below ``OVERALL_DIP`` of its start first, 'decreasing' for the mirror case,
    else None (wages' noise halves before it quadruples: not 'increasing overall')."""
    first, last, low = float(values[0]), float(values[-1]), float(values.min())
    if last >= float(values.max()) and last >= 2.0 * first and low >= OVERALL_DIP * first:
        return "increasing"
    if first >= float(values.max()) and first >= 2.0 * last and low >= OVERALL_DIP * last:
        return "decreasing"
    return None


#: See ``overall_direction``: the lowest share of its start (end) a profile rising (falling)
#: overall may dip to.
OVERALL_DIP = 0.75
