"""The decomposition of a model of several inputs: its components, named by the inputs they
read, with their statistics, partial residuals, curves or surfaces, and the variance table.

The components are the terms of the kernel's sum-of-products form (thesis §4.1), the additive
kernel written out (``input_terms``), noise merged into one. A component reading one input is
shown along it: its posterior mean and variance on a grid over that input's range (past it by
``extrapolate`` when the input is time), the other inputs held at their medians (it does not
read them). One reading two inputs is shown as its posterior mean on a grid over both. The
statistics (R², cross-validated MAE) are those of the one-input report, over shuffled folds, or
blocks of time when an input is time (``folds``). The model checks keep the quantile check:
the others read the residuals in time order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from abcd_cli.data.time_units import unit_of_name
from abcd_cli.decompose.checks import model_checks
from abcd_cli.decompose.facts import Axis, ComponentFacts, ModelCheck
from abcd_cli.decompose.folds import folds_for
from abcd_cli.decompose.input_terms import (
    expand_additive,
    is_noise,
    order_sets,
    term_inputs,
    term_order,
)
from abcd_cli.decompose.ordering import order_by_cv
from abcd_cli.decompose.partial import partial_residuals
from abcd_cli.decompose.variance import (
    InputShare,
    Share,
    additive_node,
    grouped,
    input_shares,
    mean_shares,
    order_variances,
    saturated_inputs,
)
from abcd_cli.kernels import Kernel, total
from abcd_cli.kernels.algebra import sum_of_products
from abcd_cli.model import Model

#: A whole order of the additive kernel is split into its sets for the variance table up to
#: this many sets (C(10, 5) = 252 at ten inputs); the table shows this many sets' rows at most.
MAX_SPLIT_SETS = 1024
MAX_SET_ROWS = 15
#: Points of a one-input component's grid; a surface has ``SURFACE_SIZE`` per side.
GRID_SIZE = 200
SURFACE_SIZE = 40
#: The model checks that do not read the residuals in time order.
CHECKS = ("quantile-quantile",)


@dataclass(frozen=True)
class Surface:
    """A component of two inputs a, b: ``mean[j, i]`` at (``grid_a[i]``, ``grid_b[j]``)."""

    grid_a: np.ndarray
    grid_b: np.ndarray
    mean: np.ndarray


@dataclass(frozen=True)
class InputComponent:
    """One component: its statistics (``facts``; with one input, ``facts.x_grid``, ``mean``
    and ``sd`` are its curve along that input, else empty), the inputs it reads, its partial
    residuals at the data (y's units) and, with two inputs, its surface."""

    facts: ComponentFacts
    dims: tuple[int, ...]
    partial: np.ndarray
    surface: Surface | None
    share: float | None  # of the fitted mean's variance; None for noise

    @property
    def order(self) -> int:
        """Its order of interaction (a whole order of the additive kernel reads every input)."""
        return term_order(self.facts.kernel)


@dataclass(frozen=True)
class VarianceTable:
    """Shares of the fitted mean's variance by set of inputs, by input and by order, and the
    additive kernel's order variances with the inputs whose lengthscale reached its bound."""

    total: float  # variance of the fitted mean over the data, y's units squared
    by_inputs: list[Share]
    by_input: list[InputShare]
    by_order: list[Share]
    additive_orders: list[Share] | None
    saturated: tuple[int, ...]


@dataclass(frozen=True)
class InputsDecomposition:
    """Everything the report of a model of several inputs states, in the user's units."""

    model: Model
    axes: tuple[Axis, ...]  # one per input: its kind, name and y's name
    time_dim: int | None  # the input that is time, if one is
    components: list[InputComponent]  # in report order
    baseline_mae: float
    checks: list[ModelCheck]
    level: tuple[float, float] | None
    variance: VarianceTable
    folds: str  # "shuffled" or "time"
    extrapolate: float

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(axis.x_name for axis in self.axes)

    @property
    def y_name(self) -> str:
        return self.axes[0].y_name


def time_input(axes: tuple[Axis, ...]) -> int | None:
    """The first input that is time: dates or years, or a column named by a unit of time."""
    return next(
        (d for d, a in enumerate(axes) if a.is_time or unit_of_name(a.x_name) is not None), None
    )


def input_terms(kernel: Kernel) -> list[Kernel]:
    """Sum-of-products terms, the additive kernel written out, white noise merged into one."""
    terms = expand_additive(sum_of_products(kernel))
    noise = [t for t in terms if is_noise(t)]
    signal = [t for t in terms if not is_noise(t)]
    return signal + ([total(noise)] if noise else [])


def decompose_inputs(
    model: Model,
    axes: tuple[Axis, ...],
    extrapolate: float = 0.2,
    seed: int = 0,
) -> InputsDecomposition:
    """Split a model of several inputs into ordered components with their statistics; the
    cross-validation's folds are shuffled with ``seed`` (no input is time), and it seeds the
    model checks' simulations as in the one-input report."""
    sc, post = model.scaling, model.posterior
    X = model.X
    time_dim = time_input(axes)
    terms = input_terms(model.kernel)
    folds = folds_for(X, time_dim, seed)
    order, cv_path, baseline = order_by_cv(terms, post, folds=folds)
    terms = [terms[i] for i in order]
    y_c = post.residual
    means = [post.mean(t) for t in terms]
    noise = [t.has_noise_factor() for t in terms]
    partials = partial_residuals(y_c, means, noise)
    signal = [k for k, n in enumerate(noise) if not n]
    shares = dict(zip(signal, mean_shares([means[k] for k in signal]), strict=True))
    total_var = float(np.var(y_c))
    explained, r2_before, components = np.zeros_like(y_c), 0.0, []
    for k, term in enumerate(terms):
        explained = explained + means[k]
        r2 = 1.0 - float(np.var(y_c - explained)) / total_var if total_var > 0 else 0.0
        dims = term_inputs(term)
        grid, mean, sd = _curve(model, term, dims, time_dim, extrapolate)
        facts = ComponentFacts(
            index=k + 1,
            kernel=sc.kernel_out(term),
            x_grid=grid,
            mean=sc.y_scale * mean,
            sd=sc.y_scale * sd,
            data_mean=sc.y_scale * means[k],
            cum_r2=r2,
            delta_r2=r2 - r2_before,
            residual_r2=(r2 - r2_before) / (1.0 - r2_before) if r2_before < 1.0 else 0.0,
            cv_mae_before=sc.y_scale * (cv_path[k - 1] if k else baseline),
            cv_mae=sc.y_scale * cv_path[k],
            is_noise=noise[k],
        )
        surface = _surface(model, term, dims) if len(dims) == 2 and not noise[k] else None
        components.append(
            InputComponent(facts, dims, sc.y_scale * partials[k], surface, shares.get(k))
        )
        r2_before = r2
    return InputsDecomposition(
        model=model,
        axes=axes,
        time_dim=time_dim,
        components=components,
        baseline_mae=sc.y_scale * baseline,
        checks=model_checks(post, np.random.default_rng(seed), only=CHECKS),
        level=(
            (float(sc.y_out(post.level)), sc.y_scale * post.level_sd)
            if model.constant_mean
            else None
        ),
        variance=variance_table(model, components, terms, axes),
        folds="shuffled" if time_dim is None else "time",
        extrapolate=extrapolate,
    )


def _centre_row(model: Model, size: int) -> np.ndarray:
    """``size`` rows holding each input's median (user units)."""
    return np.tile(np.median(model.X, axis=0), (size, 1))


def _curve(
    model: Model, term: Kernel, dims: tuple[int, ...], time_dim: int | None, extrapolate: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A one-input component's posterior mean and sd (internal units of y) on a grid over
    its input (past the data by ``extrapolate`` of the range when that input is time); empty
    arrays for any other component."""
    if len(dims) != 1:
        empty = np.zeros(0)
        return empty, empty, empty
    d = dims[0]
    column = model.X[:, d]
    lo, hi = float(column.min()), float(column.max())
    past = extrapolate * (hi - lo) if d == time_dim else 0.0
    grid = np.linspace(lo, hi + past, GRID_SIZE)
    G = _centre_row(model, grid.size)
    G[:, d] = grid
    mean, var = model.posterior.component(term, model.scaling.x_in(G))
    return grid, mean, np.sqrt(var)


def _surface(model: Model, term: Kernel, dims: tuple[int, ...]) -> Surface:
    """A two-input component's posterior mean (y's units) on a grid over both inputs' ranges."""
    X = model.X
    a, b = dims
    grid_a = np.linspace(X[:, a].min(), X[:, a].max(), SURFACE_SIZE)
    grid_b = np.linspace(X[:, b].min(), X[:, b].max(), SURFACE_SIZE)
    A, B = np.meshgrid(grid_a, grid_b)
    G = _centre_row(model, A.size)
    G[:, a], G[:, b] = A.ravel(), B.ravel()
    mean = model.posterior.mean(term, model.scaling.x_in(G))
    return Surface(grid_a, grid_b, model.scaling.y_scale * mean.reshape(A.shape))


def inputs_label(dims: tuple[int, ...], names: tuple[str, ...], order: int | None = None) -> str:
    """'weight', 'horsepower × year', '(no input)'; a whole order of the additive kernel that
    was not split into its sets: 'every set of 2 inputs'."""
    if order is not None and order != len(dims):
        return f"every set of {order} inputs"
    return " × ".join(names[d] for d in dims) if dims else "(no input)"


def variance_table(
    model: Model,
    components: list[InputComponent],
    terms: list[Kernel],
    axes: tuple[Axis, ...],
) -> VarianceTable:
    """The fitted mean's variance split by set of inputs, by input and by order (constants,
    which carry none, left out), and the additive kernel's order variances. ``terms`` are the
    components' kernels (internal units); a whole order of the additive kernel is split into its
    sets of inputs here (``order_sets``), so that each set and each input gets its own share.
    The sets table keeps the ``MAX_SET_ROWS`` largest shares and adds up the rest."""
    names = tuple(a.x_name for a in axes)
    pieces = []  # (inputs, order, posterior mean at the data in y's units)
    for c, term in zip(components, terms, strict=True):
        if c.share is None:
            continue
        written = order_sets(term, MAX_SPLIT_SETS)
        if written[0] is term:  # not split: its mean is the component's own
            pieces.append((c.dims, c.order, c.facts.data_mean))
        else:
            y_scale = model.scaling.y_scale
            pieces += [
                (term_inputs(t), term_order(t), y_scale * model.posterior.mean(t)) for t in written
            ]
    means = [mean for *_, mean in pieces]
    fitted = np.sum(means, axis=0) if means else np.zeros(model.n)
    total_variance = float(np.var(fitted))
    shares = mean_shares(means)
    keys = [(dims, order) for dims, order, _ in pieces]
    sets = sorted(
        (
            Share(inputs_label(dims, names, order), dims, share * total_variance, share)
            for (dims, order), share in grouped(shares, keys).items()
            if dims
        ),
        key=lambda s: -s.share,
    )
    by_inputs = sets[:MAX_SET_ROWS]
    if len(sets) > MAX_SET_ROWS:
        rest = sets[MAX_SET_ROWS:]
        share = sum(s.share for s in rest)
        label = f"the other {len(rest)} sets of inputs"
        by_inputs.append(Share(label, (), share * total_variance, share))
    orders = grouped(shares, [order for _, order in keys])
    by_order = [
        Share(f"order {r}", (), share * total_variance, share)
        for r, share in sorted(orders.items())
        if r
    ]
    node = additive_node(model.user_kernel)
    additive = None
    if node is not None:
        rows = order_variances(node)
        prior = sum(v for *_, v in rows) or 1.0
        additive = [Share(f"order {r}", (), v, v / prior) for r, _, _, v in rows]
    sc = model.scaling
    saturated = saturated_inputs(model.kernel, sc.x_in(model.x), sc.y_in(model.y))
    by_input = input_shares(shares, [dims for dims, _ in keys], names)
    return VarianceTable(total_variance, by_inputs, by_input, by_order, additive, tuple(saturated))
