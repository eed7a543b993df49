"""abcd_cli.kernel_search.checkpoint_names: a default checkpoint's name tells the data file
(by its absolute path) and the settings apart, and no checkpoint name, with its part and lock
files', is longer than the file system takes: a default one is shortened, one the user gave
refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from abcd_cli.errors import InputError
from abcd_cli.kernel_search.checkpoint import checkpoint_paths
from abcd_cli.kernel_search.checkpoint_names import (
    PART_EXTRA,
    data_checkpoint,
    derived_extra,
    name_limit,
    output_checkpoint,
)
from abcd_cli.kernel_search.settings import SearchSettings

SETTINGS = SearchSettings(depth=2, restarts=1).to_dict()


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_two_data_files_of_one_name_get_their_own_checkpoints(in_tmp: Path) -> None:
    a, b = in_tmp / "a" / "data.csv", in_tmp / "b" / "data.csv"
    first, second = data_checkpoint(str(a), SETTINGS, 0), data_checkpoint(str(b), SETTINGS, 0)
    assert first != second
    assert first.parent == second.parent == in_tmp
    assert first.name.startswith(".data-") and first.name.endswith(".abcd.ckpt.json")
    assert data_checkpoint("a/data.csv", SETTINGS, 0) == first  # the same file by any name


def test_other_settings_get_another_checkpoint_and_the_same_ones_the_same(in_tmp: Path) -> None:
    other = SearchSettings(depth=3, restarts=1).to_dict()
    assert data_checkpoint("d.csv", SETTINGS, 0) == data_checkpoint("d.csv", dict(SETTINGS), 0)
    assert data_checkpoint("d.csv", SETTINGS, 0) != data_checkpoint("d.csv", other, 0)
    assert data_checkpoint(None, SETTINGS, 0).name.startswith(".stdin-")


def test_a_long_output_s_checkpoint_is_shortened_and_stays_distinct(in_tmp: Path) -> None:
    limit = name_limit(in_tmp) - PART_EXTRA
    extra = derived_extra(seed=0, seeds=3, joint=True)
    long_a, long_b = "a" * 240 + "1.json", "a" * 240 + "2.json"
    first, second = output_checkpoint(long_a, extra), output_checkpoint(long_b, extra)
    assert first != second
    for path in (first, second):
        assert len(os.fsencode(path.name)) + extra <= limit
        assert path.name.endswith(".ckpt.json")
    settings = SearchSettings(depth=1, seeds=3, method="posterior", pool=2)
    assert len(checkpoint_paths(first, settings)) == 4  # every derived name fits
    assert output_checkpoint("r.json", extra) == Path("r.json.ckpt.json")


def test_a_long_checkpoint_name_of_the_user_s_is_refused(in_tmp: Path) -> None:
    limit = name_limit(in_tmp) - PART_EXTRA
    settings = SearchSettings(depth=1)
    assert checkpoint_paths("c" * limit, settings) == [Path("c" * limit)]
    with pytest.raises(InputError, match="too long .* --checkpoint"):
        checkpoint_paths("c" * (limit + 1), settings)
    seeds = SearchSettings(depth=1, seeds=2)
    with pytest.raises(InputError, match="--checkpoint a shorter name"):
        checkpoint_paths("c" * (limit - 5) + ".json", seeds)  # its .seed1.json is too long
