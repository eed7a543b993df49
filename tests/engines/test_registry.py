"""The engine seam: one registry of engines, read by the settings, the CLI, the model file and
``auto``; an engine added in a test (a wrapper of the exact one that declares fewer
capabilities) runs a search and a prediction with no other change in the package."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from click.testing import CliRunner

from abcd_cli.api import predict, search
from abcd_cli.cli.main import main
from abcd_cli.engines import (
    engine_choices,
    engine_names,
    get_engine,
    register_engine,
    unregister_engine,
)
from abcd_cli.engines.base import Capabilities, Cost, Engine, NLLBounds
from abcd_cli.engines.exact import ExactEngine, negative_log_likelihood, nll_and_grad
from abcd_cli.engines.exact_posterior import ExactPosterior
from abcd_cli.engines.inducing import InducingState
from abcd_cli.engines.sparse import SparseEngine
from abcd_cli.errors import InputError
from abcd_cli.found import read_model
from abcd_cli.kernel_search.engine_choice import resolve
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.text import parse_kernel

#: A skc model file as version 0.1.0 wrote it (before engines kept their state in an object of
#: their own): 40 points, m = 8, its inducing inputs in the record.
OLD_SKC_FILE = Path(__file__).parent / "data" / "skc_model_0_1_0.json"


@dataclass(frozen=True)
class TinyEngine(Engine):
    """The exact likelihood and posterior, declaring no analytic gradient: the base class
    differences ``objective_value``. Counts its likelihoods to show the search used it."""

    name: ClassVar[str] = "tiny"
    capabilities: ClassVar[Capabilities] = Capabilities(gradients=False)
    calls: ClassVar[list[int]] = []

    def objective_value(
        self, kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool = False
    ) -> float:
        TinyEngine.calls.append(1)
        return negative_log_likelihood(kernel, X, y, constant_mean)

    def score(
        self,
        kernel: Kernel,
        X: np.ndarray,
        y: np.ndarray,
        constant_mean: bool = False,
        objective: float | None = None,
    ) -> NLLBounds:
        if objective is None:
            objective = self.objective_value(kernel, X, y, constant_mean)
        return NLLBounds.exact(objective)

    def posterior(
        self, kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool = False
    ) -> ExactPosterior:
        return ExactPosterior(kernel, X, y, constant_mean)

    def cost(self, n: int, kernel: Kernel | None = None) -> Cost:
        return ExactEngine().cost(n, kernel)

    def check_size(self, n: int, evaluations_per_level: float) -> None:
        ExactEngine().check_size(n, evaluations_per_level)


@pytest.fixture
def tiny() -> Iterator[str]:
    register_engine("tiny", TinyEngine)
    TinyEngine.calls.clear()
    yield "tiny"
    unregister_engine("tiny")


def series() -> tuple[np.ndarray, np.ndarray]:
    x = np.arange(30.0) / 3.0
    y = np.sin(1.7 * x) + 0.2 * np.random.default_rng(5).standard_normal(x.size)
    return x, y


def test_a_registered_engine_is_among_the_choices_and_is_built_by_name(tiny):
    assert tiny in engine_names() and tiny in engine_choices()
    assert isinstance(get_engine(tiny), TinyEngine)
    settings, engine = resolve(SearchSettings(engine=tiny), 30)
    assert isinstance(engine, TinyEngine) and settings.engine == tiny and settings.inducing is None


@dataclass(frozen=True)
class SparseVariant(SparseEngine):
    """skc under another name: what it does comes with its class, not its name."""

    name: ClassVar[str] = "skc-variant"


def test_an_engine_is_built_by_its_own_class_whatever_its_name():
    register_engine(SparseVariant.name, SparseVariant)
    try:
        settings, engine = resolve(
            SearchSettings(engine=SparseVariant.name, inducing=7, seed=3), 50
        )
    finally:
        unregister_engine(SparseVariant.name)
    assert type(engine) is SparseVariant and (engine.m, engine.seed) == (7, 3)
    assert (settings.engine, settings.inducing) == (SparseVariant.name, 7)
    assert not engine.capabilities.exact_likelihood and engine.capabilities.finalist_intervals


def test_a_registered_engine_runs_a_search_and_a_prediction(tiny, tmp_path):
    x, y = series()
    found = search(x=x, y=y, depth=1, engine=tiny, restarts=1)
    assert isinstance(found.model.engine, TinyEngine) and TinyEngine.calls
    assert found.settings["engine"] == tiny
    path = found.save(tmp_path / "tiny.json")
    assert json.loads(path.read_text())["engine"] == {"name": tiny}
    x_new = np.array([2.5, 11.0])
    again = predict(path, x_new)  # read back through the registry
    mean, sd = found.model.predict(x_new)
    np.testing.assert_allclose(again["mean"], mean, rtol=1e-12)
    np.testing.assert_allclose(again["sd"], sd, rtol=1e-12)
    assert read_model(path).model.bic_interval == (found.model.bic, found.model.bic)


def test_a_gradient_differenced_from_the_value_matches_the_analytic_one():
    kernel = parse_kernel("SE(lengthscale=1.5, sd=1.0) + WN(sd=0.3)")
    x, y = series()
    theta = kernel.theta()
    value, grad = TinyEngine().objective(theta, kernel, x[:, None], y)
    exact_value, exact_grad = nll_and_grad(theta, kernel, x[:, None], y)
    assert value == pytest.approx(exact_value, rel=1e-12)
    np.testing.assert_allclose(grad, exact_grad, rtol=1e-6, atol=1e-6)


def test_an_unknown_engine_is_refused_in_one_line_listing_the_registry(tiny, tmp_path):
    data = tmp_path / "s.csv"
    data.write_text("t,y\n" + "".join(f"{t},{v}\n" for t, v in zip(*series(), strict=True)))
    result = CliRunner().invoke(main, ["search", str(data), "--engine", "gpu", "--depth", "1"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert lines == ["Error: unknown engine 'gpu' (choose from auto, exact, skc, statespace, tiny)"]
    with pytest.raises(InputError, match="choose from auto, exact, skc, statespace, tiny"):
        SearchSettings(engine="gpu")


def test_a_model_file_of_an_unknown_engine_lists_the_registrys_names(tiny, tmp_path):
    d = json.loads(OLD_SKC_FILE.read_text())
    d["engine"] = {"name": "gpu"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(d))
    with pytest.raises(InputError, match='engine.name must be one of .*"statespace", "tiny"'):
        read_model(bad)


def test_registering_a_taken_name_or_forgetting_a_built_in_engine_is_refused():
    with pytest.raises(ValueError, match="taken"):
        register_engine("exact", TinyEngine)
    with pytest.raises(ValueError, match="taken"):
        register_engine("auto", TinyEngine)
    with pytest.raises(ValueError, match="built in"):
        unregister_engine("skc")


def test_a_model_file_of_version_0_1_0_loads_with_its_inducing_inputs(tmp_path):
    path = tmp_path / "old.json"
    shutil.copy(OLD_SKC_FILE, path)
    old = json.loads(path.read_text())
    found = read_model(path)
    state = found.model.engine_state
    assert isinstance(state, InducingState)
    np.testing.assert_array_equal(state.inducing_x, old["engine"]["inducing_x"])
    z = found.model.scaling.x_in(np.asarray(old["engine"]["inducing_x"]))
    np.testing.assert_array_equal(found.model.posterior.Z[:, 0], z)  # conditions through them
    written = found.model.to_dict()
    assert written["engine"] == old["engine"]  # the same record, to the last bit
    assert written["bic_interval"] == old["bic_interval"]
    assert np.all(np.isfinite(predict(path, np.array([1.0, 12.0]))["mean"]))
