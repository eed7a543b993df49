"""Synthetic hourly series with known structure, built from explicit functions (no GP draw).

With t in days from the first hour and T the span in days, N hourly points:

    y(t) = trend(t) + A(t) · daily(t) + weekly(t) + ε,   ε ~ N(0, NOISE_SD²)

- ``trend(t) = TREND_RISE · t / T``: a straight line rising by TREND_RISE over the span;
- ``daily(t) = sin(2πt) + ½ sin(4πt + φ(t))``, period exactly 1 day, whose shape drifts slowly
  (φ(t) = 0.8 sin(2πt / T), one swing over the span);
- ``A(t) = a(t) · (1 + MODULATION · m(t))``: the daily cycle's amplitude, where m is a random
  smooth function of unit variance with lengthscale MODULATOR_LENGTHSCALE days (random
  Fourier features of a squared-exponential kernel: m(t) = √(2/J) Σⱼ wⱼ cos(ωⱼ t + bⱼ),
  ωⱼ ~ N(0, 1/ℓ²), bⱼ ~ U(0, 2π), wⱼ ~ N(0, 1)) — so the daily cycle is SE × Per in kind —
  and a(t) steps from 1 to AMPLITUDE_AFTER at the changepoint c = CHANGE_AT · T (rounded to
  the hour), a(t) = 1 + (AMPLITUDE_AFTER - 1) · ½(1 + tanh((t - c) / CHANGE_STEEPNESS));
- ``weekly(t)``: a fixed smooth periodic function of period exactly 7 days (three harmonics
  with coefficients drawn once from the seed), scaled to standard deviation WEEKLY_SD.

"Known structure", what the benchmark checks: periods of 1 day and 7 days (each within a
relative tolerance), and a change at c (within a tolerance in days). The trend and the
modulation are there to make the series realistic; they are not checked.

The irregular variant removes a random 10% of the hours (seeded), so spacing varies.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

START = pd.Timestamp("2015-01-05 00:00")  # a Monday
SEED = 20261125
TREND_RISE = 2.0
MODULATION = 0.25
MODULATOR_LENGTHSCALE = 10.0  # days
FEATURES = 64
AMPLITUDE_AFTER = 2.0
CHANGE_AT = 0.6  # fraction of the span
CHANGE_STEEPNESS = 0.25  # days
WEEKLY_SD = 0.5
NOISE_SD = 0.3
DROPPED = 0.1  # fraction of the hours removed in the irregular variant


@dataclass(frozen=True)
class Synthetic:
    """One synthetic series: hours since START (integers), values, and its changepoint."""

    hours: np.ndarray
    y: np.ndarray
    change_hours: int
    span_hours: int

    def frame(self) -> pd.DataFrame:
        """``time`` (``YYYY-MM-DD HH:MM``) and ``value`` columns, as the CSV holds them."""
        stamps = START + pd.to_timedelta(self.hours, unit="h")
        return pd.DataFrame({"time": stamps.strftime("%Y-%m-%d %H:%M"), "value": self.y})


def smooth_modulator(t: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random smooth function of unit variance, random Fourier features of an SE kernel of
    lengthscale MODULATOR_LENGTHSCALE: √(2/J) Σⱼ wⱼ cos(ωⱼ t + bⱼ)."""
    omega = rng.normal(0.0, 1.0 / MODULATOR_LENGTHSCALE, FEATURES)
    phase = rng.uniform(0.0, 2.0 * np.pi, FEATURES)
    weight = rng.normal(0.0, 1.0, FEATURES)
    features = np.cos(np.outer(t, omega) + phase)  # (N, J): 64 columns, 51 MB at N = 10⁵
    return np.sqrt(2.0 / FEATURES) * (features @ weight)


def weekly_shape(t: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Σₖ₌₁³ (aₖ cos(2πkt/7) + bₖ sin(2πkt/7)) / k, scaled to sd WEEKLY_SD over a whole week."""
    a, b = rng.normal(size=3), rng.normal(size=3)
    k = np.arange(1, 4)

    def shape(s: np.ndarray) -> np.ndarray:
        angle = 2.0 * np.pi * np.outer(s, k) / 7.0
        return (np.cos(angle) * (a / k) + np.sin(angle) * (b / k)).sum(axis=1)

    week = shape(np.arange(7 * 24) / 24.0)  # one week, hourly: the sd to scale by
    return WEEKLY_SD * shape(t) / week.std()


def hourly_series(n: int, seed: int = SEED, irregular: bool = False) -> Synthetic:
    """The series of ``n`` consecutive hours (before removal); ``irregular`` drops DROPPED of
    them at random. The same (n, seed) always gives the same series."""
    if n < 48:
        raise ValueError("at least 48 hours")
    rng = np.random.default_rng(seed)
    hours = np.arange(n)
    t = hours / 24.0
    span = t[-1]
    change_hours = int(round(CHANGE_AT * (n - 1)))
    change = change_hours / 24.0
    step = 0.5 * (1.0 + np.tanh((t - change) / CHANGE_STEEPNESS))
    amplitude = (1.0 + (AMPLITUDE_AFTER - 1.0) * step) * (
        1.0 + MODULATION * smooth_modulator(t, rng)
    )
    drift = 0.8 * np.sin(2.0 * np.pi * t / span)
    daily = np.sin(2.0 * np.pi * t) + 0.5 * np.sin(4.0 * np.pi * t + drift)
    weekly = weekly_shape(t, rng)
    y = TREND_RISE * t / span + amplitude * daily + weekly + NOISE_SD * rng.standard_normal(n)
    if irregular:
        drop = np.random.default_rng(seed + 1).choice(n, size=int(DROPPED * n), replace=False)
        keep = np.setdiff1d(hours, drop)
        hours, y = hours[keep], y[keep]
    return Synthetic(hours, y, change_hours, n - 1)
