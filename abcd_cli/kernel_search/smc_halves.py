"""The sampler as two independent halves (issue 64, part 2): two runs of ``smc.Sampler`` whose
union, weighed by their evidence estimates, is the result, and whose disagreement
(``agreement``) every run states.

Half h (h = 0, 1) has ⌈P/2⌉ or ⌊P/2⌋ of the settings' P particles and its own seed, the h-th
child of ``SeedSequence(seed)`` (``half_seeds``): every random number a half draws (its
particles' moves, its resampling) comes from that seed alone, so a half's result does not
depend on the other's. Each is resampled only within itself, on the same data steps. At each
data step both halves' tasks go to the executor together (one map), so the pool stays busy.

The union weighs each half by its evidence estimate Ẑ_h (``smc``: the product over data steps
of the mean incremental weight), as if the two halves' particles, with their unnormalised
weights, were one population: with w_{h,i} half h's normalised weights,

    W_{h,i} = Ẑ_h / (Ẑ₀ + Ẑ₁) · w_{h,i},  Σ_{h,i} W_{h,i} = 1,

and its evidence estimate is the mean of theirs, Ẑ = ½ (Ẑ₀ + Ẑ₁), unbiased as each is. Why not
equal weights (½ each): when the halves settle in different regions, Ẑ_h estimates how much
posterior mass the region half h found holds, and equal weights would give half the mass to a
region the data reject. Measured (docs/findings.md): on airline and call-centre at 16
particles, seeds 0-2, the halves' log Ẑ differed by 15.6-183.1 nats, each time with no
structure in common; at 64 particles on airline by 8.8. When the halves find the same region,
their Ẑ differ only by noise and either half's particles describe it, so weighing by Ẑ costs
little there. The disagreement is stated whichever half the weight goes to (``agreement``).
When neither half has a finite Ẑ (every particle failed), each weighs ½.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import replace

import numpy as np

from abcd_cli.data.summary import Summary
from abcd_cli.engines.base import Engine
from abcd_cli.kernel_search.evidence import normalised
from abcd_cli.kernel_search.smc import (
    Particles,
    Sampler,
    SMCSettings,
    SMCState,
    particles_of,
    run_together,
)
from abcd_cli.kernel_search.smc_budget import MovePlanner
from abcd_cli.kernel_search.structure_prior import StructurePrior

#: Both halves' states after the same data step.
HalvesState = tuple[SMCState, SMCState]


def half_seeds(seed: int) -> tuple[int, int]:
    """Each half's seed: the first 64 bits of the two children of ``SeedSequence(seed)``."""
    first, second = (
        int(child.generate_state(1, np.uint64)[0])
        for child in np.random.SeedSequence(seed).spawn(2)
    )
    return first, second


def half_sizes(particles: int) -> tuple[int, int]:
    """The halves' particle counts: ⌈P/2⌉ and ⌊P/2⌋."""
    return (particles + 1) // 2, particles // 2


class Halves:
    """Two independent runs of the sampler on data (X, y) in the fitter's units, from
    ``seed`` (or the halves' own ``seeds``); see the module docstring."""

    def __init__(
        self,
        X: np.ndarray,
        y: np.ndarray,
        summary: Summary,
        engine: Engine,
        prior: StructurePrior,
        settings: SMCSettings,
        seed: int,
        seeds: tuple[int, int] | None = None,
    ) -> None:
        own = seeds if seeds is not None else half_seeds(seed)
        self.samplers = tuple(
            Sampler(X, y, summary, engine, prior, replace(settings, particles=n), s)
            for n, s in zip(half_sizes(settings.particles), own, strict=True)
        )
        self.steps = self.samplers[0].steps

    @property
    def sizes(self) -> tuple[int, int]:
        """Each half's particle count."""
        first, second = (s.problem.settings.particles for s in self.samplers)
        return first, second

    def run(
        self,
        executor: Executor | None = None,
        state: HalvesState | None = None,
        on_step: Callable[[HalvesState], None] | None = None,
        planner: MovePlanner | None = None,
        elapsed: Callable[[], float] | None = None,
    ) -> tuple[Particles, Particles]:
        """Each half's particles after every data step, both halves' tasks of a step on
        ``executor`` together; from ``state`` when given (a checkpoint's), telling
        ``on_step`` of each step; both halves make the moves ``planner`` decides from the
        seconds ``elapsed`` gives (``smc.run_together``)."""
        first, second = run_together(self.samplers, executor, state, on_step, planner, elapsed)
        return particles_of(first), particles_of(second)


def union(first: Particles, second: Particles) -> Particles:
    """Both halves' particles, each half's weights times its share Ẑ_h / (Ẑ₀ + Ẑ₁)
    (``half_shares``); the evidence estimate log(½ (Ẑ₀ + Ẑ₁)); the structure moves' acceptance
    over both (each particle proposes as many moves)."""
    shares = half_shares(first.log_evidence, second.log_evidence)
    weights = np.concatenate([shares[0] * first.weights, shares[1] * second.weights])
    log_evidence = float(np.logaddexp(first.log_evidence, second.log_evidence)) - math.log(2.0)
    counts = np.array([len(first.kernels), len(second.kernels)], dtype=float)
    rates = np.array([first.structure_acceptance, second.structure_acceptance])
    acceptance = float(np.sum(counts * rates) / np.sum(counts))
    return Particles([*first.kernels, *second.kernels], weights, log_evidence, acceptance)


def half_shares(first: float, second: float) -> tuple[float, float]:
    """Each half's share of the union's weight from its log evidence estimate:
    Ẑ_h / (Ẑ₀ + Ẑ₁); ½ each when neither is finite."""
    a, b = normalised(np.array([first, second]))
    return float(a), float(b)
