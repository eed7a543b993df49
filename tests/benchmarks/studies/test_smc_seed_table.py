"""The sampler's seeds compared (``smc_seed_table``), on runs written by hand."""

from __future__ import annotations

import json

import pytest

from benchmarks.studies.smc_seed_table import (
    facts_of,
    kinds_key,
    pooled_lines,
    same_facts,
    seeds_tv,
    series_line,
)

PERIOD = {"kind": "periodic", "inputs": ["x"], "probability": 0.95, "value": 1.0}
TREND = {"kind": "linear trend", "inputs": ["x"], "probability": 1.0}
SMOOTH = {"kind": "smooth", "inputs": ["x"], "probability": 0.99}


def run(seed: int, covered: int, facts: list[dict], by_kinds: dict, rmse: float = 2.0) -> dict:
    """A CSV row as ``smc_forecasts`` writes it."""
    return {
        "seed": str(seed),
        "n_test": "20",
        "covered": str(covered),
        "rmse": str(rmse),
        "wall_seconds": "3.0",
        "cpu_seconds": "2.0",
        "halves_structures_tv": "1.0",
        "halves_kinds_tv": "0.5",
        "facts": json.dumps(facts),
        "by_kinds": json.dumps(by_kinds),
        "by_structure": json.dumps({"SE": 1.0}),
    }


def test_seeds_tv_is_the_largest_pair() -> None:
    a, b, c = {"p": 1.0}, {"p": 0.9, "q": 0.1}, {"q": 1.0}
    assert seeds_tv([a, b]) == pytest.approx(0.1)
    assert seeds_tv([a, b, c]) == pytest.approx(1.0)
    assert seeds_tv([a]) == 0.0


def test_facts_are_the_features_at_0_9_or_more() -> None:
    weak = dict(PERIOD, probability=0.89)
    assert facts_of([weak, TREND]) == [TREND]


def test_same_facts_pairs_periods_within_5_percent() -> None:
    near = dict(PERIOD, value=1.04)
    far = dict(PERIOD, value=1.2)
    assert same_facts([[PERIOD, TREND], [TREND, near]], width=10.0)
    assert not same_facts([[PERIOD, TREND], [TREND, far]], width=10.0)
    assert not same_facts([[PERIOD], [PERIOD, TREND]], width=10.0)


def test_same_facts_of_target_kinds_ignores_the_others() -> None:
    kinds = ("periodic", "linear trend", "change")
    assert not same_facts([[PERIOD, SMOOTH], [PERIOD]], width=10.0)
    assert same_facts([[PERIOD, SMOOTH], [PERIOD]], width=10.0, kinds=kinds)


def test_kinds_key_sorts_and_names_an_empty_class() -> None:
    kinds = frozenset({("periodic", (0,)), ("change", (0,))})
    assert kinds_key(kinds) == "change 0; periodic 0"
    assert kinds_key(frozenset()) == "none"


def test_series_line_and_pooled_lines_count_the_targets() -> None:
    greedy = {"covered": 15.0, "rmse": 1.0, "seconds": 6.0}
    agree = [run(s, 19, [PERIOD], {"periodic 0": 1.0}) for s in (0, 1, 2)]
    differ = [
        run(0, 10, [PERIOD], {"periodic 0": 1.0}, rmse=1.0),
        run(1, 10, [TREND], {"linear trend 0": 1.0}, rmse=1.0),
        run(2, 10, [PERIOD], {"periodic 0": 1.0}, rmse=1.0),
    ]
    line, first = series_line("a", agree, greedy, width=10.0)
    assert "| yes | yes | 0.00 | 0.00 |" in line
    _, second = series_line("b", differ, greedy, width=10.0)
    assert (second["agree"], second["tv_kinds"]) == (False, 1.0)
    text = "\n".join(pooled_lines([first, second], [0, 1, 2]))
    # seed 0: 29 of 40 points, one series about right (19/20), RMSE ratios 2 and 1, time 0.5
    assert "| 0 | 29/40 = 72.5% | 1 of 2 | 1.500 | 0.50 |" in text
    assert "the same facts (probability ≥ 0.9) on **1 of 2**" in text
    assert "within 0.2 on **1 of 2**" in text


def test_the_all_runs_line_pools_every_seed() -> None:
    greedy = {"covered": 15.0, "rmse": 1.0, "seconds": 6.0}
    _, first = series_line("a", [run(s, 19, [], {}) for s in (0, 1)], greedy, width=10.0)
    _, second = series_line("b", [run(s, 10, [], {}, rmse=1.0) for s in (0, 1)], greedy, 10.0)
    text = "\n".join(pooled_lines([first, second], [0, 1]))
    # 19 + 19 + 10 + 10 of 80 points; runs about right: the two of series a; RMSE 2, 2, 1, 1
    assert "| all, by run | 58/80 = 72.5% | 2 of 4 | 1.500 | 0.50 |" in text
