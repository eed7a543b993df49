"""Draws from a Gaussian process that are the same on every machine.

``Generator.multivariate_normal`` factorises the covariance by SVD, whose singular vectors are
only fixed up to sign and differ between LAPACK builds, so its draws change with the installed
NumPy. A Cholesky factor is unique: y = L z with z ~ N(0, I) and K + εI = L Lᵀ.
"""

from __future__ import annotations

import numpy as np


def gp_draw(K: np.ndarray, rng: np.random.Generator, jitter: float = 1e-9) -> np.ndarray:
    """One zero-mean sample with covariance K (plus ``jitter`` on the diagonal)."""
    L = np.linalg.cholesky(K + jitter * np.eye(K.shape[0]))
    return L @ rng.standard_normal(K.shape[0])
