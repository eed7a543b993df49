"""How far the sampler's two halves disagree (kernel_search/agreement.py)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from abcd_cli.kernel_search.agreement import (
    HalvesAgreement,
    agreement,
    kinds_of,
    total_variation,
)
from abcd_cli.kernel_search.smc import Particles
from abcd_cli.kernels.text import parse_kernel

SMOOTH = parse_kernel("SE(lengthscale=1.0, sd=1.0) + WN(sd=0.1)")
TWO_SMOOTH = parse_kernel("SE(lengthscale=1.0, sd=1.0) + SE(lengthscale=0.1, sd=0.5) + WN(sd=0.1)")
CYCLE = parse_kernel("Per(lengthscale=1.0, period=2.0, sd=1.0) + WN(sd=0.1)")


def test_total_variation_of_a_hand_made_pair() -> None:
    p, q = {"A": 0.7, "B": 0.3}, {"A": 0.4, "C": 0.6}
    assert total_variation(p, q) == pytest.approx(0.5 * (0.3 + 0.3 + 0.6))
    assert total_variation(p, p) == 0.0
    assert total_variation({"A": 1.0}, {"B": 1.0}) == 1.0


def test_structures_that_state_the_same_kinds_are_one_class() -> None:
    assert kinds_of(SMOOTH) == kinds_of(TWO_SMOOTH) != kinds_of(CYCLE)
    moved = CYCLE.with_theta(CYCLE.theta() + 0.3)  # another period, the same kind
    assert kinds_of(moved) == kinds_of(CYCLE)


def test_the_halves_tv_by_structure_and_by_kinds_on_a_hand_made_pair() -> None:
    """Half one: SE (1.0). Half two: SE + SE (0.75), Per (0.25). By structure they share
    nothing (TV 1); by kinds both SE and SE + SE state a smooth term: TV ½(0.25 + 0.25)."""
    first = Particles([SMOOTH, SMOOTH], np.array([0.4, 0.6]), -5.0, 0.1)
    second = Particles([TWO_SMOOTH, CYCLE, TWO_SMOOTH], np.array([0.5, 0.25, 0.25]), -7.5, 0.1)
    found = agreement(first, second)
    assert found.structures_tv == pytest.approx(1.0)
    assert found.kinds_tv == pytest.approx(0.25)
    assert found.log_evidence == (-5.0, -7.5) and found.evidence_gap == pytest.approx(2.5)
    assert found.most_probable == ("SE + WN", "SE + SE + WN")
    assert found.particles == (2, 3)
    same = agreement(first, first)
    assert same.structures_tv == same.kinds_tv == 0.0


def test_the_record_goes_through_json_and_keeps_a_failed_halfs_evidence() -> None:
    record = HalvesAgreement((4, 4), 0.12, 0.05, (-3.0, -math.inf), ("SE + WN", "Per + WN"))
    text = json.dumps(record.to_dict(), allow_nan=False)
    assert json.loads(text)["log_evidence"] == [-3.0, None]
    assert HalvesAgreement.from_dict(json.loads(text)) == record
    assert record.evidence_gap == math.inf


def test_the_same_halves_give_the_same_numbers_whatever_the_hash_seed() -> None:
    """Before: the classes were summed in a set's order, which follows the strings' hash seed,
    so one seed's run could state 1.0 in one process and 0.9999999999999999 in another."""
    import os
    import subprocess
    import sys

    program = (
        "import numpy as np\n"
        "from abcd_cli.kernel_search.agreement import agreement\n"
        "from abcd_cli.kernel_search.smc import Particles\n"
        "from abcd_cli.kernels.text import parse_kernel\n"
        "texts = [f'SE(lengthscale={i + 1}.0, sd=1.0)' + ' * SE(lengthscale=1.0, sd=1.0)' * i"
        " + ' + WN(sd=0.1)' for i in range(9)]\n"
        "kernels = [parse_kernel(t) for t in texts]\n"
        "w = np.array([0.13, 0.07, 0.21, 0.011, 0.17, 0.093, 0.031, 0.2, 0.095])\n"
        "v = np.roll(w, 4)\n"
        "found = agreement(Particles(kernels, w / w.sum(), 0.0, 0.0),"
        " Particles(kernels, v / v.sum(), 0.0, 0.0))\n"
        "print(repr(found.structures_tv), repr(found.kinds_tv))\n"
    )
    outputs = set()
    for hash_seed in range(6):
        env = {**os.environ, "PYTHONHASHSEED": str(hash_seed)}
        ran = subprocess.run(
            [sys.executable, "-c", program], env=env, capture_output=True, text=True, check=True
        )
        outputs.add(ran.stdout)
    assert len(outputs) == 1, outputs
