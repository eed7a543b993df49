"""The command line and its checkpoints (issue 61): two data files of one name keep their own
saved states, a checkpoint of other data is refused rather than overwritten, a second search
on a running search's checkpoint is refused at once, an output is never written over a running
search's checkpoint, and a name too long for the file system is shortened (the default) or
refused with one line (``--checkpoint``): every refusal one ``Error:`` line, exit code 2, the
files as they were."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import abcd_cli
from abcd_cli.cli.main import main
from abcd_cli.cli.running import default_checkpoint
from abcd_cli.files import PART_EXTRA, name_limit
from abcd_cli.kernel_search.settings import SearchSettings
from tests.cli.test_failures_and_interrupts import series, write_csv
from tests.kernel_search.test_checkpoint_lock import other_search

pytestmark = pytest.mark.timeout(300)
QUICK = ["--depth", "1", "--restarts", "1", "--jobs", "1", "--quiet"]
SETTINGS = {"depth": 1, "restarts": 1}


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for folder, seed in (("a", 1), ("b", 2)):  # two data.csv of different values
        (tmp_path / folder).mkdir()
        write_csv(tmp_path / folder / "data.csv", *series(30, seed=seed))
    return tmp_path


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def refused(result: Result, *needles: str) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert "unexpected failure" not in lines[0]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def saved_state(data: str, checkpoint: Path | str) -> bytes:
    """The checkpoint the Python API leaves after searching ``data`` (it keeps its files)."""
    abcd_cli.search(data, checkpoint=checkpoint, **SETTINGS)
    return Path(checkpoint).read_bytes()


def test_two_data_csv_of_different_folders_keep_their_own_states(in_tmp: Path) -> None:
    own = default_checkpoint("a/data.csv", None, SearchSettings(**SETTINGS, seed=0))
    state = saved_state("a/data.csv", own)  # a search of a/data.csv interrupted, say
    result = run("search", "b/data.csv", *QUICK)
    assert result.exit_code == 0, result.output
    assert Path(own).read_bytes() == state  # b's search neither used nor removed it
    resumed = run("search", "a/data.csv", *QUICK, "--resume")
    assert resumed.exit_code == 0 and "Warning" not in resumed.stderr, resumed.output
    assert not Path(own).exists()  # resumed from, then removed with the output written


def test_a_checkpoint_of_other_data_is_refused_not_overwritten(in_tmp: Path) -> None:
    state = saved_state("a/data.csv", "s.json")
    refused(run("search", "b/data.csv", *QUICK, "--checkpoint", "s.json"), "s.json", "--checkpoint")
    refused(
        run("search", "b/data.csv", *QUICK, "--checkpoint", "s.json", "--resume"), "--checkpoint"
    )
    assert Path("s.json").read_bytes() == state
    assert sorted(p.name for p in in_tmp.iterdir()) == ["a", "b", "s.json"]


def test_a_second_search_on_a_running_search_s_checkpoint_is_refused(in_tmp: Path) -> None:
    state = saved_state("a/data.csv", "s.json")
    with other_search(in_tmp / "s.json") as holder:
        line = refused(run("search", "a/data.csv", *QUICK, "--checkpoint", "s.json", "--resume"))
        assert f"another search (process {holder.pid})" in line and "--checkpoint" in line
        refused(run("search", "b/data.csv", *QUICK, "--json", "s.json"), "running now")
        assert Path("s.json").read_bytes() == state
    result = run("search", "a/data.csv", *QUICK, "--checkpoint", "s.json", "--resume")
    assert result.exit_code == 0, result.output  # once the first has ended


def test_a_long_output_name_gets_a_shortened_checkpoint(in_tmp: Path) -> None:
    limit = name_limit(in_tmp) - PART_EXTRA  # the output's own part file must fit too
    out = "r" * (limit - len(".json")) + ".json"  # OUT.ckpt.json would not fit
    result = run("search", "a/data.csv", *QUICK, "--seeds", "2", "--json", out)
    assert result.exit_code == 0, result.output
    assert (in_tmp / out).exists()
    assert sorted(p.name for p in in_tmp.iterdir()) == sorted(["a", "b", out])


def test_a_long_checkpoint_name_is_refused_before_any_work(in_tmp: Path) -> None:
    name = "c" * (name_limit(in_tmp) - PART_EXTRA + 1)
    refused(run("search", "a/data.csv", *QUICK, "--checkpoint", name), "too long", "--checkpoint")
    assert sorted(p.name for p in in_tmp.iterdir()) == ["a", "b"]
    assert os.listdir(in_tmp / "a") == ["data.csv"]


def test_an_output_name_too_long_for_its_part_file_is_refused_before_any_work(
    in_tmp: Path,
) -> None:
    """A name of 228-255 bytes passed the checks and failed at the atomic write, after the
    whole search: its part file's name is PART_EXTRA bytes longer."""
    name = "r" * (name_limit(in_tmp) - PART_EXTRA + 1)
    refused(run("search", "a/data.csv", *QUICK, "--json", name), "too long", "shorter name")
    assert sorted(p.name for p in in_tmp.iterdir()) == ["a", "b"]
