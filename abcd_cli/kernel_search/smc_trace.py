"""The sampler's trace (issue 63): what each data step did, as the report's appendix states it.

Each half (``smc_halves``) records, after every data step, a :class:`StepFacts`: the points
used so far, the effective sample size of its weights after the step's reweighting and before
any resampling, ESS = 1 / Σ_i w_i² (``evidence.effective_size``), whether it resampled (ESS
below half its particles, never at the last step: ``smc``), the structure moves proposed and
accepted in the step, the mean acceptance of its particles' parameter chains, its log evidence
estimate so far and its weights by structure after the step. The run's trace is one
:class:`SamplerStep` per data step, of the halves' union (``smc_halves.union``): each half's
structures weighed by its share Ẑ_h / (Ẑ₀ + Ẑ₁) of the evidence so far, the union's most
probable structure and its weight, and log(½ (Ẑ₀ + Ẑ₁)) in the data's units.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from abcd_cli.kernel_search.evidence import normalised
from abcd_cli.kernels import Kernel
from abcd_cli.schema import Bool, List, Nullable, Number, Obj, Text, Whole, refuse, shown


@dataclass(frozen=True)
class StepFacts:
    """One half's data step (see the module docstring); ``parameter_acceptance`` is NaN when
    no particle ran a parameter chain."""

    points: int
    ess: float
    resampled: bool
    proposed: int
    accepted: int
    parameter_acceptance: float
    log_evidence: float
    structures: dict[str, float]

    @classmethod
    def of(
        cls,
        points: int,
        ess: float,
        resampled: bool,
        moves: Sequence[tuple[int, int, float]],
        log_evidence: float,
        kernels: Sequence[Kernel],
        log_w: np.ndarray,
    ) -> StepFacts:
        """The facts of a finished step from each particle's (proposed, accepted, parameter
        acceptance) ``moves`` and the particles' ``kernels`` and log weights ``log_w``."""
        chains = [a for _, _, a in moves if math.isfinite(a)]
        weights: dict[str, float] = {}
        for kernel, w in zip(kernels, normalised(log_w), strict=True):
            key = kernel.to_text(params=False)
            weights[key] = weights.get(key, 0.0) + float(w)
        return cls(
            points, float(ess), bool(resampled), sum(p for p, _, _ in moves),
            sum(a for _, a, _ in moves), float(np.mean(chains)) if chains else math.nan,
            float(log_evidence), weights,
        )  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return {
            "points": self.points,
            "ess": self.ess,
            "resampled": self.resampled,
            "proposed": self.proposed,
            "accepted": self.accepted,
            "parameter_acceptance": _finite_or_none(self.parameter_acceptance),
            "log_evidence": _finite_or_none(self.log_evidence),
            "structures": dict(self.structures),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> StepFacts:
        """The facts :meth:`to_dict` wrote, checked (ValueError or TypeError when not)."""
        points, proposed, accepted = (int(d[k]) for k in ("points", "proposed", "accepted"))
        ess = float(d["ess"])
        if points < 1 or not 0 <= accepted <= proposed or not ess > 0:
            raise ValueError("a data step's points, moves or effective sample size are not valid")
        rate = d["parameter_acceptance"]
        if rate is not None and not 0 <= float(rate) <= 1:
            raise ValueError("a data step's parameter acceptance must be from 0 to 1")
        weights = {str(k): float(v) for k, v in dict(d["structures"]).items()}
        if not weights or any(not 0 <= w <= 1 for w in weights.values()):
            raise ValueError("a data step's weights by structure must be from 0 to 1")
        if not isinstance(d["resampled"], bool):
            raise TypeError("a data step's resampled must be true or false")
        log_z = d["log_evidence"]
        return cls(
            points, ess, d["resampled"], proposed, accepted,
            math.nan if rate is None else float(rate),
            -math.inf if log_z is None else float(log_z), weights,
        )  # fmt: skip


#: One data step of the model file's ``posterior.steps`` (``SamplerStep.to_dict``).
STEP_SCHEMA = Obj(
    required={
        "step": Whole(min=1),
        "points": Whole(min=1),
        "ess": List(Number(min=0), 2, 2),
        "particles": List(Whole(min=1), 2, 2),
        "resampled": List(Bool(), 2, 2),
        "structure_acceptance": Nullable(Number(min=0, max=1)),
        "parameter_acceptance": Nullable(Number(min=0, max=1)),
        "log_evidence": Nullable(Number()),
        "structure": Text(),
        "weight": Number(min=0, max=1),
    },
    noun="a data step of the sampler",
    nouns="data steps of the sampler",
)


@dataclass(frozen=True)
class SamplerStep:
    """One data step of the run (see the module docstring): its number, points used, each
    half's ESS out of its particles and whether it resampled, the rates at which structure and
    parameter moves were accepted in it (NaN: none proposed), the union's log evidence estimate
    so far (user units) and its most probable structure with that structure's weight."""

    step: int
    points: int
    ess: tuple[float, float]
    particles: tuple[int, int]
    resampled: tuple[bool, bool]
    structure_acceptance: float
    parameter_acceptance: float
    log_evidence: float
    structure: str
    weight: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "points": self.points,
            "ess": list(self.ess),
            "particles": list(self.particles),
            "resampled": list(self.resampled),
            "structure_acceptance": _finite_or_none(self.structure_acceptance),
            "parameter_acceptance": _finite_or_none(self.parameter_acceptance),
            "log_evidence": _finite_or_none(self.log_evidence),
            "structure": self.structure,
            "weight": self.weight,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SamplerStep:
        """The step :meth:`to_dict` wrote (KeyError, TypeError or ValueError when not)."""
        a, b = (float(v) for v in d["ess"])
        m, n = (int(v) for v in d["particles"])
        r, s = (bool(v) for v in d["resampled"])
        return cls(
            int(d["step"]), int(d["points"]), (a, b), (m, n), (r, s),
            _nan_if_none(d["structure_acceptance"]), _nan_if_none(d["parameter_acceptance"]),
            -math.inf if d["log_evidence"] is None else float(d["log_evidence"]),
            str(d["structure"]), float(d["weight"]),
        )  # fmt: skip


def union_steps(
    first: Sequence[StepFacts],
    second: Sequence[StepFacts],
    particles: tuple[int, int],
    to_user: Callable[[float, int], float],
) -> list[SamplerStep]:
    """The run's trace from both halves' facts (with ``particles`` each), step by step; their
    union's log evidence estimate converted by ``to_user(log Ẑ, points)``."""
    steps = []
    for k, (a, b) in enumerate(zip(first, second, strict=True), start=1):
        share_a, share_b = normalised(np.array([a.log_evidence, b.log_evidence]))
        weights = {s: share_a * w for s, w in a.structures.items()}
        for s, w in b.structures.items():
            weights[s] = weights.get(s, 0.0) + share_b * w
        structure = max(weights, key=lambda s: weights[s])  # the first of equals
        log_z = float(np.logaddexp(a.log_evidence, b.log_evidence)) - math.log(2.0)
        proposed = a.proposed + b.proposed
        chains = [v for v in (a.parameter_acceptance, b.parameter_acceptance) if math.isfinite(v)]
        steps.append(
            SamplerStep(
                k,
                a.points,
                (a.ess, b.ess),
                particles,
                (a.resampled, b.resampled),
                (a.accepted + b.accepted) / proposed if proposed else math.nan,
                float(np.average(chains, weights=particles)) if len(chains) == 2 else math.nan,
                to_user(log_z, a.points) if math.isfinite(log_z) else log_z,
                structure,
                float(weights[structure]),
            )  # fmt: skip
        )
    return steps


def check_steps(steps: Sequence[Mapping[str, Any]], where: str) -> None:
    """A model file's ``posterior.steps`` (each already ``STEP_SCHEMA``): numbered 1, 2, ...
    on more points each, each half's effective sample size at most its particles."""
    for i, step in enumerate(steps):
        path = f"posterior.steps[{i}]"
        if step["step"] != i + 1:
            refuse(where, f"{path}.step", f"must be {i + 1}, not {shown(step['step'])}")
        if i and step["points"] <= steps[i - 1]["points"]:
            refuse(where, f"{path}.points", "must be more than the step before's")
        if any(e > n + 1e-9 for e, n in zip(step["ess"], step["particles"], strict=True)):
            refuse(where, f"{path}.ess", "must be at most each half's particles")


def _finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _nan_if_none(value: object) -> float:
    return math.nan if value is None else float(value)  # type: ignore[arg-type]
