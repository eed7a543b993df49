"""The skc level profile (``benchmarks/long_series/bench_skc_level.py``) on a small search's
checkpoint: it replays the next level, accounts every candidate by stage, leaves the checkpoint
as it was, and gives the best model's bounds at several m."""

from __future__ import annotations

from pathlib import Path

from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.settings import SearchSettings
from benchmarks.long_series import bench_skc_level, bench_skc_scale
from tests.cli.test_failures_and_interrupts import series, write_csv


def checkpointed_search(folder: Path) -> tuple[Path, Path]:
    """A 300-point series' CSV and the checkpoint of its two-level skc search (levels 0, 1)."""
    x, y = series(300, seed=2)
    data = write_csv(folder / "s.csv", x, y)
    checkpoint = folder / "s.ckpt.json"
    settings = SearchSettings(
        depth=1, restarts=2, seed=0, engine="skc", inducing=40, subset_size=100, patience=0
    )
    run_search(x, y, settings, checkpoint=checkpoint)
    return data, checkpoint


def test_profile_of_the_level_after_a_checkpoint(tmp_path: Path) -> None:
    data, checkpoint = checkpointed_search(tmp_path)
    before = checkpoint.read_bytes()
    out = tmp_path / "level.md"
    bench_skc_level.main(
        [
            "--data",
            str(data),
            "--checkpoint",
            str(checkpoint),
            "--widths",
            "20,40",
            "--out",
            str(out),
        ]
    )
    text = out.read_text()
    assert checkpoint.read_bytes() == before
    assert "level 2 of the search" in text and "m = 40" in text
    stages = {line.split(" | ")[0] for line in text.splitlines() if line.startswith("| ")}
    assert {"| screen", "| converge", "| refine", "| **level**"} <= stages
    # every refined candidate traced: one row per refinement, with its evaluations
    refined = [line for line in text.splitlines() if line.startswith("| refine | `")]
    assert len(refined) >= 1 and all(int(r.split(" | ")[3]) > 0 for r in refined)
    widths = [
        line for line in text.splitlines() if line.startswith("| 20 |") or line.startswith("| 40 |")
    ]
    assert len(widths) == 2


def test_unit_costs_and_projection_from_a_checkpoint(tmp_path: Path) -> None:
    """bench_skc_scale: unit costs at each N (the product timed whole, then on its first row
    blocks) and the measured levels' full-data work costed at each N."""
    data, checkpoint = checkpointed_search(tmp_path)
    levels = tmp_path / "levels.csv"
    levels.write_text(
        "series,args,level,seconds,full_evaluations,pcg\n"
        "old,,0,1,99,9\n"
        "s,,0,6,10,2\ns,,1,6,20,3\n"  # an earlier run of s, replaced by the next
        "s,,0,30,10,2\ns,,1,30,30,4\n"
    )
    out = tmp_path / "scale.md"
    argv = ["--data", str(data), "--checkpoint", str(checkpoint), "--levels", str(levels)]
    argv += ["--series", "s", "--sizes", "600,300", "--product-elements", "200000", "--out"]
    bench_skc_scale.main([*argv, str(out)])
    text = out.read_text()
    units = [
        line.split(" | ")
        for line in text.splitlines()
        if line.startswith("| 3") or line.startswith("| 6")
    ]
    assert [u[0] for u in units[:2]] == ["| 300", "| 600"]
    assert units[0][4] == "300" and int(units[1][4].replace(",", "")) < 600  # part of 600 rows
    assert "2 levels, 40 objective evaluations and 6 PCG products" in text
    assert "1.0 min of search" in text
