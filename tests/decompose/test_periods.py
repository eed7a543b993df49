"""How many times a cycle's fitted values rise and fall within a period."""

from __future__ import annotations

import numpy as np

from abcd_cli.decompose.periods import peaks_per_period

X = np.arange(0.0, 10.0, 1.0 / 12.0)  # ten years, monthly


def test_a_wave_twice_a_period_has_two_peaks() -> None:
    assert peaks_per_period(X, np.sin(4 * np.pi * X), 1.0) == 2.0


def test_a_tall_spike_beside_a_small_bump_has_one() -> None:
    phase = np.round((X % 1.0) * 12).astype(int)
    m = np.where(phase == 1, 6.0, 0.0) + np.where(phase == 7, 1.0, 0.0)
    assert peaks_per_period(X, m, 1.0) == 1.0


def test_a_peak_on_the_edge_of_a_period_counts_once() -> None:
    assert peaks_per_period(X, np.cos(2 * np.pi * X), 1.0) == 1.0


def test_no_whole_period_gives_none() -> None:
    assert peaks_per_period(X[:5], np.sin(X[:5]), 1.0) is None
