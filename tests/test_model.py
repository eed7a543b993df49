"""A model file holds a model only of as many points as its engine takes (issue 61): the size
check that refuses a series to a search (``Engine.check_size``) refuses it wherever a model is
conditioned: ``abcd predict``, ``abcd update``, ``abcd report --from-model`` and the API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import abcd_cli
from abcd_cli.errors import InputError
from tests.limited import one_error_line, run_limited


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A depth-1 exact model's document on 40 points."""
    x = np.linspace(0.0, 10.0, 40)
    found = abcd_cli.search(x=x, y=np.sin(x) + 0.1 * np.cos(7 * x), depth=1, restarts=1)
    return found.to_dict()


def grown(document: dict[str, Any], n: int, engine: dict | None = None) -> dict[str, Any]:
    """The document with ``n`` points of the same range (and ``engine`` recorded)."""
    doc = json.loads(json.dumps(document))
    x = np.linspace(0.0, 10.0, n)
    doc["data"]["x"], doc["data"]["y"] = x.tolist(), np.sin(x).tolist()
    doc["n"] = n
    for key in ("seed_models", "engine", "bic", "bic_interval", "log_likelihood_interval"):
        doc.pop(key, None)
    if engine is not None:
        doc["engine"] = engine
    return doc


def write(folder: Path, doc: dict[str, Any], name: str) -> Path:
    path = folder / name
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("n", [12_000, 200_000])
def test_an_exact_model_beyond_the_engines_limit_is_refused_by_the_api(
    tmp_path: Path, small: dict, n: int
) -> None:
    """Before: 12,000 points took 3.5 GB and up to 71 s for one row; 200,000 points ended
    in "unexpected failure: MemoryError ... 298 GiB"."""
    path = write(tmp_path, grown(small, n), "big.json")
    with pytest.raises(InputError, match=rf"model file .*big.json: its model of {n} points"):
        abcd_cli.read_model(path)
    with pytest.raises(InputError, match="too many for the exact"):
        abcd_cli.predict(str(path), [1.0])
    with pytest.raises(InputError, match="too many for the exact"):
        abcd_cli.update(str(path), (np.array([10.5]), np.array([0.3])))


@pytest.mark.parametrize(
    "command",
    [
        ["predict", "big.json", "x.csv", "-o", "out.csv"],
        ["update", "big.json", "new.csv", "-o", "out.json"],
        ["report", "--from-model", "big.json", "-o", "out.html"],
    ],
)
def test_each_command_refuses_it_in_one_line_within_3_gib(
    tmp_path: Path, small: dict, command: list[str]
) -> None:
    write(tmp_path, grown(small, 12_000), "big.json")
    (tmp_path / "x.csv").write_text("x\n1\n2\n")
    (tmp_path / "new.csv").write_text("x,y\n10.5,0.3\n")
    line = one_error_line(run_limited(*command, cwd=tmp_path, timeout=60))
    assert "12000 points" in line and "--engine skc" in line
    assert not (tmp_path / command[-1]).exists()


def test_a_sparse_model_of_as_many_points_is_conditioned(tmp_path: Path, small: dict) -> None:
    """The engine that can take 12,000 points, recorded in the file, is used."""
    path = write(tmp_path, grown(small, 12_000, {"name": "skc", "m": 30}), "sparse.json")
    frame = abcd_cli.predict(str(path), [1.0, 2.0])
    assert np.all(np.isfinite(frame["mean"])) and np.all(frame["sd"] > 0)
