"""The turns of a curve, read past its small wiggles."""

from __future__ import annotations

import numpy as np

from abcd_cli.reporting.course import turning_points


def test_turning_points_follow_the_turns_and_ignore_wiggles() -> None:
    x = np.linspace(0.0, 1.0, 201)
    assert turning_points(np.abs(x - 0.3)) == [60]
    assert turning_points(x) == []
    top, bottom = turning_points(np.sin(2 * np.pi * x) + 0.01 * np.sin(80 * x))
    assert abs(top - 50) <= 2 and abs(bottom - 150) <= 2  # the wiggles are no turns
