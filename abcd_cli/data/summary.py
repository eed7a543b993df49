"""The scales of the data that kernels' starting values and bounds are read from: per input
dimension, the range, the spacing of x and the periodogram's peaks, with the spread of y.

All numbers are in the fitter's internal units (``scaling.Scaling``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.signal import lombscargle

from abcd_cli.arrays import as_2d


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


#: Points of each zoom on a peak the geometric grid cannot resolve (two zooms per peak).
ZOOM_POINTS = 200
#: Elements (points × frequencies) of each of the periodogram's temporaries: scipy's
#: Lomb-Scargle makes several N × F arrays, 10 GiB at once for 10⁵ points and 2,000 frequencies.
PERIODOGRAM_ELEMENTS = 2**21


def lombscargle_power(x: np.ndarray, y: np.ndarray, freqs: np.ndarray) -> np.ndarray:
    """scipy's Lomb-Scargle power at ``freqs`` (cycles per unit of x), in chunks of
    frequencies whose temporaries hold at most ``PERIODOGRAM_ELEMENTS`` elements each (every
    frequency's power depends on all the points and on that frequency alone)."""
    step = max(1, PERIODOGRAM_ELEMENTS // max(x.size, 1))
    return np.concatenate(
        [lombscargle(x, y, 2 * np.pi * freqs[i : i + step]) for i in range(0, freqs.size, step)]
    )


def _periodogram_peaks(
    x: np.ndarray, y: np.ndarray, spacing: float, x_range: float, n_peaks: int
) -> tuple[float, ...]:
    """Periods of the highest local maxima of the Lomb-Scargle periodogram (irregular x is fine).

    The frequencies are 2,000 geometrically spaced ones. A peak's main lobe is 2/x_range wide,
    so on a long series (thousands of cycles) the grid's steps can be as wide and miss it, and a
    period off by half a step slips by more than a quarter of a cycle over the span: a start
    the optimiser cannot recover from. Where a step is wider than 0.5/x_range each peak is
    found again on a finer grid between its neighbours (``_zoom``)."""
    if x.size < 8:
        return ()
    f_lo, f_hi = 2.0 / x_range, 0.5 / spacing
    if not f_lo < f_hi:
        return ()
    freqs = np.geomspace(f_lo, f_hi, 2000)
    # A quadratic trend would leak into every low frequency; take it out first.
    t = (x - x.mean()) / x_range
    residual = y - np.polyval(np.polyfit(t, y, 2), t)
    power = lombscargle_power(x, residual, freqs)
    peaks = np.flatnonzero((power[1:-1] > power[:-2]) & (power[1:-1] >= power[2:])) + 1
    best = peaks[np.argsort(power[peaks])[::-1][:n_peaks]]
    found = [_zoom(x, residual, freqs, power, i, x_range) for i in best]
    found.sort(key=lambda fp: -fp[1])
    kept: list[float] = []
    for f, _ in found:  # zooms on side lobes of one peak end on the same frequency
        if all(abs(f - g) > 1.0 / x_range for g in kept):
            kept.append(f)
    return tuple(float(1.0 / f) for f in kept)


def _zoom(
    x: np.ndarray,
    residual: np.ndarray,
    freqs: np.ndarray,
    power: np.ndarray,
    i: int,
    x_range: float,
) -> tuple[float, float]:
    """(frequency, power) of the peak at grid point i: as it is when the grid's steps there are
    at most 0.5/x_range, else the maximum over two zooms of ``ZOOM_POINTS`` between its
    neighbours (the second around the first's maximum), to a step of a small fraction of the
    main lobe's width 2/x_range."""
    lo, hi = freqs[max(i - 1, 0)], freqs[min(i + 1, freqs.size - 1)]
    if hi - lo <= 1.0 / x_range:
        return float(freqs[i]), float(power[i])
    f, p = float(freqs[i]), float(power[i])
    for _ in range(2):
        fine = np.linspace(lo, hi, ZOOM_POINTS)
        fine_power = lombscargle_power(x, residual, fine)
        j = int(np.argmax(fine_power))
        if fine_power[j] > p:
            f, p = float(fine[j]), float(fine_power[j])
        step = fine[1] - fine[0]
        lo, hi = f - step, f + step
    return f, p
