"""abcd benchmark: reports for every series of a folder, skipping finished ones."""

from __future__ import annotations

import json

import numpy as np
from click.testing import CliRunner

from abcd_cli.cli.main import main
from abcd_cli.data.reader import load_series
from abcd_cli.kernel_search.greedy import run_search
from abcd_cli.kernel_search.settings import SearchSettings


def _folder(tmp_path, names=("a", "b")):
    data = tmp_path / "data"
    data.mkdir()
    rng = np.random.default_rng(0)
    for name in names:
        x = 2000 + np.arange(40) / 12
        y = 5 + np.sin(2 * np.pi * x) + 0.1 * rng.standard_normal(x.size)
        (data / f"{name}.csv").write_text(
            "x,y\n" + "".join(f"{u},{v}\n" for u, v in zip(x, y, strict=True))
        )
    return data


def test_batch_reports_and_resume(tmp_path):
    data = _folder(tmp_path)
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


def test_batch_passes_every_search_setting(tmp_path):
    data = _folder(tmp_path, ("a",))
    out = tmp_path / "out"
    settings = ["--depth", "1", "--restarts", "1", "--jobs", "1", "--quiet"]
    extra = ["--prior-mean", "constant", "--patience", "0", "--language", "se", "--seed", "3"]
    result = CliRunner().invoke(main, ["benchmark", str(data), "-o", str(out), *settings, *extra])
    assert result.exit_code == 0, result.output
    report = json.loads((out / "a.json").read_text())
    used = report["model"]["settings"]
    assert (used["prior_mean"], used["patience"], used["language"], used["seed"]) == (
        "constant",
        0,
        "se",
        3,
    )
    assert report["table"]["baseline"] == "Baseline (level)"
    assert report["data"]["level"]["value"] > 4


def test_a_checkpoint_of_other_settings_is_named_not_overwritten(tmp_path):
    data = _folder(tmp_path, ("a",))
    out = tmp_path / "out"
    out.mkdir()
    checkpoint = out / ".a.ckpt.json"
    series = load_series(str(data / "a.csv"))
    run_search(series.x, series.y, SearchSettings(depth=1, restarts=1), checkpoint=checkpoint)
    before = checkpoint.read_text()
    args = ["benchmark", str(data), "-o", str(out), "--depth", "1", "--restarts", "2", "--quiet"]
    result = CliRunner().invoke(main, [*args, "--jobs", "1"])
    assert result.exit_code == 2
    assert f"a: failed: checkpoint {checkpoint} was made with other settings" in result.stderr
    assert result.stderr.splitlines()[-1] == "Error: 1 of 1 series failed: a (see the lines above)"
    assert checkpoint.read_text() == before and not (out / "a.pdf").exists()


def test_unknown_series_is_an_input_error(tmp_path):
    result = CliRunner().invoke(main, ["benchmark", str(tmp_path), "--series", "zz"])
    assert result.exit_code == 2 and "Error:" in result.output
