"""Where parameters start and where they may go, read off the data.

All numbers here are in the fitter's internal units (``scaling.Scaling``). Every distribution is
built from the data's spacing, range, spread and spectrum, so nothing depends on the unit of x.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.signal import lombscargle

from abcd_cli.kernels import Kernel

# Log-space bounds are kept this far around the data's own scales.
_SD_RANGE = (1e-4, 1e3)  # times the spread of y
_ALPHA_RANGE = (1e-3, 1e3)
_LEVEL_REACH = 10.0  # a constant kernel's sd may reach this many times |mean of y|
_PER_SMOOTHNESS_RANGE = (1e-2, 1e4)  # the periodic kernel's unitless lengthscale


@dataclass(frozen=True)
class DataSummary:
    """Scales of the data that initial values and bounds are drawn from."""

    x_min: float
    x_max: float
    spacing: float  # median positive gap between consecutive x
    min_spacing: float  # smallest positive gap
    short_spacing: float  # 10th percentile of the positive gaps
    y_sd: float
    periods: tuple[float, ...]  # strongest periodogram peaks, strongest first
    y_level: float = 0.0  # |mean of y|: what a constant kernel must reach when y is not centred

    @property
    def x_range(self) -> float:
        return self.x_max - self.x_min

    @classmethod
    def from_data(cls, x: np.ndarray, y: np.ndarray, n_peaks: int = 5) -> DataSummary:
        x = np.asarray(x, dtype=float).ravel()
        y = np.asarray(y, dtype=float).ravel()
        gaps = np.diff(np.sort(x))
        gaps = gaps[gaps > 0]
        x_range = float(x.max() - x.min()) or 1.0
        spacing = float(np.median(gaps)) if gaps.size else x_range
        min_spacing = float(gaps.min()) if gaps.size else x_range
        short_spacing = float(np.percentile(gaps, 10)) if gaps.size else x_range
        y_sd = float(np.std(y)) or 1.0
        periods = _periodogram_peaks(x, y, short_spacing, x_range, n_peaks)
        return cls(
            float(x.min()),
            float(x.max()),
            spacing,
            min_spacing,
            short_spacing,
            y_sd,
            periods,
            abs(float(np.mean(y))),
        )


def _periodogram_peaks(
    x: np.ndarray, y: np.ndarray, spacing: float, x_range: float, n_peaks: int
) -> tuple[float, ...]:
    """Periods of the highest local maxima of the Lomb-Scargle periodogram (irregular x is fine)."""
    if x.size < 8:
        return ()
    f_lo, f_hi = 2.0 / x_range, 0.5 / spacing
    if not f_lo < f_hi:
        return ()
    freqs = np.geomspace(f_lo, f_hi, 2000)
    # A quadratic trend would leak into every low frequency; take it out first.
    t = (x - x.mean()) / x_range
    residual = y - np.polyval(np.polyfit(t, y, 2), t)
    power = lombscargle(x, residual, 2 * np.pi * freqs)
    peaks = np.flatnonzero((power[1:-1] > power[:-2]) & (power[1:-1] >= power[2:])) + 1
    best = peaks[np.argsort(power[peaks])[::-1][:n_peaks]]
    return tuple(float(1.0 / freqs[i]) for i in best)


def _log_uniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def _log_normal(rng: np.random.Generator, centre: float, sd: float = 1.0) -> float:
    return float(centre * math.exp(rng.normal(0.0, sd)))


def sample_value(symbol: str, name: str, s: DataSummary, rng: np.random.Generator) -> float:
    """One random starting value for parameter ``name`` of a kernel of type ``symbol``."""
    span = s.x_range
    if name == "sd":
        if symbol == "WN":
            return _log_normal(rng, 0.1 * s.y_sd)
        if symbol == "Lin":
            return _log_normal(rng, s.y_sd / span)
        return _log_normal(rng, 0.5 * s.y_sd)
    if name == "lengthscale":
        if symbol == "Per":
            return _log_normal(rng, 1.0, 0.7)
        return _log_uniform(rng, 2.0 * s.spacing, span)
    if name == "period":
        lo, hi = period_limits(s)
        # Mostly near a periodogram peak, the strongest most often; sometimes anywhere.
        near = [p for p in s.periods if lo <= p <= hi]
        u = rng.uniform()
        if near and u < 0.8:
            i = 0 if u < 0.5 or len(near) == 1 else int(rng.integers(1, len(near)))
            return float(near[i] * math.exp(rng.normal(0.0, 0.02)))
        return _log_uniform(rng, max(lo, 2.0 * s.spacing), hi)
    if name == "alpha":
        return _log_normal(rng, 1.0)
    if name == "location":
        if symbol == "Lin":
            return float(rng.uniform(s.x_min - span, s.x_max + span))
        return float(rng.uniform(s.x_min + 0.1 * span, s.x_max - 0.1 * span))
    if name == "steepness":
        return _log_uniform(rng, s.spacing, max(0.1 * span, 2.0 * s.spacing))
    if name == "width":
        return float(rng.uniform(0.05, 0.5) * span)
    raise ValueError(f"no initial distribution for {symbol}.{name}")


def period_limits(s: DataSummary) -> tuple[float, float]:
    """Periods a model may report: from two short spacings (the Nyquist period of the densest
    sampling, the 10th percentile of the gaps) to half the range of x."""
    return 2.0 * s.short_spacing, max(0.5 * s.x_range, 4.0 * s.short_spacing)


def value_bounds(symbol: str, name: str, s: DataSummary) -> tuple[float, float]:
    """Bounds of a parameter in natural units."""
    span = s.x_range
    if name == "sd":
        lo, hi = _SD_RANGE
        if symbol == "Lin":
            return lo * s.y_sd / span, hi * s.y_sd / s.min_spacing
        if symbol == "C":  # the level of an uncentred series may lie far beyond its spread
            return lo * s.y_sd, max(hi * s.y_sd, _LEVEL_REACH * s.y_level)
        return lo * s.y_sd, hi * s.y_sd
    if name == "lengthscale":
        if symbol == "Per":
            return _PER_SMOOTHNESS_RANGE
        return 0.1 * s.min_spacing, 1e3 * span
    if name == "period":
        return period_limits(s)
    if name == "alpha":
        return _ALPHA_RANGE
    if name == "location":
        if symbol == "Lin":
            return s.x_min - 10.0 * span, s.x_max + 10.0 * span
        return s.x_min, s.x_max
    if name == "steepness":
        return 0.05 * s.min_spacing, span
    if name == "width":
        return s.min_spacing, span
    raise ValueError(f"no bounds for {symbol}.{name}")


def _nodes_params(kernel: Kernel) -> list[tuple[str, str]]:
    """(symbol, parameter name) for every entry of theta, in order."""
    out = [(kernel.symbol, n) for n in kernel.own_names]
    for k in kernel.operands:
        out += _nodes_params(k)
    return out


def theta_bounds(kernel: Kernel, s: DataSummary) -> list[tuple[float, float]]:
    """L-BFGS-B bounds on theta (log for positive parameters)."""
    out = []
    for (symbol, name), positive in zip(_nodes_params(kernel), kernel.positive_mask(), strict=True):
        lo, hi = value_bounds(symbol, name, s)
        out.append((math.log(lo), math.log(hi)) if positive else (lo, hi))
    return out


def initial_values(
    kernel: Kernel, s: DataSummary, rng: np.random.Generator, keep_known: bool = True
) -> np.ndarray:
    """Natural-unit starting values: known values kept (if asked), unknown ones drawn."""
    values = kernel.values()
    for i, (symbol, name) in enumerate(_nodes_params(kernel)):
        if not keep_known or not math.isfinite(values[i]):
            values[i] = sample_value(symbol, name, s, rng)
        lo, hi = value_bounds(symbol, name, s)
        values[i] = min(max(values[i], lo), hi)
    return values
