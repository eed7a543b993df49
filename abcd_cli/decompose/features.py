"""What a weighted set of models says, feature by feature, with each feature's probability.

A posterior over structures is a set of kernels (particles, or any models) with weights summing
to one. It is stated by features that models may share although their structures differ (the
report and the model file are to state them; today the studies in benchmarks/studies do):
- ``periodic``: a periodic factor on an input, of period p;
- ``linear trend``: a term whose only factor that varies is one linear kernel (gated or not);
  ``polynomial trend``: one whose factors that vary are two or more linear kernels;
- ``smooth``: a term on some inputs with a smooth factor and no periodic one (not noise);
- ``change``: a change in the structure at x = t (where a changepoint or a window's edge is);
- ``changing noise``: noise whose size changes (a noise term with a factor that is neither
  noise nor a constant: a trend, a gate, ...);
- ``input used`` and ``interaction``: with several inputs, a signal term reading input d, or
  reading both inputs a and b.

A feature's probability is the summed weight of the models holding it. Periods and change times
vary from model to model: the values of one kind on one input are grouped where neighbours lie
within ``PERIOD_TOLERANCE`` (relative) or ``CHANGE_TOLERANCE`` of the input's range, and each
group is one feature, stated with the weighted median of its values and the central 95%
interval of them (a model holding a group's value twice counts once towards its probability).
Roles come from each kernel's declaration (``role``), never from its class.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from abcd_cli.decompose.input_terms import expand_additive, term_inputs
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.algebra import sum_of_products

#: Periods within this relative distance of their neighbour are one feature (|Δ log p| ≤ it).
PERIOD_TOLERANCE = 0.05
#: Change times within this fraction of the input's range of their neighbour are one feature.
CHANGE_TOLERANCE = 0.05
#: Roles of factors that do not make a term vary with x.
STEADY = ("constant", "gate")


@dataclass(frozen=True)
class Feature:
    """One feature: its ``kind``, the inputs it concerns, its probability and, for periods and
    change times, the weighted median value and central 95% interval (user units)."""

    kind: str
    inputs: tuple[int, ...]
    probability: float
    value: float | None = None
    interval: tuple[float, float] | None = None


def _role(kernel: Kernel) -> str:
    """What a base kernel declares it is (``role``): "noise", "linear", "gate", ..."""
    return str(getattr(kernel, "role", ""))


def model_features(kernel: Kernel) -> tuple[set[tuple], list[tuple[str, int, float]]]:
    """A model's features without values, as keys (kind, inputs), and its valued ones as
    (kind, input, value): each period and each finite end of a gate's span."""
    keys: set[tuple] = set()
    valued: list[tuple[str, int, float]] = []
    for term in expand_additive(sum_of_products(kernel)):
        bases = term.bases()
        for b in bases:
            if "period" in getattr(b, "names", ()):
                valued.append(("periodic", b.dim, float(b.param("period"))))
            if _role(b) == "gate":
                for start, end, *_ in b.switched_on():
                    valued += [("change", b.dim, t) for t in (start, end) if math.isfinite(t)]
        if term.has_noise_factor():
            if any(_role(b) not in ("noise", "constant") for b in bases):
                keys.add(("changing noise", ()))
            continue
        varying = [b for b in bases if _role(b) not in STEADY]
        dims = term_inputs(term)
        roles = {_role(b) for b in varying}
        if roles == {"linear"}:
            kind = "linear trend" if len(varying) == 1 else "polynomial trend"
            keys.add((kind, dims))
        elif "smooth" in roles and "periodic" not in roles:
            keys.add(("smooth", dims))
        keys.update(("input used", (d,)) for d in dims)
        keys.update(("interaction", (a, b)) for i, a in enumerate(dims) for b in dims[i + 1 :])
    return keys, valued


def _quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    """The weighted q-quantile of ``values`` (the smallest value whose cumulative weight
    reaches q of the total)."""
    order = np.argsort(values)
    cumulative = np.cumsum(weights[order])
    return float(values[order][np.searchsorted(cumulative, q * cumulative[-1])])


def features(
    kernels: Sequence[Kernel],
    weights: Sequence[float],
    ranges: Sequence[tuple[float, float]],
) -> list[Feature]:
    """The features of models ``kernels`` (user units) with ``weights``, each input's range of
    the data given by ``ranges``; most probable first."""
    return [f for f, _ in held_features(kernels, weights, ranges)]


def held_features(
    kernels: Sequence[Kernel],
    weights: Sequence[float],
    ranges: Sequence[tuple[float, float]],
) -> list[tuple[Feature, frozenset[int]]]:
    """``features``, each with the positions of the models holding it."""
    w = np.asarray(weights, dtype=float)
    w = w / w.sum()
    per_model = [model_features(k) for k in kernels]
    holders: dict[tuple, set[int]] = {}
    for m, (keys, _) in enumerate(per_model):
        for key in keys:
            holders.setdefault(key, set()).add(m)
    several = len(ranges) > 1  # with one input, it is always the input used
    out = [
        # a sum of shares: one, give or take rounding
        (Feature(kind, dims, min(float(w[list(held)].sum()), 1.0)), frozenset(held))
        for (kind, dims), held in holders.items()
        if several or kind not in ("input used", "interaction")
    ]
    found = [
        (kind, d, value, m) for m, (_, valued) in enumerate(per_model) for kind, d, value in valued
    ]
    for kind, d in sorted({(kind, d) for kind, d, _, _ in found}):
        own = sorted((value, m) for k, dd, value, m in found if (k, dd) == (kind, d))
        out += _grouped(kind, d, own, w, ranges[d])
    return sorted(
        out, key=lambda fh: (-fh[0].probability, fh[0].kind, fh[0].inputs, fh[0].value or 0.0)
    )


def _grouped(
    kind: str,
    d: int,
    own: list[tuple[float, int]],
    w: np.ndarray,
    span: tuple[float, float],
) -> list[tuple[Feature, frozenset[int]]]:
    """The values ``own`` (value, model), sorted, split into groups of close neighbours, each
    with the models holding it."""
    width = max(span[1] - span[0], 1e-300)

    def close(a: float, b: float) -> bool:
        if kind == "periodic":
            return abs(math.log(b) - math.log(a)) <= PERIOD_TOLERANCE
        return abs(b - a) <= CHANGE_TOLERANCE * width

    groups: list[list[tuple[float, int]]] = [[own[0]]]
    for item in own[1:]:
        if close(groups[-1][-1][0], item[0]):
            groups[-1].append(item)
        else:
            groups.append([item])
    out = []
    for group in groups:
        values = np.array([v for v, _ in group])
        value_weights = np.array([w[m] for _, m in group])
        held = frozenset(m for _, m in group)
        feature = Feature(
            kind,
            (d,),
            min(float(sum(w[m] for m in held)), 1.0),
            _quantile(values, value_weights, 0.5),
            (_quantile(values, value_weights, 0.025), _quantile(values, value_weights, 0.975)),
        )
        out.append((feature, held))
    return out
