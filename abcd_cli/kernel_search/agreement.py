"""How far two independent halves of the sampler disagree (``smc_halves``), as every run states.

The sampler's particles run as two halves from independent seed streams (issue 64, part 2;
``../shared/SAMPLER.md`` §3, "islands"). Each half is an estimate of the same posterior, so
their distance is a measure of how far the run is from settled, which one run cannot show by
itself. With p and q the halves' weights over the same partition of the particles,

    TV(p, q) = ½ Σ_s |p(s) − q(s)|,

from 0 (the same) to 1 (no overlap). It is measured twice:

- by structure (the tree written without its values, as ``smc_method.particle_record``
  groups particles): ``structures``;
- by the kinds of findings a structure states (``decompose.features.model_features``: the
  set of (kind, inputs) it holds, periods and change times without their values), the
  report's findings without their values: ``kinds``. Structures stating the same kinds are
  one class, so this TV is at most the structures' one.

Beside these, each half's evidence estimate log Ẑ (``smc``) and most probable structure.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from abcd_cli.decompose.features import model_features
from abcd_cli.kernel_search.evidence import normalised
from abcd_cli.kernels import Kernel
from abcd_cli.schema import List, Nullable, Number, Obj, Text, Whole

if TYPE_CHECKING:
    from abcd_cli.kernel_search.smc import Particles

#: The largest TV by structure at which the halves are said to agree: the issue's bound for two
#: runs' findings (issue 64, part 4).
AGREED_TV = 0.2

#: The model file's ``posterior.halves`` (``HalvesAgreement.to_dict``).
HALVES_SCHEMA = Obj(
    required={
        "particles": List(Whole(min=1), 2, 2),
        "structures_tv": Number(min=0, max=1),
        "kinds_tv": Number(min=0, max=1),
        "log_evidence": List(Nullable(Number()), 2, 2),
        "most_probable": List(Text(), 2, 2),
    },
    noun="an object with particles, structures_tv, kinds_tv, log_evidence and most_probable",
)


def total_variation(p: Mapping[Hashable, float], q: Mapping[Hashable, float]) -> float:
    """½ Σ_s |p(s) − q(s)| over the classes either holds (a class one lacks has weight 0),
    summed in the order p then q lists them, so that the same halves give the same number to
    the last bit in any process (a set's order changes with the strings' hash seed)."""
    classes = [*p, *(s for s in q if s not in p)]
    return 0.5 * sum(abs(p.get(s, 0.0) - q.get(s, 0.0)) for s in classes)


def weight_by(
    kernels: Sequence[Kernel], weights: np.ndarray, key: Callable[[Kernel], Hashable]
) -> dict[Hashable, float]:
    """The summed ``weights`` of the ``kernels`` in each class ``key`` gives."""
    out: dict[Hashable, float] = {}
    for kernel, weight in zip(kernels, weights, strict=True):
        k = key(kernel)
        out[k] = out.get(k, 0.0) + float(weight)
    return out


def structure_of(kernel: Kernel) -> str:
    """A particle's structure: its tree written without values."""
    return kernel.to_text(params=False)


def kinds_of(kernel: Kernel) -> frozenset[tuple[str, tuple[int, ...]]]:
    """The kinds of findings a kernel states: each (kind, inputs) it holds, values left out."""
    keys, valued = model_features(kernel)
    return frozenset(keys) | {(kind, (d,)) for kind, d, _ in valued}


@dataclass(frozen=True)
class HalvesAgreement:
    """Two halves' particle counts, the TV between their posteriors by structure and by the
    kinds of findings, their log evidence estimates (−inf: a half whose particles all failed;
    in user units, as ``Weighed.log_evidence``, when the method gives them) and most probable
    structures (written with the data's input names)."""

    particles: tuple[int, int]
    structures_tv: float
    kinds_tv: float
    log_evidence: tuple[float, float]
    most_probable: tuple[str, str]

    @property
    def evidence_gap(self) -> float:
        """|log Ẑ₁ − log Ẑ₂| in nats (inf when either is not finite)."""
        a, b = self.log_evidence
        return abs(a - b) if math.isfinite(a) and math.isfinite(b) else math.inf

    @property
    def shares(self) -> tuple[float, float]:
        """Each half's share of the union's weight, Ẑ_h / (Ẑ₀ + Ẑ₁) (``smc_halves.union``)."""
        a, b = normalised(np.array(self.log_evidence))
        return float(a), float(b)

    def to_dict(self) -> dict[str, Any]:
        return {
            "particles": list(self.particles),
            "structures_tv": self.structures_tv,
            "kinds_tv": self.kinds_tv,
            "log_evidence": [v if math.isfinite(v) else None for v in self.log_evidence],
            "most_probable": list(self.most_probable),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> HalvesAgreement:
        """The record :meth:`to_dict` wrote (KeyError, TypeError or ValueError when not)."""
        a, b = (-math.inf if v is None else float(v) for v in d["log_evidence"])
        first, second = (int(n) for n in d["particles"])
        shown_a, shown_b = (str(t) for t in d["most_probable"])
        return cls(
            (first, second), float(d["structures_tv"]), float(d["kinds_tv"]), (a, b),
            (shown_a, shown_b),
        )  # fmt: skip


def agreement(first: Particles, second: Particles, names: Sequence[str] = ()) -> HalvesAgreement:
    """How far the halves ``first`` and ``second`` (each with normalised weights) disagree;
    their most probable structures written with input ``names``."""
    halves = (first, second)
    by_structure = [weight_by(h.kernels, h.weights, structure_of) for h in halves]
    by_kinds = [weight_by(h.kernels, h.weights, kinds_of) for h in halves]
    best = []
    for h, weights in zip(halves, by_structure, strict=True):
        top = max(weights, key=lambda s: weights[s])  # the first of equals, in particle order
        kernel = next(k for k in h.kernels if structure_of(k) == top)
        best.append(kernel.to_text(params=False, names=names))
    return HalvesAgreement(
        (len(first.kernels), len(second.kernels)),
        min(total_variation(*by_structure), 1.0),
        min(total_variation(*by_kinds), 1.0),
        (first.log_evidence, second.log_evidence),
        (best[0], best[1]),
    )
