"""A report's title is at most ``ABCD_MAX_TITLE`` characters (issue 61): a 20,000-word title did
not finish a PDF in two minutes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import abcd_cli
from abcd_cli.cli.main import main
from abcd_cli.errors import InputError

LONG = "word " * 20_000


@pytest.fixture(scope="module")
def model_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("title")
    x = np.linspace(0.0, 10.0, 30)
    found = abcd_cli.search(x=x, y=np.sin(x), depth=0, restarts=1)
    return found.save(folder / "m.json")


def test_the_api_refuses_a_title_beyond_the_limit_that_its_variable_raises(
    model_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(InputError, match=r"^title is 100,000 characters long, more than the 500"):
        abcd_cli.report(model_file, model_file.parent / "r.json", title=LONG)
    assert not (model_file.parent / "r.json").exists()
    with pytest.raises(InputError, match=r"^title is 600 characters long, more than the 500"):
        abcd_cli.report(model_file, title="t" * 600)
    monkeypatch.setenv("ABCD_MAX_TITLE", "600")
    assert abcd_cli.report(model_file, title="t" * 600)["title"] == "t" * 600


@pytest.mark.parametrize("source", ["--from-model", "DATA"])
def test_the_command_line_refuses_it_in_one_line_before_any_work(
    model_file: Path, tmp_path: Path, source: str
) -> None:
    (tmp_path / "d.csv").write_text("x,y\n" + "".join(f"{i},{i % 3}\n" for i in range(12)))
    given = ["--from-model", str(model_file)] if source != "DATA" else [str(tmp_path / "d.csv")]
    out = tmp_path / "r.json"
    args = ["report", *given, "-o", str(out), "--title", LONG, "--depth", "0", "--quiet"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and not out.exists()
    assert result.stderr.splitlines() == [
        "Error: --title is 100,000 characters long, more than the 500 a report's title may"
        " have; shorten it, or set ABCD_MAX_TITLE to raise the limit"
    ]
