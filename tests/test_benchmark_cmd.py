"""abcd benchmark: reports for every series of a folder, skipping finished ones."""

from __future__ import annotations

import numpy as np
from click.testing import CliRunner

from abcd_cli.cli import main


def test_batch_reports_and_resume(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    rng = np.random.default_rng(0)
    for name in ("a", "b"):
        x = 2000 + np.arange(40) / 12
        y = np.sin(2 * np.pi * x) + 0.1 * rng.standard_normal(x.size)
        (data / f"{name}.csv").write_text(
            "x,y\n" + "".join(f"{u},{v}\n" for u, v in zip(x, y, strict=True))
        )
    out = tmp_path / "out"
    args = [
        "benchmark",
        str(data),
        "-o",
        str(out),
        "--depth",
        "1",
        "--restarts",
        "2",
        "--jobs",
        "1",
        "--quiet",
    ]
    first = CliRunner().invoke(main, [*args, "--series", "a"])
    assert first.exit_code == 0, first.output
    assert sorted(p.name for p in out.iterdir()) == ["a.html", "a.json", "a.pdf"]
    second = CliRunner().invoke(main, args)
    assert second.exit_code == 0, second.output
    assert "a: reports already there, skipped" in second.output
    assert {p.name for p in out.iterdir()} == {
        f"{n}.{f}" for n in "ab" for f in ("html", "json", "pdf")
    }


def test_unknown_series_is_an_input_error(tmp_path):
    result = CliRunner().invoke(main, ["benchmark", str(tmp_path), "--series", "zz"])
    assert result.exit_code == 2 and "Error:" in result.output
