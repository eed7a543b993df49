"""The scales of the data that kernels' starting values and bounds are read from: per input
dimension, the range, the spacing of x and the periodogram's peaks, with the spread of y.

All numbers are in the fitter's internal units (``scaling.Scaling``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.signal import lombscargle

from abcd_cli.kernels.base import as_2d


@dataclass(frozen=True)
class DataSummary:
    """Scales of one input dimension and of y that initial values and bounds are drawn from."""

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

    def for_dim(self, dim: int) -> DataSummary:
        """The scales a kernel on input ``dim`` sees: this one summary serves every dimension."""
        return self

    @classmethod
    def from_data(cls, x: np.ndarray, y: np.ndarray, n_peaks: int = 5) -> DataSummary:
        """The summary of one input column ``x`` (any shape with one value per point)."""
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


@dataclass(frozen=True)
class InputSummaries:
    """One ``DataSummary`` per input dimension: the scales of column d of X, and of y."""

    dims: tuple[DataSummary, ...]

    @property
    def n_dims(self) -> int:
        return len(self.dims)

    def for_dim(self, dim: int) -> DataSummary:
        return self.dims[dim]

    @classmethod
    def from_data(cls, X: np.ndarray, y: np.ndarray) -> InputSummaries:
        """Summaries of every column of ``X`` (N, D), each with y's spread and spectrum."""
        X = as_2d(X)
        return cls(tuple(DataSummary.from_data(X[:, d], y) for d in range(X.shape[1])))

    def with_periods_of(self, other: InputSummaries) -> InputSummaries:
        """These scales with ``other``'s periodogram peaks (a subset's own spectrum is aliased
        by its uneven spacing, so it takes the full series' peaks)."""
        return InputSummaries(
            tuple(
                replace(mine, periods=theirs.periods)
                for mine, theirs in zip(self.dims, other.dims, strict=True)
            )
        )


#: What the functions below read parameters' scales from: one summary for every input, or one
#: per input dimension.
Summary = DataSummary | InputSummaries


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
