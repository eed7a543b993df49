"""Model files are checked against their schema when read (abcd_cli.schema, abcd_cli.model_file):
a damaged file is refused in one line naming the file and the field, with exit code 2 through
``abcd predict`` and ``abcd report --from-model`` and InputError through the API, before any
number is computed from it (no NaN answers, no numpy warnings)."""

from __future__ import annotations

import copy
import json
import math
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

import abcd_cli
from abcd_cli.cli.main import main
from abcd_cli.errors import InputError
from abcd_cli.found import FoundModel, read_model
from abcd_cli.model_file import MODEL_SCHEMA, check_model_document
from abcd_cli.schema import (
    MAX_DEPTH,
    Anything,
    Bool,
    Choice,
    Either,
    List,
    Nullable,
    Number,
    Numbers,
    Obj,
    Rows,
    Text,
    Whole,
    check,
    load_json,
    refuse,
    shown,
    too_deep,
)

ROOT = Path(__file__).resolve().parent.parent
REGRESSION_MODELS = ROOT / "benchmarks" / "several_inputs" / "outputs" / "regression_models"
SEVERAL_INPUTS = REGRESSION_MODELS / "diabetes-0-search-se-rq.json"
#: A posterior (20 structures, 32 draws each) of the airline series, 129 points.
POSTERIOR_MODEL = ROOT / "benchmarks/accuracy/outputs/peers/models/01-airline-extrap.json"
AT = [2001.0, 2003.5, 2006.0]  # where the property test predicts


# -- one small real model, made once ----------------------------------------------------------


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("model_file")


@pytest.fixture(scope="module")
def model_path(folder: Path) -> Path:
    """A depth-1 search's model file on 60 points (a yearly cycle on a level of 10)."""
    x = np.linspace(2000.0, 2005.0, 60)
    y = 10.0 + np.sin(2 * np.pi * x) + 0.1 * np.cos(5 * x)
    data = folder / "d.csv"
    data.write_text(
        "x,y\n" + "".join(f"{float(a)!r},{float(b)!r}\n" for a, b in zip(x, y, strict=True))
    )
    path = folder / "m.json"
    args = ["search", str(data), "--depth", "1", "--restarts", "2", "--jobs", "1", "--quiet"]
    result = CliRunner().invoke(main, [*args, "--json", str(path)])
    assert result.exit_code == 0, result.output
    (folder / "x.csv").write_text("x\n2001.5\n2006\n")
    return path


@pytest.fixture(scope="module")
def document(model_path: Path) -> dict[str, Any]:
    return json.loads(model_path.read_text())


def invoke(args: list[str]) -> tuple[Result, list[warnings.WarningMessage]]:
    """Run ``abcd`` with ``args``, recording every warning issued meanwhile."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = CliRunner().invoke(main, args)
    return result, caught


def assert_refused(path: Path, field: str) -> None:
    """``abcd predict`` and ``abcd report --from-model`` both refuse the model file at ``path``:
    exit 2, one line ``Error: model file PATH: ...`` naming ``field``, nothing else printed,
    nothing written, no warning."""
    folder = path.parent
    for command, output in (
        (["predict", str(path), str(folder / "x.csv"), "-o"], folder / "out.csv"),
        (["report", "--from-model", str(path), "-o"], folder / "out.html"),
    ):
        result, caught = invoke([*command, str(output)])
        lines = result.output.splitlines()
        assert result.exit_code == 2, result.output
        assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
        assert f"model file {path}" in lines[0] and field in lines[0], lines[0]
        assert "unexpected failure" not in lines[0] and "Traceback" not in result.output
        assert not output.exists()
        assert not [w for w in caught if issubclass(w.category, RuntimeWarning)], caught


def test_a_json_report_is_recognised_and_the_model_file_named(model_path: Path) -> None:
    """A JSON report given where a model is expected says so and which file to use instead,
    through the command line and the API."""
    report = model_path.parent / "report.json"
    result = CliRunner().invoke(
        main, ["report", "--from-model", str(model_path), "-o", str(report)]
    )
    assert result.exit_code == 0, result.output
    assert_refused(report, "is a report")
    with pytest.raises(InputError, match="not a model file: use the file that 'abcd search"):
        read_model(report)


def tampered(folder: Path, document: dict[str, Any], change: Callable[[dict], Any]) -> Path:
    """The model file with ``change`` applied to a copy of its document."""
    doc = copy.deepcopy(document)
    change(doc)
    path = folder / "tampered.json"
    path.write_text(json.dumps(doc))  # NaN and Infinity as JSON's literals
    return path


def put(*keys: Any, value: Any) -> Callable[[dict], None]:
    """A change setting the field at ``keys`` to ``value``."""

    def change(doc: dict) -> None:
        for key in keys[:-1]:
            doc = doc[key]
        doc[keys[-1]] = value

    return change


def drop(*keys: str) -> Callable[[dict], None]:
    def change(doc: dict) -> None:
        for key in keys[:-1]:
            doc = doc[key]
        del doc[keys[-1]]

    return change


# -- the cases measured before the schema -----------------------------------------------------


def test_a_y_scale_of_nan_is_refused(folder: Path, document: dict) -> None:
    """Before: NaN in every predicted row (exit 0), a report that "explains 0.0%"."""
    nan = float("nan")
    path = tampered(folder, document, put("internal", "scaling", "y_scale", value=nan))
    assert "NaN" in path.read_text()
    assert_refused(path, "internal.scaling.y_scale must be a finite number")


def test_data_values_beyond_the_readers_limit_are_refused(folder: Path, document: dict) -> None:
    """Before: ``mean = nan`` with exit 0 (y of 1e308 overflows in the mean)."""
    path = tampered(folder, document, put("data", "y", value=[1e308] * len(document["data"]["y"])))
    assert_refused(path, "data.y must be a list of at least 2 finite numbers within ±1e+150")
    path = tampered(folder, document, put("data", "x", 7, value=-1e200))
    assert_refused(path, "data.x[7] is -1e+200")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("notes", 5, "notes must be a list of text, not 5"),
        ("trace", "oops", 'trace must be a list of objects with a level, not "oops"'),
        ("settings", "oops", 'settings must be an object, not "oops"'),
    ],
)
def test_a_malformed_field_is_named(
    folder: Path, document: dict, field: str, value: Any, message: str
) -> None:
    """Before: exit 1, "unexpected failure: TypeError" (or AttributeError) from the report."""
    assert_refused(tampered(folder, document, put(field, value=value)), message)


def test_a_file_nested_too_deeply_is_refused(folder: Path) -> None:
    """Before: exit 1, "unexpected failure: RecursionError" from the JSON parser."""
    path = folder / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert_refused(path, "nests lists or objects too deeply to be read")


def test_a_field_nested_too_deeply_is_refused(folder: Path, document: dict) -> None:
    """Deep enough to parse, too deep to keep: refused before anything walks it."""
    nested: list = []
    for _ in range(200):
        nested = [nested]
    path = tampered(folder, document, put("extra", value=nested))
    assert_refused(path, f"nests lists or objects more than {MAX_DEPTH} levels deep")


def test_a_zero_x_scale_is_refused_without_warnings(folder: Path, document: dict) -> None:
    """Before: numpy's divide-by-zero warnings, then exit 1 (PosteriorError)."""
    path = tampered(folder, document, put("internal", "scaling", "x_scale", value=0))
    assert_refused(path, "internal.scaling.x_scale must be a finite number from 1e-150")


# -- the other fields ---------------------------------------------------------------------------


def _rows(n: int) -> Callable[[dict], None]:
    def change(doc: dict) -> None:
        doc["data"]["x"], doc["data"]["y"] = doc["data"]["x"][:n], doc["data"]["y"][:n]
        doc["n"] = n

    return change


CASES = {
    "x and y of different lengths": (put("data", "y", value=[1.0] * 59), "data.y must hold one"),
    "one row": (_rows(1), "data.y must be a list of at least 2 finite numbers"),
    "no rows": (_rows(0), "data.y must be a list of at least 2 finite numbers"),
    "n not the rows": (put("n", value=61), "n must be the number of rows of the data (60)"),
    "x as text": (put("data", "x", 3, value="2001"), 'data.x[3] is "2001"'),
    "x missing": (drop("data", "x"), "data.x is missing"),
    "an infinite shift": (put("internal", "scaling", "x_shift", value=math.inf), "x_shift"),
    "a negative y scale": (put("internal", "scaling", "y_scale", value=-1), "y_scale"),
    "a shift far from the data": (
        put("internal", "scaling", "y_shift", value=1e100),
        "internal.scaling.y_shift and y_scale must put data.y within ±1e+16",
    ),
    "no log likelihood": (drop("log_likelihood"), "log_likelihood is missing"),
    "a kernel of text": (put("internal", "kernel", value="SE +"), "internal.kernel must be"),
    "a negative lengthscale": (
        put("internal", "kernel", value="SE(lengthscale=-1, sd=1) + WN(sd=0.1)"),
        "internal.kernel parameter SE[0].lengthscale must be a finite number from 1e-150",
    ),
    "a kernel nested too deeply": (
        put("internal", "kernel", value="(" * 10_000 + "WN(sd=1)" + ")" * 10_000),
        "internal.kernel must nest parentheses at most 50 deep",
    ),
    "a kernel on a missing input": (
        put("internal", "kernel", value="SE@1(lengthscale=1, sd=1) + WN(sd=0.1)"),
        "must act on one of the data's 1 input column(s), not on input 1",
    ),
    "constant_mean as text": (
        put("internal", "constant_mean", value="no"),
        "internal.constant_mean must be true or false",
    ),
    "a note of a number": (
        put("notes", value=["fine", 5]),
        "notes must be a list of text; notes[1] is 5",
    ),
    "a level without its number": (
        put("trace", 0, value={"structure": "WN"}),
        "trace[0].level is missing",
    ),
    "a level of text": (put("trace", 0, "level", value="one"), "trace[0].level must be a whole"),
    "a negative seed": (
        put("settings", "seed", value=-1),
        "settings.seed must be a whole number of at least 0",
    ),
    "an unknown base kernel": (put("settings", "bases", value=["SE", "Nope"]), "settings.bases"),
    "a budget of no time": (
        put("settings", "budget", value=0),
        "settings.budget must be a finite number above 0",
    ),
    "a moves plan of triples": (
        put("settings", "moves_plan", value=[[1, 2, 3]]),
        "settings.moves_plan",
    ),
    "a sampler of one particle": (
        put("settings", "particles", value=1),
        "settings.particles must be a whole number from 2",
    ),
    "negative structure moves": (
        put("settings", "structure_moves", value=-1),
        "settings.structure_moves must be a whole number of at least 0",
    ),
    "an unknown prior mean": (put("settings", "prior_mean", value="mode"), "settings.prior_mean"),
    "stopped_early of a number": (
        put("stopped_early", value=3),
        "stopped_early must be text or null",
    ),
    "elapsed time of text": (
        put("elapsed_seconds", value="1 s"),
        "elapsed_seconds must be a finite",
    ),
    "an unknown x kind": (
        put("data", "x_kind", value="month"),
        'data.x_kind must be one of "date"',
    ),
    "a name of a number": (put("data", "y_name", value=7), "data.y_name must be text, not 7"),
    "a source of a list": (put("data", "source", value=["a"]), "data.source must be text"),
    "negative rows dropped": (put("data", "n_dropped", value=-1), "data.n_dropped must be a whole"),
    "two names for one input": (
        put("data", "x_names", value=["a", "b"]),
        "data.x_names must hold one name",
    ),
    "a kind per input, wrongly": (
        put("data", "x_kinds", value=["year", "year"]),
        "data.x_kinds must hold one kind",
    ),
    "an engine of a number": (
        put("engine", value=1),
        "engine must be an object with a name or null, not 1",
    ),
    "an unknown engine": (
        put("engine", value={"name": "gpu"}),
        'engine.name must be one of "exact", "skc"',
    ),
    "a bad engine setting": (
        put("engine", value={"name": "skc", "m": 0}),
        "engine.m must be a whole number of at least 1",
    ),
    "a setting of another engine": (
        put("engine", value={"name": "exact", "m": 5}),
        "engine.m is not a setting of the exact engine",
    ),
    "inducing inputs off the data": (
        put("engine", value={"name": "skc", "inducing_x": [1e30]}),
        "internal.scaling.x_shift and x_scale must put engine.inducing_x within ±1e+16",
    ),
    "an interval upside down": (
        put("log_likelihood_interval", value=[1.0, 0.0]),
        "log_likelihood_interval must be [low, high]",
    ),
    "seed models of numbers": (
        put("seed_models", value=[1, 2]),
        "seed_models must be a list of models; seed_models[0] is 1",
    ),
    "a screen's floor above one": (put("screen", value={"floor": 1.5}), "screen.floor must be"),
    "a screen's vote level below zero": (
        put("screen", value={"resampled": {"keep_probability": -0.1}}),
        "screen.resampled.keep_probability must be",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_field_is_checked_through_the_command_line(
    folder: Path, document: dict, case: str
) -> None:
    change, message = CASES[case]
    assert_refused(tampered(folder, document, change), message)


def test_a_seed_models_entry_is_checked_as_a_model(folder: Path, document: dict) -> None:
    entry = {k: v for k, v in document.items() if k in ("internal", "log_likelihood")}
    good = [{"seed": 0, **entry}, {"seed": 1, **copy.deepcopy(entry)}]
    path = tampered(folder, document, put("seed_models", value=good))
    assert len(read_model(path).seed_models) == 2
    bad = copy.deepcopy(good)
    bad[1]["internal"]["scaling"]["y_scale"] = math.nan
    path = tampered(folder, document, put("seed_models", value=bad))
    assert_refused(path, "seed_models[1]: not a model: internal.scaling.y_scale must be a finite")
    again = [good[0], {**good[1], "seed": 0}]
    path = tampered(folder, document, put("seed_models", value=again))
    assert_refused(path, "seed_models[1]: seed must be a new whole number of at least 0, not 0")


def test_a_seed_models_likelihood_must_give_its_bic(folder: Path, document: dict) -> None:
    """Before: a seed model's log likelihood was not checked against its BIC, and the seeds'
    evidence weights, computed from the likelihood, went to the wrong model."""
    entry = {k: v for k, v in document.items() if k in ("internal", "log_likelihood", "bic")}
    raised = {**copy.deepcopy(entry), "seed": 1, "log_likelihood": entry["log_likelihood"] + 50}
    path = tampered(folder, document, put("seed_models", value=[{"seed": 0, **entry}, raised]))
    assert_refused(path, "seed_models[1]: not a model: bic must be 2·(−log_likelihood)")
    path = tampered(folder, document, put("bic", value=document["bic"] - 3))
    assert_refused(path, "bic must be 2·(−log_likelihood) + parameters·log n")


def _structure(i: int, key: str, value: Any) -> Callable[[dict], None]:
    return put("posterior", "structures", i, key, value=value)


POSTERIOR_CASES = {
    "theta rows not the draws": (
        lambda doc: doc["posterior"]["structures"][1]["theta"].pop(),
        "posterior.structures[1].theta must hold one row per draw (posterior.draws: 32) or"
        " none, not 31",
    ),
    "draws of 10⁹": (
        put("posterior", "draws", value=10**9),
        "posterior.draws must be a whole number from 0 to 200",
    ),
    "draws of 10⁹ in the settings": (
        put("settings", "draws", value=10**9),
        "settings.draws must be a whole number from 1 to 200",
    ),
    "a failed structure with weight": (
        _structure(5, "failure", "the chain failed"),
        "posterior.structures[5].weight must be 0 for a structure whose weighing failed",
    ),
}


@pytest.mark.parametrize("case", list(POSTERIOR_CASES))
def test_a_posteriors_draws_and_weights_are_checked(folder: Path, case: str) -> None:
    """Before: each of these was accepted without a word."""
    change, message = POSTERIOR_CASES[case]
    assert_refused(tampered(folder, _json(POSTERIOR_MODEL), change), message)


@pytest.fixture(scope="module")
def sampled_document(folder: Path) -> dict[str, Any]:
    """A model file of the sampler (--method smc, 4 particles in two halves)."""
    x = np.linspace(2000.0, 2005.0, 40)
    y = np.sin(2 * np.pi * x) + 0.1 * np.cos(5 * x)
    found = abcd_cli.search(
        x=x, y=y, method="smc", particles=4, data_steps=2, first_points=20,
        structure_moves=1, parameter_moves=1,
    )  # fmt: skip
    path = folder / "smc.json"
    found.save(path)
    return json.loads(path.read_text())


HALVES_CASES = {
    "a TV above 1": (
        put("posterior", "halves", "structures_tv", value=1.5),
        "posterior.halves.structures_tv must be a finite number from 0 to 1",
    ),
    "kinds further apart than structures": (
        lambda doc: doc["posterior"]["halves"].update(structures_tv=0.1, kinds_tv=0.3),
        "posterior.halves.kinds_tv must be at most structures_tv",
    ),
    "three log evidences": (
        put("posterior", "halves", "log_evidence", value=[-1.0, -2.0, -3.0]),
        "posterior.halves.log_evidence must be a list of 2 finite numbers or nulls, not a list"
        " of 3 items",
    ),
    "no most probable structures": (
        drop("posterior", "halves", "most_probable"),
        "posterior.halves.most_probable is missing",
    ),
}


def test_the_samplers_halves_are_kept_and_read_back(folder: Path, sampled_document) -> None:
    halves = sampled_document["posterior"]["halves"]
    assert halves["particles"] == [2, 2] and 0 <= halves["kinds_tv"] <= halves["structures_tv"]
    path = tampered(folder, sampled_document, lambda doc: None)
    assert read_model(path).posterior.halves.to_dict() == halves


@pytest.mark.parametrize("case", list(HALVES_CASES))
def test_a_malformed_halves_record_is_refused(folder: Path, sampled_document, case: str) -> None:
    change, message = HALVES_CASES[case]
    assert_refused(tampered(folder, sampled_document, change), message)


STEPS_CASES = {
    "a step out of order": (
        put("posterior", "steps", 1, "step", value=5),
        "posterior.steps[1].step must be 2, not 5",
    ),
    "no more points than the step before": (
        put("posterior", "steps", 1, "points", value=20),
        "posterior.steps[1].points must be more than the step before's",
    ),
    "an effective sample size above its half's particles": (
        put("posterior", "steps", 0, "ess", value=[3.0, 1.0]),
        "posterior.steps[0].ess must be at most each half's particles",
    ),
    "a weight above 1": (
        put("posterior", "steps", 0, "weight", value=1.5),
        "posterior.steps[0].weight must be a finite number from 0 to 1",
    ),
}


def test_the_samplers_trace_is_kept_and_read_back(folder: Path, sampled_document) -> None:
    steps = sampled_document["posterior"]["steps"]
    assert [(s["step"], s["points"]) for s in steps] == [(1, 20), (2, 40)]
    path = tampered(folder, sampled_document, lambda doc: None)
    assert [s.to_dict() for s in read_model(path).posterior.steps] == steps


@pytest.mark.parametrize("case", list(STEPS_CASES))
def test_a_malformed_sampler_trace_is_refused(folder: Path, sampled_document, case: str) -> None:
    change, message = STEPS_CASES[case]
    assert_refused(tampered(folder, sampled_document, change), message)


def test_the_rows_of_several_inputs_have_the_scalings_width(folder: Path) -> None:
    doc = json.loads(SEVERAL_INPUTS.read_text())
    assert len(doc["data"]["x"][0]) == 10
    path = tampered(folder, doc, lambda d: d["data"]["x"][3].pop())
    assert_refused(path, "data.x must be a list of at least 2 rows of 10 finite numbers")
    assert_refused(path, "data.x[3] is a list of 9 items")
    path = tampered(folder, doc, put("data", "x", 5, 2, value=math.nan))
    assert_refused(path, "data.x[5][2] is nan")
    path = tampered(folder, doc, drop("data", "x_names"))
    assert_refused(path, "data.x_names must hold one name per input column (10), not null")
    path = tampered(folder, doc, lambda d: d["internal"]["scaling"]["x_scale"].pop())
    assert_refused(path, "internal.scaling.x_scale must hold one number per input column")


# -- through the API ----------------------------------------------------------------------------


def test_the_api_raises_input_error(folder: Path, document: dict) -> None:
    path = tampered(folder, document, put("internal", "scaling", "y_scale", value=math.nan))
    message = f"model file {path}: internal.scaling.y_scale must be a finite number"
    for call in (
        lambda: abcd_cli.found.read_model(path),
        lambda: abcd_cli.read_model(path),
        lambda: abcd_cli.predict(str(path), AT),
        lambda: abcd_cli.report(str(path)),
        lambda: abcd_cli.report(str(path), folder / "r.json"),
    ):
        with pytest.raises(InputError, match="^" + re.escape(message)):
            call()
    assert not (folder / "r.json").exists()
    doc = json.loads(path.read_text())
    with pytest.raises(InputError, match=r"^model document: internal\.scaling\.y_scale"):
        FoundModel.from_document(doc)


def test_every_measured_case_is_refused_through_the_api(folder: Path, document: dict) -> None:
    nested = "[" * 100_000 + "]" * 100_000
    texts = [nested] + [
        json.dumps(copy.deepcopy(document) | {key: value})
        for key, value in (("notes", 5), ("trace", "oops"), ("settings", "oops"))
    ]
    for text in texts:
        path = folder / "api.json"
        path.write_text(text)
        with pytest.raises(InputError, match=f"^model file {path}"):
            abcd_cli.predict(str(path), AT)


# -- what must still load -----------------------------------------------------------------------


def test_the_model_file_loads_and_predicts(model_path: Path) -> None:
    found = read_model(model_path)
    table = abcd_cli.predict(found, AT)
    assert np.all(np.isfinite(table[["mean", "sd"]].to_numpy()))


def test_a_file_without_the_optional_fields_loads(folder: Path, document: dict) -> None:
    """Files written before a field existed lack it: only the model and its data are needed."""
    keep = ("internal", "log_likelihood", "data")
    doc = {k: copy.deepcopy(v) for k, v in document.items() if k in keep}
    doc["data"] = {"x": doc["data"]["x"], "y": doc["data"]["y"]}
    del doc["internal"]["constant_mean"]
    found = FoundModel.from_document(doc)
    assert found.notes == [] and found.trace == [] and found.settings == {}
    full = abcd_cli.predict(read_model(folder / "m.json"), AT)
    np.testing.assert_array_equal(abcd_cli.predict(found, AT)["mean"], full["mean"])
    # and null where the search writes null
    doc = copy.deepcopy(document)
    doc["trace"].append({"level": 2, "structure": None, "bic": None, "candidates": 3})
    doc["settings"].update({"refine_size": None, "inducing": None, "max_order": None})
    doc["stopped_early"] = None
    check_model_document(doc, "model document")


def test_a_tables_screen_is_checked_with_or_without_its_floor(document: dict) -> None:
    """A screen as the search writes it passes; one of a file before the floor was recorded
    (its floor that of ``settings.table_search``) too."""
    from abcd_cli.kernel_search.resampled_screen import decide_by_vote
    from abcd_cli.kernel_search.screening import Shares
    from abcd_cli.kernel_search.table_plan import SCREEN_FLOOR

    shares = Shares((0.5, 0.004, 0.2), {(0, 1): 0.0, (0, 2): 0.05, (1, 2): 0.0}, (0.9, 0.1))
    screen = decide_by_vote(shares, [shares, shares], (), SCREEN_FLOOR, 30).to_dict()
    assert screen["floor"] == SCREEN_FLOOR and screen["resampled"]["keep_probability"] == 0.3
    doc = copy.deepcopy(document)
    doc["screen"] = screen
    check_model_document(doc, "model document")
    del doc["screen"]["floor"]
    check_model_document(doc, "model document")


def _model_files() -> list[Path]:
    """Every model file kept in the repository (benchmarks' models, tests' files)."""
    paths = sorted([*ROOT.glob("benchmarks/**/*.json"), *ROOT.glob("tests/**/*.json")])
    return [p for p in paths if "internal" in _json(p)]


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (ValueError, OSError):  # not JSON (or a file being written): not a model file
        return None


def test_the_repositorys_model_files_are_found() -> None:
    files = _model_files()
    assert len([p for p in files if p.parent.name == "regression_models"]) >= 15
    assert not [p for p in files if p.parent.name == "golden"]  # its files are not models


@pytest.mark.parametrize("path", sorted(REGRESSION_MODELS.glob("*.json")), ids=lambda p: p.name)
def test_every_regression_model_loads(path: Path) -> None:
    found = read_model(path)
    assert found.model.n == len(found.document["data"]["y"]) and found.model.n_dims == 10


def test_every_other_model_file_in_the_repository_passes_the_schema() -> None:
    for path in _model_files():
        check_model_document(_json(path), f"model file {path}")


# -- any damage: InputError or a model that predicts --------------------------------------------

LEAVES = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([0, -1, 1e308, -1e308, 1e150, 1e-320, 10**400, "NaN", ""])
    | st.text(max_size=12)
)
JSON_VALUES = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=8,
)


@st.composite
def damaged(draw: st.DrawFn, document: dict) -> dict:
    """The document with one field at any depth replaced by a random JSON value, or removed."""
    doc = copy.deepcopy(document)
    node: Any = doc
    while True:
        key = draw(st.sampled_from(list(node) if isinstance(node, dict) else range(len(node))))
        child = node[key]
        if isinstance(child, dict | list) and child and draw(st.booleans()):
            node = child
            continue
        if isinstance(node, dict) and draw(st.integers(0, 5)) == 0:
            del node[key]
        else:
            node[key] = draw(JSON_VALUES)
        return doc


@hypothesis_settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_damaged_field_is_refused_or_harmless(
    folder: Path, document: dict, data: st.DataObject
) -> None:
    """Read, then predict at three points: an InputError of one line, or finite numbers; never
    another exception, never a numpy warning."""
    path = folder / "damaged.json"
    path.write_text(json.dumps(data.draw(damaged(document))))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            table = abcd_cli.predict(read_model(path), AT)
        except InputError as exc:
            assert "\n" not in str(exc)
        else:
            assert np.all(np.isfinite(table[["mean", "sd"]].to_numpy()))
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)], caught


# -- the schema module itself -------------------------------------------------------------------


def refused(value: Any, spec: Any) -> str:
    """The message with which ``spec`` refuses ``value`` (as a file f.json)."""
    with pytest.raises(InputError) as caught:
        check(value, spec, "f.json")
    return str(caught.value)


def test_text_bool_and_choice() -> None:
    check("a", Text(), "f.json")
    assert refused(5, Text()) == "f.json: the document must be text, not 5"
    check(False, Bool(), "f.json")
    assert refused(0, Bool()) == "f.json: the document must be true or false, not 0"
    check("year", Choice("date", "year"), "f.json")
    assert refused("month", Choice("date", "year")).endswith(
        'must be one of "date", "year", not "month"'
    )
    assert "not true" in refused(True, Choice(1, 2))


def test_whole_numbers() -> None:
    check(3, Whole(min=0, max=3), "f.json")
    assert refused(4, Whole(min=0, max=3)).endswith("must be a whole number from 0 to 3, not 4")
    assert refused(-1, Whole(min=0)).endswith("must be a whole number of at least 0, not -1")
    assert refused(3.0, Whole()).endswith("must be a whole number, not 3.0")
    assert refused(True, Whole()).endswith("not true")
    assert refused(10**40, Whole(max=5)).endswith("not a whole number of 41 digits")


def test_finite_numbers_in_ranges() -> None:
    for value in (0.5, 1, np.float64(0.25)):
        check(value, Number(above=0, max=1), "f.json")
    scale = Number(above=0)
    assert (
        refused(math.nan, scale) == "f.json: the document must be a finite number above 0, not nan"
    )
    assert refused(0, scale).endswith("not 0")
    assert refused(math.inf, Number()).endswith("must be a finite number, not inf")
    assert refused(10**400, Number()).endswith("not a whole number of 401 digits")
    assert refused("1", Number()).endswith('not "1"') and refused(False, Number()).endswith("false")
    assert refused(1, Number(below=1)).endswith("must be a finite number below 1, not 1")
    assert refused(-2e150, Number(magnitude=1e150)).endswith("within ±1e+150, not -2e+150")
    assert refused(2, Number(min=0, max=1)).endswith("from 0 to 1, not 2")
    assert refused(-1, Number(min=0)).endswith("of at least 0, not -1")


def test_lists_of_numbers_and_rows() -> None:
    check([1, 2.5, -3], Numbers(Number(magnitude=10), min_len=2), "f.json")
    message = refused([1, math.nan], Numbers(min_len=2))
    assert message == "f.json: the document must be a list of at least 2 finite numbers; [1] is nan"
    assert refused({"x": [1, True]}, Obj({"x": Numbers()})).endswith(
        "x must be a list of finite numbers; x[1] is true"
    )
    assert refused([1], Numbers(min_len=2)).endswith("not a list of 1 item")
    assert refused("12", Numbers()).endswith('not "12"')
    check([[1, 2], [3, 4]], Rows(width=2), "f.json")
    check([[1, 2, 3]], Rows(), "f.json")
    spec = Obj({"x": Rows(width=2)})
    assert refused({"x": [[1, 2], [3]]}, spec).endswith(
        "x must be a list of rows of 2 finite numbers; x[1] is a list of 1 item"
    )
    assert refused({"x": [[1, 2], [3, 1e400]]}, spec).endswith("x[1][1] is inf")
    assert refused({"x": [[1, 2], [3, 4, 5]]}, Obj({"x": Rows()})).endswith(
        "x[1] is a list of 3 items"
    )
    assert refused({"x": [[]]}, Obj({"x": Rows()})).endswith("x[0] is []")


def test_lists() -> None:
    spec = Obj({"notes": List(Text())})
    check({"notes": []}, spec, "f.json")
    assert refused({"notes": 5}, spec) == "f.json: notes must be a list of text, not 5"
    assert (
        refused({"notes": ["a", 5]}, spec) == "f.json: notes must be a list of text; notes[1] is 5"
    )
    pair = List(Number(), 2, 2)
    assert refused([1], pair).endswith("must be a list of 2 finite numbers, not a list of 1 item")
    assert "a list of 1 to 3 text" in refused([], List(Text(), 1, 3))
    assert "a non-empty list of text" in refused([], List(Text(), 1))
    # a part inside an item is named by its own path
    levels = List(Obj({"level": Whole()}, noun="a level"))
    assert refused([{"level": 1}, {"level": "x"}], levels).endswith(
        '[1].level must be a whole number, not "x"'
    )
    assert refused([{"level": 1}, {}], levels).endswith("[1].level is missing")
    assert refused([{"level": 1}, 3], levels).endswith("must be a list of objects; [1] is 3")


def test_objects() -> None:
    spec = Obj(required={"a": Whole()}, optional={"b": Text()}, extra=None, noun="a pair")
    check({"a": 1}, spec, "f.json")
    check({"a": 1, "b": "x"}, spec, "f.json")
    assert refused([], spec) == "f.json: the document must be a pair, not []"
    assert refused({"b": "x"}, spec) == "f.json: a is missing"
    assert refused({"a": 1, "c": 2}, spec) == "f.json: c is not a known field (known: a, b)"
    check({"a": 1, "c": [2]}, Obj(required={"a": Whole()}), "f.json")  # others allowed
    assert refused({"a": 1, "c": 2}, Obj({"a": Whole()}, extra=Text())).endswith(
        "c must be text, not 2"
    )
    nested = Obj({"internal": Obj({"scaling": Obj({"y_scale": Number(above=0)})})})
    doc = {"internal": {"scaling": {"y_scale": math.nan}}}
    assert (
        refused(doc, nested)
        == "f.json: internal.scaling.y_scale must be a finite number above 0, not nan"
    )


def test_nullable_either_and_anything() -> None:
    check(None, Nullable(Text()), "f.json")
    assert refused(1, Nullable(Text())).endswith("must be text or null, not 1")
    shift = Either(Number(), Numbers(min_len=1))
    check(1.5, shift, "f.json")
    check([1.5, 2], shift, "f.json")
    assert refused("a", shift).endswith(
        'must be a finite number or a non-empty list of finite numbers, not "a"'
    )
    assert refused({"s": [1, "a"]}, Obj({"s": shift})).endswith('s[1] is "a"')  # the list's part
    check({"any": [{"thing": None}]}, Anything(), "f.json")


def test_nesting_depth() -> None:
    deep: list = []
    for _ in range(MAX_DEPTH):
        deep = [deep]
    assert too_deep(deep) and not too_deep(deep[0]) and not too_deep(5)
    assert (
        refused({"x": deep}, Anything())
        == f"f.json nests lists or objects more than {MAX_DEPTH} levels deep"
    )
    loop: dict = {}
    loop["self"] = loop
    assert too_deep(loop)
    with pytest.raises(InputError, match=r"^f\.json: x nests lists or objects more than 3 levels"):
        check([[[[1]]]], Anything(), "f.json", path="x", max_depth=3)
    check([[[1]]], Anything(), "f.json", max_depth=3)


def test_paths_refuse_and_shown() -> None:
    with pytest.raises(
        InputError, match=r"^f\.json: data\.x\[2\] must be a finite number, not \"a\"$"
    ):
        check("a", Number(), "f.json", path="data.x[2]")
    with pytest.raises(InputError, match=r"^f\.json: n must equal the rows$"):
        refuse("f.json", "n", "must equal the rows")
    assert refused([1, "a"], Numbers()).endswith('; [1] is "a"')
    with pytest.raises(
        InputError,
        match=r"^f\.json: data\.x must be a list of finite numbers; data\.x\[1\] is \"a\"$",
    ):
        check([1, "a"], List(Number()), "f.json", path="data.x")
    assert [shown(v) for v in (None, True, 1.0, math.nan, "ab", [1], {}, {"a": 1})] == [
        "null",
        "true",
        "1.0",
        "nan",
        '"ab"',
        "a list of 1 item",
        "{}",
        "an object",
    ]
    assert shown("x" * 100).endswith('..."')


def test_load_json(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"^checkpoint .*nowhere\.json does not exist$"):
        load_json(tmp_path / "nowhere.json", "checkpoint")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(InputError, match=r"^cannot read checkpoint .*bad\.json: Expecting"):
        load_json(bad, "checkpoint")
    bad.write_text("[" * 50_000)
    with pytest.raises(InputError, match=r"nests lists or objects too deeply to be read$"):
        load_json(bad, "checkpoint")
    bad.write_text('{"a": NaN}')
    assert math.isnan(load_json(bad, "checkpoint")["a"])


def test_the_model_schema_describes_itself() -> None:
    assert MODEL_SCHEMA.what == "a model saved by 'abcd search --json'"
    assert (
        refused([], MODEL_SCHEMA)
        == "f.json: the document must be a model saved by 'abcd search --json', not []"
    )
