"""The sampler's checkpoint and resumption (kernel_search/smc_checkpoint.py, smc_method.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from abcd_cli.errors import InputError
from abcd_cli.kernel_search import smc_method
from abcd_cli.kernel_search.checkpoint import content_checksum
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernel_search.smc_checkpoint import load_sampler

SETTINGS = SearchSettings(
    method="smc", particles=4, data_steps=3, first_points=10, structure_moves=1, parameter_moves=2
)
X = np.linspace(0.0, 6.0, 36)
Y = np.sin(2.5 * X) + 0.1 * np.random.default_rng(2).standard_normal(36)


class Stop(Exception):
    """Stands for the run being killed after a data step."""


def _stop_after(step: int):
    def handle(event) -> None:
        if event.kind == "data step" and event.level == step:
            raise Stop

    return handle


def test_a_run_resumed_after_step_k_gives_the_uninterrupted_result(tmp_path) -> None:
    whole = smc_method.search(X, Y, SETTINGS)
    assert len(whole.to_dict()["posterior"]["steps"]) == 3  # the trace, resumed as it is
    for k in (1, 2):
        path = tmp_path / f"after{k}.json"
        with pytest.raises(Stop):
            smc_method.search(X, Y, SETTINGS, checkpoint=path, events=_stop_after(k))
        assert json.loads(path.read_text())["done"] == k
        lines: list[str] = []
        resumed = smc_method.search(
            X, Y, SETTINGS, checkpoint=path, resume=True, progress=lines.append
        )
        assert resumed.to_dict()["posterior"] == whole.to_dict()["posterior"]
        assert resumed.model.kernel.to_text() == whole.model.kernel.to_text()
        assert lines[0] == f"resumed after data step {k}"
        assert [line.split(":")[0] for line in lines[1:]] == [
            f"data step {j}/3" for j in range(k + 1, 4)
        ]


def test_every_data_step_is_a_progress_line_with_its_points() -> None:
    lines: list[str] = []
    smc_method.search(X, Y, SETTINGS, progress=lines.append)
    assert [line.split("  ")[0] for line in lines] == [
        "data step 1/3: 10 of 36 points",
        "data step 2/3: 23 of 36 points",
        "data step 3/3: 36 of 36 points",
    ]
    assert all("most probable" in line for line in lines)


def test_a_checkpoint_with_a_value_the_sampler_cannot_write_is_refused(tmp_path) -> None:
    path = tmp_path / "state.json"
    with pytest.raises(Stop):
        smc_method.search(X, Y, SETTINGS, checkpoint=path, events=_stop_after(1))
    doc = json.loads(path.read_text())
    half = doc["halves"][1]
    half["log_weights"] = half["log_weights"][:-1]  # one particle short, checksum made to fit
    _rewrite(path, doc)
    with pytest.raises(InputError, match="damaged.*half 2 of the sampler keeps 2 particles"):
        load_sampler(path, SETTINGS, 3, X, Y)


def test_a_checkpoint_without_both_halves_is_refused(tmp_path) -> None:
    path = tmp_path / "state.json"
    with pytest.raises(Stop):
        smc_method.search(X, Y, SETTINGS, checkpoint=path, events=_stop_after(1))
    doc = json.loads(path.read_text())
    assert len(doc["halves"]) == 2 and doc["done"] == 1
    doc["halves"] = doc["halves"][:1]
    _rewrite(path, doc)
    with pytest.raises(InputError, match="damaged.*two halves"):
        load_sampler(path, SETTINGS, 3, X, Y)


def _rewrite(path, doc) -> None:
    """``doc`` written back with its checksum made to fit."""
    content = {k: v for k, v in doc.items() if k not in ("format", "checksum")}
    path.write_text(
        json.dumps({"format": doc["format"], "checksum": content_checksum(content), **content})
    )


@pytest.mark.parametrize("scales", [[0.05], [0.05, 0.0]])
def test_a_checkpoint_without_a_positive_step_for_each_particle_is_refused(
    tmp_path, scales
) -> None:
    """Each particle's parameter step is part of the state a resumed run goes on from."""
    path = tmp_path / "state.json"
    with pytest.raises(Stop):
        smc_method.search(X, Y, SETTINGS, checkpoint=path, events=_stop_after(1))
    doc = json.loads(path.read_text())
    half = doc["halves"][0]
    assert len(half["step_scales"]) == 2 and all(s > 0 for s in half["step_scales"])
    half["step_scales"] = scales
    _rewrite(path, doc)
    with pytest.raises(InputError, match="damaged.*step_scales"):
        load_sampler(path, SETTINGS, 3, X, Y)


def test_a_checkpoint_whose_trace_misses_a_data_step_is_refused(tmp_path) -> None:
    """Each data step's facts are part of the state: the report's trace is made of them."""
    path = tmp_path / "state.json"
    with pytest.raises(Stop):
        smc_method.search(X, Y, SETTINGS, checkpoint=path, events=_stop_after(2))
    doc = json.loads(path.read_text())
    half = doc["halves"][0]
    assert [facts["points"] for facts in half["history"]] == [10, 23]
    half["history"] = half["history"][:1]
    _rewrite(path, doc)
    with pytest.raises(InputError, match="damaged.*history must hold one entry per data step"):
        load_sampler(path, SETTINGS, 3, X, Y)
