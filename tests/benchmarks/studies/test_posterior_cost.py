"""The posterior-cost study's reading of a profile: cumulative seconds and calls by module and
function, and its table of stages by series and method."""

from __future__ import annotations

import cProfile
import pstats

from benchmarks.studies import posterior_cost


def _results(series: list[str]) -> dict[tuple[str, str], tuple[float, dict[str, float]]]:
    """A wall time of 10 s and 1 for every stage and count, per series and method."""
    labels = [label for label, _, _ in (*posterior_cost.STAGES, *posterior_cost.COUNTS)]
    return {
        (name, method): (10.0, dict.fromkeys(labels, 1.0))
        for name in series
        for method in ("greedy", "posterior")
    }


def _profiled(count: int) -> pstats.Stats:
    """A profile of ``count`` calls of the study's own ``table``."""
    results = _results(["a"])
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(count):
        posterior_cost.table(["a"], results)
    profile.disable()
    return pstats.Stats(profile)


def test_calls_and_seconds_are_read_by_module_and_function() -> None:
    stats = _profiled(3)
    assert posterior_cost.calls(stats, "studies/posterior_cost.py", "table") == 3
    assert posterior_cost.calls(stats, "other/posterior_cost.py", "table") == 0
    assert posterior_cost.cumulative(stats, "studies/posterior_cost.py", "table") > 0.0
    assert posterior_cost.cumulative(stats, "studies/posterior_cost.py", "absent") == 0.0


def test_the_table_has_a_column_per_series_and_method_and_a_row_per_stage() -> None:
    lines = posterior_cost.table(["a", "b"], _results(["a", "b"])).splitlines()
    labels = [*posterior_cost.STAGES, *posterior_cost.COUNTS]
    assert lines[0] == "| stage | a greedy | a posterior | b greedy | b posterior |"
    assert len(lines) == 3 + len(labels)  # header, rule, wall time, then the stages and counts
    assert all(line.count("|") == 6 for line in lines)
