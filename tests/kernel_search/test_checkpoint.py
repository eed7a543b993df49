"""abcd_cli.kernel_search.checkpoint: a checkpoint is recognised by its header, a changed one
is refused by its checksum, and a re-signed one by the values a search cannot have written."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from abcd_cli.errors import InputError
from abcd_cli.kernel_search.checkpoint import (
    FORMAT,
    content_checksum,
    discard,
    is_checkpoint,
    load_state,
)
from abcd_cli.kernel_search.greedy import Search
from abcd_cli.kernel_search.settings import SearchSettings

X = np.linspace(0.0, 10.0, 40)
Y = np.sin(X) + 0.1 * np.random.default_rng(0).normal(size=40)
SETTINGS = Search(X, Y, SearchSettings(depth=2, restarts=1)).settings  # the engine resolved


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The document a search writes after two levels."""
    path = tmp_path_factory.mktemp("ckpt") / "state.json"
    search = Search(X, Y, SETTINGS, checkpoint=path)
    search.step()
    search.step()
    return json.loads(path.read_text())


def write(path: Path, doc: dict[str, Any], sign: bool = True) -> Path:
    content = {k: v for k, v in doc.items() if k not in ("format", "checksum")}
    checksum = content_checksum(content) if sign else doc["checksum"]
    path.write_text(json.dumps({"format": FORMAT, "checksum": checksum, **content}))
    return path


def test_round_trip_and_header(tmp_path: Path, saved: dict[str, Any]) -> None:
    path = write(tmp_path / "c.json", saved)
    assert path.read_text().startswith('{"format": "abcd search checkpoint"')
    assert is_checkpoint(path)
    state = load_state(path, SETTINGS, X, Y)
    assert state is not None and state.level == saved["level"] == 1
    assert state.best is not None and state.best.bic == saved["best"]["bic"]


def test_not_a_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "notes.json"
    path.write_text('{"level": 1}')
    assert not is_checkpoint(path)
    with pytest.raises(InputError, match="not a search checkpoint"):
        load_state(path, SETTINGS, X, Y)
    discard(path)
    assert path.exists()
    link = tmp_path / "link.json"
    link.symlink_to(write(tmp_path / "real.json", {"level": 0}).name)
    assert not is_checkpoint(link)  # a link is never removed as a checkpoint


def test_changed_checkpoint_is_refused(tmp_path: Path, saved: dict[str, Any]) -> None:
    forged = dict(saved, best=dict(saved["best"], bic=saved["best"]["bic"] - 100.0))
    path = write(tmp_path / "c.json", forged, sign=False)
    with pytest.raises(InputError, match="changed after the search wrote it"):
        load_state(path, SETTINGS, X, Y)


def _set(key: str, value: object) -> Callable[[dict[str, Any]], None]:
    return lambda doc: doc.__setitem__(key, value)


def _best(key: str, value: object) -> Callable[[dict[str, Any]], None]:
    return lambda doc: doc["best"].__setitem__(key, value)


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (_set("level", -5), "level must be a whole number from 0 to 2"),
        (_set("level", 7), "level must be a whole number from 0 to 2"),
        (_set("level", True), "level must be a whole number"),
        (_set("stale", -1), "stale must be a whole number"),
        (_set("elapsed_seconds", float("nan")), "elapsed_seconds"),
        (_set("seen", "oops"), "seen must be a list"),
        (_set("seen", [1, 2]), "seen must be a list of text"),
        (_set("trace", "oops"), "trace must be a list"),
        (_set("trace", [{"level": 0}]), "trace holds 1 levels, not 2"),
        (_set("trace", [{"level": 1}, {"level": 0}]), "trace[0] is not the record of level 0"),
        (_set("trace", [{"level": 0, "bic": "x"}, {"level": 1}]), "trace[0].bic must be"),
        (_set("parents", {"a": 1}), "parents must be a list"),
        (_set("best", None), "best is missing"),
        (_best("bic", -1e6), "is not the one its likelihood gives"),
        (_best("nll", float("inf")), "scores must be finite"),
        (_best("bic_low", 1e9), "BIC interval ordered"),
        (_best("kernel", "SE + WN"), "the kernel does not fit these data"),
        (_best("kernel", "SE@2(lengthscale=1.0, sd=1.0)"), "the kernel does not fit these data"),
        (_best("kernel", "SE(lengthscale=1.0)"), "SE needs all of lengthscale, sd"),
    ],
)
def test_re_signed_impossible_values_are_refused(
    tmp_path: Path, saved: dict[str, Any], change: Callable[[dict[str, Any]], None], needle: str
) -> None:
    doc = json.loads(json.dumps(saved))
    change(doc)
    path = write(tmp_path / "c.json", doc)
    with pytest.raises(InputError, match="is damaged") as caught:
        load_state(path, SETTINGS, X, Y)
    assert needle in str(caught.value)
    assert "\n" not in str(caught.value)


def test_deeply_nested_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(
        '{"format": "abcd search checkpoint", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    )
    with pytest.raises(InputError, match="cannot read checkpoint"):
        load_state(path, SETTINGS, X, Y)


def test_a_checkpoint_beyond_the_file_limit_is_not_read_whole(
    tmp_path: Path, saved: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkpoint is read through the same bounded read as data and model files."""
    path = write(tmp_path / "c.json", dict(saved, padding="x" * 1_200_000))
    monkeypatch.setenv("ABCD_MAX_FILE_MB", "1")
    with pytest.raises(InputError, match="larger than the 1 MiB"):
        load_state(path, SETTINGS, X, Y)
    monkeypatch.delenv("ABCD_MAX_FILE_MB")
    assert load_state(path, SETTINGS, X, Y) is not None  # read whole under the default limit
