"""The report-draws study's choices of particles, on a posterior made by hand."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.kernel_search.posterior import StructurePosterior, Weighed
from abcd_cli.kernels.text import parse_kernel
from benchmarks.studies.report_draws import chosen


def _posterior() -> StructurePosterior:
    """Three structures of weights 0.7, 0.295 and 0.005, 32 distinct draws each."""
    kernel = parse_kernel("SE(lengthscale=1.0, sd=1.0)")
    theta = np.tile(kernel.theta(), (32, 1)) + np.arange(32.0)[:, None]
    structures = [Weighed(kernel, 0.0, 0.0, theta) for _ in range(3)]
    return StructurePosterior(structures, np.array([0.7, 0.295, 0.005]), 32)


def test_an_offset_takes_every_fourth_draw_from_it_and_the_floor_drops_the_light_structure():
    particles = chosen(_posterior(), 1e-2, 8, 2)
    assert [ij for ij, _, _ in particles][:8] == [(0, j) for j in range(2, 32, 4)]
    assert {i for (i, _), _, _ in particles} == {0, 1}
    assert sum(w for _, _, w in particles) == pytest.approx(1.0)
    assert [w for _, _, w in particles][:8] == pytest.approx([0.7 / 0.995 / 8] * 8)


def test_without_an_offset_the_products_spacing_is_used_and_the_floor_1e_3_keeps_all():
    particles = chosen(_posterior(), 1e-3, 8, None)
    assert len(particles) == 24
    assert [j for (i, j), _, _ in particles if i == 0] == list(range(1, 32, 4))
