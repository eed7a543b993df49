"""Exact Gaussian-process regression: marginal likelihood, fitting, posteriors of components.

Zero-mean GP, y ~ N(0, K) with K = k(X, X) (observation noise is the WN part of k).
Rasmussen & Williams (2006) alg. 2.1 and eq. 5.9:
    L = chol(K),  α = K⁻¹y,
    NLL = ½ yᵀα + Σ log L_ii + (n/2) log 2π,
    ∂NLL/∂θ_j = ½ tr((K⁻¹ - ααᵀ) ∂K/∂θ_j).
With ``constant_mean``, y ~ N(β·1, K) with a flat prior on β, integrated out (R&W §2.7 with
B⁻¹ → 0, one basis function h(x) = 1):
    v = K⁻¹1,  a = 1ᵀv,  β̂ = vᵀy / a  (the generalised least-squares level),  α = K⁻¹(y - β̂1),
    NLL = ½ yᵀα + Σ log L_ii + ½ log a + ((n - 1)/2) log 2π,
    ∂NLL/∂θ_j = ½ tr((K⁻¹ - ααᵀ - vvᵀ/a) ∂K/∂θ_j).
The likelihood then no longer depends on where y's level lies.
A factorisation that fails is retried with growing jitter on the diagonal; when every attempt
fails the functions return ``FAILED_NLL`` instead of raising.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.linalg import LinAlgError, cho_solve, cholesky, solve_triangular
from scipy.linalg.lapack import dpotri
from scipy.optimize import minimize

from abcd_cli.engines.memory import keep_temporaries_on_heap
from abcd_cli.kernel_search.init import DataSummary, initial_values, theta_bounds
from abcd_cli.kernels import Kernel

# Every process that evaluates a likelihood imports this module: about twice as fast at N = 250.
keep_temporaries_on_heap()

FAILED_NLL = 1e20
# Relative jitter (times the mean prior variance) tried in turn when a Cholesky factorisation fails.
JITTERS = (0.0, 1e-10, 1e-8, 1e-6, 1e-4)
_LOG_2PI = math.log(2.0 * math.pi)


def _cholesky(K: np.ndarray) -> np.ndarray | None:
    """Lower Cholesky factor of K, adding jitter if needed; None when it cannot be factorised."""
    if not np.all(np.isfinite(K)):
        return None
    scale = float(np.mean(np.diag(K)))
    if not scale > 0:
        return None
    for jitter in JITTERS:
        A = K if jitter == 0.0 else K + (jitter * scale) * np.eye(K.shape[0])
        try:
            return cholesky(A, lower=True, check_finite=False)
        except LinAlgError:
            continue
    return None


def _inverse_from_cholesky(L: np.ndarray) -> np.ndarray:
    """K⁻¹ from its lower Cholesky factor (LAPACK potri, half the work of solving for I)."""
    inv, info = dpotri(L, lower=1)  # fills the lower triangle; L's upper one is zero
    if info != 0:
        raise LinAlgError(f"potri failed with info={info}")
    inv += np.tril(inv, -1).T
    return inv


@dataclass(frozen=True)
class Level:
    """The generalised least-squares estimate of a constant mean with a flat prior.

    v = K⁻¹1, a = 1ᵀv, β̂ = vᵀy / a; the posterior of β is N(β̂, 1/a) (R&W eq. 2.42).
    """

    v: np.ndarray
    a: float
    beta: float

    @classmethod
    def estimate(cls, L: np.ndarray, y: np.ndarray) -> Level:
        v = cho_solve((L, True), np.ones(y.size), check_finite=False)
        a = float(np.sum(v))
        if not a > 0:
            raise LinAlgError("1ᵀK⁻¹1 is not positive")
        return cls(v, a, float(v @ y) / a)


def _residual(L: np.ndarray, y: np.ndarray, constant_mean: bool) -> tuple[np.ndarray, Level | None]:
    """r = y - β̂1 and the level (r = y and no level without ``constant_mean``).

    Everything downstream solves with r, not K⁻¹y - β̂v, so a far level costs no precision."""
    level = Level.estimate(L, y) if constant_mean else None
    return (y if level is None else y - level.beta), level


def _weights(
    L: np.ndarray, y: np.ndarray, constant_mean: bool
) -> tuple[np.ndarray, np.ndarray, Level | None]:
    """r = y - β̂1, α = K⁻¹r and the level (see ``_residual``)."""
    r, level = _residual(L, y, constant_mean)
    return r, cho_solve((L, True), r, check_finite=False), level


def _nll(quadratic: float, L: np.ndarray, level: Level | None) -> float:
    """½ rᵀK⁻¹r + Σ log L_ii (+ ½ log a) + (n_free/2) log 2π; n_free = n (- 1 with a level)."""
    n_free = L.shape[0] - (level is not None)
    extra = 0.0 if level is None else 0.5 * math.log(level.a)
    return 0.5 * quadratic + float(np.sum(np.log(np.diag(L)))) + extra + 0.5 * n_free * _LOG_2PI


def nll_and_grad(
    theta: np.ndarray, kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool = False
) -> tuple[float, np.ndarray]:
    """Negative log marginal likelihood at ``theta`` and its gradient with respect to theta."""
    k = kernel.with_theta(theta)
    try:
        with np.errstate(all="ignore"):
            K, contract = k.vjp(X)
            L = _cholesky(K)
            if L is None:
                return FAILED_NLL, np.zeros(len(theta))
            r, alpha, level = _weights(L, y, constant_mean)
            nll = _nll(float(r @ alpha), L, level)
            W = _inverse_from_cholesky(L)
            W -= np.outer(alpha, alpha)
            if level is not None:
                W -= np.outer(level.v, level.v / level.a)
            grad = 0.5 * contract(W)
    except (LinAlgError, ValueError, FloatingPointError):
        return FAILED_NLL, np.zeros(len(theta))
    if not (math.isfinite(nll) and np.all(np.isfinite(grad))):
        return FAILED_NLL, np.zeros(len(theta))
    return nll, grad


def negative_log_likelihood(
    kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool = False
) -> float:
    """−log p(y | X, kernel) (with ``constant_mean``, the level integrated out); ``FAILED_NLL``
    when K cannot be factorised."""
    try:
        with np.errstate(all="ignore"):
            K = kernel.gram(X)
            L = _cholesky(K)
            if L is None:
                return FAILED_NLL
            r, level = _residual(L, y, constant_mean)
            z = solve_triangular(L, r, lower=True, check_finite=False)  # rᵀK⁻¹r = zᵀz
            nll = _nll(float(z @ z), L, level)
    except (LinAlgError, ValueError):
        return FAILED_NLL
    return nll if math.isfinite(nll) else FAILED_NLL


@dataclass(frozen=True)
class FitResult:
    """The best of several optimiser runs."""

    kernel: Kernel
    nll: float
    n_starts: int
    n_failed: int
    n_evaluations: int

    @property
    def ok(self) -> bool:
        return self.nll < FAILED_NLL


def _minimise(
    theta: np.ndarray,
    kernel: Kernel,
    X: np.ndarray,
    y: np.ndarray,
    bounds: list[tuple[float, float]],
    max_iter: int,
    ftol: float | None = None,
    constant_mean: bool = False,
) -> tuple[np.ndarray, float, int]:
    """One L-BFGS-B run; (theta, nll, evaluations), nll = FAILED_NLL if the optimiser broke.

    ``ftol``: L-BFGS-B's relative-reduction stopping rule; None keeps scipy's default."""
    options: dict[str, float] = {"maxiter": max_iter}
    if ftol is not None:
        options["ftol"] = ftol
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = minimize(
                nll_and_grad,
                theta,
                args=(kernel, X, y, constant_mean),
                jac=True,
                method="L-BFGS-B",
                bounds=bounds,
                options=options,
            )
    except (ValueError, LinAlgError, FloatingPointError, OverflowError):
        return theta, FAILED_NLL, 0
    nll = float(res.fun)
    return res.x, (nll if math.isfinite(nll) else FAILED_NLL), int(res.nfev)


def fit(
    kernel: Kernel,
    X: np.ndarray,
    y: np.ndarray,
    rng: np.random.Generator,
    restarts: int = 10,
    summary: DataSummary | None = None,
    max_iter: int = 200,
    polish: int | None = None,
    also_from: tuple[Kernel, ...] = (),
    constant_mean: bool = False,
) -> FitResult:
    """Maximise the marginal likelihood with L-BFGS-B from several starting points.

    The first start keeps every known (finite) value of ``kernel`` and draws the unknown (NaN)
    ones; later starts draw the unknown ones again. A kernel with nothing unknown is started once.
    ``also_from``: fully known kernels of the same structure, added as further starts.

    With ``polish`` = None every start is optimised (up to ``max_iter`` iterations). With
    ``polish`` = m, the starts are first ranked by their likelihood and only the best m are
    optimised (the search's economical mode).
    An optimiser error in one start is counted and skipped, never raised.
    ``constant_mean``: maximise the likelihood with a flat-prior constant mean integrated out.
    """
    X = np.asarray(X, dtype=float)
    X = X[:, None] if X.ndim == 1 else X
    y = np.asarray(y, dtype=float)
    summary = summary or DataSummary.from_data(X[:, 0], y)
    bounds = theta_bounds(kernel, summary)
    n_drawn = max(1, restarts) if not kernel.is_fitted else 1
    # initial_values draws what is unknown and puts every value inside its bounds
    starts = [
        k.with_values(initial_values(k, summary, rng)).theta()
        for k in [kernel] * n_drawn + list(also_from)
    ]
    n_starts = len(starts)
    n_evals = 0
    if polish is not None and polish < n_starts:
        first_look = [
            negative_log_likelihood(kernel.with_theta(t), X, y, constant_mean) for t in starts
        ]
        n_evals += n_starts
        starts = [starts[i] for i in np.argsort(first_look, kind="stable")[: max(1, polish)]]
    runs = [
        _minimise(t, kernel, X, y, bounds, max_iter, constant_mean=constant_mean) for t in starts
    ]
    n_evals += sum(r[2] for r in runs)
    ok = [r for r in runs if r[1] < FAILED_NLL]
    n_failed = len(runs) - len(ok)
    if not ok:
        return FitResult(kernel, FAILED_NLL, n_starts, max(n_failed, 1), n_evals)
    theta, nll, _ = min(ok, key=lambda r: r[1])
    return FitResult(kernel.with_theta(theta), nll, n_starts, n_failed, n_evals)


class Posterior:
    """A kernel conditioned on data: predictions and posteriors of additive components.

    For f = Σ f_i with independent f_i ~ GP(0, k_i) and y = f(X) observed (thesis eq. 2.5-2.7):
        E[f_i(X*) | y]   = K_i(X*, X) K⁻¹ y
        Cov[f_i(X*) | y] = K_i(X*, X*) - K_i(X*, X) K⁻¹ K_i(X, X*)
        Cov[f_i(X*), f_j(X*) | y] = -K_i(X*, X) K⁻¹ K_j(X, X*)     (i ≠ j)
    ``X* = None`` means the training inputs themselves (where a WN component is not zero).
    With ``constant_mean`` the data are y - β̂1 in these formulas, and β's uncertainty adds
    c_i c_jᵀ to every (co)variance, c_i = K_i(X*, X) v / √a: the components share the level's
    error (R&W eq. 2.42 for the sum; the same algebra for each part). ``level`` is β̂ (0 without)
    and ``level_sd`` its posterior standard deviation 1/√a.
    """

    def __init__(self, kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool = False):
        X = np.asarray(X, dtype=float)
        self.X = X[:, None] if X.ndim == 1 else X
        self.y = np.asarray(y, dtype=float)
        self.kernel = kernel
        L = _cholesky(kernel.gram(self.X))
        if L is None:
            raise LinAlgError("the covariance matrix of this model cannot be factorised")
        self.L = L
        # residual: the data the components explain, y minus the level
        self.residual, self.alpha, self._level = _weights(L, self.y, constant_mean)

    @property
    def level(self) -> float:
        return 0.0 if self._level is None else self._level.beta

    @property
    def level_sd(self) -> float:
        return 0.0 if self._level is None else 1.0 / math.sqrt(self._level.a)

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

    def component(
        self, part: Kernel, Xs: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean and pointwise variance of the additive component with kernel ``part``."""
        mean, var, c = self._moments(part, Xs)
        return mean, np.maximum(var if c is None else var + c * c, 0.0)

    def _moments(
        self, part: Kernel, Xs: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Mean, variance given the level, and the level coupling c of one component."""
        Ks = self._cross(part, Xs)
        V = solve_triangular(self.L, Ks.T, lower=True, check_finite=False)
        var = np.diag(self._prior(part, Xs)) - np.sum(V * V, axis=0)
        return Ks @ self.alpha, var, self._level_coupling(Ks)

    def covariance(
        self, part: Kernel, other: Kernel | None = None, Xs: np.ndarray | None = None
    ) -> np.ndarray:
        """Posterior covariance matrix of one component (``other`` None) or between two
        (independent a priori, so only the data term remains)."""
        Ka = self._cross(part, Xs)
        Kb = Ka if other is None else self._cross(other, Xs)
        A = solve_triangular(self.L, Ka.T, lower=True, check_finite=False)
        B = A if other is None else solve_triangular(self.L, Kb.T, lower=True, check_finite=False)
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
        Xs = np.asarray(Xs, dtype=float)
        Xs = Xs[:, None] if Xs.ndim == 1 else Xs
        mean, var, c = self._moments(self.kernel, Xs)
        if c is not None:
            mean, var = mean + self.level, var + (self.level_sd - c) ** 2
        var = np.maximum(var, 0.0)
        if noise:
            var = var + _noise_variance(self.kernel, Xs)
        return mean, var


def _noise_variance(kernel: Kernel, Xs: np.ndarray) -> np.ndarray:
    """The white-noise part of k(x, x) at each new input: prior diag on Xs minus the cross diag."""
    same = kernel.gram(Xs)
    distinct = kernel.gram(Xs, Xs.copy())
    return np.diag(same) - np.diag(distinct)
