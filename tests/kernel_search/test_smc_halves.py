"""The sampler as two independent halves and their union (kernel_search/smc_halves.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from abcd_cli.data.summary import InputSummaries
from abcd_cli.engines import get_engine
from abcd_cli.execution.pool import ResilientPool
from abcd_cli.kernel_search.smc import Particles, Sampler, SMCSettings
from abcd_cli.kernel_search.smc_halves import (
    Halves,
    half_seeds,
    half_shares,
    half_sizes,
    union,
)
from abcd_cli.kernel_search.structure_prior import StructurePrior
from abcd_cli.kernels.text import parse_kernel

EXACT = get_engine("exact")
SETTINGS = SMCSettings(particles=6, steps=3, first=10, structure_moves=2, parameter_moves=2)


def _data(n: int = 36) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(4)
    X = np.linspace(0.0, 6.0, n)[:, None]
    return X, np.sin(2.5 * X[:, 0]) + rng.normal(0, 0.1, n)


def _halves(seed: int = 0, seeds: tuple[int, int] | None = None, settings=SETTINGS) -> Halves:
    X, y = _data()
    summary = InputSummaries.from_data(X, y)
    return Halves(X, y, summary, EXACT, StructurePrior(max_depth=2), settings, seed, seeds)


def _same(a: Particles, b: Particles) -> bool:
    return (
        [k.to_text() for k in a.kernels] == [k.to_text() for k in b.kernels]
        and np.array_equal(a.weights, b.weights)
        and a.log_evidence == b.log_evidence
    )


def test_each_half_has_its_own_seed_stream_from_the_one_seed() -> None:
    assert half_seeds(3) == half_seeds(3)
    first, second = half_seeds(3)
    assert first != second and not {first, second} & set(half_seeds(4))
    assert half_sizes(6) == (3, 3) and half_sizes(5) == (3, 2)


def test_a_halfs_result_does_not_change_when_the_other_halfs_seed_does() -> None:
    """Half 0 with seed a is the same whether half 1 runs from b or c, and is one sampler of
    P/2 particles run alone from a: it is resampled only within itself."""
    a, b, c = 11, 12, 13
    one = _halves(seeds=(a, b)).run()
    other = _halves(seeds=(a, c)).run()
    assert _same(one[0], other[0])
    assert not _same(one[1], other[1])
    X, y = _data()
    alone = Sampler(X, y, InputSummaries.from_data(X, y), EXACT, StructurePrior(max_depth=2),
                    SMCSettings(3, 3, 10, 2, 2), a).run()  # fmt: skip
    assert _same(alone, one[0])


def test_one_seed_gives_one_result_serially_and_on_a_two_worker_pool() -> None:
    serial = _halves(seed=5).run()
    pool = ResilientPool(2)
    try:
        parallel = _halves(seed=5).run(pool)
    finally:
        pool.shutdown()
    assert all(_same(p, s) for p, s in zip(parallel, serial, strict=True))
    assert not _same(*serial)  # the halves are not one run twice


def test_the_union_weighs_each_half_by_its_evidence_estimate() -> None:
    a = parse_kernel("SE(lengthscale=1.0, sd=1.0) + WN(sd=0.1)")
    b = parse_kernel("Per(lengthscale=1.0, period=2.0, sd=1.0) + WN(sd=0.1)")
    first = Particles([a, b], np.array([0.25, 0.75]), -10.0, 0.2)
    second = Particles([b, a, a], np.array([0.5, 0.3, 0.2]), -10.0 - math.log(3.0), 0.5)
    whole = union(first, second)  # Ẑ₀ = 3 Ẑ₁: shares ¾ and ¼
    np.testing.assert_allclose(whole.weights, [0.1875, 0.5625, 0.125, 0.075, 0.05])
    assert whole.weights.sum() == pytest.approx(1.0)
    assert whole.kernels == [a, b, b, a, a]
    zeta = (math.exp(-10) + math.exp(-10) / 3) / 2
    assert whole.log_evidence == pytest.approx(math.log(zeta))
    assert whole.structure_acceptance == pytest.approx((2 * 0.2 + 3 * 0.5) / 5)
    assert half_shares(-5.0, -5.0) == (0.5, 0.5)
    assert half_shares(-math.inf, -math.inf) == (0.5, 0.5)  # every particle failed in both
    assert half_shares(-5.0, -math.inf) == (1.0, 0.0)


def test_a_runs_union_has_weights_summing_to_one() -> None:
    halves = _halves(seed=1).run()
    whole = union(*halves)
    assert len(whole.kernels) == SETTINGS.particles
    assert whole.weights.sum() == pytest.approx(1.0)
    share = half_shares(halves[0].log_evidence, halves[1].log_evidence)[0]
    np.testing.assert_allclose(whole.weights[:3].sum(), share)
