"""The exact engine's posterior: one Cholesky factor of K, every component's moments from it.

For f = Σ f_i with independent f_i ~ GP(0, k_i) and y = f(X) observed (thesis eq. 2.5-2.7):
    E[f_i(X*) | y]   = K_i(X*, X) K⁻¹ y
    Cov[f_i(X*) | y] = K_i(X*, X*) - K_i(X*, X) K⁻¹ K_i(X, X*)
    Cov[f_i(X*), f_j(X*) | y] = -K_i(X*, X) K⁻¹ K_j(X, X*)     (i ≠ j)
Pointwise variances need only diag K_i(X*, X*) = k_i(x, x), never the m×m matrix.
With ``constant_mean`` the data are y - β̂1 in these formulas, and β's uncertainty adds
c_i c_jᵀ to every (co)variance, c_i = K_i(X*, X) v / √a: the components share the level's
error (R&W eq. 2.42 for the sum; the same algebra for each part).
"""

from __future__ import annotations

import numpy as np

from abcd_cli.arrays import as_2d
from abcd_cli.engines.base import Posterior, PosteriorError
from abcd_cli.engines.cholesky import Level, cholesky_factor, forward, weights
from abcd_cli.kernels import Kernel, total
from abcd_cli.kernels.algebra import sum_of_products


class ExactPosterior(Posterior):
    """A kernel conditioned on data through the Cholesky factor of K = k(X, X)."""

    _level: Level | None  # its v = K⁻¹1 gives the level's coupling

    def __init__(self, kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool = False):
        self.X = as_2d(X)
        self.y = np.asarray(y, dtype=float)
        self.kernel = kernel
        L = cholesky_factor(kernel.gram(self.X))
        if L is None:
            raise PosteriorError("the covariance matrix of this model cannot be factorised")
        self.L = L
        # residual: the data the components explain, y minus the level
        self.residual, self.alpha, self._level = weights(L, self.y, constant_mean)

    def _level_coupling(self, Ks: np.ndarray) -> np.ndarray | None:
        """c = K_i(X*, X) v / √a, whose outer products are the level's share of the covariance."""
        if self._level is None:
            return None
        return (Ks @ self._level.v) * self.level_sd

    def _cross(self, part: Kernel, Xs: np.ndarray | None) -> np.ndarray:
        return part.gram(self.X) if Xs is None else part.gram(Xs, self.X)

    def _prior(self, part: Kernel, Xs: np.ndarray | None) -> np.ndarray:
        return part.gram(self.X) if Xs is None else part.gram(Xs)

    def mean(self, part: Kernel, Xs: np.ndarray | None = None) -> np.ndarray:
        """Posterior mean of the additive component with kernel ``part``: K_i(X*, X) K⁻¹ y."""
        return self._cross(part, Xs) @ self.alpha

    def _moments(
        self, part: Kernel, Xs: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Mean, variance given the level, and the level coupling c of one component:
        var = k_i(x, x) - |L⁻¹ K_i(X, x)|² at each x."""
        Ks = self._cross(part, Xs)
        V = forward(self.L, Ks.T)
        var = part.diag(self.X if Xs is None else Xs) - np.sum(V * V, axis=0)
        return Ks @ self.alpha, var, self._level_coupling(Ks)

    def covariance(
        self, part: Kernel, other: Kernel | None = None, Xs: np.ndarray | None = None
    ) -> np.ndarray:
        """Posterior covariance matrix of one component (``other`` None) or between two
        (independent a priori, so only the data term remains)."""
        Ka = self._cross(part, Xs)
        Kb = Ka if other is None else self._cross(other, Xs)
        A = forward(self.L, Ka.T)
        B = A if other is None else forward(self.L, Kb.T)
        cov = -A.T @ B
        if other is None:
            cov += self._prior(part, Xs)
        ca, cb = self._level_coupling(Ka), self._level_coupling(Kb)
        if ca is not None and cb is not None:
            cov += np.outer(ca, cb)
        return cov

    def predict(self, Xs: np.ndarray, noise: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Mean and variance of y (``noise``) or of the noise-free f at new inputs ``Xs``.

        Noise-free means without the white-noise kernels; their variance is added back for y.
        With a level, mean + β̂ and, for β + f, var + (1 - K(X*, X) v)² / a (R&W eq. 2.42).
        """
        Xs = as_2d(Xs)
        mean, var, c = self._moments(self.kernel, Xs)
        # k(x*, x*) counts the white-noise terms, which f at new inputs does not have
        noise_var = noise_variance(self.kernel, Xs)
        var = var - noise_var
        if c is not None:
            mean, var = mean + self.level, var + (self.level_sd - c) ** 2
        var = np.maximum(var, 0.0)
        if noise:
            var = var + noise_var
        return mean, var

    def standardised_errors(self) -> np.ndarray:
        """e = L⁻¹ (y - level) with the data in x order (K = L Lᵀ): entry i is the error of
        predicting point i from the points before it, divided by its sd."""
        order = np.argsort(self.X[:, 0], kind="stable")
        if np.array_equal(order, np.arange(order.size)):
            L = self.L  # already in x order: the same factor
        else:
            L = cholesky_factor(self.kernel.gram(self.X[order]))
            if L is None:
                raise PosteriorError("the covariance matrix of this model cannot be factorised")
        return forward(L, self.residual[order])

    def given(self, train: np.ndarray, kernel: Kernel | None = None) -> ExactPosterior:
        """``kernel`` (default: this one's) conditioned on the residual at ``train`` alone,
        with a zero mean."""
        k = self.kernel if kernel is None else kernel
        return ExactPosterior(k, self.X[train], self.residual[train])


def noise_variance(kernel: Kernel, Xs: np.ndarray) -> np.ndarray:
    """The white-noise part of k(x, x) at each input: Σ k_t(x, x) over the sum-of-products
    terms t with a WN factor (the terms that vanish between distinct observations)."""
    noise = [t for t in sum_of_products(kernel) if t.has_noise_factor()]
    return total(noise).diag(Xs) if noise else np.zeros(as_2d(Xs).shape[0])
