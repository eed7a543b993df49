"""Additive components of a fitted model of any number of inputs, with their statistics, in the
user's units.

Components are the terms of the kernel's sum-of-products form (thesis §4.1), an additive
kernel written out (``input_terms``), white noise merged into one, and terms of one kind (one
cycle, smooth terms of a similar scale, polynomial trends) gathered into one (``merging``);
terms switched off over the whole data are kept apart. Each knows the inputs it
reads (``ComponentFacts.dims``). Their posterior mean and variance given the data follow thesis
eq. 2.5-2.7, from the model's engine (``Model.posterior``). Their order comes from ``ordering``
(cross-validated MAE over the ``folds``), the posterior predictive checks from ``checks``, the
partial residuals from ``partial``, the shares of the fitted mean's variance from ``variance``.

A component reading one input is drawn along it: its posterior mean and sd on a grid over that
input's range, past it by ``extrapolate`` when the input is time, the other inputs held at their
medians (the component does not read them). With one input every component is drawn along it,
and that input is time: the model is a series. One reading two inputs is drawn as a surface.

What only a series has: the sums of the first k components and the full model's forecast along
its input (``SeriesCurves``), and the checks that read the residuals in the order of its rows.
What only a table of several inputs has: the variance table (``variance.variance_table``) and
what each component does along its inputs (``effects``: partial dependence).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from abcd_cli.data.time_units import unit_of_name
from abcd_cli.decompose.checks import model_checks
from abcd_cli.decompose.effects import Effect, component_effects
from abcd_cli.decompose.facts import Axis, ComponentFacts, ModelCheck, Surface
from abcd_cli.decompose.folds import folds_for
from abcd_cli.decompose.input_terms import expand_additive, term_inputs
from abcd_cli.decompose.lattice import lattice_grid, noise_like_between
from abcd_cli.decompose.merging import gather
from abcd_cli.decompose.ordering import order_by_cv
from abcd_cli.decompose.partial import partial_residuals
from abcd_cli.decompose.rough import rough_split
from abcd_cli.decompose.variance import VarianceTable, mean_shares, variance_table
from abcd_cli.decompose.window import Window, series_window
from abcd_cli.kernels import Kernel, total
from abcd_cli.kernels.algebra import sum_of_products
from abcd_cli.model import Model

#: Points of a component's curve along one input; a surface has ``SURFACE_SIZE`` per side.
GRID_SIZE = 400
SURFACE_SIZE = 40
#: A model of more than this many points, on an engine whose posterior is not dense (a dense
#: one's moments cost N² per grid point: ``Capabilities.dense_posterior``), is drawn on a grid
#: as fine as its data, up to ``MAX_GRID`` points
#: over its range, so that fast periodic components are not aliased.
LONG_SERIES = 5000
MAX_GRID = 10_000
#: The model checks that do not read the residuals in the order of the rows: all a table of
#: several inputs keeps (its rows have no such order).
UNORDERED_CHECKS = ("quantile-quantile",)


def grid_size(model: Model, extrapolate: float) -> int:
    """``GRID_SIZE``; for a model of many points without a dense posterior, min(N, ``MAX_GRID``)
    points over an input's range and as many per unit beyond it."""
    if model.n <= LONG_SERIES or model.engine.capabilities.dense_posterior:
        return GRID_SIZE
    return int(round(min(model.n, MAX_GRID) * (1.0 + extrapolate)))


@dataclass(frozen=True)
class SeriesCurves:
    """Along a series' one input, on its components' grid (y's units): the sum of the first k
    components with the level (``cumulative_mean[k - 1]``) and its sd, and the full model's
    forecast of y with its sd, noise included."""

    x_grid: np.ndarray
    cumulative_mean: list[np.ndarray]
    cumulative_sd: list[np.ndarray]
    forecast_mean: np.ndarray
    forecast_sd: np.ndarray
    window: Window | None = None  # the last few cycles on a fine grid (``window.py``)


@dataclass(frozen=True)
class Decomposition:
    """Everything the report states about the model's components, in the user's units."""

    model: Model
    axes: tuple[Axis, ...]  # one per input: its kind, name and y's name
    time_dim: int | None  # the input that is time, if one is
    components: list[ComponentFacts]  # in report order
    baseline_mae: float  # cross-validated MAE of predicting the prior mean
    checks: list[ModelCheck]
    level: tuple[float, float] | None  # a constant mean's estimate and sd; None when fixed
    extrapolate: float  # how far past the data the time input is drawn, in its ranges
    series: SeriesCurves | None  # with one input only
    variance: VarianceTable | None  # with several inputs only
    dropped: tuple[Kernel, ...] = ()  # terms switched off over the whole data (user units)
    effects: tuple[Effect | None, ...] = ()  # one per component; with several inputs only

    @property
    def axis(self) -> Axis:
        """The first input's axis (a series' only one)."""
        return self.axes[0]

    @property
    def folds(self) -> str:
        """How the cross-validation's folds were drawn: "time" (blocks along the time input)
        or "shuffled" (rows drawn at random)."""
        return "shuffled" if self.time_dim is None else "time"

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(axis.x_name for axis in self.axes)

    @property
    def y_name(self) -> str:
        return self.axes[0].y_name


def time_input(axes: tuple[Axis, ...]) -> int | None:
    """The input that is time: a series' one input; of several, the first holding dates or
    years, or named by a unit of time."""
    if len(axes) == 1:
        return 0
    return next(
        (d for d, a in enumerate(axes) if a.is_time or unit_of_name(a.x_name) is not None), None
    )


def input_terms(kernel: Kernel) -> list[Kernel]:
    """Sum-of-products terms, an additive kernel written out, white noise merged into one."""
    terms = expand_additive(sum_of_products(kernel))
    noise = [t for t in terms if t.has_noise_factor()]
    signal = [t for t in terms if not t.has_noise_factor()]
    return signal + ([total(noise)] if noise else [])


def component_terms(kernel: Kernel, X: np.ndarray) -> tuple[list[Kernel], list[Kernel]]:
    """The components of a model (``input_terms`` with the signal terms of one kind gathered
    into one, ``merging.gather``; ``X``: the data's inputs, internal units) and, apart, its
    terms switched off over the whole data."""
    terms = input_terms(kernel)
    noise = [t for t in terms if t.has_noise_factor()]
    signal, off = gather([t for t in terms if not t.has_noise_factor()], X)
    return signal + noise, off


def decompose(
    model: Model,
    axes: tuple[Axis, ...],
    extrapolate: float = 0.2,
    seed: int = 0,
) -> Decomposition:
    """Split the model into ordered additive components with their statistics. ``axes``: one
    per input; ``seed``: of the shuffled folds (when no input is time) and of the model checks'
    simulations."""
    if len(axes) != model.n_dims:
        raise ValueError(f"{len(axes)} axes for a model of {model.n_dims} inputs")
    sc, post = model.scaling, model.posterior
    time_dim = time_input(axes)
    terms, off = component_terms(model.kernel, sc.x_in(model.X))
    series = model.n_dims == 1
    order, cv_path, baseline, cv_without = order_by_cv(
        terms, post, folds=folds_for(model.X, time_dim, seed)
    )
    terms = [terms[i] for i in order]
    y_c = post.residual  # scaled data minus the prior mean (the level, if estimated)
    means = [post.mean(t) for t in terms]
    noise = [t.has_noise_factor() for t in terms]
    partials = partial_residuals(y_c, means, noise)
    signal = [k for k, n in enumerate(noise) if not n]
    shares = dict(zip(signal, mean_shares([means[k] for k in signal]), strict=True))
    r2 = cumulative_r2(y_c, means)
    centre = np.median(model.X, axis=0)  # where a curve or surface holds the other inputs
    inputs = [term_inputs(t) for t in terms]
    along = {_along(model, dims) for dims in inputs} - {None}  # every one of a series: 0
    grids = {d: _grid(model, d, extrapolate if d == time_dim else 0.0, centre) for d in along}
    components = []
    for k, (term, dims) in enumerate(zip(terms, inputs, strict=True)):
        r2_before = r2[k - 1] if k else 0.0
        drawn = grids.get(_along(model, dims))
        grid, mean, sd = _curve(model, term, drawn)
        split = rough_split(model, term, None if drawn is None else drawn[1])
        components.append(
            ComponentFacts(
                index=k + 1,
                kernel=sc.kernel_out(term),
                x_grid=grid,
                mean=sc.y_scale * mean,
                sd=sc.y_scale * sd,
                data_mean=sc.y_scale * means[k],
                cum_r2=r2[k],
                delta_r2=r2[k] - r2_before,
                residual_r2=(r2[k] - r2_before) / (1.0 - r2_before) if r2_before < 1.0 else 0.0,
                cv_mae_before=sc.y_scale * (cv_path[k - 1] if k else baseline),
                cv_mae=sc.y_scale * cv_path[k],
                cv_mae_whole=sc.y_scale * cv_path[-1],
                cv_mae_without=sc.y_scale * cv_without[k],
                is_noise=noise[k],
                dims=dims,
                partial=sc.y_scale * partials[k],
                surface=(
                    _surface(model, term, dims, centre) if len(dims) == 2 and not noise[k] else None
                ),
                share=shares.get(k),
                shape_mean=np.zeros(0) if split is None else sc.y_scale * split.shape_mean,
                shape_sd=np.zeros(0) if split is None else sc.y_scale * split.shape_sd,
                rough_sd=None if split is None else sc.y_scale * split.rough_sd,
                shape_window=None if split is None else split.window,
            )
        )
    return Decomposition(
        model=model,
        axes=axes,
        time_dim=time_dim,
        components=components,
        baseline_mae=sc.y_scale * baseline,
        checks=model_checks(
            post, np.random.default_rng(seed), only=None if series else UNORDERED_CHECKS
        ),
        level=(
            (float(sc.y_out(post.level)), sc.y_scale * post.level_sd)
            if model.constant_mean
            else None
        ),
        extrapolate=extrapolate,
        series=_series_curves(model, terms, grids[0]) if series else None,
        variance=None if series else variance_table(model, components, terms, axes),
        dropped=tuple(sc.kernel_out(t) for t in off),
        effects=() if series else component_effects(model, components),
    )


def cumulative_r2(residual: np.ndarray, means: list[np.ndarray]) -> list[float]:
    """R² of the first k components' means at the data, for k = 1..K: 1 − var(r − Σ m) / var(r)
    (0 for data without variance)."""
    total_var = float(np.var(residual))
    explained, out = np.zeros_like(residual), []
    for mean in means:
        explained = explained + mean
        out.append(1.0 - float(np.var(residual - explained)) / total_var if total_var > 0 else 0.0)
    return out


def _along(model: Model, dims: tuple[int, ...]) -> int | None:
    """The input a component reading ``dims`` is drawn along: the one it reads, or a series'
    only input; None when there is none."""
    return dims[0] if len(dims) == 1 else (0 if model.n_dims == 1 else None)


def _grid(model: Model, d: int, past: float, centre: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``grid_size`` even steps over input d's range and ``past`` times that range beyond it
    (the data's own lattice when the model is noise-like between the data: ``lattice.py``),
    and those points as rows of inputs in internal units, the others held at ``centre``."""
    column = model.X[:, d]
    lo, hi = float(column.min()), float(column.max())
    grid = lattice_grid(model, d, past)
    if grid is None:
        grid = np.linspace(lo, hi + past * (hi - lo), grid_size(model, past))
    G = np.tile(centre, (grid.size, 1))
    G[:, d] = grid
    return grid, model.scaling.x_in(G)


def _curve(
    model: Model, term: Kernel, grid: tuple[np.ndarray, np.ndarray] | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The component's posterior mean and sd (internal units of y) on ``grid`` (``_grid``);
    empty arrays when it is not drawn along an input."""
    if grid is None:
        empty = np.zeros(0)
        return empty, empty, empty
    mean, var = model.posterior.component(term, grid[1])
    return grid[0], mean, np.sqrt(var)


def _surface(model: Model, term: Kernel, dims: tuple[int, ...], centre: np.ndarray) -> Surface:
    """A two-input component's posterior mean (y's units) on a grid over both inputs' ranges,
    the other inputs held at ``centre``."""
    X = model.X
    a, b = dims
    grid_a = np.linspace(X[:, a].min(), X[:, a].max(), SURFACE_SIZE)
    grid_b = np.linspace(X[:, b].min(), X[:, b].max(), SURFACE_SIZE)
    A, B = np.meshgrid(grid_a, grid_b)
    G = np.tile(centre, (A.size, 1))
    G[:, a], G[:, b] = A.ravel(), B.ravel()
    mean = model.posterior.mean(term, model.scaling.x_in(G))
    return Surface(grid_a, grid_b, model.scaling.y_scale * mean.reshape(A.shape))


def _series_curves(
    model: Model, terms: list[Kernel], grid: tuple[np.ndarray, np.ndarray]
) -> SeriesCurves:
    """The sums of the first k components and the full model's forecast along a series' input,
    on its components' ``grid``."""
    sc, post = model.scaling, model.posterior
    x_grid, G = grid
    cumulative_mean, cumulative_sd = [], []
    for k in range(1, len(terms) + 1):
        mean, var = post.component(total(terms[:k]), G)
        cumulative_mean.append(sc.y_out(mean + post.level))
        cumulative_sd.append(sc.y_scale * np.sqrt(var))
    f_mean, f_var = post.predict(G)
    return SeriesCurves(
        x_grid,
        cumulative_mean,
        cumulative_sd,
        sc.y_out(f_mean),
        sc.y_scale * np.sqrt(f_var),
        None if noise_like_between(model, 0) else series_window(model, terms),
    )
