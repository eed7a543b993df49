"""Partial residuals: the data with every other component's fitted part taken away.

For component k, r_k = y − β̂ − Σ_{j≠k, j not noise} m_j, with m_j the posterior mean of
component j at the data (thesis eq. 2.5-2.7) and β̂ the level (zero unless estimated). Noise
components are not taken away: their posterior mean at the data is the rest of the residual,
and taking it away too would leave r_k = m_k exactly. Drawn against component k's inputs,
r_k scatters about m_k as the data do about the whole model.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def partial_residuals(
    residual: np.ndarray, means: Sequence[np.ndarray], noise: Sequence[bool]
) -> list[np.ndarray]:
    """r_k = residual − Σ_{j≠k, not noise[j]} means[j] for every k (``residual`` = y − β̂)."""
    signal = np.zeros_like(np.asarray(residual, dtype=float))
    for mean, is_noise in zip(means, noise, strict=True):
        if not is_noise:
            signal = signal + mean
    out = []
    for mean, is_noise in zip(means, noise, strict=True):
        others = signal if is_noise else signal - mean
        out.append(np.asarray(residual, dtype=float) - others)
    return out
