"""The grammar a table's screen restricts (``kernel_search.table_grammar``) and the search that
uses it on a table."""

from __future__ import annotations

import json

import numpy as np

from abcd_cli.kernel_search.grammar import DEFAULT_BASES
from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.screening import Screen, Shares
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernel_search.table_grammar import TableGrammar, interactions, term_inputs
from abcd_cli.kernels import Kernel
from abcd_cli.model_file import check_model_document

NO_SHARES = Shares((), {}, ())
NAMES = ("a", "b", "c")


def _grammar(
    inputs: tuple[int, ...],
    pairs: tuple[tuple[int, int], ...] = (),
    max_order: int = 1,
    change: tuple[int, ...] = (),
    periodic: tuple[int, ...] = (),
) -> TableGrammar:
    screen = Screen(inputs, pairs, max_order, change, NO_SHARES)
    return TableGrammar.of(screen, DEFAULT_BASES, periodic)


def _reachable(grammar: TableGrammar, levels: int = 2) -> list[Kernel]:
    """Every model within ``levels`` steps of the starts (the first model of each level
    expanded further, to keep it small)."""
    frontier = grammar.start()
    seen = list(frontier)
    for _ in range(levels):
        children = [c for k in frontier for c in grammar.expand(k)]
        seen += children
        frontier = children[:6]
    return seen


def _products(kernel: Kernel) -> list[set[int]]:
    terms = kernel.operands if kernel.symbol == "+" else (kernel,)
    return [term_inputs(t) for t in terms]


def test_only_the_screened_inputs_are_searched():
    for kernel in _reachable(_grammar((0, 2))):
        assert {b.dim for b in kernel.bases() if b.role not in ("noise", "constant")} <= {0, 2}


def test_products_only_over_interacting_pairs_up_to_the_order():
    grammar = _grammar((0, 1, 2, 3), pairs=((0, 1), (1, 2)), max_order=2)
    kernels = _reachable(grammar, levels=3)
    assert any((0, 1) in interactions(k) for k in kernels)
    for kernel in kernels:
        assert set(interactions(kernel)) <= {(0, 1), (1, 2)}
        assert all(len(dims) <= 2 for dims in _products(kernel))


def test_no_products_when_nothing_interacts():
    for kernel in _reachable(_grammar((0, 1, 2))):
        assert interactions(kernel) == []


def _children_of_starts(grammar: TableGrammar) -> list[Kernel]:
    return [c for k in grammar.start() for c in grammar.expand(k)]


def test_changes_only_along_a_time_input():
    plain = _reachable(_grammar((0, 1)))
    assert not any("CP" in k.to_text(params=False) for k in plain)
    timed = _children_of_starts(_grammar((0, 1), change=(1,)))
    changes = [k for k in timed if "CP" in k.to_text(params=False)]
    assert changes and all("CP@1" in k.to_text(params=False) for k in changes)


def test_cycles_only_on_the_inputs_allowed_them():
    plain = _reachable(_grammar((0, 1)))
    assert not any(b.role == "periodic" for k in plain for b in k.bases())
    allowed = _children_of_starts(_grammar((0, 1), periodic=(1,)))
    periodic = [b for k in allowed for b in k.bases() if b.role == "periodic"]
    assert periodic and all(b.dim == 1 for b in periodic)
    starts = _grammar((0, 1), periodic=(0, 1)).start()
    assert not any(b.role == "periodic" for k in starts for b in k.bases())


def test_every_child_keeps_noise_and_is_new():
    grammar = _grammar((0, 1), pairs=((0, 1),), max_order=2)
    start = grammar.start()
    assert len(start) == 3  # smooth sum, linear sum, smooth sum with the pair's product
    children = grammar.expand(start[0])
    texts = [c.to_text(params=False) for c in children]
    assert len(set(texts)) == len(texts) and start[0].to_text(params=False) not in texts
    assert all(c.has_noise_factor() for c in children)


def test_a_screened_table_search_uses_the_screen_and_a_series_search_does_not():
    rng = np.random.default_rng(2)
    X = rng.uniform(-2, 2, (60, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=60)
    settings = SearchSettings(depth=1, restarts=1, max_iter=30, finalists=2, screen=True)
    result = run_search(X, y, settings, x_names=NAMES)
    assert result.screen is not None and 0 in result.screen.inputs
    kept = set(result.screen.inputs)
    assert {b.dim for b in result.model.kernel.bases() if b.role == "smooth"} <= kept
    assert "screen" in result.to_dict() and result.to_dict()["settings"]["screen"] is True
    off_settings = SearchSettings(depth=0, restarts=1, max_iter=30)  # the default: off
    off = run_search(X, y, off_settings, x_names=NAMES)
    assert off.screen is None and "screen" not in off.to_dict()["settings"]
    for document in (result.to_dict(), off.to_dict()):  # both files read back
        check_model_document(json.loads(json.dumps(document)), "model.json")
    series = run_search(X[:, 0], y, SearchSettings(depth=0, restarts=1, max_iter=30, screen=True))
    assert series.screen is None
