"""Additive components of a fitted model and their statistics, in the user's units.

Components are the terms of the kernel's sum-of-products form (thesis §4.1), white noise merged
into one. Each one's posterior mean and variance given the data follow thesis eq. 2.5-2.7, from
the model's engine (``Model.posterior``). Their order comes from ``ordering`` (cross-validated
MAE), the posterior predictive checks from ``checks``. Components are shown on a grid of
``GRID_SIZE`` points, or, for a long series on a sparse engine, on one as fine as the data
(``grid_size``), so that fast periodic components are not aliased.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from abcd_cli.decompose.checks import model_checks
from abcd_cli.decompose.facts import Axis, ComponentFacts, ModelCheck
from abcd_cli.decompose.ordering import order_by_cv
from abcd_cli.engine_record import is_default
from abcd_cli.errors import InputError
from abcd_cli.kernels import Kernel, total
from abcd_cli.kernels.algebra import sum_of_products
from abcd_cli.model import Model

#: Points of the grid the components are shown on.
GRID_SIZE = 400
#: A series longer than this, on an engine other than the exact one (whose moments cost N² per
#: grid point), is shown on a grid as fine as its data, up to ``MAX_GRID`` points over its range.
LONG_SERIES = 5000
MAX_GRID = 10_000


def grid_size(model: Model, extrapolate: float) -> int:
    """``GRID_SIZE``; for a long series off the exact engine, min(N, ``MAX_GRID``) points over
    the data's range and as many per unit beyond it."""
    if model.n <= LONG_SERIES or is_default(model.engine):
        return GRID_SIZE
    return int(round(min(model.n, MAX_GRID) * (1.0 + extrapolate)))


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
    points: int | None = None,
    seed: int = 0,
) -> Decomposition:
    """Split the model into ordered additive components with their statistics, along its one
    input (a model of several inputs is refused with an ``InputError``: ``several_inputs``
    decomposes those), on a grid of ``points`` (default: ``grid_size``)."""
    if model.n_dims != 1:
        raise InputError(
            f"this model has {model.n_dims} inputs; decompose it with"
            " decompose.several_inputs.decompose_inputs"
        )
    sc = model.scaling
    post = model.posterior
    x_lo, x_hi = float(model.x.min()), float(model.x.max())
    points = grid_size(model, extrapolate) if points is None else points
    x_grid = np.linspace(x_lo, x_hi + extrapolate * (x_hi - x_lo), points)
    G = sc.x_in(x_grid)[:, None]
    terms = _terms(model.kernel)
    y_c = post.residual  # scaled data minus the prior mean (the level, if estimated)
    order, cv_path, baseline = order_by_cv(terms, post)
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
                is_noise=term.has_noise_factor(),
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
    noise = [t for t in terms if t.has_noise_factor()]
    signal = [t for t in terms if not t.has_noise_factor()]
    return signal + ([total(noise)] if noise else [])
