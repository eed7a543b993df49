"""How sure the posterior over structures is: what the report states of a model of
``--method posterior``, as plain records.

- Each feature of the particles (:mod:`features`) with its probability, and the range that
  probability would take if each structure's log evidence were off by up to
  ``EVIDENCE_ERROR`` nats (the Laplace evidence differs from importance sampling by 0.3-1.2 nats
  on the benchmark: ``docs/findings.md``). With w_i the structures' weights and h_i the share of
  structure i's draws' weight that hold the feature, p = Σ w_i h_i; moving log w_i by s_i·δ, s_i ∈
  [−1, 1], the extremes are at s_i = ±1 by the sign of h_i − p (a linear-fractional program's
  vertex), found by iterating that rule.
- The structures of the pool with their weights, BIC and log evidence (user units).
- Whether a sampler's two independent halves disagree (``unsettled``: total variation by
  structure above ``agreement.AGREED_TV``), when its weights are no probabilities to state.
- Which feature a component of the decomposed structure is (``component_feature``): a period
  matched to the group holding it, a trend, a smooth function, noise whose size changes, an
  interaction.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from abcd_cli.decompose.features import PERIOD_TOLERANCE, Feature, held_features, model_features
from abcd_cli.decompose.input_terms import term_inputs
from abcd_cli.kernel_search.agreement import AGREED_TV, HalvesAgreement
from abcd_cli.kernel_search.posterior import StructurePosterior
from abcd_cli.kernels import Kernel, Sum
from abcd_cli.model import Model, searches_of

#: How far (nats) each structure's log evidence may be off, for the probabilities' ranges.
EVIDENCE_ERROR = 1.0


@dataclass(frozen=True)
class Finding:
    """A feature of the posterior and its probability's range under ``EVIDENCE_ERROR``."""

    feature: Feature
    low: float
    high: float

    @property
    def probability(self) -> float:
        return self.feature.probability


@dataclass(frozen=True)
class StructureRow:
    """One weighed structure (kernel in user units)."""

    kernel: Kernel
    weight: float
    bic: float | None  # None: a method that scores no BIC
    log_evidence: float
    failure: str


@dataclass(frozen=True)
class PosteriorFacts:
    """What the report states of a posterior over structures."""

    structures: list[StructureRow]  # most probable first
    findings: list[Finding]  # most probable first
    draws: int  # parameter draws per structure
    prior: str  # the prior over structures, in words
    searches: int = 1  # the searches (seeds) whose structures were weighed together
    sampler: tuple[int, int] | None = None  # method "smc": (particles, data steps)
    halves: HalvesAgreement | None = None  # method "smc": how far its two halves disagree

    @property
    def unsettled(self) -> bool:
        """Whether the sampler's two independent halves disagree by more than ``AGREED_TV``
        (total variation by structure): its weights are then not probabilities the data
        establish, and no finding is stated as a fact or as likely."""
        return self.halves is not None and self.halves.structures_tv > AGREED_TV


def probability_range(weights: np.ndarray, shares: np.ndarray, nats: float) -> tuple[float, float]:
    """The least and largest Σ w'_i h_i / Σ w'_i over w'_i = w_i e^{s_i δ}, s_i ∈ [−1, 1]
    (``shares``: h_i; δ = ``nats``)."""
    live = weights > 0
    w, h = weights[live], shares[live]
    if w.size == 0:
        return 0.0, 0.0
    out = []
    for sign in (-1.0, 1.0):
        p = float(np.sum(w * h) / np.sum(w))
        for _ in range(len(w) + 1):
            shifted = w * np.exp(sign * nats * np.where(h > p, 1.0, -1.0))
            new = float(np.sum(shifted * h) / np.sum(shifted))
            if abs(new - p) < 1e-12:
                break
            p = new
        out.append(p)
    return min(out), max(out)


def posterior_facts(
    model: Model, posterior: StructurePosterior, search: Mapping[str, Any]
) -> PosteriorFacts | None:
    """What the ``posterior`` (the method's weighted particles) states on ``model``'s data,
    with the searches weighed together that ``search`` (its document) ran; None for the model
    alone (``is_single``: no probabilities)."""
    if posterior.is_single:
        return None
    sc = model.scaling
    particles = list(posterior.particles())
    kernels = [sc.kernel_out(k) for _, k, _ in particles]
    weights = np.array([w for _, _, w in particles])
    structure_of = np.array([i for (i, _), _, _ in particles])
    X = model.X
    ranges = [(float(X[:, d].min()), float(X[:, d].max())) for d in range(X.shape[1])]
    live = sorted(set(structure_of.tolist()))
    structure_weights = np.array([float(posterior.weights[i]) for i in live])
    weight_of = np.array([np.sum(weights[structure_of == i]) for i in live])
    findings = []
    for feature, held in held_features(kernels, weights, ranges):
        # each structure's share of its draws' weight that holds the feature (the sampler's
        # draws have weights of their own; the pool's are equal, where this is their count)
        rows = list(held)
        kept = np.array([np.sum(weights[rows][structure_of[rows] == i]) for i in live])
        low, high = probability_range(structure_weights, kept / weight_of, EVIDENCE_ERROR)
        findings.append(Finding(feature, low, high))
    rows = [
        StructureRow(sc.kernel_out(s.kernel), float(w), s.bic, s.log_evidence, s.failure)
        for s, w in zip(posterior.structures, posterior.weights, strict=True)
    ]
    settings = search.get("settings", {})
    sampler = (  # an update weighs the sampler's structures as a pool is (``model_update``)
        (int(settings["particles"]), int(settings["data_steps"]))
        if settings.get("method") == "smc" and posterior.halves is not None  # not re-weighed
        else None
    )
    return PosteriorFacts(
        rows,
        findings,
        posterior.draws,
        posterior.prior,
        searches_of(search),
        sampler,
        posterior.halves if sampler is not None else None,
    )


def _lead_period(kernel: Kernel) -> tuple[int, float] | None:
    """(input, period) of the component's first term's first periodic factor, if any."""
    first = kernel.operands[0] if isinstance(kernel, Sum) else kernel
    for base in first.bases():
        if "period" in getattr(base, "names", ()):
            return base.dim, float(base.param("period"))
    return None


def component_feature(
    kernel: Kernel, is_noise: bool, findings: Sequence[Finding]
) -> Finding | None:
    """The finding a component (``kernel``, user units; a product or a gathered sum) states:
    its period's group, its trend, a smooth function of its inputs, its noise's changing size,
    the interaction of its two inputs; None for what the posterior gives no probability
    (a constant, noise of constant size)."""
    keys, _ = model_features(kernel)
    if is_noise:
        wanted = [("changing noise", ())] if ("changing noise", ()) in keys else []
    else:
        period = _lead_period(kernel)
        if period is not None:
            return _period_finding(*period, findings)
        dims = term_inputs(kernel)
        wanted = [
            key
            for key in (
                ("polynomial trend", dims),
                ("linear trend", dims),
                ("smooth", dims),
                ("interaction", dims),
            )
            if key in keys
        ]
    if not wanted:
        return None
    return next((f for f in findings if (f.feature.kind, f.feature.inputs) == wanted[0]), None)


def _period_finding(d: int, period: float, findings: Sequence[Finding]) -> Finding | None:
    """The periodic finding on input d whose interval holds ``period``, else the nearest
    within ``PERIOD_TOLERANCE`` of it."""
    own = [
        f
        for f in findings
        if f.feature.kind == "periodic" and f.feature.inputs == (d,) and f.feature.value
    ]
    holding = [f for f in own if f.feature.interval[0] <= period <= f.feature.interval[1]]  # type: ignore[index]
    near = holding or [
        f
        for f in own
        if abs(math.log(f.feature.value / period)) <= PERIOD_TOLERANCE  # type: ignore[operator]
    ]
    return min(near, key=lambda f: abs(math.log(f.feature.value / period)), default=None)  # type: ignore[operator]
