"""The sampler's trace by data step (``smc_trace``): each half's facts, their union and their
round trip through the checkpoint and the model file."""

from __future__ import annotations

import math

import numpy as np
import pytest

from abcd_cli.kernel_search.smc_trace import SamplerStep, StepFacts, union_steps
from abcd_cli.kernels.text import parse_kernel

A = parse_kernel("SE(lengthscale=1.0, sd=1.0) + WN(sd=0.1)")
B = parse_kernel("Per(lengthscale=1.0, period=2.0, sd=1.0) + WN(sd=0.1)")


def test_a_halfs_facts_count_its_moves_and_weigh_its_structures():
    moves = [(2, 1, 0.5), (2, 0, math.nan), (2, 2, 0.3)]  # the second ran no chain
    facts = StepFacts.of(20, 1.8, True, moves, -12.0, [A, B, A], np.log([0.5, 0.3, 0.2]))
    assert (facts.proposed, facts.accepted) == (6, 3)
    assert facts.parameter_acceptance == pytest.approx(0.4)
    assert facts.structures == pytest.approx({"SE + WN": 0.7, "Per + WN": 0.3})
    assert StepFacts.from_dict(facts.to_dict()) == facts
    with pytest.raises(ValueError, match="moves"):
        StepFacts.from_dict({**facts.to_dict(), "accepted": 7})


def test_the_union_weighs_each_half_by_its_evidence_so_far():
    # half 0's evidence is e^2 times half 1's: shares 0.881 and 0.119
    first = StepFacts(10, 2.0, False, 4, 1, 0.4, -8.0, {"SE + WN": 1.0})
    second = StepFacts(10, 1.5, True, 4, 3, math.nan, -10.0, {"Per + WN": 0.6, "SE + WN": 0.4})
    (step,) = union_steps([first], [second], (2, 2), lambda log_z, points: log_z - points)
    share = 1.0 / (1.0 + math.exp(-2.0))
    assert step.structure == "SE + WN"
    assert step.weight == pytest.approx(share + (1.0 - share) * 0.4)
    assert step.structure_acceptance == pytest.approx(0.5)
    assert math.isnan(step.parameter_acceptance)  # one half ran no chain
    expected = float(np.logaddexp(-8.0, -10.0)) - math.log(2.0) - 10
    assert step.log_evidence == pytest.approx(expected)
    assert (step.resampled, step.ess) == ((False, True), (2.0, 1.5))
    back = SamplerStep.from_dict(step.to_dict())
    assert back.to_dict() == step.to_dict()
