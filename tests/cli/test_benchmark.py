"""abcd benchmark: reports for every series of a folder, skipping finished ones."""

from __future__ import annotations

import json

import numpy as np
from click.testing import CliRunner

from abcd_cli.cli.main import main
from abcd_cli.data.reader import load_series
from abcd_cli.kernel_search.infer import run_search
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


def _refused(result, *needles):
    """Exit code 2 and one ``Error:`` line on stderr naming each needle."""
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_a_report_linked_to_a_series_is_refused_before_any_search(tmp_path):
    data = _folder(tmp_path, ("a",))
    (data / "a.html").symlink_to("a.csv")
    before = (data / "a.csv").read_text()
    args = ["benchmark", str(data), "-o", str(data), "--depth", "0", "--jobs", "1", "--quiet"]
    _refused(CliRunner().invoke(main, args), f"{data}/a.html would overwrite the input a.csv")
    assert (data / "a.csv").read_text() == before
    assert sorted(p.name for p in data.iterdir()) == ["a.csv", "a.html"]


def test_a_checkpoint_linked_to_a_series_is_refused(tmp_path):
    data = _folder(tmp_path, ("a", "b"))
    out = tmp_path / "out"
    out.mkdir()
    (out / ".b.ckpt.json").symlink_to(data / "a.csv")
    before = (data / "a.csv").read_text()
    args = ["benchmark", str(data), "-o", str(out), "--depth", "0", "--jobs", "1", "--quiet"]
    _refused(CliRunner().invoke(main, args), ".b.ckpt.json")
    assert (data / "a.csv").read_text() == before
    assert sorted(p.name for p in out.iterdir()) == [".b.ckpt.json"]


def test_an_output_folder_that_cannot_be_one_is_one_line(tmp_path):
    data = _folder(tmp_path, ("a",))
    (tmp_path / "file").write_text("mine")
    quick = ["--depth", "0", "--jobs", "1", "--quiet"]
    for out, needle in [
        ("file", "is not a folder"),
        ("file/sub", "cannot make or use this folder"),
        (str(data / "a.csv"), "is not a folder"),
    ]:
        result = CliRunner().invoke(
            main, ["benchmark", str(data), "-o", str(tmp_path / out), *quick]
        )
        _refused(result, f"-o {tmp_path / out}", needle)
    assert (tmp_path / "file").read_text() == "mine"
