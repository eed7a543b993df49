"""What a component of a model of several inputs does along each input it reads, in words.

A component's kernel names the inputs it reads but not what it does along them ("a joint
function of cylinders, weight and model_year" says nothing). This module reads it off the
component's posterior mean m (y's units) through its partial dependence along each input d
(Friedman 2001):

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
  upper quartiles q₁, q₃. Of the ``MAX_OTHERS`` other inputs carrying most of the variation
  (not only those carrying much: a pure interaction's partner carries little of its own), the
  b whose |Δ(q₃) − Δ(q₁)| is largest is worded when that
  difference is material (``is_material``: at least ``MODULATION_RATIO`` of the larger |Δ| and
  ``MODULATION_SIZE`` of the component's spread at the data).

Classical partial dependence averages over every row, including combinations of inputs the
data never show together; with strongly correlated inputs (weight and displacement) the curves
reach past the data. The means are the engine's (``Posterior.mean``). A component reads only
its own inputs, so a curve along d averages over the distinct combinations of its other inputs
(one row for a component of d alone), or over ``MAX_ROWS`` rows evenly spaced through the data
when there are more: a curve costs at most ``GRID_POINTS``·``MAX_ROWS`` points of the
component, and a two-input curve ``MODULATION_POINTS``·``MAX_ROWS``.

Components too small to matter (a share of the fitted mean's variance under ``SMALL_SHARE``)
are folded into one sentence (``folded_sentence``).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from abcd_cli.decompose.components import Decomposition
from abcd_cli.decompose.facts import Axis, ComponentFacts
from abcd_cli.kernels import Kernel
from abcd_cli.model import Model
from abcd_cli.reporting.numbers import format_number, format_percent
from abcd_cli.reporting.wording import (
    capitalise,
    format_amount,
    format_position,
    join_words,
    number_word,
    percent,
)

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
#: The two changes go opposite ways when their signs differ and the smaller is at least this
#: fraction of the larger (below it, "less steeply" says it).
OPPOSITE = 0.2
#: Inputs carrying less than this share of a component's variation are named together.
MINOR_INPUT = 0.1
#: Above this part carried by no single input, the sentences say the inputs act together.
JOINT = 0.5
#: Components with a share of the fitted mean's variance under this are folded together.
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

    @property
    def opposite(self) -> bool:
        """Whether the two changes go opposite ways (``OPPOSITE``)."""
        lo, hi = self.change_low, self.change_high
        small, large = sorted((abs(lo), abs(hi)))
        return lo * hi < 0 and small >= OPPOSITE * large


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


# -- the numbers -------------------------------------------------------------------------------


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


def component_effects(dec: Decomposition, threshold: float = SMALL_SHARE) -> list[Effect | None]:
    """One ``Effect`` per component of the decomposition, in its order: None for noise, for a
    constant and for a component too small to matter (``is_small``), which are not worded."""
    return [
        None if is_small(c, threshold) else component_effect(dec.model, c) for c in dec.components
    ]


def effect_json(effect: Effect, names: Sequence[str]) -> dict[str, Any]:
    """The effect for the JSON report: per input (largest share first) its direction, size
    (y's units) and share; the part carried jointly; the modulation, if one is worded."""
    m = effect.modulation
    return {
        "along": [
            {
                "input": names[d.input],
                "direction": d.direction,
                "size": d.size,
                "share": d.share,
                "from": float(d.grid[0]),
                "to": float(d.grid[-1]),
            }
            for d in effect.along
        ],
        "joint": effect.joint,
        "modulation": None
        if m is None
        else {
            "along": names[m.main],
            "by": names[m.other],
            "at": [m.low, m.high],
            "change": [m.change_low, m.change_high],
        },
    }


_CACHE: dict[int, list[Effect | None]] = {}


def effects_of(dec: Decomposition) -> list[Effect | None]:
    """``component_effects(dec)``, computed once per decomposition (the summary and each
    component's paragraph both read them); forgotten when the decomposition is."""
    key = id(dec)
    if key not in _CACHE:
        _CACHE[key] = component_effects(dec)
        weakref.finalize(dec, _CACHE.pop, key, None)
    return _CACHE[key]


# -- the words ---------------------------------------------------------------------------------


def _timeish(axis: Axis) -> bool:
    return axis.is_time or axis.unit is not None


def position(value: float, axis: Axis, span: float) -> str:
    """A value of an input: a date on a calendar axis; else with the decimals a tenth of the
    input's ``span`` calls for (1,613; 13.8; 76), no thousands separator when it counts time."""
    precision = abs(span) / 10.0
    if axis.is_time:
        return format_position(value, axis, precision or None)
    decimals = max(0, 1 - int(np.floor(np.log10(precision)))) if precision > 0 else 3
    return format_number(value, decimals=min(decimals, 10), grouping=not _timeish(axis), trim=True)


def _at(value: float, axis: Axis, span: float) -> str:
    """'weight = 2,224'; on a calendar axis 'model_year 1979'."""
    sep = " " if axis.is_time else " = "
    return f"{axis.x_name}{sep}{position(value, axis, span)}"


def _range(dep: Dependence, axis: Axis) -> str:
    """'weight (1,613 to 5,140)': the input and the ends of its range."""
    span = float(np.ptp(dep.grid))
    lo, hi = (position(float(v), axis, span) for v in (dep.grid[0], dep.grid[-1]))
    return f"{axis.x_name} ({lo} to {hi})"


def _moves(dep: Dependence, axis: Axis) -> str:
    """The verb phrase of a curve: 'falls by about 12.3', 'mostly falls, by about 7.42 from
    end to end', 'rises by about 2.1 then falls by about 3.4, peaking near 3,200'."""
    size, change = format_amount(dep.size, axis), format_amount(abs(dep.change), axis)
    word = dep.direction
    if word in ("rises", "falls"):
        return f"{word} by about {size}"
    if word in ("mostly rises", "mostly falls"):
        return f"{word}, by about {change} from end to end"
    if word in ("rises then falls", "falls then rises"):
        k = int(np.argmax(dep.values) if word == "rises then falls" else np.argmin(dep.values))
        first = format_amount(abs(dep.values[k] - dep.values[0]), axis)
        second = format_amount(abs(dep.values[-1] - dep.values[k]), axis)
        up, down = word.split(" then ")
        turn = "peaking" if word == "rises then falls" else "lowest"
        where = position(dep.turn, axis, float(np.ptp(dep.grid)))
        return f"{up} by about {first} then {down} by about {second}, {turn} near {where}"
    if word == "varies":
        return f"varies by about {size} with no clear direction"
    return "does not change"


def _way(change: float) -> str:
    return "rises" if change > 0 else "falls"


def _modulation_clause(effect: Effect, axes: Sequence[Axis]) -> str:
    """How the change along the main input differs at the other input's quartiles: ', less
    steeply at higher b (by about 8.1 at b = 79 against 15.2 at b = 73)'; when the two go
    opposite ways, '; it rises by about 2 where b = 7.5 but falls by about 2 where b = 2.5';
    along a main input that is not monotone, '; taken as a straight line, it falls by ...'."""
    m = effect.modulation
    if m is None:
        return ""
    a_axis, b_axis = axes[m.main], axes[m.other]
    span = float(np.ptp(next(d.grid for d in effect.along if d.input == m.other)))
    at_low, at_high = _at(m.low, b_axis, span), _at(m.high, b_axis, span)
    lo, hi = abs(m.change_low), abs(m.change_high)
    lo_text, hi_text = format_amount(lo, a_axis), format_amount(hi, a_axis)
    if m.opposite:
        return (
            f"; it {_way(m.change_high)} by about {hi_text} where {at_high} but"
            f" {_way(m.change_low)} by about {lo_text} where {at_low}"
        )
    if lo_text == hi_text:  # material, but the same once rounded
        return ""
    higher = "later" if _timeish(b_axis) else "higher"
    steep = "more" if hi > lo else "less"
    numbers = f"by about {hi_text} at {at_high} against {lo_text} at {at_low}"
    if effect.main.direction in ("rises", "falls"):
        return f", {steep} steeply at {higher} {b_axis.x_name} ({numbers})"
    if effect.main.direction in ("mostly rises", "mostly falls"):
        way = _way(m.change_high)
        return f"; it {way} {steep} steeply at {higher} {b_axis.x_name} ({numbers})"
    return f"; taken as a straight line, it {_way(m.change_high)} {numbers}"


def effect_summary(effect: Effect, axes: Sequence[Axis], subject: str | None = None) -> str:
    """What the component does along its main input, in a sentence or two: 'Along weight
    (1,613 to 5,140), mpg falls by about 12.3, less steeply at later model_year (...). It also
    changes with acceleration.' (the other inputs carrying at least ``MINOR_INPUT`` of its
    variation). ``subject``: what moves (y's name by default)."""
    main = effect.main
    axis = axes[main.input]
    who = subject or axis.y_name
    clause = _modulation_clause(effect, axes)
    text = f"Along {_range(main, axis)}, {who} {_moves(main, axis)}{clause}."
    others = [axes[d.input].x_name for d in effect.along[1:] if d.share >= MINOR_INPUT]
    if others:
        text += f" It also changes with {join_words(others)}."
    return text


def _share(fraction: float) -> str:
    return format_percent(fraction, decimals=0)


def effect_sentences(effect: Effect, axes: Sequence[Axis], subject: str | None = None) -> list[str]:
    """The component's sentences, for its paragraph: its main input (``effect_summary``'s
    first sentence; one too small to matter gets ``small_sentence`` alone); each other input
    carrying at least ``MINOR_INPUT`` of its variation ('Along model_year (1970 to 1982), mpg
    rises by about 3.2.'); the inputs' shares, largest first, the minor ones together; and,
    when no single input carries most of it (``JOINT``), that its inputs act together."""
    if effect.share is not None and abs(effect.share) < SMALL_SHARE:
        return [small_sentence(effect.share)]
    main, axis = effect.main, axes[effect.main.input]
    who = subject or axis.y_name
    sentences = [f"Along {_range(main, axis)}, {who} {_moves(main, axis)}"
                 f"{_modulation_clause(effect, axes)}."]  # fmt: skip
    if len(effect.along) == 1:
        return sentences
    major = [d for d in effect.along if d.share >= MINOR_INPUT]
    for dep in major[1:]:
        axis = axes[dep.input]
        sentences.append(f"Along {_range(dep, axis)}, {who} {_moves(dep, axis)}.")
    parts = [f"{_share(d.share)} along {axes[d.input].x_name}" for d in major]
    minor = [axes[d.input].x_name for d in effect.along if d.share < MINOR_INPUT]
    if len(minor) == 1:
        parts.append(f"under {_share(MINOR_INPUT)} along {minor[0]}")
    elif minor:
        parts.append(f"under {_share(MINOR_INPUT)} along each of {join_words(minor)}")
    sentences.append(f"Its variation along single inputs is {join_words(parts)}.")
    if effect.joint >= JOINT:
        sentences.append(
            f"Most of its variation ({_share(effect.joint)}) comes from its inputs acting"
            " together rather than from any one of them."
        )
    return sentences


# -- small components --------------------------------------------------------------------------


def is_small(c: ComponentFacts, threshold: float = SMALL_SHARE) -> bool:
    """Whether the component's share of the fitted mean's variance is under ``threshold``
    (noise, which has no share, never is)."""
    return c.share is not None and abs(c.share) < threshold


def _limit(threshold: float) -> str:
    return format_number(100.0 * threshold, 2, trim=True) + "%"


def small_sentence(share: float, threshold: float = SMALL_SHARE) -> str:
    """The one sentence on a component too small to matter."""
    return (
        f"It is too small to matter: it carries {_explained(abs(share))} of the fitted mean's"
        f" variance, under {_limit(threshold)}."
    )


def _explained(total: float) -> str:
    """A share as the fold words it: '3.1%', 'less than 0.1%' when it rounds to nothing."""
    shown = percent(total)
    return "less than 0.1%" if abs(total) < 0.0005 else shown


def folded_sentence(components: Sequence[ComponentFacts], threshold: float = SMALL_SHARE) -> str:
    """One sentence for the components too small to matter ('Four further components, each
    under 2% of the fitted mean's variance, together explain 3.1% of it.'); '' when there are
    none. Shares can be negative (a component working against the others): their sum then
    'offsets' that much."""
    small = [c for c in components if is_small(c, threshold)]
    if not small:
        return ""
    total = sum(float(c.share or 0.0) for c in small)
    verb = "offset" if total <= -0.0005 else "explain"
    amount = _explained(abs(total))
    if len(small) == 1:
        return (
            f"One further component, under {_limit(threshold)} of the fitted mean's variance,"
            f" {verb}s {amount} of it."
        )
    return (
        f"{capitalise(number_word(len(small)))} further components, each under"
        f" {_limit(threshold)} of the fitted mean's variance, together {verb} {amount} of it."
    )


def summary_bullets(
    dec: Decomposition,
    phrases: Sequence[str],
    effects: Sequence[Effect | None] | None = None,
    threshold: float = SMALL_SHARE,
) -> list[str]:
    """The summary's bullets for a model of several inputs: each component that matters as its
    capitalised phrase and its ``effect_summary``; those under ``threshold`` folded into one
    last bullet (``folded_sentence``)."""
    effects = effects_of(dec) if effects is None else effects
    bullets = []
    for c, phrase, effect in zip(dec.components, phrases, effects, strict=True):
        if is_small(c, threshold):
            continue
        text = capitalise(phrase) + "."
        if effect is not None:
            text += " " + effect_summary(effect, dec.axes)
        bullets.append(text)
    folded = folded_sentence(dec.components, threshold)
    return bullets + ([folded] if folded else [])
