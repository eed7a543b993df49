"""A component whose covariance holds no period but whose fitted curve repeats (airline by the
sampler: a rational-quadratic factor of 5.8 months fits the yearly season as wiggles, and the
report called it "a smooth, non-periodic component" beside a figure that rises and falls every
year). Read from its fitted values at the data, m(x_i), with their least-squares quadratic
removed (m̃): P is the period of the largest Lomb-Scargle peak of m̃ between ``MIN_REPEATS``/span
and the Nyquist frequency 0.5/spacing, and r = corr(m̃(x), m̃(x + P)) over the data (m̃(x + P)
interpolated between the data). The curve repeats when r ≥ ``REPEAT_CORRELATION``."""

from __future__ import annotations

import numpy as np

from abcd_cli.data.summary import lombscargle_power
from abcd_cli.decompose.facts import Axis, ComponentFacts
from abcd_cli.reporting.numbers import format_number
from abcd_cli.reporting.wording import format_span

#: The fewest periods the data must hold for a curve to be said to repeat.
MIN_REPEATS = 3.0
#: The least correlation of the detrended curve with itself a period later.
REPEAT_CORRELATION = 0.7
#: Frequencies of the periodogram.
FREQUENCIES = 1000
#: Pairs of observations exactly a lag apart that a lagged correlation is read from, at least;
#: with fewer, it interpolates between observations.
MIN_PAIRS = 20


def lagged_correlation(x: np.ndarray, values: np.ndarray, lag: float) -> float:
    """r = corr(v(x_i), v(x_i + lag)) over the x_i with x_i + lag within the data: over the
    pairs of observations one lag apart (to a tenth of the smallest spacing) where at least
    ``MIN_PAIRS`` exist, since interpolating across gaps blurs what repeats (births, a weekly
    pattern sampled on scattered days: 0.26 interpolated, 1.00 at the 196 pairs a week
    apart); else v(x_i + lag) interpolated between observations. NaN when fewer than three
    points or either side does not move."""
    order = np.argsort(x)
    xs = np.asarray(x, dtype=float)[order]
    vs = np.asarray(values, dtype=float)[order]
    inside = xs + lag <= xs[-1] if xs.size else np.zeros(0, dtype=bool)
    if inside.sum() < 3:
        return float("nan")
    now, later = vs[inside], np.interp(xs[inside] + lag, xs, vs)
    steps = np.diff(xs)
    steps = steps[steps > 0]
    if steps.size:
        targets = xs[inside] + lag
        j = np.clip(np.searchsorted(xs, targets), 1, xs.size - 1)
        nearest = np.where(np.abs(xs[j] - targets) < np.abs(xs[j - 1] - targets), j, j - 1)
        paired = np.abs(xs[nearest] - targets) <= 0.1 * float(steps.min())
        if paired.sum() >= MIN_PAIRS:
            now, later = now[paired], vs[nearest[paired]]
    if np.std(now) <= 0 or np.std(later) <= 0:
        return float("nan")
    return float(np.corrcoef(now, later)[0, 1])


def curve_repeats(facts: ComponentFacts, x_data: np.ndarray | None) -> tuple[float, float] | None:
    """(P, r) of a component with no periodic factor whose fitted curve repeats (see the
    module); None for noise, a cycle, a component of several inputs, or a curve that does not
    repeat."""
    if x_data is None or facts.is_noise or len(facts.dims) > 1:
        return None
    if any(getattr(b, "role", "") == "periodic" for b in facts.kernel.bases()):
        return None
    x = np.asarray(x_data, dtype=float)
    mean = np.asarray(facts.data_mean, dtype=float)
    steps = np.diff(np.unique(x))
    if x.size < 8 or mean.size != x.size or not steps.size:
        return None
    centred = x - x.mean()
    detrended = mean - np.polyval(np.polyfit(centred, mean, 2), centred)
    if np.std(detrended) <= 1e-9 * max(float(np.std(mean)), 1e-300):
        return None
    low, high = MIN_REPEATS / float(np.ptp(x)), 0.5 / float(np.median(steps))
    if low >= high:
        return None
    freqs = np.geomspace(low, high, FREQUENCIES)
    period = 1.0 / float(freqs[np.argmax(lombscargle_power(x, detrended, freqs))])
    r = lagged_correlation(x, detrended, period)
    return (period, r) if np.isfinite(r) and r >= REPEAT_CORRELATION else None


def repeat_words(period: float, axis: Axis) -> str:
    """'its fitted curve rises and falls about every 1.0 year'."""
    return f"its fitted curve rises and falls about every {format_span(period, axis)}"


def repeat_sentences(facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None) -> list[str]:
    """What a component with no period in its covariance but a repeating curve
    (``curve_repeats``) shows, and what the model makes of it; [] for any other."""
    found = curve_repeats(facts, x_data)
    if found is None:
        return []
    period, r = found
    return [
        f"Its covariance holds no period, yet {repeat_words(period, axis)} (with its trend"
        f" removed, values {format_span(period, axis)} apart correlate at"
        f" {format_number(r, decimals=2)} over the data): the model fits that pattern as"
        " local wiggles, not as a cycle, so it does not expect it to repeat beyond the data."
    ]
