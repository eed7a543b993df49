"""Issue 61: what a command writes to standard output is checked. Standard output on
/dev/full, on a pipe whose reader is gone, or redirected from the very file an output names
ends with one ``Error:`` line, exit code 2, the user's files intact and no noise from Python
at exit; run as real processes, since the failure lives in the process's own descriptors."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from abcd_cli.cli.main import main
from abcd_cli.kernel_search.checkpoint import is_checkpoint

QUICK = ["--depth", "0", "--restarts", "1", "--jobs", "1", "--quiet"]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """d.csv (a short series), m.json (its model) and X.csv (two new inputs)."""
    folder = tmp_path_factory.mktemp("stdout")
    x = np.arange(30.0)
    y = np.sin(x / 4.0) + 0.1 * np.random.default_rng(0).normal(size=x.size)
    (folder / "d.csv").write_text(
        "x,y\n" + "".join(f"{a:.17g},{b:.17g}\n" for a, b in zip(x, y, strict=True))
    )
    (folder / "X.csv").write_text("x\n1\n2\n")
    model = folder / "m.json"
    result = CliRunner().invoke(
        main, ["search", str(folder / "d.csv"), *QUICK, "--json", str(model)]
    )
    assert result.exit_code == 0, result.output
    return folder


@pytest.fixture
def folder(made: Path, tmp_path: Path) -> Path:
    """A copy of :func:`made`'s files for one test."""
    for path in made.iterdir():
        shutil.copy(path, tmp_path / path.name)
    return tmp_path


def contents(folder: Path) -> dict[str, bytes]:
    """Every file of ``folder`` but the search's checkpoints (kept for --resume when the
    output could not be written), with its bytes."""
    return {p.name: p.read_bytes() for p in folder.iterdir() if not is_checkpoint(p)}


def abcd(folder: Path, args: list[str], stdout: int, stdin: int | None = None) -> str:
    """Run ``abcd ARGS`` in ``folder`` with the given descriptors; its error line, after
    checking that it failed with exit code 2, that line last on stderr and nothing else
    wrong there (the lines a command prints go to stderr when stdout holds its output)."""
    done = subprocess.run(
        [sys.executable, "-m", "abcd_cli", *args],
        cwd=folder,
        stdin=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1 and done.stderr.endswith(errors[0] + "\n"), done.stderr
    for noise in ("Traceback", "Exception ignored", "unexpected failure"):
        assert noise not in done.stderr, done.stderr
    return errors[0]


#: Each command writing to standard output: its arguments and what its error names.
TO_STDOUT = {
    "predict": (["predict", "m.json", "X.csv", "-o", "-"], "the table"),
    "report": (
        ["report", "--from-model", "m.json", "-o", "-", "--format", "json", "--quiet"],
        "the report",
    ),
    "update": (["update", "m.json", "d.csv", "-o", "-", "--quiet"], "the model"),
    "search --json -": (["search", "d.csv", *QUICK, "--json", "-"], "the model"),
    "search's lines": (["search", "d.csv", *QUICK], ""),
    "describe-data": (["describe-data", "d.csv"], ""),
}


@pytest.mark.parametrize("command", sorted(TO_STDOUT))
def test_full_standard_output_is_one_line_and_exit_2(folder: Path, command: str) -> None:
    args, what = TO_STDOUT[command]
    before = contents(folder)
    with open("/dev/full", "w") as full:
        line = abcd(folder, args, full.fileno())
    target = f"{what} to standard output" if what else "to standard output"
    assert line == f"Error: could not write {target}: no space left on device"
    assert contents(folder) == before


@pytest.mark.parametrize("command", ["report", "search's lines"])
def test_standard_output_whose_reader_is_gone(folder: Path, command: str) -> None:
    """The pipe's reader closed before the output came: not "wrote standard output" and exit
    0, nor a BrokenPipeError's traceback, nor "Exception ignored" at exit."""
    args, _ = TO_STDOUT[command]
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        line = abcd(folder, args, write_end)
    finally:
        os.close(write_end)
    assert line.endswith("to standard output: the program reading it closed the pipe")


def test_standard_input_redirected_from_an_output(folder: Path) -> None:
    """``abcd search - --json d.csv < d.csv`` and ``abcd predict m.json - -o X.csv < X.csv``
    are refused before anything is read or written."""
    before = contents(folder)
    with open(folder / "d.csv", "rb") as data:
        line = abcd(
            folder, ["search", "-", *QUICK, "--json", "d.csv"], subprocess.PIPE, data.fileno()
        )
    assert line.startswith("Error: --json d.csv would overwrite the input DATA.csv")
    with open(folder / "X.csv", "rb") as inputs:
        args = ["predict", "m.json", "-", "-o", "X.csv"]
        line = abcd(folder, args, subprocess.PIPE, inputs.fileno())
    assert "-o X.csv would overwrite the input X.csv" in line
    assert contents(folder) == before


def test_benchmark_stops_at_a_full_standard_output(folder: Path) -> None:
    """Its line for each series goes to standard output: when that fails the command stops
    with the one error, rather than count it as that series' failure and go on."""
    (folder / "series").mkdir()
    shutil.copy(folder / "d.csv", folder / "series" / "a.csv")
    (folder / "out").mkdir()
    for fmt in ("html", "json", "pdf"):
        (folder / "out" / f"a.{fmt}").write_text("done before")
    with open("/dev/full", "w") as full:
        line = abcd(folder, ["benchmark", "series", "-o", "out", *QUICK], full.fileno())
    assert line == "Error: could not write to standard output: no space left on device"
