"""The coordinate-wise search of a table (``kernel_search.table_plan``, issue 66): its plan of
steps, and the search that runs it on made tables."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from abcd_cli.errors import InputError
from abcd_cli.execution.pool import make_executor
from abcd_cli.kernel_search import resampled_screen
from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.screening import Screen, Shares
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernel_search.table_grammar import interactions, term_inputs
from abcd_cli.kernel_search.table_plan import (
    NAMED_SHARE,
    TablePlan,
    kind_of,
    part_of,
    stage_costs,
)
from abcd_cli.kernels import SE, WN, C, Lin, Sum
from abcd_cli.model_file import check_model_document
from abcd_cli.reporting.search_notes import search_notes

COORDINATE = SearchSettings(restarts=2, max_iter=60, finalists=3, table_search="coordinate")


def _plan(
    inputs: tuple[int, ...],
    shares: tuple[float, ...],
    pairs: tuple[tuple[int, int], ...] = (),
    change: tuple[int, ...] = (),
    periodic: tuple[int, ...] = (),
) -> TablePlan:
    screen = Screen(inputs, pairs, 2 if pairs else 1, change, Shares(shares, {}, (1.0,)))
    return TablePlan.of(screen, periodic)


def test_the_plan_swaps_inputs_by_share_then_tries_the_pairs_prunes_then_changes():
    plan = _plan((0, 2, 3), (0.1, 0.0, 0.6, 0.3), pairs=((0, 2),), change=(3,))
    assert [(s.stage, s.inputs) for s in plan.steps] == [
        ("bases", (2,)),
        ("bases", (3,)),
        ("bases", (0,)),
        ("interactions", (0, 2)),
        ("prune", (2,)),
        ("prune", (0,)),
        ("changes", (3,)),
    ]
    assert [plan.stage_of(level) for level in range(8)] == [
        "start", "bases", "bases", "bases", "interactions", "prune", "prune", "changes"
    ]  # fmt: skip


def test_a_swap_changes_one_input_and_keeps_the_others_fitted_values():
    plan = _plan((0, 1), (0.5, 0.5), periodic=(1,))
    best = Sum((Lin((2.0, 0.5), 0), SE((1.5, 0.7), 1), C((0.3,)), WN((0.1,))))
    swaps = plan.candidates(2, best)  # the step of input 1 (shares tie: input order)
    kinds = [kind_of(part_of(k, 1)) for k in swaps]
    assert kinds == [("Lin",), ("Lin", "SE"), ("Per",)]
    for kernel in swaps:
        assert part_of(kernel, 0) == [best.operands[0]]  # input 0 untouched, values and all
    assert part_of(swaps[1], 1)[1] == best.operands[1]  # Lin + SE keeps the fitted SE
    no_cycles = _plan((0, 1), (0.5, 0.5)).candidates(2, best)
    assert ("Per",) not in [kind_of(part_of(k, 1)) for k in no_cycles]


def test_an_interaction_step_adds_the_pair_s_product_in_each_linear_or_smooth_form():
    plan = _plan((0, 1, 2), (0.3, 0.3, 0.3), pairs=((0, 2),))
    best = Sum((Lin((2.0, 0.5), 0), SE((1.5, 0.7), 1), SE((1.0, 1.0), 2), WN((0.1,))))
    *added, grown = plan.candidates(4, best)
    assert [interactions(k) for k in added] == [[(0, 2)]] * 4
    products = [[t for t in k.operands if len(term_inputs(t)) == 2][0] for k in added]
    assert {t.to_text(params=False) for t in products} == {
        "SE * SE@2",
        "Lin * Lin@2",
        "Lin * SE@2",
        "Lin@2 * SE",
    }
    # input 2's own SE grows a new SE along input 0 in its place (input 0 has no SE to grow)
    assert interactions(grown) == [(0, 2)] and part_of(grown, 2) == []
    (product,) = [t for t in grown.operands if len(term_inputs(t)) == 2]
    assert best.operands[2] in product.operands and part_of(grown, 0) == [best.operands[0]]
    assert not any(plan.named(level) for level in range(7))  # no pair share: none named
    strong = Screen((0, 1, 2), ((0, 2),), 2, (), Shares((0.3,) * 3, {(0, 2): NAMED_SHARE}, (1.0,)))
    named = [TablePlan.of(strong).named(level) for level in range(7)]
    assert named == [False] * 4 + [True, False, False]  # the interaction step, no other


def test_a_prune_removes_an_input_s_own_part_only_beside_a_product_of_it():
    plan = _plan((0, 1, 2), (0.3, 0.3, 0.3), pairs=((0, 1),))
    product_kept = Sum(
        (SE((1.0, 1.0), 0), SE((1.0, 0.5), 1), SE((1.0, 0.4), 2), WN((0.1,)))
    ).operands
    with_product = Sum((*product_kept[:3], SE((1.0, 1.0), 0) * SE((1.0, 1.0), 1), WN((0.1,))))
    (pruned,) = plan.candidates(5, with_product)  # the prune of input 0
    assert part_of(pruned, 0) == [] and part_of(pruned, 1) == [product_kept[1]]
    assert interactions(pruned) == [(0, 1)]
    assert plan.candidates(5, Sum(product_kept)) == []  # no product: nothing to prune


def _table(seed: int, n: int = 90) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-2, 2, (n, 5))


def _noise(seed: int, n: int = 90) -> np.ndarray:
    return 0.1 * np.random.default_rng(seed + 100).normal(size=n)


def _used(kernel) -> set[int]:
    return {d for t in (kernel.operands if isinstance(kernel, Sum) else [kernel]) for d in
            term_inputs(t)}  # fmt: skip


def test_it_uses_the_two_inputs_that_matter_of_five():
    X = _table(1)
    y = 1.5 * X[:, 1] + np.sin(2 * X[:, 3]) + _noise(1)
    result = run_search(X, y, COORDINATE)
    assert _used(result.model.kernel) == {1, 3}
    assert result.screen is not None and set(result.screen.inputs) == {1, 3}


def test_an_interaction_is_named_only_where_one_is_planted():
    X = _table(2)
    planted = np.sin(1.5 * X[:, 0]) * np.sin(1.5 * X[:, 2]) * 2 + X[:, 4] + _noise(2)
    additive = np.sin(1.5 * X[:, 0]) + np.sin(1.5 * X[:, 2]) + X[:, 4] + _noise(2)
    assert interactions(run_search(X, planted, COORDINATE).model.kernel) == [(0, 2)]
    assert interactions(run_search(X, additive, COORDINATE).model.kernel) == []


def test_a_pair_the_screen_names_is_kept_even_where_bic_would_not_add_it(monkeypatch):
    X = _table(2)
    additive = np.sin(1.5 * X[:, 0]) + np.sin(1.5 * X[:, 2]) + X[:, 4] + _noise(2)
    real = resampled_screen.screen_table

    def naming_a_pair(*args, **kwargs):  # the real screen, then (0, 2) named as a pair
        screen = real(*args, **kwargs)
        shares = dataclasses.replace(screen.shares, pairs={(0, 2): NAMED_SHARE})
        return dataclasses.replace(screen, pairs=((0, 2),), max_order=2, shares=shares)

    monkeypatch.setattr(resampled_screen, "screen_table", naming_a_pair)
    result = run_search(X, additive, COORDINATE)
    assert interactions(result.model.kernel) == [(0, 2)]
    assert result.screen is not None and result.screen.pairs == ((0, 2),)


def test_a_straight_input_gets_a_linear_kernel_and_a_curved_one_a_smooth_one():
    X = _table(3)[:, :2]
    y = 1.2 * X[:, 0] + 1.5 * np.sin(2.5 * X[:, 1]) + _noise(3)
    kernel = run_search(X, y, COORDINATE).model.kernel
    assert kind_of(part_of(kernel, 0)) == ("Lin",)
    assert kind_of(part_of(kernel, 1)) == ("SE",)


def test_one_seed_gives_one_result_serial_or_parallel():
    X = _table(4, 70)[:, :3]
    y = X[:, 0] + np.sin(2 * X[:, 1]) * X[:, 2] + _noise(4, 70)
    serial = run_search(X, y, COORDINATE)
    with make_executor(2) as pool:
        parallel = run_search(X, y, COORDINATE, executor=pool)
    assert serial.model.kernel.to_text(digits=12) == parallel.model.kernel.to_text(digits=12)
    assert serial.model.bic == parallel.model.bic


def test_the_file_and_the_notes_give_each_stage_its_cost():
    X = _table(5, 60)[:, :2]
    y = X[:, 0] + np.sin(2 * X[:, 1]) + _noise(5, 60)
    result = run_search(X, y, COORDINATE, x_names=("a", "b"))
    stages = [c["stage"] for c in result.stages]
    assert stages[:3] == ["screen", "start", "bases"]
    assert sum(int(c["fits"]) for c in result.stages[1:]) == sum(r.candidates for r in result.trace)
    last = result.trace[-1].elapsed_seconds
    assert sum(float(c["seconds"]) for c in result.stages) == pytest.approx(last, abs=0.01)
    assert any(note.startswith("cost per stage: screen") for note in search_notes(result))
    document = json.loads(json.dumps(result.to_dict()))
    assert document["settings"]["table_search"] == "coordinate"
    check_model_document(document, "model.json")
    assert stage_costs(TablePlan((0,), (), ()), [], 1.0) == [
        {"stage": "screen", "fits": 1, "seconds": 1.0}
    ]


def test_the_setting_is_checked_and_written_only_when_not_the_grammar():
    with pytest.raises(InputError, match="unknown table search 'plan'"):
        SearchSettings(table_search="plan")
    assert "table_search" not in SearchSettings().to_dict()
    assert COORDINATE.to_dict()["table_search"] == "coordinate"
