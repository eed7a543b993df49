"""What a component of a model of several inputs does along each input it reads, in numbers.

A component's kernel names the inputs it reads but not what it does along them. This module
reads it off the component's posterior mean m (y's units) through its partial dependence along
each input d (Friedman 2001):

    PD_d(v) = (1/n) Σ_i m(x_i with x_id := v),

the mean over the data's rows of the component with input d set to v, for v on a grid over
d's range (``GRID_POINTS`` even steps, or d's own values when it takes fewer). For a component
of one input it is that component's curve (it reads no other column, so every row gives the
same value). From it:

* the size along d, max_v PD_d − min_v PD_d, in y's units;
* the direction over d's range (``direction``): with R that size and the curve's steps
  δ_j = PD_d(v_{j+1}) − PD_d(v_j), its movement against its main way (the smaller of Σ δ⁺ and
  Σ δ⁻) at most ``SLACK``·R: "rises" / "falls"; a peak (trough) inside the range with both arms
  at least ``ARM``·R, each side monotone within ``SLACK``·R: "rises then falls" ("falls then
  rises"); an end-to-end change of at least ``MOSTLY``·R: "mostly rises" / "mostly falls";
  otherwise "varies" (no clear direction), and "flat" when R is 0 (to 10⁻¹² of its values);
* the share of the component's variation that input d carries on its own:
  v_d = var_i PD_d(x_id) (the curve read at the data's values of d), share_d = v_d / Σ_e v_e;
  the inputs are listed by it, largest first. The part no single input's curve carries, the
  inputs acting together (``joint``), is Friedman's H²: Σ_i (m̃_i − Σ_d p̃_d,i)² / Σ_i m̃_i²,
  m̃ and p̃_d = PD_d(x_id) centred over the data (0 for a sum of functions of one input each,
  however correlated the inputs);
* for a component of two or more inputs, how its change along its main input a (the largest
  share) depends on each other input b: the change along a from one end of its range to the
  other, Δ(q) = slope × (max a − min a) of the least-squares line through the two-input
  partial dependence PD_a|b=q(v) = (1/n) Σ_i m(x_i with x_ia := v, x_ib := q), at b's lower and
  upper quartiles q₁, q₃ (``QUARTILES``, on ``MODULATION_POINTS`` points of a's range). Of the
  ``MAX_OTHERS`` other inputs carrying most of the variation (not only those carrying much: a
  pure interaction's partner carries little of its own), the b whose |Δ(q₃) − Δ(q₁)| is
  largest is kept (``Effect.modulation``) when that difference is material (``is_material``:
  at least ``MODULATION_RATIO`` of the larger |Δ| and ``MODULATION_SIZE`` of the component's
  spread at the data); else none is.

Classical partial dependence averages over every row, including combinations of inputs the
data never show together; with strongly correlated inputs (weight and displacement) the curves
reach past the data. The means are the engine's (``Posterior.mean``). A component reads only
its own inputs, so a curve along d averages over the distinct combinations of its other inputs
(one row for a component of d alone), or over ``MAX_ROWS`` rows evenly spaced through the data
when there are more: a curve costs at most ``GRID_POINTS``·``MAX_ROWS`` points of the
component, and a two-input curve ``MODULATION_POINTS``·``MAX_ROWS``.

``decompose`` computes the effects once, for a model of several inputs
(``Decomposition.effects``): none for noise, for a component reading no input, and for one too
small to matter (a share of the fitted mean's variance under ``SMALL_SHARE``, ``is_small``),
which the report folds together rather than describes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from abcd_cli.decompose.facts import ComponentFacts
from abcd_cli.kernels import Kernel
from abcd_cli.model import Model

#: A function of the inputs in the user's units, (M, D) → (M,) in y's units.
Function = Callable[[np.ndarray], np.ndarray]

#: Points of a partial-dependence curve over an input's range (fewer: the input's own values).
GRID_POINTS = 25
#: The most data rows a partial dependence averages over (evenly spaced through the rows).
MAX_ROWS = 100
#: The most other inputs whose quartiles are tried against the main input (an interaction's
#: partner may carry little variation of its own, so they are not chosen by a threshold), and
#: the points of the main input's range its two-input curves are drawn on (a line's fit).
MAX_OTHERS = 5
MODULATION_POINTS = 9
#: Direction rules, as fractions of the curve's size R (see the module's docstring).
SLACK = 0.1
ARM = 0.2
MOSTLY = 0.5
#: A change along the main input differs materially between b's quartiles when
#: |Δ(q₃) − Δ(q₁)| ≥ MODULATION_RATIO·max(|Δ(q₁)|, |Δ(q₃)|) and ≥ MODULATION_SIZE·(the
#: component's max − min at the data).
MODULATION_RATIO = 0.25
MODULATION_SIZE = 0.1
#: Components with a share of the fitted mean's variance under this get no effect (the report
#: folds them together).
SMALL_SHARE = 0.02
#: The lower and upper quartile of the second input.
QUARTILES = (0.25, 0.75)


@dataclass(frozen=True)
class Dependence:
    """A component's partial dependence along one input: ``values`` (y's units) on ``grid``
    (the input's units), its direction and size, and the share of the component's variation
    that input carries on its own."""

    input: int
    grid: np.ndarray
    values: np.ndarray
    direction: str  # "rises", "falls", "rises then falls", "falls then rises", "mostly rises",
    # "mostly falls", "varies", "flat"
    size: float  # max − min of values
    share: float

    @property
    def change(self) -> float:
        """End-to-end change, PD(last) − PD(first)."""
        return float(self.values[-1] - self.values[0]) if self.values.size else 0.0

    @property
    def turn(self) -> float:
        """Where a peak or trough is (the grid's value); NaN for other directions."""
        if self.direction == "rises then falls":
            return float(self.grid[int(np.argmax(self.values))])
        if self.direction == "falls then rises":
            return float(self.grid[int(np.argmin(self.values))])
        return float("nan")


@dataclass(frozen=True)
class Modulation:
    """How the change along input ``main`` (Δ, least-squares slope × its range) differs
    between the lower (``low``) and upper (``high``) quartile of input ``other``."""

    main: int
    other: int
    low: float  # b's lower quartile
    high: float  # b's upper quartile
    change_low: float  # Δ at b = low, y's units
    change_high: float  # Δ at b = high

    @property
    def difference(self) -> float:
        return abs(self.change_high - self.change_low)


@dataclass(frozen=True)
class Effect:
    """What a component does along its inputs: one ``Dependence`` per input it reads, largest
    share first; the ``modulation`` worth wording (None when none is material); ``joint``, the
    part of its variation no single input carries; ``share``, the component's share of the
    fitted mean's variance."""

    index: int
    dims: tuple[int, ...]
    along: tuple[Dependence, ...]
    modulation: Modulation | None
    joint: float
    spread: float  # max − min of the component at the data, y's units
    share: float | None

    @property
    def main(self) -> Dependence:
        return self.along[0]

    @property
    def inputs_by_share(self) -> tuple[int, ...]:
        """The inputs it reads, the one carrying most of its variation first."""
        return tuple(dep.input for dep in self.along)


def direction(values: np.ndarray) -> str:
    """The curve's direction over its grid, by the rules of the module's docstring."""
    values = np.asarray(values, dtype=float)
    size = float(values.max() - values.min()) if values.size else 0.0
    if values.size < 2 or size <= 1e-12 * max(1.0, float(np.abs(values).max())):
        return "flat"
    if _counter(values) <= SLACK * size:
        return "rises" if values[-1] > values[0] else "falls"
    for k, word in ((int(np.argmax(values)), "rises then falls"),
                    (int(np.argmin(values)), "falls then rises")):  # fmt: skip
        if 0 < k < values.size - 1:
            arms = abs(values[k] - values[0]), abs(values[k] - values[-1])
            sides = _counter(values[: k + 1]), _counter(values[k:])
            if min(arms) >= ARM * size and max(sides) <= SLACK * size:
                return word
    change = float(values[-1] - values[0])
    if abs(change) >= MOSTLY * size:
        return "mostly rises" if change > 0 else "mostly falls"
    return "varies"


def _counter(values: np.ndarray) -> float:
    """The movement against the curve's main way: min(Σ δ⁺, Σ δ⁻) over its steps δ."""
    steps = np.diff(values)
    return float(min(steps[steps > 0].sum(), -steps[steps < 0].sum()))


def input_grid(column: np.ndarray, points: int = GRID_POINTS) -> np.ndarray:
    """``points`` even steps over the column's range, or its distinct values when fewer."""
    distinct = np.unique(column)
    if distinct.size <= points:
        return distinct
    return np.linspace(float(distinct[0]), float(distinct[-1]), points)


def averaging_rows(
    X: np.ndarray, dims: Sequence[int], d: int, most: int = MAX_ROWS
) -> tuple[np.ndarray, np.ndarray]:
    """The rows a partial dependence along d averages over, with their weights. A function
    of the columns ``dims`` gives one curve for all rows that agree on dims ∖ {d}: the
    distinct combinations of those columns, weighted by their counts (one row for a function
    of d alone); when there are more than ``most``, ``most`` rows evenly spaced through X,
    weighted alike."""
    others = [e for e in dims if e != d]
    if not others:
        return X[:1], np.ones(1)
    _, first, counts = np.unique(X[:, others], axis=0, return_index=True, return_counts=True)
    if first.size <= most:
        return X[first], counts.astype(float)
    picked = np.unique(np.linspace(0, X.shape[0] - 1, most).round().astype(int))
    return X[picked], np.ones(picked.size)


def partial_dependence(
    f: Function,
    rows: np.ndarray,
    d: int,
    grid: np.ndarray,
    fixed: dict[int, float] | None = None,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """PD_d(v) = Σ_i w_i f(row_i with column d := v) / Σ_i w_i for each v of ``grid`` (equal
    weights by default); ``fixed`` sets other columns to one value in every row (the
    two-input form)."""
    n = rows.shape[0]
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    stacked = np.tile(rows, (grid.size, 1))
    stacked[:, d] = np.repeat(grid, n)
    for e, value in (fixed or {}).items():
        stacked[:, e] = value
    values = np.asarray(f(stacked), dtype=float).reshape(grid.size, n)
    return values @ w / w.sum()


def line_change(grid: np.ndarray, values: np.ndarray) -> float:
    """Δ = slope × (max − min of grid), the slope of the least-squares line through the curve."""
    if grid.size < 2 or np.ptp(grid) == 0:
        return 0.0
    slope = np.polyfit(grid, values, 1)[0]
    return float(slope * np.ptp(grid))


def is_material(modulation: Modulation, spread: float) -> bool:
    """Whether the change along the main input differs enough between the quartiles of the
    other to be worth a word (``MODULATION_RATIO``, ``MODULATION_SIZE``)."""
    larger = max(abs(modulation.change_low), abs(modulation.change_high))
    diff = modulation.difference
    return diff > 0 and diff >= MODULATION_RATIO * larger and diff >= MODULATION_SIZE * spread


def joint_part(values: np.ndarray, along_data: Sequence[np.ndarray]) -> float:
    """The part of f's variation at the data that no single input's curve carries:
    Σ_i (f̃_i − Σ_d p̃_d,i)² / Σ_i f̃_i², f̃ and p̃_d = PD_d(x_id) centred over the data
    (Friedman's H²; 0 for a sum of functions of one input each), clipped to [0, 1]."""
    centred = values - values.mean()
    total = float(centred @ centred)
    if total <= 0.0:
        return 0.0
    rest = centred - sum((p - p.mean() for p in along_data), np.zeros_like(centred))
    return min(float(rest @ rest) / total, 1.0)


def effect_of(
    f: Function,
    X: np.ndarray,
    dims: Sequence[int],
    *,
    index: int = 0,
    share: float | None = None,
    at_data: np.ndarray | None = None,
) -> Effect:
    """The ``Effect`` of ``f``, a function of the columns ``dims`` alone (user units in, y's
    units out), over the data X (N, D); ``at_data``: f at X when already known."""
    X = np.asarray(X, dtype=float)
    values = np.asarray(f(X) if at_data is None else at_data, dtype=float)
    spread = float(np.ptp(values)) if values.size else 0.0
    curves = []
    for d in dims:
        grid = input_grid(X[:, d])
        rows, weights = averaging_rows(X, dims, d)
        pd = partial_dependence(f, rows, d, grid, weights=weights)
        curves.append((d, grid, pd, np.interp(X[:, d], grid, pd)))
    variances = [float(np.var(at)) for *_, at in curves]
    carried = sum(variances)
    along = sorted(
        (
            Dependence(
                d,
                grid,
                pd,
                direction(pd),
                float(np.ptp(pd)),
                v / carried if carried > 0 else 1.0 / len(curves),
            )
            for (d, grid, pd, _), v in zip(curves, variances, strict=True)
        ),
        key=lambda dep: -dep.share,
    )
    joint = joint_part(values, [at for *_, at in curves]) if len(dims) > 1 else 0.0
    modulation = _modulation(f, X, dims, along, spread) if len(along) > 1 else None
    return Effect(index, tuple(dims), tuple(along), modulation, joint, spread, share)


def _modulation(
    f: Function, X: np.ndarray, dims: Sequence[int], along: list[Dependence], spread: float
) -> Modulation | None:
    """Of the ``MAX_OTHERS`` other inputs carrying most of the variation, the one whose
    quartiles change the main input's Δ (on ``MODULATION_POINTS`` points) most, when that
    change is material."""
    main = along[0]
    grid = input_grid(main.grid, MODULATION_POINTS)
    found = []
    for dep in along[1 : MAX_OTHERS + 1]:
        low, high = (float(q) for q in np.quantile(X[:, dep.input], QUARTILES))
        if high <= low:
            continue
        rows, weights = averaging_rows(X, [e for e in dims if e != dep.input], main.input)
        changes = [
            line_change(
                grid, partial_dependence(f, rows, main.input, grid, {dep.input: q}, weights)
            )
            for q in (low, high)
        ]
        found.append(Modulation(main.input, dep.input, low, high, *changes))
    found = [m for m in found if is_material(m, spread)]
    return max(found, key=lambda m: m.difference, default=None)


def component_function(model: Model, kernel: Kernel) -> Function:
    """The posterior mean of the component with user-unit kernel ``kernel`` as a function of
    user-unit inputs, in y's units: y_scale · m(x_in(X)) (``Posterior.mean``)."""
    sc, post = model.scaling, model.posterior
    inner = sc.kernel_in(kernel)

    def f(X: np.ndarray) -> np.ndarray:
        return sc.y_scale * post.mean(inner, sc.x_in(X))

    return f


def component_effect(model: Model, c: ComponentFacts) -> Effect | None:
    """The component's ``Effect``; None for noise and for a component reading no input."""
    if c.is_noise or not c.dims:
        return None
    f = component_function(model, c.kernel)
    at_data = c.data_mean if c.data_mean.size == model.n else None
    return effect_of(f, model.X, c.dims, index=c.index, share=c.share, at_data=at_data)


def is_small(c: ComponentFacts, threshold: float = SMALL_SHARE) -> bool:
    """Whether the component's share of the fitted mean's variance is under ``threshold``
    (noise, which has no share, never is)."""
    return c.share is not None and abs(c.share) < threshold


def component_effects(
    model: Model, components: Sequence[ComponentFacts], threshold: float = SMALL_SHARE
) -> tuple[Effect | None, ...]:
    """One ``Effect`` per component, in their order: None for noise, for a constant and for a
    component too small to matter (``is_small``), which are not worded."""
    return tuple(None if is_small(c, threshold) else component_effect(model, c) for c in components)
