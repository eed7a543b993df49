"""The screen-vote study (``benchmarks/several_inputs/bench_screen_vote.py``): it fits each split
once, resumes from its lines, and counts the splits that give the most frequent verdict."""

from __future__ import annotations

import json

from benchmarks.several_inputs import bench_screen_vote


def test_it_fits_each_split_once_and_tables_one_fit_against_the_votes(tmp_path) -> None:
    lines, out = tmp_path / "vote.jsonl", tmp_path / "vote.md"
    args = ["--datasets", "grunfeld", "--splits", "2", "--max-train", "60"]
    bench_screen_vote.main([*args, "--jsonl", str(lines), "--out", str(out)])
    kept = [json.loads(x) for x in lines.read_text().splitlines()]
    assert [(x["dataset"], x["split"], len(x["fits"])) for x in kept] == [
        ("grunfeld", 0, 10),
        ("grunfeld", 1, 10),
    ]
    table = out.read_text().splitlines()
    per_bar = 1 + len(bench_screen_vote.FIT_COUNTS) * len(bench_screen_vote.LEVELS)
    rows = len(bench_screen_vote.BARS) * per_bar
    assert len(table) == 2 + rows
    assert all(" of 2 |" in row for row in table[2:])
    bench_screen_vote.main([*args, "--jsonl", str(lines), "--out", str(out)])  # resumed
    assert len(lines.read_text().splitlines()) == 2


def test_a_split_fitted_again_gives_the_same_shares(tmp_path) -> None:
    args = bench_screen_vote.parse_args(
        ["--splits", "1", "--max-train", "50", "--jsonl", str(tmp_path / "x")]
    )
    first = bench_screen_vote.fit_split("grunfeld", 0, args)
    second = bench_screen_vote.fit_split("grunfeld", 0, args)
    assert [f["inputs"] for f in first["fits"]] == [f["inputs"] for f in second["fits"]]
