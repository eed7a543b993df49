"""The features of a weighted set of models (decompose/features.py)."""

from __future__ import annotations

import pytest

from abcd_cli.decompose.features import features
from abcd_cli.kernels.text import parse_kernel

RANGE = [(1900.0, 2000.0)]


def _per(period: float) -> str:
    return f"Per(lengthscale=1, period={period}, sd=1)"


def _find(found, kind, inputs=None):
    return [f for f in found if f.kind == kind and (inputs is None or f.inputs == inputs)]


def test_close_periods_are_one_feature_with_their_interval() -> None:
    kernels = [parse_kernel(f"{_per(1.0)} + WN(sd=1)"), parse_kernel(f"{_per(1.02)} + WN(sd=1)")]
    found = features(kernels, [3.0, 1.0], RANGE)  # weights are normalised
    (periodic,) = _find(found, "periodic")
    assert periodic.probability == pytest.approx(1.0)
    assert periodic.value == 1.0 and periodic.interval == (1.0, 1.02)


def test_distant_periods_are_separate_features_each_with_its_models_weight() -> None:
    kernels = [parse_kernel(f"{_per(1.0)} + WN(sd=1)"), parse_kernel(f"{_per(4.4)} + WN(sd=1)")]
    found = features(kernels, [0.7, 0.3], RANGE)
    by_value = {f.value: f.probability for f in _find(found, "periodic")}
    assert by_value == pytest.approx({1.0: 0.7, 4.4: 0.3})


def test_a_model_holding_a_period_twice_counts_once() -> None:
    twice = parse_kernel(f"{_per(1.0)} + {_per(1.01)} * SE(lengthscale=5, sd=1) + WN(sd=1)")
    plain = parse_kernel("SE(lengthscale=5, sd=1) + WN(sd=1)")
    (periodic,) = _find(features([twice, plain], [0.4, 0.6], RANGE), "periodic")
    assert periodic.probability == pytest.approx(0.4)


def test_a_linear_trend_gated_or_not_and_noise_that_changes() -> None:
    trend = parse_kernel("Lin(sd=1, location=1950) + WN(sd=1)")
    gated = parse_kernel("CP(Lin(sd=1, location=1950), C(sd=1), location=1960, steepness=1)")
    growing = parse_kernel("SE(lengthscale=5, sd=1) + Lin(sd=1, location=1950) * WN(sd=1)")
    found = features([trend, gated, growing], [0.5, 0.25, 0.25], RANGE)
    (linear,) = _find(found, "linear trend")
    assert linear.probability == pytest.approx(0.75)
    (noise,) = _find(found, "changing noise")
    assert noise.probability == pytest.approx(0.25)
    assert not _find(features([trend], [1.0], RANGE), "changing noise")
    switched = parse_kernel("CP(WN(sd=1), WN(sd=2), location=1950, steepness=1)")
    assert _find(features([switched], [1.0], RANGE), "changing noise")


def test_changes_are_grouped_by_time_and_a_window_has_two() -> None:
    early = parse_kernel("CP(SE(lengthscale=1, sd=1), C(sd=1), location=1950, steepness=1)")
    later = parse_kernel("CP(SE(lengthscale=1, sd=1), C(sd=1), location=1952, steepness=1)")
    window = parse_kernel(
        "CW(SE(lengthscale=1, sd=1), C(sd=1), location=1980, width=10, steepness=1)"
    )
    found = features([early, later, window], [0.4, 0.4, 0.2], RANGE)
    changes = sorted(_find(found, "change"), key=lambda f: f.value)
    assert [round(f.value) for f in changes] == [1950, 1975, 1985]
    assert changes[0].probability == pytest.approx(0.8) and changes[0].interval == (1950.0, 1952.0)
    assert changes[1].probability == pytest.approx(0.2)


def test_inputs_used_and_interactions_only_with_several_inputs() -> None:
    joint = parse_kernel("SE(lengthscale=1, sd=1) * SE@1(lengthscale=1, sd=1) + WN(sd=1)")
    alone = parse_kernel("SE(lengthscale=1, sd=1) + WN(sd=1)")
    found = features([joint, alone], [0.5, 0.5], [(0.0, 1.0), (0.0, 1.0)])
    assert _find(found, "interaction", (0, 1))[0].probability == pytest.approx(0.5)
    assert _find(found, "input used", (0,))[0].probability == pytest.approx(1.0)
    assert _find(found, "input used", (1,))[0].probability == pytest.approx(0.5)
    assert not _find(features([alone], [1.0], RANGE), "input used")
