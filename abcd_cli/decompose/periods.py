"""How well the data single out a cycle's period: how many other peaks of the periodogram of
what the cycle fits (its partial residuals) are as strong as its own.

With P(f) the Lomb-Scargle power of the partial residuals r_k (``decompose/partial.py``) on a
geometric grid of frequencies from 2/span to the Nyquist frequency 0.5/spacing, the cycle's own
power is the largest P within one main lobe (1/span) of its frequency 1/period. A rival is a
local maximum of P at least ``RIVAL_SHARE`` of that power, more than a main lobe from the
cycle's frequency and from its harmonics (a cycle that is not a sinusoid has power at 2/period,
3/period, ... of its own), and more than the cycle's own spectral width from them: a cycle
whose shape drifts over a length ℓ (a periodic kernel times a squared exponential) spreads each
spectral line into a Gaussian of standard deviation 1/(2πℓ) in frequency, so peaks within it
are the same wandering cycle (the sunspots' 10- and 11-year peaks beside a 10.4-year cycle
drifting over 9.4 years), not rivals. When the harmonics that hold power are all multiples of some
k ≥ 2, what the cycle fits repeats every period/k (``dominant_harmonic``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from abcd_cli.data.summary import lombscargle_power

#: A peak at least this share of the cycle's own power is a rival to its period.
RIVAL_SHARE = 0.8
#: A harmonic holding at least this share of the strongest harmonic's power is part of the
#: cycle's shape (``dominant_harmonic``).
HARMONIC_SHARE = 0.2
#: Frequencies of the periodogram.
FREQUENCIES = 1000
#: Points the periodogram reads at most (a longer series is read every k-th point, which keeps
#: its spectrum below the thinned Nyquist frequency and bounds the cost at 2·10⁶ terms).
MAX_POINTS = 2000


@dataclass(frozen=True)
class Periodogram:
    """The Lomb-Scargle power of what a cycle fits on the module's grid of frequencies, with
    the cycle's own frequency ``own`` and the width of a main lobe (1/span)."""

    freqs: np.ndarray
    power: np.ndarray
    own: float
    lobe: float

    def strength(self, frequency: float) -> float:
        """The largest power within one main lobe of ``frequency`` (0 when none is there)."""
        near = np.abs(self.freqs - frequency) <= self.lobe
        return float(self.power[near].max()) if near.any() else 0.0

    @property
    def harmonics(self) -> np.ndarray:
        """The cycle's frequency and its harmonics up to the grid's end: k/period, k ≥ 1."""
        return self.own * np.arange(1, int(self.freqs[-1] / self.own) + 2)


def periodogram(x: np.ndarray, r: np.ndarray, period: float) -> Periodogram | None:
    """The periodogram of ``r`` along ``x`` about ``period`` (see the module); None when the
    data are too few or the period lies outside the frequencies the data resolve."""
    x = np.asarray(x, dtype=float)
    r = np.asarray(r, dtype=float)
    if x.size > MAX_POINTS:  # every k-th point: the same spectrum below its Nyquist frequency
        order = np.argsort(x, kind="stable")[:: -(-x.size // MAX_POINTS)]
        x, r = x[order], r[order]
    if x.size < 8 or not np.isfinite(period) or period <= 0:
        return None
    span = float(np.ptp(x))
    steps = np.diff(np.unique(x))
    if span <= 0 or not steps.size:
        return None
    f_lo, f_hi = 2.0 / span, 0.5 / float(np.median(steps))
    own = 1.0 / period
    if not f_lo <= own <= f_hi:
        return None
    freqs = np.geomspace(f_lo, f_hi, FREQUENCIES)
    gram = Periodogram(freqs, lombscargle_power(x, r - r.mean(), freqs), own, 1.0 / span)
    return gram if np.any(np.abs(freqs - own) <= gram.lobe) else None


def period_rivals(
    x: np.ndarray, r: np.ndarray, period: float, drift: float | None = None
) -> int | None:
    """The number of rival peaks to ``period`` in the periodogram of ``r`` along ``x`` (see the
    module); ``drift``: the length ℓ over which the cycle's shape drifts (None: it does not),
    whose spectral width 1/(2πℓ) is the cycle's own. None when the data are too few or the
    period lies outside the frequencies the data resolve."""
    gram = periodogram(x, r, period)
    if gram is None:
        return None
    strength = gram.strength(gram.own)
    power = gram.power
    apart = max(gram.lobe, 1.0 / (2.0 * np.pi * drift) if drift else 0.0)
    peaks = np.flatnonzero((power[1:-1] > power[:-2]) & (power[1:-1] >= power[2:])) + 1
    rivals = [
        i
        for i in peaks
        if power[i] >= RIVAL_SHARE * strength
        and np.min(np.abs(gram.harmonics - gram.freqs[i])) > apart
    ]
    return len(rivals)


def dominant_harmonic(x: np.ndarray, r: np.ndarray, period: float) -> int | None:
    """The k ≥ 2 such that what the cycle fits repeats every period/k: every harmonic j of
    ``period`` holding at least ``HARMONIC_SHARE`` of the strongest harmonic's power is a
    multiple of k (their greatest common divisor), so the period's own frequency and the
    others between carry next to nothing (a spiky 3-year cycle fitted to a yearly one: power
    at 3/period, 6/period, ...). A yearly cycle with two humps (power at 1/period and
    2/period) keeps k = 1. None when k is 1 or the periodogram cannot be read."""
    gram = periodogram(x, r, period)
    if gram is None:
        return None
    strengths = np.array([gram.strength(f) for f in gram.harmonics if f <= gram.freqs[-1]])
    if strengths.size < 2 or strengths.max() <= 0:
        return None
    held = np.flatnonzero(strengths >= HARMONIC_SHARE * strengths.max()) + 1
    k = int(np.gcd.reduce(held))
    return k if k >= 2 else None


def strongest_harmonic(x: np.ndarray, r: np.ndarray, period: float) -> int | None:
    """The harmonic k ≥ 2 of ``period`` at which what the cycle fits has its strongest peak,
    when the period's own frequency holds less than ``RIVAL_SHARE`` of that peak's power (a
    yearly cycle that mostly rises and falls twice a year; a 4-year cycle whose power lies at
    1 year); None when its own frequency is the strongest, or the periodogram cannot be read."""
    gram = periodogram(x, r, period)
    if gram is None:
        return None
    strengths = [gram.strength(f) for f in gram.harmonics if f <= gram.freqs[-1]]
    k = int(np.argmax(strengths)) + 1
    if k < 2 or strengths[0] >= RIVAL_SHARE * strengths[k - 1]:
        return None
    return k


#: A peak of a cycle's fitted values counts as one of its rises and falls within a period when
#: its prominence is at least this share of the period's whole range (``peaks_per_period``).
PEAK_SHARE = 0.5


def peaks_per_period(x: np.ndarray, m: np.ndarray, period: float) -> float | None:
    """The median, over the whole periods within the data holding at least 6 points, of the
    number of peaks of the fitted values ``m`` whose prominence is at least ``PEAK_SHARE`` of
    that period's range, the period read as a cycle (a peak at its edge counts once); None
    without such a period. A yearly shape with one tall spike and a small second bump has 1,
    though its periodogram may peak at 6 months."""
    from scipy.signal import find_peaks

    order = np.argsort(x)
    x, m = np.asarray(x, dtype=float)[order], np.asarray(m, dtype=float)[order]
    counts = []
    for start in np.arange(x[0], x[-1] - period + 1e-9 * period, period):
        inside = (x >= start) & (x < start + period)
        values = m[inside]
        if values.size < 6 or np.ptp(values) <= 0:
            continue
        n = values.size
        peaks, _ = find_peaks(np.tile(values, 3), prominence=PEAK_SHARE * np.ptp(values))
        counts.append(int(np.sum((peaks >= n) & (peaks < 2 * n))))
    return float(np.median(counts)) if counts else None
