"""How well the data single out a cycle's period: how many other peaks of the periodogram of
what the cycle fits (its partial residuals) are as strong as its own.

With P(f) the Lomb-Scargle power of the partial residuals r_k (``decompose/partial.py``) on a
geometric grid of frequencies from 2/span to the Nyquist frequency 0.5/spacing, the cycle's own
power is the largest P within one main lobe (1/span) of its frequency 1/period. A rival is a
local maximum of P at least ``RIVAL_SHARE`` of that power, more than a main lobe from the
cycle's frequency and from its harmonics (a cycle that is not a sinusoid has power at 2/period,
3/period, ... of its own).
"""

from __future__ import annotations

import numpy as np

from abcd_cli.data.summary import lombscargle_power

#: A peak at least this share of the cycle's own power is a rival to its period.
RIVAL_SHARE = 0.8
#: Frequencies of the periodogram.
FREQUENCIES = 1000
#: Points the periodogram reads at most (a longer series is read every k-th point, which keeps
#: its spectrum below the thinned Nyquist frequency and bounds the cost at 2·10⁶ terms).
MAX_POINTS = 2000


def period_rivals(x: np.ndarray, r: np.ndarray, period: float) -> int | None:
    """The number of rival peaks to ``period`` in the periodogram of ``r`` along ``x`` (see the
    module); None when the data are too few or the period lies outside the frequencies the
    data resolve."""
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
    power = lombscargle_power(x, r - r.mean(), freqs)
    lobe = 1.0 / span
    near = np.abs(freqs - own) <= lobe
    if not near.any():
        return None
    strength = float(power[near].max())
    peaks = np.flatnonzero((power[1:-1] > power[:-2]) & (power[1:-1] >= power[2:])) + 1
    harmonics = own * np.arange(1, int(f_hi / own) + 2)
    rivals = [
        i
        for i in peaks
        if power[i] >= RIVAL_SHARE * strength and np.min(np.abs(harmonics - freqs[i])) > lobe
    ]
    return len(rivals)
