"""The sampler's structure moves (kernel_search/smc_moves.py)."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.data.summary import InputSummaries
from abcd_cli.kernel_search.smc_moves import StructureMover
from abcd_cli.kernel_search.smc_proposal import ParameterProposal
from abcd_cli.kernel_search.structure_prior import StructurePrior
from abcd_cli.kernels import SE, Lin, Per, Sum

X = np.linspace(0.0, 10.0, 30)[:, None]
Y = np.sin(X[:, 0])
SUMMARY = InputSummaries.from_data(X, Y)
PRIOR = StructurePrior(max_depth=3)


def _mover(seed: int) -> StructureMover:
    proposal = ParameterProposal(SUMMARY, SUMMARY)
    return StructureMover(PRIOR, proposal, 1, np.random.default_rng(seed))


def _text(kernel) -> str:
    return kernel.to_text(params=False)


@pytest.mark.parametrize("tree", [Lin(), Sum((SE(), Per()))])
def test_an_attach_and_the_detach_that_undoes_it_have_opposite_choice_ratios(tree) -> None:
    """log q_s' − log q_s of an attach is minus that of the detach giving the tree back: the
    two moves are each other's reverse in the Hastings ratio."""
    for seed in range(5):
        attached = _mover(seed).attach(tree)
        assert sum(1 for _ in attached.new.nodes()) > sum(1 for _ in tree.nodes())
        undone = [
            d
            for t in range(300)
            if (d := _mover(1000 + t).detach(attached.new)) is not None
            and _text(d.new) == _text(tree)
        ]
        assert undone
        assert any(d.log_choice == pytest.approx(-attached.log_choice) for d in undone)


def test_a_leaf_cannot_be_detached_and_a_detach_keeps_one_child() -> None:
    assert _mover(0).detach(SE()) is None
    tree = Sum((SE(), Per()))
    kept = {_text(_mover(seed).detach(tree).new) for seed in range(20)}
    assert kept == {"SE", "Per"}


def test_a_replace_changes_one_subtree_and_marks_the_removed_parameters() -> None:
    tree = Sum((SE((1.0, 1.0)), Per((1.0, 2.0, 1.0))))
    for seed in range(10):
        replaced = _mover(seed).replace(tree)
        unset = np.isnan(replaced.old.theta())
        assert unset.any() and _text(replaced.old) == _text(tree)
        assert np.all(np.isfinite(replaced.old.theta()[~unset]))
