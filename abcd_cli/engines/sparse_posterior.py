"""The sparse engine's posterior: the variational (Titsias 2009 / SGPR) predictive, O(N m²).

With Σ = K_zz + K_zn D⁻¹ K_nz (= L B Lᵀ, ``engines/nystrom.py``) the optimal q(u) of the lower
bound is N(K_zz Σ⁻¹ K_zn D⁻¹ y, K_zz Σ⁻¹ K_zz), and for an additive component f_i of the
noise-free part, with K_i* = k_i(X*, Z) (Z a distinct array: white noise adds nothing):
    E[f_i(X*)]            = K_i* w,               w = Σ⁻¹ K_zn D⁻¹ r,
    Cov[f_i(X*), f_j(X*)] = δ_ij K_i** - K_i* (K_zz⁻¹ - Σ⁻¹) K_*j,
    K_zz⁻¹ - Σ⁻¹ = L⁻ᵀ (I - B⁻¹) L⁻¹,
the exact formulas (``exact_posterior``) with K replaced by Q + D in the data's covariance; at
m = N (Z = X) they are the exact ones. The white noise at the training inputs is the rest of
the data: given f, noise part j of D is (D_j / D)(y - f) plus independent noise of variance
D_j (1 - D_j / D), which gives its moments from f's. At new inputs a white-noise component is
independent of the data (mean 0, its prior variance), as in the exact engine.
With a constant mean (flat prior integrated out of N(y | β1, Q + D)): β̂ = 1ᵀ(Q + D)⁻¹y / a,
sd 1/√a, a = 1ᵀ(Q + D)⁻¹1; r = y - β̂1, and β's uncertainty adds c_i c_jᵀ with c_i the mean
functional applied to 1, times 1/√a (R&W eq. 2.42, as in the exact engine).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

import numpy as np
from scipy.linalg import LinAlgError, cholesky, solve_triangular

from abcd_cli.arrays import as_2d
from abcd_cli.engines.base import Posterior, PosteriorError
from abcd_cli.engines.nystrom import (
    Fit,
    InducingFactor,
    Whitened,
    data_columns,
    factor_inducing,
    row_blocks,
    whitened_pass,
)
from abcd_cli.kernels import Kernel


class SparsePosterior(Posterior):
    """A kernel conditioned on (X, y) through m inducing inputs Z (rows of X, fixed)."""

    def __init__(
        self,
        kernel: Kernel,
        X: np.ndarray,
        y: np.ndarray,
        Z: np.ndarray,
        constant_mean: bool = False,
        jitter: float = 1e-8,
        parts: tuple[InducingFactor, Whitened] | None = None,
    ):
        """``parts``: K_zz's factor and the pass over (X, y) when they are already known
        (``given``)."""
        self.X, self.Z = as_2d(X), as_2d(Z)
        self.kernel, self.jitter = kernel, jitter
        y = np.asarray(y, dtype=float)
        try:
            with np.errstate(all="ignore"):
                self.c, self.d = kernel.diag_parts(self.X)
                if not np.all(self.d > 0):
                    raise PosteriorError("the model has no white noise at some data point")
                factor, w = parts or self._parts(y, constant_mean)
                fit = Fit.from_gram(w.gram_inverse())
        except (LinAlgError, ValueError) as exc:
            raise PosteriorError(f"this model cannot be conditioned on the data ({exc})") from None
        self.factor, self.w = factor, w
        self._level = fit if constant_mean else None
        self.residual = y - fit.beta if constant_mean else y
        AYr = w.AY @ fit.gradient_columns()[:, :1]  # A r̃
        self.weights = factor.solve_left_t(w.solve_B(AYr))[:, 0]  # Σ⁻¹ K_zn D⁻¹ r
        self.level_weights = (
            factor.solve_left_t(w.solve_B(w.AY[:, 1:]))[:, 0] if constant_mean else None
        )  # Σ⁻¹ K_zn D⁻¹ 1

    def _parts(self, y: np.ndarray, constant_mean: bool) -> tuple[InducingFactor, Whitened]:
        """K_zz's factor and one whitened pass over the data columns."""
        factor = factor_inducing(self.kernel.gram(self.Z, self.Z.copy()), self.jitter)
        if factor is None:
            raise PosteriorError("the inducing covariance of this model cannot be factorised")
        columns = data_columns(y, constant_mean)
        return factor, whitened_pass(self.kernel, self.X, self.Z, factor, self.d, columns)

    # --- helpers --------------------------------------------------------------------------
    def _whiten(self, Kc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """V = L⁻¹ K_z*, U = L_B⁻¹ V: K_*z(K_zz⁻¹ - Σ⁻¹)K_z* = VᵀV - UᵀU."""
        V = self.factor.solve_left(Kc.T)
        return V, solve_triangular(self.w.LB, V, lower=True, check_finite=False)

    def _by_rows(self, S: np.ndarray, f: Callable[[slice], tuple[np.ndarray, ...]]) -> tuple:
        """f on row blocks of S (each at most ``BLOCK_ELEMENTS`` against Z), joined."""
        parts = [f(rows) for rows in row_blocks(S.shape[0], self.factor.m)]
        return tuple(np.concatenate(p) for p in zip(*parts, strict=True))

    def _coupling(self, Kc: np.ndarray) -> np.ndarray | None:
        return None if self.level_weights is None else (Kc @ self.level_weights) * self.level_sd

    # --- components -----------------------------------------------------------------------
    def mean(self, part: Kernel, Xs: np.ndarray | None = None) -> np.ndarray:
        """Posterior mean of the additive component ``part``: K_i* w at new inputs; at the
        data, plus its white-noise share (D_i / D)(r - f̂). O(N m): no variance is formed."""
        X = self.X if Xs is None else as_2d(Xs)
        (mean,) = self._by_rows(X, lambda rows: (part.gram(X[rows], self.Z) @ self.weights,))
        if Xs is not None:
            return mean
        npart = part.diag_parts(X)[1]
        return mean + (npart / self.d) * (self.residual - self._whole_mean)

    @cached_property
    def _whole_mean(self) -> np.ndarray:
        """f̂ = K_nz w, the noise-free part's mean at the data."""
        X = self.X
        return self._by_rows(X, lambda rows: (self.kernel.gram(X[rows], self.Z) @ self.weights,))[0]

    def _moments(
        self, part: Kernel, Xs: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Mean, variance given the level, and the level coupling c (None without a level)."""
        if Xs is None:
            return self._training_moments(part)
        Xs = as_2d(Xs)

        def rows_moments(rows: slice) -> tuple[np.ndarray, ...]:
            Kc = part.gram(Xs[rows], self.Z)
            V, U = self._whiten(Kc)
            var = part.diag(Xs[rows]) - np.sum(V * V, axis=0) + np.sum(U * U, axis=0)
            c = self._coupling(Kc)
            return Kc @ self.weights, var, (np.zeros(0) if c is None else c)

        mean, var, c = self._by_rows(Xs, rows_moments)
        return mean, var, (c if self.level_weights is not None else None)

    def _training_moments(self, part: Kernel) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """At the data: g = the component's noise-free part, f = the whole noise-free part,
        e = its noise share ρ(r - f) + independent noise, ρ = D_part / D:
        var = var g - 2ρ cov(g, f) + ρ² var f + D_part (1 - ρ)."""
        X = self.X

        def rows_moments(rows: slice) -> tuple[np.ndarray, ...]:
            Kp, Kf = part.gram(X[rows], self.Z), self.kernel.gram(X[rows], self.Z)
            (Vp, Up), (Vf, Uf) = self._whiten(Kp), self._whiten(Kf)
            cp, npart = part.diag_parts(X[rows])
            rho = npart / self.d[rows]
            var_g = cp - np.sum(Vp * Vp, axis=0) + np.sum(Up * Up, axis=0)
            var_f = self.c[rows] - np.sum(Vf * Vf, axis=0) + np.sum(Uf * Uf, axis=0)
            cov = cp - np.sum(Vp * Vf, axis=0) + np.sum(Up * Uf, axis=0)
            var = var_g - 2.0 * rho * cov + rho * rho * var_f + npart * (1.0 - rho)
            mean = Kp @ self.weights + rho * (self.residual[rows] - Kf @ self.weights)
            if self.level_weights is None:
                return mean, var, np.zeros(0)
            lw = self.level_weights
            c = (Kp @ lw + rho * (1.0 - Kf @ lw)) * self.level_sd
            return mean, var, c

        mean, var, c = self._by_rows(X, rows_moments)
        return mean, var, (c if self.level_weights is not None else None)

    def covariance(
        self, part: Kernel, other: Kernel | None = None, Xs: np.ndarray | None = None
    ) -> np.ndarray:
        """Posterior covariance matrix of one component (``other`` None) or between two, at
        new inputs ``Xs``. At the data (``Xs`` None) the answer is an N×N matrix, which this
        engine exists to avoid: NotImplementedError."""
        if Xs is None:
            raise NotImplementedError(
                "the sparse engine gives covariance matrices at new inputs only (at the data"
                " they are N×N)"
            )
        Xs = as_2d(Xs)
        Ka = part.gram(Xs, self.Z)
        Kb = Ka if other is None else other.gram(Xs, self.Z)
        Va, Ua = self._whiten(Ka)
        Vb, Ub = (Va, Ua) if other is None else self._whiten(Kb)
        cov = Ua.T @ Ub - Va.T @ Vb
        if other is None:
            cov += part.gram(Xs)
        ca, cb = self._coupling(Ka), self._coupling(Kb)
        if ca is not None and cb is not None:
            cov += np.outer(ca, cb)
        return cov

    def predict(self, Xs: np.ndarray, noise: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Mean and variance of y (``noise``) or of the noise-free f at new inputs, the level
        included: f's variance uses the noise-free prior variance c(x*), y's adds the
        white-noise diagonal D(x*) of the kernel at the new inputs."""
        Xs = as_2d(Xs)

        def rows_moments(rows: slice) -> tuple[np.ndarray, ...]:
            Kc = self.kernel.gram(Xs[rows], self.Z)
            V, U = self._whiten(Kc)
            c, n = self.kernel.diag_parts(Xs[rows])
            var = c - np.sum(V * V, axis=0) + np.sum(U * U, axis=0)
            mean = Kc @ self.weights
            lc = self._coupling(Kc)
            if lc is not None:
                mean, var = mean + self.level, var + (self.level_sd - lc) ** 2
            var = np.maximum(var, 0.0)
            return mean, (var + n if noise else var)

        return self._by_rows(Xs, rows_moments)

    def standardised_errors(self) -> np.ndarray:
        """L_P⁻¹ r in x order, L_P the Cholesky factor of the approximate data covariance
        P = Q + D (the model whose density is the lower bound's first term; the exact one at
        m = N): entry i is the error of predicting point i from the points before it under P,
        divided by its sd. P = ΦᵀΦ + D, Φ = L⁻¹K_zn, is y = Φᵀu + e with u ~ N(0, I), so a
        Kalman-style pass over blocks of m points in x order gives it in O(N m²): each block's
        prediction from the earlier ones (precision Λ = I + Σ Φ_j D_j⁻¹ Φ_jᵀ, h = Σ Φ_j D_j⁻¹
        r_j: mean Φ_bᵀΛ⁻¹h, covariance Φ_bᵀΛ⁻¹Φ_b + D_b), whitened by its own Cholesky factor."""
        order = np.argsort(self.X[:, 0], kind="stable")
        X, r, d = self.X[order], self.residual[order], self.d[order]
        m = self.factor.m
        precision, h = np.eye(m), np.zeros(m)
        errors = np.empty_like(r)
        for start in range(0, r.size, m):
            rows = slice(start, min(start + m, r.size))
            Phi = self.factor.solve_left(self.kernel.gram(X[rows], self.Z).T)
            L = cholesky(precision, lower=True, check_finite=False)
            V = solve_triangular(L, Phi, lower=True, check_finite=False)
            mean = V.T @ solve_triangular(L, h, lower=True, check_finite=False)
            S = V.T @ V
            S[np.diag_indices_from(S)] += d[rows]
            Ls = cholesky(S, lower=True, check_finite=False)
            errors[rows] = solve_triangular(Ls, r[rows] - mean, lower=True, check_finite=False)
            Phi_d = Phi / d[rows]
            precision += Phi_d @ Phi.T
            h += Phi_d @ r[rows]
        return errors

    def given(self, train: np.ndarray, kernel: Kernel | None = None) -> SparsePosterior:
        """``kernel`` (default: this one's, the same function) conditioned on the residual at
        ``train`` alone, with a zero mean, through the same inducing inputs. When fewer points
        are left out than kept, the fold's sums A Aᵀ, A r̃ and r̃ᵀr̃ are this posterior's minus
        those of the points left out: O(N_out m²) instead of a pass over the kept points."""
        k = self.kernel if kernel is None else kernel
        train = np.asarray(train)
        out = np.ones(self.X.shape[0], dtype=bool)
        out[train] = False
        left = np.flatnonzero(out)
        X, r = self.X[train], self.residual[train]
        if np.unique(train).size != train.size or left.size >= train.size:
            return SparsePosterior(k, X, r, self.Z, False, self.jitter)
        try:
            with np.errstate(all="ignore"):
                parts = (self.factor, self._without(left))
        except (LinAlgError, ValueError) as exc:
            raise PosteriorError(f"this model cannot be conditioned on the data ({exc})") from None
        return SparsePosterior(k, X, r, self.Z, False, self.jitter, parts)

    def _without(self, left: np.ndarray) -> Whitened:
        """The whitened sums over the residual of every point but ``left``."""
        r, w = self.residual, self.w
        gone = whitened_pass(
            self.kernel, self.X[left], self.Z, self.factor, self.d[left], r[left, None]
        )
        isd = 1.0 / np.sqrt(self.d)
        Ar = w.AY @ (
            np.ones((1, 1)) if self._level is None else self._level.gradient_columns()[:, :1]
        )
        AAt = w.AAt - gone.AAt
        LB = cholesky(AAt + np.eye(self.factor.m), lower=True, check_finite=False)
        rr = np.array([[float(np.sum((r * isd) ** 2))]]) - gone.YY
        return Whitened(self.factor, AAt, Ar - gone.AY, rr, w.trace_q - gone.trace_q, LB)
