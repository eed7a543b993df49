"""The periodogram's peaks that periodic kernels start from (``data.summary``): on a long
series a peak is narrower than the geometric grid's steps and is found again on a finer one."""

from __future__ import annotations

import numpy as np

import abcd_cli.data.summary as summary


def _hourly(n: int, period_days: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = np.arange(n) / 24.0  # days
    y = np.sin(2 * np.pi * x / period_days) + 0.5 * np.sin(2 * np.pi * x / 7.0)
    return x, y + 0.3 * rng.standard_normal(n)


def test_a_long_series_peaks_are_found_to_a_fraction_of_their_width():
    """40,000 hours (1,667 days): the grid's steps near one cycle a day are 0.0046 per day and
    near one a week 0.0007, the peaks' main lobes 0.0012 wide; found, both periods are within a
    tenth of the width."""
    x, y = _hourly(40_000, 1.003)
    periods = summary.DataSummary.from_data(x, y).periods
    width = 2.0 / (x[-1] - x[0])
    for true in (1.003, 7.0):
        assert min(abs(1 / p - 1 / true) for p in periods) < 0.1 * width, periods


def test_peaks_the_grid_resolves_are_left_as_they_are(monkeypatch):
    """On 1,000 hours the grid's steps are a small part of the main lobe: no zoom, the grid's
    own frequencies."""
    x, y = _hourly(1000, 1.003)
    zoomed = []
    original = summary._zoom

    def spy(*args):
        out = original(*args)
        zoomed.append(out[0] != args[2][args[4]])
        return out

    monkeypatch.setattr(summary, "_zoom", spy)
    summary.DataSummary.from_data(x, y)
    assert zoomed and not any(zoomed)


def test_the_periodogram_in_chunks_is_scipys_in_one_piece(monkeypatch):
    """Chunks of frequencies bound the temporaries (N × chunk elements) and change nothing."""
    x, y = _hourly(3000, 1.003)
    freqs = np.geomspace(0.01, 10.0, 301)
    whole = summary.lombscargle(x, y, 2 * np.pi * freqs)
    monkeypatch.setattr(summary, "PERIODOGRAM_ELEMENTS", 3000 * 7)  # 7 frequencies a chunk
    chunked = summary.lombscargle_power(x, y, freqs)
    np.testing.assert_allclose(chunked, whole, rtol=1e-12, atol=1e-15)
