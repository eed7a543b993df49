"""The posterior over several searches' structures (``--method posterior --seeds K``): the
joint pool, its weights, one result per seed whatever runs it, resumption between the searches
and within the weighing, and the command line's file, predictions and report."""

from __future__ import annotations

import csv
import json
import math
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner

import abcd_cli
from abcd_cli.cli.main import main
from abcd_cli.errors import InputError
from abcd_cli.fitted import FittedSearch
from abcd_cli.kernel_search.greedy import Search
from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.joint import joint_pool
from abcd_cli.kernel_search.scoring import Scored
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels.algebra import structure_key
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model_file import check_model_document
from abcd_cli.prediction import predictive_table
from abcd_cli.reporting.search_notes import search_notes
from tests.kernel_search.test_greedy import X, draw

#: Tiny searches: seed 5's finds no period in these data, seed 6's does (Per + WN); both
#: pools hold WN, at the same fit.
JOINT = SearchSettings(
    depth=1, restarts=1, seed=5, seeds=2, patience=0, method="posterior", pool=3, draws=4
)
TRUTH = "Per(lengthscale=1.0, period=1.0, sd=1.0) + WN(sd=0.3)"


@pytest.fixture(scope="module")
def y() -> np.ndarray:
    return draw(TRUTH, 11)


@pytest.fixture(scope="module")
def pools(y) -> list[list[Scored]]:
    """Each seed's pool, from its own search."""
    out = []
    for seed in (5, 6):
        search = Search(X, y, replace(JOINT, seed=seed, seeds=1))
        search.run()
        out.append(search.pool)
    return out


@pytest.fixture(scope="module")
def serial(y):
    return run_search(X, y, JOINT)


def _doc(result) -> str:
    d = result.to_dict()
    d.pop("elapsed_seconds")
    for level in d["trace"]:
        level.pop("elapsed_seconds", None)
    return json.dumps(d)


def _scored(text: str, bic: float) -> Scored:
    return Scored(parse_kernel(text), bic / 2, bic)


def test_the_joint_pool_holds_each_distinct_structure_once_at_its_lowest_bic():
    se = "SE(lengthscale=1.0, sd=1.0) + WN(sd=0.1)"
    se_again = "WN(sd=0.2) + SE(lengthscale=2.0, sd=1.0)"  # the same canonical structure
    per = "Per(lengthscale=1.0, period=1.0, sd=1.0) + WN(sd=0.1)"
    lin = "Lin(sd=1.0, location=0.0) + WN(sd=0.1)"
    first = [_scored(se, 10.0), _scored(lin, 12.0)]
    second = [_scored(per, 9.0), _scored(se_again, 8.0), _scored(lin, 12.0)]
    pool, origins = joint_pool([first, second])
    assert [c.kernel.to_text() for c in pool] == [
        parse_kernel(t).to_text() for t in (se_again, per, lin)
    ]
    assert [c.bic for c in pool] == [8.0, 9.0, 12.0] and origins == [1, 1, 0]  # lin: first's


def test_the_joint_pool_is_the_union_of_the_searches_pools(serial, pools):
    keys = {structure_key(c.kernel) for pool in pools for c in pool}
    weighed = serial.posterior.structures
    assert len(weighed) == len(keys) < sum(len(p) for p in pools)  # one structure is shared
    assert {structure_key(s.kernel) for s in weighed} == keys
    lowest = {}
    for c in (c for pool in pools for c in pool):
        key = structure_key(c.kernel)
        lowest[key] = min(lowest.get(key, math.inf), c.bic)
    assert all(s.bic == lowest[structure_key(s.kernel)] for s in weighed)


def test_the_joint_posterior_is_normalised_and_its_model_the_most_probable(serial, pools):
    posterior = serial.posterior
    assert posterior.weights.sum() == pytest.approx(1.0) and np.all(posterior.weights >= 0)
    assert list(posterior.weights) == sorted(posterior.weights, reverse=True)
    assert serial.model.kernel.to_text() == posterior.best.kernel.to_text()
    # the period only seed 6's search found carries the weight; the trace is that search's
    assert posterior.best.kernel.structure == "Per + WN" and posterior.weights[0] > 0.99
    assert serial.trace_seed == 6 and serial.trace[-1].structure == "Per + WN"
    # every seed's own model is its lowest BIC, as with --seeds K
    assert [m.bic for m in serial.seed_models] == [min(c.bic for c in p) for p in pools]
    assert serial.settings.seeds == 2 and serial.settings.seed == 5
    doc = json.loads(json.dumps(serial.to_dict()))
    check_model_document(doc, "model file")
    assert [m["seed"] for m in doc["seed_models"]] == [5, 6]
    notes = search_notes(serial)
    assert notes[0].startswith("2 searches were run, their lowest BICs by seed 5: ")
    assert notes[0].endswith("the trace is seed 6's, whose search fitted the model")
    assert notes[1].startswith(
        f"the posterior weighed the {len(posterior.structures)} distinct structures of the 2"
        " searches' pools (each search's 3 of lowest BIC) jointly"
    )


def _api_doc(jobs: int, y: np.ndarray, seed: int = 5) -> str:
    settings = {k: getattr(JOINT, k) for k in ("restarts", "seeds", "patience", "pool", "draws")}
    found = abcd_cli.search(x=X, y=y, depth=1, seed=seed, method="posterior", jobs=jobs, **settings)
    d = found.to_dict()
    d.pop("elapsed_seconds")
    for level in d["trace"]:
        level.pop("elapsed_seconds", None)
    return json.dumps(d)


def test_one_seed_gives_one_joint_posterior_serial_and_on_a_pool(y, serial):
    serial_api = _api_doc(1, y)
    assert _api_doc(2, y) == serial_api  # jobs=2: a process pool
    assert (
        json.loads(serial_api)["posterior"]["structures"]
        == json.loads(_doc(serial))["posterior"]["structures"]
    )
    assert _api_doc(1, y, seed=6) != serial_api  # seeds 6 and 7: another result


def test_resuming_between_the_searches_gives_the_same_result(y, serial, tmp_path):
    ckpt = tmp_path / "state.json"

    def stop_in_the_second_search(event):
        if event.kind == "level" and event.seed == 6 and event.level == 0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_search(X, y, JOINT, checkpoint=ckpt, events=stop_in_the_second_search)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.seed5.json", "state.seed6.json"]
    lines: list[str] = []
    resumed = run_search(X, y, JOINT, None, lines.append, ckpt, resume=True)
    assert _doc(resumed) == _doc(serial)
    assert lines[:2] == ["seed 5: resumed after level 1", "seed 6: resumed after level 0"]
    assert lines[2].startswith("seed 6: level 1/1") and lines[3].startswith("posterior: ")
    names = ["state.joint.json", "state.seed5.json", "state.seed6.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == names


def test_resuming_in_the_middle_of_the_weighing_weighs_only_the_rest(y, serial, tmp_path):
    ckpt = tmp_path / "state.json"

    def stop_after_two(event):
        if event.kind == "fit" and event.stage == "weigh" and event.done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_search(X, y, JOINT, checkpoint=ckpt, events=stop_after_two)
    saved = json.loads((tmp_path / "state.joint.json").read_text())
    assert saved["stage"] == "joint weighing" and len(saved["weighed"]) == 2
    events = []
    resumed = run_search(X, y, JOINT, checkpoint=ckpt, resume=True, events=events.append)
    assert _doc(resumed) == _doc(serial)
    fits = [(e.stage, e.done) for e in events if e.kind == "fit"]
    total = len(serial.posterior.structures)
    assert fits == [("weigh", k) for k in range(3, total + 1)]  # no level fitted again
    assert resumed.elapsed_seconds >= saved["elapsed_seconds"]


def test_a_joint_weighing_for_other_pools_is_refused(y, tmp_path):
    ckpt = tmp_path / "state.json"
    run_search(X, y, JOINT, checkpoint=ckpt)
    joint = tmp_path / "state.joint.json"
    doc = json.loads(joint.read_text())
    # a seed's search run again with more restarts would have other fits in its pool
    from abcd_cli.kernel_search.checkpoint import content_checksum

    doc["weighed"][0]["bic"] += 1.0
    content = {k: v for k, v in doc.items() if k not in ("format", "checksum")}
    doc["checksum"] = content_checksum(content)
    joint.write_text(json.dumps(doc))
    with pytest.raises(InputError, match="damaged .*not in the searches' pools"):
        run_search(X, y, JOINT, checkpoint=ckpt, resume=True)


def test_greedy_searches_of_several_seeds_keep_their_checkpoints_as_before(tmp_path):
    from abcd_cli.kernel_search.checkpoint import checkpoint_paths

    greedy = replace(JOINT, method="greedy")
    assert [p.name for p in checkpoint_paths(tmp_path / "s.json", greedy)] == [
        "s.seed5.json",
        "s.seed6.json",
    ]
    one = replace(JOINT, seeds=1)
    assert [p.name for p in checkpoint_paths(tmp_path / "s.json", one)] == ["s.json"]


def test_search_with_a_joint_posterior_then_predict_and_report(y, tmp_path):
    data = tmp_path / "data.csv"
    data.write_text("t,y\n" + "".join(f"{a:.6f},{b:.6f}\n" for a, b in zip(X, y, strict=True)))
    model = tmp_path / "model.json"
    args = ["search", str(data), "--depth", "1", "--restarts", "1", "--seed", "5", "--quiet"]
    args += ["--method", "posterior", "--pool", "3", "--seeds", "2", "--jobs", "1"]
    result = CliRunner().invoke(main, [*args, "--json", str(model)])
    assert result.exit_code == 0, result.output
    assert "distinct structures of the 2 searches' pools" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv", "model.json"]
    doc = json.loads(model.read_text())
    assert doc["settings"]["seeds"] == 2 and doc["structure"] == "Per + WN"
    assert len(doc["posterior"]["structures"]) > 3 and len(doc["seed_models"]) == 2

    new = tmp_path / "x.csv"
    new.write_text("t\n2010.5\n2011.0\n")
    out = tmp_path / "out.csv"
    result = CliRunner().invoke(main, ["predict", str(model), str(new), "-o", str(out)])
    assert result.exit_code == 0 and "the posterior's mixture of" in result.output
    found = FittedSearch.from_document(doc)
    models, weights = found.posterior_mixture()
    expected = predictive_table(models, np.array([2010.5, 2011.0]), weights)
    rows = list(csv.DictReader(out.open()))
    np.testing.assert_allclose([float(r["mean"]) for r in rows], expected["mean"], rtol=1e-9)

    report = tmp_path / "report.json"
    result = CliRunner().invoke(
        main, ["report", "--from-model", str(model), "-o", str(report), "--quiet"]
    )
    assert result.exit_code == 0, result.output
    written = json.loads(report.read_text())
    forecast = written["forecast"]
    assert "that two searches with different seeds fitted" not in forecast["text"]
    assert "best-scoring structures two searches with different seeds fitted" in forecast["text"]
    assert "averaged" not in forecast  # the posterior mixes every seed's model already
    assert written["summary"]["certainty"].startswith(
        "The structures of two searches with different seeds, "
    )
    grid = np.array(forecast["x"])
    # the mixture's band, widened past the data by its calibration on the series' own past
    mixed = found.calibrated(predictive_table(models, grid, weights), grid[:, None])
    np.testing.assert_allclose(forecast["q97.5"], mixed["q97.5"], rtol=1e-9)
