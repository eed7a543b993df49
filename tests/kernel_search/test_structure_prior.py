"""The prior over structures (kernel_search/structure_prior.py)."""

from __future__ import annotations

import math
from collections import Counter
from itertools import product as pairs

import numpy as np
import pytest

from abcd_cli.kernel_search.grammar import BASES
from abcd_cli.kernel_search.structure_prior import (
    BUILDERS,
    DEFAULT_BASES,
    StructurePrior,
    below_change,
)
from abcd_cli.kernels import SE, WN, Sum
from abcd_cli.kernels.changes import CP, CW


def _trees(depth: int, names: list[str], ops: list[str]):
    """Every tree of the grammar on one input, up to ``depth`` operators deep."""
    leaves = [BASES[name]((), 0) for name in names]
    if depth == 0:
        return leaves
    below = _trees(depth - 1, names, ops)
    return leaves + [BUILDERS[op](a, b, 0) for op in ops for a, b in pairs(below, below)]


def test_the_probabilities_of_every_tree_add_up_to_one() -> None:
    prior = StructurePrior(max_depth=2, leaf=0.4)
    trees = _trees(2, list(DEFAULT_BASES), list(prior.operators))
    total = sum(math.exp(prior.log_prob(t)) for t in trees)
    assert total == pytest.approx(1.0, abs=1e-9)


def test_draws_come_as_often_as_their_probability() -> None:
    prior = StructurePrior(max_depth=1, leaf=0.5)
    rng = np.random.default_rng(0)
    draws = 20_000
    counts = Counter(prior.sample(rng).to_text(params=False) for _ in range(draws))
    for text, count in counts.most_common(8):
        tree = next(
            t
            for t in _trees(1, list(DEFAULT_BASES), list(prior.operators))
            if t.to_text(params=False) == text
        )
        expected = math.exp(prior.log_prob(tree))
        assert count / draws == pytest.approx(expected, abs=4 * math.sqrt(expected / draws))


def test_one_seed_gives_one_tree_and_several_inputs_are_drawn() -> None:
    prior = StructurePrior(max_depth=3)
    first = [prior.sample(np.random.default_rng(5), n_dims=3).to_text(params=False)]
    assert first == [prior.sample(np.random.default_rng(5), n_dims=3).to_text(params=False)]
    rng = np.random.default_rng(1)
    dims = {b.dim for _ in range(200) for b in prior.sample(rng, n_dims=3).bases()}
    assert dims == {0, 1, 2}


def test_a_tree_the_grammar_cannot_build_has_no_probability() -> None:
    prior = StructurePrior(bases={"SE": 1.0, "WN": 1.0}, max_depth=1)
    assert prior.log_prob(BASES["Per"]((), 0)) == -math.inf  # a base of weight 0
    deep = Sum((Sum((SE(), WN())), SE()))
    assert prior.log_prob(Sum((SE(), WN()))) > -math.inf
    assert StructurePrior(max_depth=1).log_prob(Sum((deep, SE()))) == -math.inf  # too deep
    assert prior.log_prob(BASES["WN"]((), 1), n_dims=2) == -math.inf  # noise reads no input


def test_a_flat_sum_is_read_as_the_left_nested_chain() -> None:
    prior = StructurePrior()
    flat = Sum((SE(), WN(), SE()))
    nested = Sum((Sum((SE(), WN())), SE()))
    assert prior.log_prob(flat) == pytest.approx(prior.log_prob(nested))


def test_unknown_names_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown"):
        StructurePrior(bases={"Matern": 1.0})


def _holds_nest(kernel, under_change: bool = False) -> bool:
    change = isinstance(kernel, CP | CW)
    if change and under_change:
        return True
    return any(_holds_nest(k, under_change or change) for k in kernel.operands)


def test_the_nest_probability_is_the_share_of_draws_holding_a_change_in_a_change() -> None:
    draws = 10_000
    for prior in (StructurePrior(max_depth=3, nested_change=1.0), StructurePrior(max_depth=3)):
        rng = np.random.default_rng(4)
        share = sum(_holds_nest(prior.sample(rng)) for _ in range(draws)) / draws
        expected = prior.nest_probability()
        assert share == pytest.approx(expected, abs=4 * math.sqrt(expected / draws))


def test_the_default_prior_does_not_favour_nests_of_changes_and_has_no_noise_leaf() -> None:
    """Below a change, changes are ``nested_change`` times as likely: at the defaults a nest
    is under a tenth of the trees holding a change, against nearly half with equal weights."""
    prior, flat = StructurePrior(), StructurePrior(nested_change=1.0)
    assert flat.nest_probability() > 0.15
    assert prior.nest_probability() < 0.05
    assert "WN" not in prior.bases
    inner = CP(SE(), CW(SE(), SE()))
    assert prior.log_prob(inner) - flat.log_prob(inner) < math.log(0.2)


def test_below_change_marks_every_node_under_a_change() -> None:
    tree = Sum((CP(SE(), Sum((SE(), SE()))), SE()))
    assert below_change(tree) == [False, False, True, True, True, True, False]
