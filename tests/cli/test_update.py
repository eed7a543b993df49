"""abcd update: a saved model takes the rows of NEW.csv, through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner, Result

import abcd_cli
from abcd_cli.cli.main import main
from tests.cli.test_input_errors import assert_one_line_error

OLD = 48


def _csv(path: Path, header: str, x: np.ndarray, y: np.ndarray) -> Path:
    rows = "".join(f"{float(a)!r},{float(b)!r}\n" for a, b in zip(x, y, strict=True))
    path.write_text(f"{header}\n{rows}")
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A model of the first 48 of 60 monthly points (x counts months: plain numbers), the
    other 12 as NEW.csv, and those 12 shifted by 10 sd under other column names."""
    folder = tmp_path_factory.mktemp("update")
    rng = np.random.default_rng(2)
    x = np.arange(60.0)
    y = 5 + np.sin(2 * np.pi * x / 12) + 0.2 * rng.standard_normal(x.size)
    old = _csv(folder / "old.csv", "month,sales", x[:OLD], y[:OLD])
    found = abcd_cli.search(str(old), depth=1, restarts=2, seed=1)
    return {
        "model": found.save(folder / "model.json"),
        "new": _csv(folder / "new.csv", "month,sales", x[OLD:], y[OLD:]),
        "shifted": _csv(folder / "shifted.csv", "t,v", x[OLD:], y[OLD:] + 10 * np.std(y)),
    }


def update(*args: str | Path) -> Result:
    return CliRunner().invoke(main, ["update", *map(str, args)])


def test_update_writes_the_model_of_all_the_points(files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "updated.json"
    result = update(files["model"], files["new"], "-o", out, "--quiet")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""  # quiet, and no warning: the points fit
    lines = result.stdout.splitlines()
    old = json.loads(files["model"].read_text())
    assert lines[0].startswith(f"{old['structure']}   BIC ") and lines[0].endswith("n=60")
    assert lines[2].startswith("note: updated with 12 new points from ")
    assert lines[-1] == f"wrote {out}"
    doc = json.loads(out.read_text())
    assert doc["n"] == 60 and doc["data"]["x"][-12:] == list(np.arange(48.0, 60.0))
    assert doc["trace"] == old["trace"] and doc["structure"] == old["structure"]
    new_x = tmp_path / "x.csv"
    new_x.write_text("month\n60\n61.5\n")
    predicted = CliRunner().invoke(main, ["predict", str(out), str(new_x), "-o", "-"])
    assert predicted.exit_code == 0, predicted.output
    assert predicted.stdout.splitlines()[0].startswith("month,mean,sd,")


def test_update_warns_when_the_new_points_do_not_fit(
    files: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "moved.json"
    result = update(files["model"], files["shifted"], "-o", out, "--x", "t", "--y", "v")
    assert result.exit_code == 0, result.output
    assert "update: refitting 1 structure on 60 points" in result.stderr  # progress
    warning = [line for line in result.stderr.splitlines() if line.startswith("Warning:")]
    assert len(warning) == 1 and "the new data no longer fit the model: 12 of 12" in warning[0]
    assert "note: 12 of 12 new points (100%) lie outside" in result.stdout
    assert json.loads(out.read_text())["updates"][0]["check"]["misfit"] is True


def test_update_refuses_to_write_over_its_model(files: dict[str, Path]) -> None:
    before = files["model"].read_bytes()
    result = update(files["model"], files["new"], "-o", files["model"])
    assert_one_line_error(result, 2, "would overwrite the input MODEL.json")
    assert files["model"].read_bytes() == before


@pytest.mark.parametrize(
    "content, options, message",
    [
        ("t,v\n60,5\n", (), "no column 'month' (--x); available columns: 1 't', 2 'v'"),
        ("month,v\n60,5\n", (), "no column 'sales' (--y)"),
        (
            "month,sales\n2005-01-01,5\n",
            (),
            "column 'month' holds dates or years but the model was fitted to plain numbers:"
            " give plain numbers in a column named 'month' as the model's (numbers are read as"
            " years in a column named like a year",
        ),
        ("month,sales\n60,abc\n", (), "'abc' is not a number"),
        ("month,sales\n60,\n", (), "no row holds a value in every column read"),
        ("a,b,sales\n60,5,3\n", ("--x", "a,b"), "the model reads 1 input(s) ('month'), not 2"),
    ],
)
def test_bad_new_data_is_a_one_line_error(
    files: dict[str, Path], tmp_path: Path, content: str, options: tuple[str, ...], message: str
) -> None:
    new = tmp_path / "new.csv"
    new.write_text(content)
    out = tmp_path / "out.json"
    result = update(files["model"], new, "-o", out, *options)
    assert_one_line_error(result, 2, message)
    assert not out.exists()
