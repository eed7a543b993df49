"""The result record of every inference method: a weighted set of particles, grouped by
structure (:class:`StructurePosterior`: structures, their weights, each structure's draws of its
parameters). Predict, decompose, the report, update and the model file read it without knowing
which method made it: the greedy search gives one particle of weight 1 (its chosen model, at
its fitted values: :meth:`StructurePosterior.single`, which the model file leaves out, since
the model is that particle), the weighed pool (``--method posterior``) its structures with
their draws, the sampler (``--method smc``) its particles, each structure's draws with their
own weights (``Weighed.draw_weights``).

The weighed pool: the greedy search's best structures, each weighed by its evidence with the
parameters integrated out, each with draws of its parameters.

The greedy search (``greedy``) keeps, besides its choice, the ``pool`` structures of lowest BIC
that it fitted on all the data. Each of them, S, is then weighed:

- its evidence p(y | S) = ∫ p(y | θ, S) p(θ) dθ by the Laplace approximation at its fitted θ̂
  (``evidence.laplace``; the prior p(θ) of ``evidence.ParameterPrior``);
- its parameters drawn from p(θ | y, S) by a Metropolis chain started at θ̂ whose proposal is
  shaped by the Laplace covariance (``parameter_chain``; the weighing is ``weighing``'s).

With a uniform prior over the pool, the structures' posterior weights are
w_S = p(y | S) / Σ_S' p(y | S'), and the posterior is the set of particles (S, θ_j), each of
weight w_S / draws. Forecasts are the mixture of the particles' Gaussian predictions
(``prediction``), its quantiles those of the mixture. The structure of largest weight is the
one the report decomposes (its θ̂ as the search fitted it).

Why this design and not sequential Monte Carlo over the grammar: measured on the 13 benchmark
series, at the same cost it kept the forecasts' accuracy and widened their bands where the
data leave the structure open; the first sampler (``smc``) did neither
(benchmarks/studies/outputs/posterior_notes.md).

Every structure's random numbers come from the seed and its structure alone (as a candidate's
fit does), so the posterior is the same serial, on a process pool or on Dask. A structure
whose Laplace approximation or chain fails gets weight 0; should all fail, the search's own
choice is the posterior, with weight 1 and no draws.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from abcd_cli.arrays import evenly_spread
from abcd_cli.kernel_search.agreement import HalvesAgreement
from abcd_cli.kernel_search.evidence import normalised
from abcd_cli.kernel_search.smc_trace import SamplerStep
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.text import parse_kernel

#: Why a structure has no weight when the worker process weighing it died (twice).
LOST = "the worker process weighing it died"

#: The weight the posterior may leave out to save time: the structures outside the smallest
#: set (most probable first) holding 1 − NEGLIGIBLE of the weight get no chain (judged by their
#: Laplace evidence, before any chain: ``weighing``). A mixture that leaves out weight δ
#: moves each predictive probability P(y ≤ q) by at most δ, and its mean by δ times the distance
#: between the means of what it keeps and what it leaves out.
NEGLIGIBLE = 1e-3

#: What a forecast or a prediction conditions (``StructurePosterior.held``): the structures
#: holding 1 − HELD_NEGLIGIBLE of the weight, each with HELD_DRAWS of its draws (chosen by
#: ``Weighed.spaced_draws``, each standing for an equal share of its structure's weight; None:
#: all). Measured on the 13 extrapolation splits' stored searches against 1 − 10⁻³ and all 32
#: draws: the same pooled coverage of the calibrated band (78.0% against 77.4%; other
#: thinnings of 8 gave 76.7-78.0%), median MLPD within 0.01, and a quarter of the particles
#: (docs/findings.md; ``benchmarks/studies/report_draws.py``).
HELD_NEGLIGIBLE = 1e-2
HELD_DRAWS: int | None = 8


def holding(weights: np.ndarray, mass: float) -> int:
    """How many of ``weights`` (largest first) the smallest set holding at least ``mass`` of
    their sum takes: k such that the k largest sum to ``mass`` of the total or more; only
    positive weights count, and at least one is taken."""
    w = np.sort(np.asarray(weights, dtype=float))[::-1]
    w = w[w > 0]
    if w.size == 0:
        return 1
    shares = np.cumsum(w) / w.sum()
    return int(min(np.searchsorted(shares, mass - 1e-12) + 1, w.size))


def spaced_rows(
    n: int, count: int, shares: np.ndarray | None = None, ends: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``count`` of a chain's n draws and how many times each is taken (all of them,
    once each, when count ≥ n): the draws at the cumulative shares u_i = (i + ½)/count of their
    ``shares`` (None: equal; ``Weighed.spaced_draws``), or with ``ends`` (the backtest's
    ``draw_rows``, which weighs its draws equally: ``shares`` not read) the rows
    round(i (n − 1)/(count − 1)), from the first draw to the last (``arrays.evenly_spread``)."""
    if count >= n:
        return np.arange(n), np.ones(n, dtype=int)
    if ends:
        rows = evenly_spread(n, count)
        return rows, np.ones(rows.size, dtype=int)
    shares = np.full(n, 1.0 / n) if shares is None else shares
    cumulative = np.cumsum(shares) / np.sum(shares)
    targets = (np.arange(count) + 0.5) / count
    taken = np.minimum(np.searchsorted(cumulative, targets - 1e-12), n - 1)
    return np.unique(taken, return_counts=True)


@dataclass(frozen=True)
class Weighed:
    """One structure of the pool, weighed: its fitted kernel (internal units), BIC and log
    evidence (user units; −inf when the approximation or the chain failed), the chain's draws
    of theta (rows; empty when it failed, or when its Laplace weight was negligible and it got
    no chain: ``NEGLIGIBLE``), their acceptance rate, how many of the Hessian's eigenvalues were
    raised to the prior's curvature, why it failed ("" when it did not), and its Laplace
    evidence before the chain's correction (user units; what decided whether it got a chain).
    A method that scores no BIC, or draws by no Metropolis chain, gives None for that; one
    whose draws carry weights of their own gives them (``draw_weights``, summing to one; None:
    equal)."""

    kernel: Kernel
    bic: float | None
    log_evidence: float
    theta: np.ndarray
    acceptance: float | None = 0.0
    floored: int = 0
    failure: str = ""
    laplace_evidence: float = -math.inf
    draw_weights: np.ndarray | None = None

    @property
    def lost(self) -> bool:
        """Its worker died: nothing is known of it, and a resumed search weighs it again."""
        return self.failure == LOST

    @property
    def ranking_bic(self) -> float:
        """Its BIC for ranking structures: +inf without one (after any that have one)."""
        return math.inf if self.bic is None else self.bic

    @property
    def kernels(self) -> list[Kernel]:
        """The structure at each draw of its parameters (at θ̂ when it has none)."""
        if self.theta.shape[0] == 0:
            return [self.kernel]
        return [self.kernel.with_theta(t) for t in self.theta]

    def weighted_kernels(self, weight: float) -> list[tuple[Kernel, float]]:
        """:attr:`kernels`, each with its part of the structure's ``weight``: ``weight`` / draws,
        or in proportion to ``draw_weights``."""
        kernels = self.kernels
        if self.draw_weights is None or self.theta.shape[0] == 0:
            return [(k, weight / len(kernels)) for k in kernels]
        shares = self.draw_weights / self.draw_weights.sum()
        return [(k, weight * float(share)) for k, share in zip(kernels, shares, strict=True)]

    def spaced_draws(self, weight: float, count: int | None) -> list[tuple[int, Kernel, float]]:
        """At most ``count`` of its draws (None: all), each with its position and its part of
        ``weight``: the draws at the cumulative shares u_i = (i + ½)/count of its draws'
        weights (i = 0 … count − 1; equal weights give draws evenly spaced along the chain),
        a draw taken r times getting r·``weight``/count. With all draws kept, as
        :meth:`weighted_kernels`."""
        kernels = self.kernels
        if count is None or count >= len(kernels):
            return [(j, k, part) for j, (k, part) in enumerate(self.weighted_kernels(weight))]
        positions, times = spaced_rows(len(kernels), count, self.draw_weights)
        return [
            (int(j), kernels[j], weight * int(r) / count)
            for j, r in zip(positions, times, strict=True)
        ]

    def to_dict(self) -> dict[str, object]:
        extra = {} if self.draw_weights is None else {"draw_weights": self.draw_weights.tolist()}
        return {
            "kernel": self.kernel.to_text(),
            "bic": self.bic,
            "log_evidence": _finite_or_none(self.log_evidence),
            "laplace_evidence": _finite_or_none(self.laplace_evidence),
            "theta": self.theta.tolist(),
            "acceptance": self.acceptance,
            "floored": self.floored,
            "failure": self.failure,
            **extra,
        }

    @classmethod
    def from_dict(cls, d: dict) -> Weighed:
        """The structure written by :meth:`to_dict` (KeyError, TypeError or ValueError when
        it is not one; a file written before the Laplace evidence was kept gives it as the log
        evidence)."""
        kernel = parse_kernel(d["kernel"])
        theta = np.array(d["theta"], dtype=float).reshape(-1, kernel.n_params)
        evidence = d["log_evidence"]
        laplace = d.get("laplace_evidence", evidence)
        shares = d.get("draw_weights")
        return cls(
            kernel,
            _float_or_none(d["bic"]),
            -math.inf if evidence is None else float(evidence),
            theta,
            _float_or_none(d["acceptance"]),
            int(d["floored"]),
            str(d["failure"]),
            -math.inf if laplace is None else float(laplace),
            None if shares is None else np.array(shares, dtype=float).reshape(theta.shape[0]),
        )


def _finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _float_or_none(value: object) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]


@dataclass(frozen=True)
class StructurePosterior:
    """The weighed structures, most probable first, and their weights (summing to one): the
    result record of every method (see the module docstring). The sampler's also says how far
    its two independent halves disagree (``halves``; None for the other methods) and what
    each of its data steps did (``steps``, ``smc_trace``; empty for the other methods)."""

    structures: list[Weighed]
    weights: np.ndarray
    draws: int = 0
    prior: str = field(default="uniform over the pool", repr=False)
    #: how many of each structure's draws :meth:`particles` gives (None: all; ``HELD_DRAWS``)
    kept_draws: int | None = field(default=None, repr=False)
    halves: HalvesAgreement | None = field(default=None, repr=False)
    steps: tuple[SamplerStep, ...] = field(default=(), repr=False)

    @classmethod
    def single(cls, kernel: Kernel, bic: float | None) -> StructurePosterior:
        """One particle of weight 1: ``kernel`` (internal units) at its fitted values, with
        its ``bic``; what a method that chooses one model gives (``is_single``)."""
        chosen = Weighed(kernel, bic, -math.inf, np.empty((0, kernel.n_params)), None)
        return cls([chosen], np.ones(1), 0, "")

    @property
    def is_single(self) -> bool:
        """One particle and nothing weighed: a structure at its fitted values, not drawn and
        not weighed by an evidence (the model alone: a report states no probabilities for it,
        a prediction is its own Gaussian, the model file holds no posterior)."""
        (first, *rest) = self.structures
        return (
            not rest
            and first.theta.shape[0] == 0
            and not first.failure
            and not math.isfinite(first.log_evidence)
        )

    @property
    def structure_count(self) -> int:
        """How many structures have weight."""
        return int(np.sum(self.weights > 0))

    @property
    def particle_count(self) -> int:
        """How many particles (a structure's draws, or the structure at its fitted values)."""
        return sum(len(s.kernels) for s in self.structures)

    @property
    def best(self) -> Weighed:
        """The structure of largest weight (the first of equals)."""
        return self.structures[0]

    def held(
        self, negligible: float = HELD_NEGLIGIBLE, draws: int | None = HELD_DRAWS
    ) -> StructurePosterior:
        """The posterior of the smallest set of its structures (most probable first) that holds
        1 − ``negligible`` of the weight, their weights divided by what they hold (see
        ``HELD_NEGLIGIBLE``), each giving at most ``draws`` of its draws (``Weighed.spaced_draws``;
        None: all); its structures keep their positions. What a forecast or a prediction
        conditions."""
        k = holding(self.weights, 1.0 - negligible)
        kept = self.weights[:k]
        return StructurePosterior(
            self.structures[:k], kept / kept.sum(), self.draws, self.prior, draws
        )

    def particles(self) -> Iterator[tuple[tuple[int, int], Kernel, float]]:
        """Every particle of positive weight: (its structure's and its draw's positions, the
        kernel at that draw, its weight), at most ``kept_draws`` of each structure's draws;
        the weights sum to one."""
        for i, (s, w) in enumerate(zip(self.structures, self.weights, strict=True)):
            if w > 0:
                for j, k, part in s.spaced_draws(float(w), self.kept_draws):
                    yield (i, j), k, part

    def to_dict(self) -> dict[str, object]:
        sampler: dict[str, object] = {}
        if self.halves is not None:
            sampler["halves"] = self.halves.to_dict()
        if self.steps:
            sampler["steps"] = [step.to_dict() for step in self.steps]
        return {
            "prior": {
                "structures": self.prior,
                "parameters": "independent normals on the optimiser's coordinates, their"
                " bounds two standard deviations either side of the centre",
            },
            "draws": self.draws,
            "structures": [
                {"weight": float(w), **s.to_dict()}
                for s, w in zip(self.structures, self.weights, strict=True)
            ],
            **sampler,
        }

    @classmethod
    def from_dict(cls, d: dict) -> StructurePosterior:
        """The posterior written by :meth:`to_dict` (KeyError, TypeError or ValueError when
        it is not one)."""
        entries = list(d["structures"])
        halves = d.get("halves")
        return cls(
            [Weighed.from_dict(e) for e in entries],
            np.array([float(e["weight"]) for e in entries]),
            int(d.get("draws", 0)),
            str(d.get("prior", {}).get("structures", "uniform over the pool")),
            halves=None if halves is None else HalvesAgreement.from_dict(halves),
            steps=tuple(SamplerStep.from_dict(s) for s in d.get("steps", [])),
        )


def ranked(structures: list[Weighed], draws: int) -> StructurePosterior:
    """The posterior of weighed ``structures``: weights ∝ their evidence, most probable first
    (the lower BIC first among equals). Should every structure have failed, the one of lowest
    BIC carries all the weight, at its fitted values (the first, when none has a BIC)."""
    log_evidence = np.array([s.log_evidence for s in structures])
    bics = [s.ranking_bic for s in structures]
    if np.any(np.isfinite(log_evidence)):
        weights = normalised(log_evidence)
    else:
        weights = np.zeros(len(structures))
        weights[int(np.argmin(bics))] = 1.0
    order = sorted(range(len(structures)), key=lambda i: (-weights[i], bics[i]))
    return StructurePosterior([structures[i] for i in order], weights[order], draws)
