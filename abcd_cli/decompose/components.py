"""Additive components of a fitted model: posteriors, ordering, statistics, model checks.

* Components are the terms of the kernel's sum-of-products form (thesis §4.1). Each one's
  posterior mean and variance given the data follow thesis eq. 2.5-2.7 (``gp.Posterior``).
* Order (thesis §4.1, "Ordering additive components"): greedily add the component that most
  reduces the 10-fold cross-validated mean absolute error, folds being contiguous blocks of x.
* Model checks: under the model, the standardised one-step-ahead prediction errors
  e = L⁻¹ y (K = L Lᵀ, data in x order) are independent N(0, 1). Their autocorrelation,
  periodogram and quantiles are compared with simulated N(0, I) draws; a p-value is the share of
  draws whose statistic is at least the observed one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_solve, solve_triangular
from scipy.stats import norm

from abcd_cli.decompose.facts import Axis, ComponentFacts, ModelCheck
from abcd_cli.engines.exact import Posterior, _cholesky
from abcd_cli.kernels import WN, Kernel, total
from abcd_cli.kernels.algebra import sum_of_products
from abcd_cli.model import Model

N_FOLDS = 10
N_SIMULATIONS = 1000


@dataclass(frozen=True)
class Decomposition:
    """Everything the report states about the model's components, in the user's units."""

    axis: Axis
    model: Model
    x_grid: np.ndarray
    components: list[ComponentFacts]  # in report order
    cumulative_mean: list[np.ndarray]  # on x_grid, sum of the first k components plus the mean
    cumulative_sd: list[np.ndarray]
    forecast_mean: np.ndarray  # y on x_grid
    forecast_sd: np.ndarray  # of y, noise included
    baseline_mae: float  # cross-validated MAE of predicting the prior mean
    checks: list[ModelCheck]
    level: tuple[float, float] | None  # a constant mean's estimate and sd; None when fixed


def decompose(
    model: Model,
    axis: Axis,
    extrapolate: float = 0.2,
    grid_size: int = 400,
    seed: int = 0,
) -> Decomposition:
    """Split the model into ordered additive components with their statistics."""
    sc = model.scaling
    post = model.posterior
    X = post.X
    x_lo, x_hi = float(model.x.min()), float(model.x.max())
    x_grid = np.linspace(x_lo, x_hi + extrapolate * (x_hi - x_lo), grid_size)
    G = sc.x_in(x_grid)[:, None]
    terms = _terms(model.kernel)
    y_c = post.residual  # scaled data minus the prior mean (the level, if estimated)
    order, cv_path, baseline = _order_by_cv(terms, X, y_c)
    terms = [terms[i] for i in order]

    total_var = float(np.var(y_c))
    data_means = [post.mean(t) for t in terms]
    components = []
    explained = np.zeros_like(y_c)
    r2_before = 0.0
    for k, term in enumerate(terms):
        mean, var = post.component(term, G)
        explained = explained + data_means[k]
        r2 = 1.0 - float(np.var(y_c - explained)) / total_var if total_var > 0 else 0.0
        residual_r2 = (r2 - r2_before) / (1.0 - r2_before) if r2_before < 1.0 else 0.0
        components.append(
            ComponentFacts(
                index=k + 1,
                kernel=sc.kernel_out(term),
                x_grid=x_grid,
                mean=sc.y_scale * mean,
                sd=sc.y_scale * np.sqrt(var),
                data_mean=sc.y_scale * data_means[k],
                cum_r2=r2,
                delta_r2=r2 - r2_before,
                residual_r2=residual_r2,
                cv_mae_before=sc.y_scale * (cv_path[k - 1] if k else baseline),
                cv_mae=sc.y_scale * cv_path[k],
                is_noise=any(isinstance(b, WN) for b in term.bases()),
            )
        )
        r2_before = r2
    cumulative_mean, cumulative_sd = [], []
    for k in range(1, len(terms) + 1):
        mean, var = post.component(total(terms[:k]), G)
        cumulative_mean.append(sc.y_out(mean + post.level))
        cumulative_sd.append(sc.y_scale * np.sqrt(var))
    f_mean, f_var = post.predict(G)
    return Decomposition(
        axis=axis,
        model=model,
        x_grid=x_grid,
        components=components,
        cumulative_mean=cumulative_mean,
        cumulative_sd=cumulative_sd,
        forecast_mean=sc.y_out(f_mean),
        forecast_sd=sc.y_scale * np.sqrt(f_var),
        baseline_mae=sc.y_scale * baseline,
        checks=model_checks(post, np.random.default_rng(seed)),
        level=(
            (float(sc.y_out(post.level)), sc.y_scale * post.level_sd)
            if model.constant_mean
            else None
        ),
    )


def _terms(kernel: Kernel) -> list[Kernel]:
    """Sum-of-products terms, with every white-noise term merged into one component."""
    terms = sum_of_products(kernel)
    noise = [t for t in terms if any(isinstance(b, WN) for b in t.bases())]
    signal = [t for t in terms if not any(isinstance(b, WN) for b in t.bases())]
    return signal + ([total(noise)] if noise else [])


def _contiguous_folds(n: int, k: int) -> list[np.ndarray]:
    return [f for f in np.array_split(np.arange(n), min(k, n)) if f.size]


def _order_by_cv(
    terms: list[Kernel], X: np.ndarray, y: np.ndarray, k: int = N_FOLDS
) -> tuple[list[int], list[float], float]:
    """Greedy order of components by k-fold (contiguous) cross-validated MAE.

    Returns the order, the CV MAE after each addition, and the baseline MAE (predicting the
    prior mean: zero, as ``y`` comes with it subtracted). Hyperparameters stay as fitted on all
    the data.
    """
    full = total(terms)
    # predictions[f][i]: posterior mean of component i at fold f's test points, fit on the rest
    predictions, targets = [], []
    for test in _contiguous_folds(y.size, k):
        train = np.setdiff1d(np.arange(y.size), test)
        L = _cholesky(full.gram(X[train]))
        if L is None:
            continue
        alpha = cho_solve((L, True), y[train], check_finite=False)
        predictions.append([t.gram(X[test], X[train]) @ alpha for t in terms])
        targets.append(y[test])
    target = np.concatenate(targets)

    def mae(chosen: list[int]) -> float:
        pred = np.concatenate(
            [
                sum((p[i] for i in chosen), np.zeros(t.size))
                for p, t in zip(predictions, targets, strict=True)
            ]
        )
        return float(np.mean(np.abs(target - pred)))

    order: list[int] = []
    path: list[float] = []
    remaining = list(range(len(terms)))
    while remaining:
        best = min(remaining, key=lambda i: (mae(order + [i]), i))
        order.append(best)
        remaining.remove(best)
        path.append(mae(order))
    return order, path, mae([])


# ------------------------------------------------------------------------------------------
# Posterior predictive checks
# ------------------------------------------------------------------------------------------


def standardised_errors(post: Posterior) -> np.ndarray:
    """e = L⁻¹ (y - level) in x order: independent N(0, 1) if the model is right."""
    order = np.argsort(post.X[:, 0], kind="stable")
    L = _cholesky(post.kernel.gram(post.X[order]))
    return solve_triangular(L, post.residual[order], lower=True, check_finite=False)


def _acf(e: np.ndarray, lags: int) -> np.ndarray:
    e = e - e.mean()
    denom = float(e @ e) or 1.0
    return np.array([float(e[:-h] @ e[h:]) / denom for h in range(1, lags + 1)])


def _periodogram(e: np.ndarray) -> np.ndarray:
    power = np.abs(np.fft.rfft(e - e.mean())) ** 2 / e.size
    return power[1:]


def _qq_gap(e: np.ndarray, theory: np.ndarray) -> np.ndarray:
    return np.sort(e) - theory


def _check(
    name: str, statistic: str, observed: np.ndarray, simulated: np.ndarray, axis_values: np.ndarray
) -> ModelCheck:
    """p = share of simulations whose max |value| reaches the observed max |value|."""
    obs_stat = float(np.max(np.abs(observed)))
    sim_stat = np.max(np.abs(simulated), axis=1)
    p = float((1 + np.sum(sim_stat >= obs_stat)) / (1 + sim_stat.size))
    low, high = np.percentile(simulated, [2.5, 97.5], axis=0)
    return ModelCheck(name, statistic, p, observed, low, high, axis_values)


def model_checks(post: Posterior, rng: np.random.Generator) -> list[ModelCheck]:
    """Autocorrelation, periodogram and quantile checks of the standardised errors."""
    e = standardised_errors(post)
    n = e.size
    sims = rng.standard_normal((N_SIMULATIONS, n))
    lags = max(1, min(30, n // 4))
    theory = norm.ppf((np.arange(1, n + 1) - 0.5) / n)
    freqs = np.arange(1, n // 2 + 1) / n
    return [
        _check(
            "autocorrelation",
            f"largest autocorrelation of the standardised residuals over lags 1-{lags}",
            _acf(e, lags),
            np.array([_acf(s, lags) for s in sims]),
            np.arange(1, lags + 1),
        ),
        _check(
            "periodogram",
            "largest peak of the standardised residuals' periodogram",
            _periodogram(e),
            np.array([_periodogram(s) for s in sims]),
            freqs[: n // 2],
        ),
        _check(
            "quantile-quantile",
            "largest gap between residual quantiles and normal quantiles",
            _qq_gap(e, theory),
            np.array([_qq_gap(s, theory) for s in sims]),
            theory,
        ),
    ]
