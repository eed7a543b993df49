"""How many inputs one search takes (issue 61): a table of 2,000 columns was searched over
all of them, with no cap or warning."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import abcd_cli
from abcd_cli.cli.main import main
from abcd_cli.errors import InputError


def wide(tmp_path: Path, inputs: int) -> Path:
    """A CSV file of y and ``inputs`` numeric columns, 30 rows."""
    values = np.random.default_rng(0).normal(size=(30, inputs + 1))
    path = tmp_path / "wide.csv"
    pd.DataFrame(values, columns=["y", *(f"c{i}" for i in range(inputs))]).to_csv(path, index=False)
    return path


def test_a_search_over_more_inputs_than_the_limit_is_refused(tmp_path: Path) -> None:
    path = wide(tmp_path, 1999)
    with pytest.raises(InputError, match=r"1,999 input columns, more than the 20 one search"):
        abcd_cli.search(path, depth=0, restarts=1)


def test_the_command_line_refuses_in_one_line_naming_x_and_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = wide(tmp_path, 5)
    monkeypatch.setenv("ABCD_MAX_INPUTS", "3")
    result = CliRunner().invoke(main, ["search", str(path), "--depth", "0", "--restarts", "1"])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"Error: {path}: 5 input columns, more than the 3 one search takes; name the inputs to"
        " search with --x a,b,c (x=[...] in Python), or set ABCD_MAX_INPUTS to raise the limit"
    ]
    named = ["search", str(path), "--x", "c0,c1", "--depth", "0", "--restarts", "1", "--quiet"]
    assert CliRunner().invoke(main, named).exit_code == 0
