"""The method "smc" through the seam: its settings are search settings (the command line, the
estimator, the settings file), and its particles are the result record that the report,
predict, the model file and update read."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import abcd_cli
from abcd_cli.cli.main import main
from abcd_cli.kernel_search.posterior import StructurePosterior
from abcd_cli.kernel_search.settings import SMC_FIELDS, SearchSettings
from abcd_cli.kernel_search.smc import Particles, SMCSettings
from abcd_cli.kernel_search.smc_method import particle_record
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.reporting.certainty import SHOWN_STRUCTURES, SHOWN_WEIGHT
from abcd_cli.sklearn import AbcdRegressor

#: A sampler small enough for a test: 4 particles, the data in two steps.
TINY = {"particles": 4, "data_steps": 2, "first_points": 20, "structure_moves": 1}
X = np.linspace(2000.0, 2010.0, 50)
Y = np.sin(2.0 * X) + 0.1 * (X - 2000.0) + 0.2 * np.random.default_rng(3).standard_normal(50)


@pytest.fixture(scope="module")
def sampled():
    return abcd_cli.search(x=X, y=Y, method="smc", parameter_moves=2, **TINY)


def test_the_samplers_settings_are_search_settings():
    settings = SearchSettings(method="smc", particles=8, data_steps=3, parameter_moves=0)
    assert SMCSettings.of(settings) == SMCSettings(8, 3, 10, 5, 0)
    saved = settings.to_dict()  # what the model file and every checkpoint's header hold
    assert {name: saved[name] for name in SMC_FIELDS} == {
        "particles": 8, "data_steps": 3, "first_points": 10, "structure_moves": 5,
        "parameter_moves": 0,
    }  # fmt: skip
    assert not set(SMC_FIELDS) & set(SearchSettings().to_dict())  # greedy's files as before
    with pytest.raises(abcd_cli.InputError, match="particles"):
        SearchSettings(method="smc", particles=1)
    assert AbcdRegressor(particles=8).get_params()["particles"] == 8


def test_the_command_line_takes_the_samplers_options_only_with_its_method(tmp_path):
    csv = tmp_path / "s.csv"
    csv.write_text("x,y\n" + "".join(f"{a},{b}\n" for a, b in zip(X, Y, strict=True)))
    args = ["search", str(csv), "--depth", "1", "--restarts", "1", "--json", str(tmp_path / "m")]
    refused = CliRunner().invoke(main, [*args, "--particles", "4"])
    assert refused.exit_code == 2
    assert refused.output.strip() == "Error: --particles only applies with --method smc"
    options = [f"--{k.replace('_', '-')}={v}" for k, v in TINY.items()]
    unread = CliRunner().invoke(main, [*args, "--method", "smc", *options, "--quiet"])
    assert unread.exit_code == 2  # the greedy search's --depth and --restarts
    assert unread.output.startswith("Error: --method smc does not read --depth, --restarts:")
    sampler = [*args[:2], *args[-2:], "--method", "smc", *options, "--quiet"]
    ran = CliRunner().invoke(main, sampler)
    assert ran.exit_code == 0, ran.output
    saved = json.loads((tmp_path / "m").read_text())
    assert saved["settings"]["particles"] == 4 and saved["settings"]["method"] == "smc"


def test_particles_are_grouped_by_tree_with_their_own_weights():
    a = parse_kernel("SE(lengthscale=1.0, sd=1.0) + WN(sd=0.1)")
    b = parse_kernel("Per(lengthscale=1.0, period=2.0, sd=1.0) + WN(sd=0.1)")
    moved = a.with_theta(a.theta() + 0.5)
    weights = np.array([0.2, 0.3, 0.5])
    record = particle_record(Particles([moved, b, a], weights, 0.0, 0.1))
    assert [s.kernel for s in record.structures] == [a, b]
    np.testing.assert_allclose(record.weights, [0.7, 0.3])
    assert [w for _, _, w in record.particles()] == pytest.approx([0.5, 0.2, 0.3])
    back = StructurePosterior.from_dict(json.loads(json.dumps(record.to_dict())))
    assert [w for _, _, w in back.particles()] == pytest.approx([0.5, 0.2, 0.3])
    assert not record.is_single


def test_the_samplers_particles_go_through_report_predict_model_file_and_update(sampled, tmp_path):
    record = sampled.posterior
    assert record.particle_count == TINY["particles"] and not record.is_single
    assert sampled.model.kernel == record.best.kernel  # the most probable particle
    report = abcd_cli.report(sampled)
    listed = report["posterior"]["structures"]
    shown = [w for w in record.weights if w >= SHOWN_WEIGHT][:SHOWN_STRUCTURES]
    assert listed and [s["weight"] for s in listed] == pytest.approx(shown)
    new = np.array([2010.5, 2011.0])
    table = abcd_cli.predict(sampled, new)
    assert f"mixture of {record.structure_count} structures" in table.attrs["mixture"]
    path = tmp_path / "smc.json"
    sampled.save(path)
    back = abcd_cli.read_model(path)
    pd.testing.assert_frame_equal(abcd_cli.predict(back, new), table)
    assert abcd_cli.report(back) == report
    updated = abcd_cli.update(path, (np.array([2010.2, 2010.4]), np.array([1.0, 1.1])))
    assert updated.n == X.size + 2 and not updated.posterior.is_single


def test_the_halves_disagreement_is_in_the_notes_the_json_report_and_the_model(sampled):
    halves = sampled.posterior.halves
    assert halves is not None and halves.particles == (2, 2)
    saved = sampled.to_dict()
    assert saved["posterior"]["halves"] == halves.to_dict()
    stated = [n for n in saved["notes"] if n.startswith("two independent halves of the sampler")]
    assert len(stated) == 1
    assert f"total variation of {halves.structures_tv:.2f}" in stated[0]
    report = abcd_cli.report(sampled)  # the JSON report
    assert report["model"]["posterior"]["halves"] == halves.to_dict()
    assert stated[0] in report["model"]["notes"]


def test_one_seed_gives_one_sample(sampled):
    again = abcd_cli.search(x=X, y=Y, method="smc", parameter_moves=2, **TINY)
    assert again.to_dict()["posterior"] == sampled.to_dict()["posterior"]


def test_the_samplers_report_says_how_the_sampler_weighed_not_the_pools_words(sampled):
    """The posterior page of a sampler's report read 'The search kept the nine structures of
    lowest BIC and weighed each by its evidence ... from a Laplace approximation', which is
    how the pool is weighed, not the sampler."""
    report = abcd_cli.report(sampled)
    page = " ".join(report["posterior"]["text"])
    assert "Laplace" not in page and "lowest BIC" not in page
    assert page.startswith(f"The sampler (sequential Monte Carlo) moved {TINY['particles']}")
    assert f"added in {TINY['data_steps']} steps" in page
    assert report["summary"]["certainty"].startswith("The sampler's particles hold")
