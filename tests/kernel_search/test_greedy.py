"""The search recovers known structure from synthetic draws, is deterministic across worker
counts, and resumes from a checkpoint to the same result."""

from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner

from abcd_cli.api import search_settings
from abcd_cli.cli.main import main
from abcd_cli.data.scaling import Scaling
from abcd_cli.data.summary import DataSummary
from abcd_cli.errors import InputError
from abcd_cli.kernel_search.grammar import LANGUAGES, expand
from abcd_cli.kernel_search.greedy import Search
from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.init import invalid_reason, value_bounds
from abcd_cli.kernel_search.scoring import best_per_family
from abcd_cli.kernel_search.search_data import subset_rows
from abcd_cli.kernel_search.settings import SearchSettings, prior_mean_warning
from abcd_cli.kernels import CP, CW, WN, C, Lin, Per
from abcd_cli.kernels.algebra import carries_scale, sum_of_products
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import seed_models
from abcd_cli.reporting.search_notes import search_notes
from tests.sampling import gp_draw

X = np.linspace(2000.0, 2010.0, 120)  # ten "years", twelve points a year


def draw(text: str, seed: int, x: np.ndarray = X) -> np.ndarray:
    """One sample of y at x from the GP with the kernel written in ``text``."""
    K = parse_kernel(text).gram(x)
    rng = np.random.default_rng(seed)
    return gp_draw(K, rng) + 50.0


SMALL = SearchSettings(depth=4, restarts=5, seed=1, patience=1)


def periods(kernel) -> list[float]:
    return sorted(b.param("period") for b in kernel.bases() if isinstance(b, Per))


def test_trend_plus_period():
    y = draw(
        "SE(lengthscale=4.0, sd=3.0) + Per(lengthscale=1.5, period=1.0, sd=1.0) + WN(sd=0.2)", 1
    )
    k = run_search(X, y, SMALL).model.user_kernel
    assert any(p == pytest.approx(1.0, rel=0.05) for p in periods(k)), k.to_text(digits=3)
    assert any(b.symbol in ("SE", "Lin", "RQ") for b in k.bases())


def test_period_with_growing_amplitude():
    y = draw(
        "Lin(sd=0.4, location=1998.0) * Per(lengthscale=2.0, period=1.0, sd=1.0) + WN(sd=0.2)", 2
    )
    k = run_search(X, y, SMALL).model.user_kernel
    terms = sum_of_products(k)
    grown = [t for t in terms if {"Per", "Lin"} <= {b.symbol for b in t.bases()}]
    assert grown, k.to_text(digits=3)
    assert any(p == pytest.approx(1.0, rel=0.05) for p in periods(k))


def test_changepoint():
    y = draw(
        "CP(SE(lengthscale=1.0, sd=0.2), SE(lengthscale=1.0, sd=3.0), location=2005.0, steepness=0.05)"
        " + WN(sd=0.1)",
        3,
    )
    k = run_search(X, y, SMALL).model.user_kernel
    changes = []
    stack = [k]
    while stack:
        node = stack.pop()
        if isinstance(node, (CP, CW)):
            changes.append(node)
        stack.extend(node.operands)
    assert changes, k.to_text(digits=3)
    assert any(abs(c.param("location") - 2005.0) < 1.0 for c in changes)


def test_two_periods():
    y = draw(
        "Per(lengthscale=2.0, period=1.0, sd=1.0) + Per(lengthscale=2.0, period=3.3, sd=1.5) + WN(sd=0.15)",
        4,
    )
    k = run_search(X, y, SearchSettings(depth=4, restarts=5, seed=0, patience=1)).model.user_kernel
    found = periods(k)
    assert any(p == pytest.approx(1.0, rel=0.05) for p in found), k.to_text(digits=3)
    assert any(p == pytest.approx(3.3, rel=0.05) for p in found), k.to_text(digits=3)


def test_pure_noise_reports_nothing_but_noise_and_a_constant():
    y = np.random.default_rng(5).normal(10.0, 2.0, X.size)
    k = run_search(X, y, SMALL).model.user_kernel
    assert all(isinstance(b, (WN, C)) for b in k.bases()), k.to_text(digits=3)


def test_restricted_languages_stay_in_their_language():
    y = draw(
        "SE(lengthscale=2.0, sd=1.0) + Per(lengthscale=1.0, period=1.0, sd=0.5) + WN(sd=0.2)", 6
    )
    settings = {"depth": 2, "restarts": 3, "seed": 0}
    allowed = {
        "se": {"SE", "WN"},
        "linear": {"C", "Lin", "WN"},
        "mkl": {"SE", "WN"},
        "tci": {"SE", "Per", "WN"},
        "spectral": {"SE", "Cos", "WN"},
        "changepoint": {"SE", "WN"},
    }
    for language, symbols in allowed.items():
        k = run_search(X, y, SearchSettings(language=language, **settings)).model.kernel
        assert {b.symbol for b in k.bases()} <= symbols, (language, k.structure)


def test_the_search_adds_only_the_base_kernels_it_is_given(tmp_path) -> None:
    """--bases SE,RQ (the thesis's search for tables): the grammar's children and every
    level's best are built from SE and RQ on the white-noise start (C only where an operator
    puts one), and the setting is recorded."""
    y = draw("SE(lengthscale=2.0, sd=1.0) + Per(lengthscale=1.0, period=1.0, sd=0.5)", 8)
    children = expand(WN(), LANGUAGES["abcd"], bases=("SE", "RQ"))
    assert {b.symbol for k in children for b in k.bases()} == {"SE", "RQ", "WN", "C"}
    assert {"SE + WN", "RQ + WN"} <= {k.structure for k in children}
    assert "C + WN" not in {k.structure for k in children}
    data, out = tmp_path / "d.csv", tmp_path / "m.json"
    data.write_text("x,y\n" + "".join(f"{a},{b}\n" for a, b in zip(X, y, strict=True)))
    args = ["search", str(data), "--bases", "SE,RQ", "--depth", "2", "--restarts", "2"]
    result = CliRunner().invoke(main, [*args, "--jobs", "1", "--quiet", "--json", str(out)])
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["settings"]["bases"] == ["SE", "RQ"]
    assert search_settings({"bases": "SE, RQ"}).bases == ("SE", "RQ")  # the API takes both forms
    assert search_settings({"bases": ["SE", "RQ"]}).bases == ("SE", "RQ")
    for level in doc["trace"]:
        kernel = parse_kernel(level["structure"])
        assert {b.symbol for b in kernel.bases()} <= {"SE", "RQ", "WN", "C"}, level


def _result_json(result) -> dict:
    d = result.to_dict()
    d.pop("elapsed_seconds")
    for level in d["trace"]:
        level.pop("elapsed_seconds", None)
    return d


def test_same_seed_same_result_serial_and_parallel():
    y = draw(
        "SE(lengthscale=2.0, sd=1.0) + Per(lengthscale=1.0, period=1.0, sd=0.5) + WN(sd=0.2)", 7
    )
    settings = SearchSettings(depth=2, restarts=3, seed=3)
    serial = run_search(X, y, settings)
    with ProcessPoolExecutor(max_workers=2) as pool:
        parallel = run_search(X, y, settings, executor=pool)
    assert json.dumps(_result_json(serial)) == json.dumps(_result_json(parallel))


def test_resume_reaches_the_same_result(tmp_path):
    y = draw(
        "SE(lengthscale=2.0, sd=1.0) + Per(lengthscale=1.0, period=1.0, sd=0.5) + WN(sd=0.2)", 8
    )
    settings = SearchSettings(depth=3, restarts=3, seed=2, patience=0)
    whole = run_search(X, y, settings)
    ckpt = tmp_path / "state.json"
    first = Search(X, y, settings, checkpoint=ckpt)
    first.step()
    first.step()  # "interrupted" after level 1
    assert json.loads(ckpt.read_text())["level"] == 1
    resumed = run_search(X, y, settings, checkpoint=ckpt, resume=True)
    assert json.dumps(_result_json(resumed)) == json.dumps(_result_json(whole))


def test_long_series_use_a_subset_and_say_so():
    x = np.linspace(0.0, 50.0, 400)
    y = draw("SE(lengthscale=5.0, sd=1.0) + WN(sd=0.3)", 9, x)
    result = run_search(x, y, SearchSettings(depth=1, restarts=2, subset_size=100))
    notes = search_notes(result)
    assert notes and "100 of 400" in notes[0]
    assert result.model.n == 400


def test_invalid_models_are_rejected():
    s = DataSummary.from_data(X, np.sin(X))
    too_short = Per((1.0, 0.5 * (X[1] - X[0]), 1.0)) + WN((0.1,))
    assert "period" in invalid_reason(too_short, s)
    outside = CP(Lin((1.0, 2000.0)), WN((0.1,)), (2020.0, 0.1))
    assert "outside" in invalid_reason(outside, s)
    assert invalid_reason(Per((1.0, 1.0, 1.0)) + WN((0.1,)), s) == ""


def test_the_subset_keeps_neighbours_and_the_whole_range():
    idx = subset_rows(1000, 250)
    assert idx.size == 250 and idx[0] == 0 and idx[-1] == 999
    gaps = np.diff(idx)
    assert np.sum(gaps == 1) >= 125  # every pair is two neighbouring samples
    assert gaps.max() <= 2 * 1000 / 125  # and the pairs cover the series evenly
    assert np.array_equal(subset_rows(200, 250), np.arange(200))


def test_long_series_start_periods_from_the_whole_spectrum():
    """The subset's uneven spacing aliases its periodogram (monthly data thinned to pairs shows
    spurious periods near 0.27); candidates must start from the full series' peaks."""
    x = 1948.0 + np.arange(408) / 12.0
    rng = np.random.default_rng(0)
    y = (
        20.0 * np.sin(2 * np.pi * x)
        + 10.0 * np.sin(4 * np.pi * x)
        + 100.0 * np.sin(2 * np.pi * x / 9.0)
        + rng.normal(0.0, 5.0, x.size)
    )
    search = Search(x, y, SearchSettings())
    assert search.data.subset is not None
    years = np.std(x)  # internal units of x are standard deviations
    starts = [p * years for p in search.data.fit_summary.for_dim(0).periods]
    assert any(p == pytest.approx(1.0, rel=0.01) for p in starts[:3]), starts
    assert min(starts) > 0.4, starts  # nothing shorter than the half-year harmonic is real


def test_graft_keeps_inherited_values_and_takes_new_ones_from_the_subset_fit():
    from abcd_cli.kernel_search.candidate import graft

    # SE and WN inherited, Per's period new (unknown): lengthscale, sd / lengthscale, period, sd / sd
    child = parse_kernel("SE + Per + WN").with_values([2.0, 1.0, 1.0, np.nan, 0.5, 0.1])
    subset_fit = parse_kernel(
        "SE(lengthscale=9.0, sd=3.0) + Per(lengthscale=1.5, period=0.7, sd=0.4) + WN(sd=0.2)"
    )
    grafted = graft(child, subset_fit)
    assert grafted.is_fitted
    assert grafted == parse_kernel(
        "SE(lengthscale=2.0, sd=1.0) + Per(lengthscale=1.0, period=0.7, sd=0.5) + WN(sd=0.1)"
    )


def test_a_period_at_a_multiple_of_a_periodogram_peak_is_also_started_at_the_peak():
    from abcd_cli.data.summary import InputSummaries
    from abcd_cli.kernel_search.candidate import harmonic_starts
    from abcd_cli.kernel_search.fit import fit

    rng = np.random.default_rng(1)
    x = np.arange(0.0, 300.0, 0.5)
    y = np.sin(2 * np.pi * x / 7) + 0.5 * np.cos(4 * np.pi * x / 7) + rng.normal(0, 0.3, x.size)
    X = x[:, None]
    summary = InputSummaries.from_data(X, y)
    assert summary.for_dim(0).periods[0] == pytest.approx(7.0, rel=0.01)
    trapped = parse_kernel("Per(lengthscale=0.5, period=21.3, sd=1) + WN(sd=0.5)")
    (moved,) = harmonic_starts(trapped, summary)  # 21.3 is within 3% of 3 × 7.0
    assert moved.values()[1] == summary.for_dim(0).periods[0]
    np.testing.assert_array_equal(np.delete(moved.values(), 1), np.delete(trapped.values(), 1))
    # at a peak itself, or not within 3% of a multiple of one: no other start
    for period in (7.05, 10.0, 16.0):
        assert harmonic_starts(trapped.with_values([0.5, period, 1, 0.5]), summary) == ()
    assert harmonic_starts(parse_kernel("SE(lengthscale=1, sd=1)"), summary) == ()
    # a stronger short peak (a daily cycle) is not the one 21 is a multiple of: 21 × 1 is no harmonic
    daily_first = InputSummaries((replace(summary.for_dim(0), periods=(1.0, 7.0)),))
    (moved,) = harmonic_starts(trapped, daily_first)
    assert moved.values()[1] == 7.0
    # the trap is real: from 21 the optimiser does not find 7; from the moved start it does
    alone = fit(trapped, X, y, np.random.default_rng(0), restarts=1, summary=summary)
    helped = fit(trapped, X, y, np.random.default_rng(0), 1, summary, also_from=(moved,), polish=1)
    assert alone.kernel.values()[1] != pytest.approx(7.0, rel=0.05)
    assert helped.kernel.values()[1] == pytest.approx(7.0, rel=0.01)
    assert helped.nll < alone.nll - 10


def test_a_fit_starts_from_the_likeliest_of_its_alternatives():
    from abcd_cli.engines.exact import negative_log_likelihood
    from abcd_cli.kernel_search.candidate import FitTask, fit_candidate

    x = np.linspace(0.0, 10.0, 80)
    y = draw("SE(lengthscale=2.0, sd=1.0) + WN(sd=0.1)", 5, x) - 50.0
    good = parse_kernel("SE(lengthscale=2.0, sd=1.0) + WN(sd=0.1)")
    bad = parse_kernel("SE(lengthscale=0.05, sd=30.0) + WN(sd=20.0)")
    s = DataSummary.from_data(x, y)
    task = FitTask(bad, x[:, None], y, s, s, 1, 1, 1, (0,), (good,))
    result = fit_candidate(task)
    assert result.status == "ok"
    assert result.nll <= negative_log_likelihood(good, x, y) + 1e-9
    alone = fit_candidate(FitTask(bad, x[:, None], y, s, s, 1, 1, 1, (0,)))
    assert alone.nll > result.nll


def test_the_beam_narrows_to_one_model_after_beam_levels():
    y = draw("SE(lengthscale=2.0, sd=1.0) + WN(sd=0.2)", 10)
    settings = SearchSettings(depth=3, restarts=2, seed=4, beam=2, beam_levels=1, patience=0)
    search = Search(X, y, settings)
    kept = []
    while search.step():
        kept.append(len(search.parents))
    assert kept == [1, 2, 1, 1]  # level 0 has one model (WN); level 1 keeps two; then one
    assert settings.beam_at(1) == 2 and settings.beam_at(2) == 1
    assert SearchSettings(beam=3, beam_levels=0).beam_at(9) == 3  # 0: every level


def test_finalists_are_chosen_within_each_kept_models_children():
    from abcd_cli.kernel_search.candidate import Candidate

    y = draw("SE(lengthscale=2.0, sd=1.0) + WN(sd=0.2)", 11)
    search = Search(X, y, SearchSettings(depth=1, restarts=2))
    kernel = parse_kernel("SE(lengthscale=1.0, sd=1.0) + WN(sd=0.1)")
    nlls = [5.0, 1.0, 2.0, 9.0, 8.0, 3.0]  # family 1 (positions 3-5) scores worse throughout
    results = {j: Candidate(kernel, nll, "ok") for j, nll in enumerate(nlls)}
    results[5] = Candidate(kernel, 0.0, "failed")
    family_of = [0, 0, 0, 1, 1, 1]
    scorer, n = search.data.scorer, search.data.Y_fit.size
    assert best_per_family(scorer, results, family_of, 2, n) == [1, 2, 4, 3]
    assert best_per_family(scorer, results, family_of, 1, n) == [1, 4]


def test_interpretable_children_can_all_be_written_in_the_units_of_y():
    # The interpolation search of 07-call-centre with --interpretable failed at level 9: a removal
    # rule left a lone gate summand (no sd), which cannot be converted to the units of y.
    parent = parse_kernel("After * C + Before * Lin + Outside * SE + SE + WN")
    children = expand(parent, LANGUAGES["abcd"], interpretable=True)
    assert children
    scaling = Scaling.from_data(X, draw("SE(lengthscale=2.0, sd=1.0) + WN(sd=0.2)", 3) * 40.0)
    for child in children:
        assert carries_scale(child), child.structure
        fitted = child.with_values(np.ones(child.n_params))
        scaling.kernel_out(fitted)  # raised ValueError for a lone gate before


def test_zero_prior_mean_puts_the_level_in_a_constant():
    # a level about 3800 times the spread (solar's is 3500): only a constant far beyond the
    # spread of y can carry it, and the forecast far away returns to that level, not to zero
    rng = np.random.default_rng(11)
    y = 1361.0 + 0.5 * np.sin(X) + 0.05 * rng.standard_normal(X.size)
    result = run_search(X, y, SearchSettings(depth=2, restarts=3, prior_mean="zero"))
    model = result.model
    assert model.scaling.y_shift == 0.0
    fitted, _ = model.predict(X)
    assert np.sqrt(np.mean((fitted - y) ** 2)) < 0.2
    far, _ = model.predict(np.array([2200.0]))
    assert far[0] == pytest.approx(1361.0, rel=0.01)
    assert result.settings.to_dict()["prior_mean"] == "zero"


def test_a_zero_prior_mean_far_from_the_data_is_warned_about(tmp_path):
    near = 3.0 + np.sin(X)  # about 4 spreads from zero, as the benchmark's series
    far = 1e3 + np.sin(X)  # 1420 spreads (sd 0.70): a constant fits this level poorly
    zero, data = SearchSettings(prior_mean="zero"), SearchSettings()
    assert prior_mean_warning(near, zero) is None
    assert prior_mean_warning(far, data) is None
    assert prior_mean_warning(far, SearchSettings(prior_mean="constant")) is None
    message = prior_mean_warning(far, zero)
    assert message and "1.42e+03 standard deviations from zero" in message
    path = tmp_path / "far.csv"
    path.write_text("x,y\n" + "".join(f"{a},{b}\n" for a, b in zip(X, far, strict=True)))
    args = ["search", str(path), "--depth", "1", "--restarts", "1", "--jobs", "1", "--quiet"]
    result = CliRunner().invoke(main, [*args, "--prior-mean", "zero"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [f"Warning: {message}"]
    assert CliRunner().invoke(main, args).stderr == ""


def test_a_constant_may_reach_ten_times_the_level_of_an_uncentred_series():
    y = draw("SE(lengthscale=2.0, sd=1.0) + WN(sd=0.2)", 12)
    centred = DataSummary.from_data(X, Scaling.from_data(X, y).y_in(y))
    assert value_bounds("C", "sd", centred) == (1e-4 * centred.y_sd, 1e3 * centred.y_sd)
    far = replace(centred, y_level=4000.0 * centred.y_sd)  # as far out as solar (3500 spreads)
    assert value_bounds("C", "sd", far)[1] == pytest.approx(4e4 * centred.y_sd)
    assert value_bounds("SE", "sd", far) == value_bounds("SE", "sd", centred)


def test_an_unknown_prior_mean_is_refused():
    with pytest.raises(InputError, match="prior mean"):
        SearchSettings(prior_mean="median")


SEEDED = "SE(lengthscale=2.0, sd=1.0) + Per(lengthscale=1.0, period=1.0, sd=0.5) + WN(sd=0.2)"


def test_several_seeds_keep_the_search_with_the_lowest_bic_and_resume(tmp_path):
    y = draw(SEEDED, 8)
    one = SearchSettings(depth=2, restarts=1, seed=2, patience=0)
    singles = [run_search(X, y, replace(one, seed=k)) for k in (2, 3)]
    assert singles[1].model.bic < singles[0].model.bic - 1  # the second seed's search is better
    ckpt = tmp_path / "state.json"
    both = run_search(X, y, replace(one, seeds=2), checkpoint=ckpt)
    chosen = _result_json(singles[1])
    got = _result_json(both)
    for key in ("kernel", "bic", "trace", "parameters"):
        assert got[key] == chosen[key], key
    assert got["settings"] == {**chosen["settings"], "seed": 2, "seeds": 2}
    # every seed's model is kept, without a copy of the data, for abcd predict --average-seeds
    assert [(m["seed"], m["bic"]) for m in got["seed_models"]] == [
        (k, r.model.bic) for k, r in zip((2, 3), singles, strict=True)
    ]
    assert got["seed_models"][1]["kernel"] == got["kernel"] and "data" not in got["seed_models"][0]
    rebuilt = seed_models(both.to_dict())
    grid = np.linspace(X[0], X[-1] + 2.0, 7)
    assert list(rebuilt) == [2, 3]
    for model, single in zip(rebuilt.values(), singles, strict=True):
        np.testing.assert_allclose(model.predict(grid), single.model.predict(grid), rtol=1e-9)
    bics = f"2: {singles[0].model.bic:.2f}, 3: {singles[1].model.bic:.2f}"
    assert search_notes(both) == [
        f"the lowest BIC of 2 searches, by seed {bics}; the model and trace are seed 3's"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.seed2.json", "state.seed3.json"]

    # seed 3's search interrupted after its first level: resuming finishes it, redoes nothing else
    (tmp_path / "state.seed3.json").unlink()
    partial = Search(X, y, replace(one, seed=3), checkpoint=tmp_path / "state.seed3.json")
    partial.step()
    partial.step()
    lines: list[str] = []
    resumed = run_search(X, y, replace(one, seeds=2), None, lines.append, ckpt, resume=True)
    assert json.dumps(_result_json(resumed)) == json.dumps(got)
    assert lines[0] == "seed 2: resumed after level 2"
    assert lines[1] == "seed 3: resumed after level 1"
    assert [line.split(":")[1].strip().split()[1] for line in lines[2:]] == ["2/2"]


def test_search_command_with_seeds_notes_every_bic_and_leaves_no_checkpoint(tmp_path):
    path = tmp_path / "series.csv"
    y = draw(SEEDED, 8)
    path.write_text("x,y\n" + "".join(f"{a},{b}\n" for a, b in zip(X, y, strict=True)))
    out = tmp_path / "model.json"
    args = ["search", str(path), "--depth", "1", "--restarts", "1", "--jobs", "1"]
    result = CliRunner().invoke(main, [*args, "--seed", "2", "--seeds", "2", "--json", str(out)])
    assert result.exit_code == 0, result.output
    seeds = [line.split(":")[0] for line in result.stderr.splitlines()]
    assert seeds == ["seed 2", "seed 2", "seed 3", "seed 3"]  # levels 0 and 1 of each
    assert "note: the lowest BIC of 2 searches, by seed 2: " in result.stdout
    assert json.loads(out.read_text())["settings"]["seeds"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.json", "series.csv"]


def test_the_trace_keeps_each_level_s_kernel_in_full():
    """A level's kernel in the trace reads back into the fitted kernel itself (it was rounded to
    six digits, which moved a changewindow at 2010.5052 by 1.8 days on Seattle's temperatures,
    and a change below those digits changed a rerun level's winner:
    ``benchmarks/studies/outputs/text_roundtrip.md``); the last level's best is the chosen
    model here."""
    y = draw(
        "SE(lengthscale=2.0, sd=1.0) + Per(lengthscale=1.0, period=1.0, sd=0.5) + WN(sd=0.2)", 7
    )
    result = run_search(X, y, SearchSettings(depth=2, restarts=3, seed=3))
    last = result.to_dict()["trace"][-1]
    assert last["structure"] == result.model.kernel.structure
    assert parse_kernel(last["kernel"]) == result.model.user_kernel
