"""The posterior over structures (``--method posterior``): weights, failures, determinism over
executors, resumption, the model file, and mass on the structure the data were drawn from."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pytest
from scipy.stats import norm

from abcd_cli.data.summary import InputSummaries
from abcd_cli.engines import get_engine
from abcd_cli.engines.base import FAILED_NLL
from abcd_cli.errors import InputError
from abcd_cli.execution.pool import ResilientPool, SerialExecutor
from abcd_cli.fitted import FittedSearch, posterior_features
from abcd_cli.found import read_model
from abcd_cli.kernel_search.candidate import Candidate, lost_candidate
from abcd_cli.kernel_search.greedy import Search
from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.posterior import (
    HELD_DRAWS,
    LOST,
    NEGLIGIBLE,
    Weighed,
    holding,
    ranked,
)
from abcd_cli.kernel_search.scoring import Scored, Scorer
from abcd_cli.kernel_search.settings import MAX_DRAWS, SearchSettings
from abcd_cli.kernel_search.weighing import WeighTask, approximate, weigh, weigh_pool
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model
from abcd_cli.model_file import check_model_document
from abcd_cli.prediction import predictive_table
from abcd_cli.reports import report_context
from tests.kernel_search.test_greedy import X, draw

POSTERIOR = SearchSettings(depth=2, restarts=2, seed=5, patience=0, method="posterior", pool=4)
POSTERIOR = replace(POSTERIOR, draws=8)
TRUTH = "Per(lengthscale=1.0, period=1.0, sd=1.0) + WN(sd=0.3)"


@pytest.fixture(scope="module")
def y() -> np.ndarray:
    return draw(TRUTH, 11)


@pytest.fixture(scope="module")
def serial(y):
    return run_search(X, y, POSTERIOR)


def _doc(result) -> str:
    d = result.to_dict()
    d.pop("elapsed_seconds")
    for level in d["trace"]:
        level.pop("elapsed_seconds", None)
    return json.dumps(d)


def _weighed(text: str, bic: float, log_evidence: float, draws: int = 3) -> Weighed:
    kernel = parse_kernel(text)
    theta = np.tile(kernel.theta(), (draws, 1)) if math.isfinite(log_evidence) else None
    return Weighed(
        kernel, bic, log_evidence, np.zeros((0, kernel.n_params)) if theta is None else theta
    )


def test_weights_follow_the_evidence_and_a_failed_structure_gets_none():
    structures = [
        _weighed("SE(lengthscale=1.0, sd=1.0) + WN(sd=0.1)", 10.0, -5.0),
        _weighed("Per(lengthscale=1.0, period=1.0, sd=1.0) + WN(sd=0.1)", 9.0, -math.inf),
        _weighed("Lin(sd=1.0, location=0.0) + WN(sd=0.1)", 12.0, -5.0 + math.log(3.0)),
    ]
    posterior = ranked(structures, 3)
    assert posterior.weights == pytest.approx([0.75, 0.25, 0.0])
    assert [s.bic for s in posterior.structures] == [12.0, 10.0, 9.0]
    particles = list(posterior.particles())
    assert len(particles) == 6  # three draws of each structure with weight, none of the failed
    assert sum(w for *_, w in particles) == pytest.approx(1.0)
    assert all(np.isfinite(w) and w > 0 for *_, w in particles)


def test_when_every_structure_fails_the_lowest_bic_is_the_posterior_at_its_fit():
    structures = [
        _weighed("SE(lengthscale=1.0, sd=1.0) + WN(sd=0.1)", 10.0, -math.inf),
        _weighed("Lin(sd=1.0, location=0.0) + WN(sd=0.1)", 8.0, -math.inf),
    ]
    posterior = ranked(structures, 3)
    assert posterior.weights.tolist() == [1.0, 0.0]
    assert posterior.best.bic == 8.0
    ((where, kernel, weight),) = posterior.particles()
    assert weight == 1.0 and kernel.to_text() == structures[1].kernel.to_text()
    assert where == (0, 0)


class _Failing:
    """An engine whose every likelihood fails, as a structure that cannot be conditioned."""

    long_series = False

    def objective_value(self, *args, **kwargs):
        return FAILED_NLL

    def objective(self, *args, **kwargs):
        raise np.linalg.LinAlgError("not positive definite")


class _Raising(_Failing):
    """An engine whose likelihood raises, as a chain whose evaluation breaks."""

    def objective_value(self, *args, **kwargs):
        raise np.linalg.LinAlgError("not positive definite")


def test_a_structure_that_fails_is_a_result_not_an_exception():
    kernel = parse_kernel("SE(lengthscale=1.0, sd=1.0) + WN(sd=0.1)")
    x = np.linspace(0.0, 1.0, 20)[:, None]
    task = WeighTask(
        kernel, x, np.sin(x[:, 0]), InputSummaries.from_data(x, np.sin(x[:, 0])), 4, (1, 2),
        False, _Failing(),
    )  # fmt: skip
    assert "LinAlgError" in approximate(task)  # the first round: its Laplace approximation
    good = approximate(replace(task, engine=get_engine("exact")))
    log_evidence, theta, _, _, failure, _ = weigh(replace(task, approx=good, engine=_Raising()))
    assert log_evidence == -math.inf and theta.shape == (0, 3) and "LinAlgError" in failure


class _LosingExecutor(SerialExecutor):
    """Gives the executor's record of a lost worker (a fit's) for the second task of the
    weighing's first round."""

    def map(self, fn, *iterables, timeout=None, chunksize=1):
        for i, result in enumerate(map(fn, *iterables)):
            lost = i == 1 and fn is approximate
            yield Candidate(parse_kernel("WN(sd=1.0)"), FAILED_NLL, "failed") if lost else result


def test_a_lost_worker_costs_its_structure_only(y, serial):
    search = Search(X, y, POSTERIOR)
    data = search.data
    scored = [Scored(w.kernel, 0.0, w.bic) for w in serial.posterior.structures[:3]]
    posterior = weigh_pool(
        scored, data.X, data.Y, data.full_summary, Scorer(data.scaling, False), 5, 4,
        search.engine, _LosingExecutor(),
    )  # fmt: skip
    lost = [s for s in posterior.structures if s.failure]
    assert len(lost) == 1 and "died" in lost[0].failure and lost[0].theta.shape[0] == 0
    assert posterior.weights.sum() == pytest.approx(1.0) and np.all(np.isfinite(posterior.weights))


def test_the_smallest_set_holding_a_mass_takes_the_largest_weights_first():
    assert holding(np.array([0.6, 0.3996, 0.0004]), 1.0 - NEGLIGIBLE) == 2
    assert holding(np.array([0.3, 0.7, 0.0]), 0.5) == 1  # the largest alone holds it
    assert holding(np.array([0.5, 0.5]), 1.0) == 2
    assert holding(np.array([0.0, 0.0]), 0.5) == 1  # nothing holds weight: one is taken


def test_a_structure_of_negligible_laplace_weight_gets_no_chain(y):
    """The chains go to the smallest set of structures holding 1 − NEGLIGIBLE of the weight
    their Laplace evidences give; the rest keep that evidence and no draws."""
    search = Search(X, y, POSTERIOR)
    data = search.data
    texts = [TRUTH, "Lin(sd=1.0, location=0.0) + WN(sd=1.0)", "C(sd=1.0) + WN(sd=1.0)"]
    scored = [Scored(data.scaling.kernel_in(parse_kernel(t)), 0.0, 0.0) for t in texts]
    posterior = weigh_pool(
        scored, data.X, data.Y, data.full_summary, Scorer(data.scaling, False), 5, 4,
        search.engine, SerialExecutor(),
    )  # fmt: skip
    by_structure = {s.kernel.structure: s for s in posterior.structures}
    truth = by_structure[parse_kernel(TRUTH).structure]
    assert truth.theta.shape[0] == 4 and truth.acceptance > 0  # chained
    others = [s for s in posterior.structures if s is not truth]
    assert all(s.theta.shape[0] == 0 and not s.failure for s in others)  # no chain, no failure
    assert all(s.log_evidence == s.laplace_evidence for s in others)
    laplace = np.array([s.laplace_evidence for s in posterior.structures])
    left_out = sum(np.exp(s.laplace_evidence - laplace.max()) for s in others)
    assert left_out / np.exp(laplace - laplace.max()).sum() <= NEGLIGIBLE


def test_a_worker_lost_in_the_laplace_round_leaves_the_chains_to_the_resumed_weighing(y):
    """The true structure's worker dies in the first round: had the two others been decided
    without its evidence, one would have got a chain that one run never gives it. Only the
    lost structure is saved, and the weighing resumed from what was saved is one run's."""
    search = Search(X, y, POSTERIOR)
    data = search.data
    texts = [TRUTH, "Lin(sd=1.0, location=0.0) + WN(sd=1.0)", "C(sd=1.0) + WN(sd=1.0)"]
    pool = [Scored(data.scaling.kernel_in(parse_kernel(t)), 0.0, 0.0) for t in texts]
    args = (pool, data.X, data.Y, data.full_summary, Scorer(data.scaling, False), 5, 4)

    class LosingFirst(SerialExecutor):
        def map(self, fn, *iterables, timeout=None, chunksize=1):
            for i, result in enumerate(map(fn, *iterables)):
                lost = i == 0 and fn is approximate
                yield (
                    Candidate(parse_kernel("WN(sd=1.0)"), FAILED_NLL, "failed") if lost else result
                )

    saved: dict[str, Weighed] = {}
    weigh_pool(
        *args, search.engine, LosingFirst(), on_weighed=lambda k, w, *_: saved.update({k: w})
    )
    assert [w.lost for w in saved.values()] == [True]
    kept = {k: w for k, w in saved.items() if not w.lost}
    resumed = weigh_pool(*args, search.engine, SerialExecutor(), done=kept)
    once = weigh_pool(*args, search.engine, SerialExecutor())
    assert [s.theta.shape[0] for s in resumed.structures] == [4, 0, 0]
    assert [s.to_dict() for s in resumed.structures] == [s.to_dict() for s in once.structures]


def test_the_posterior_of_one_seed_is_the_same_serial_and_on_a_pool(y, serial):
    pool = ResilientPool(2, lost_candidate)  # the command line's process pool
    try:
        parallel = run_search(X, y, POSTERIOR, executor=pool)
    finally:
        pool.shutdown()
    assert _doc(parallel) == _doc(serial)


def test_resuming_while_structures_are_weighed_gives_the_same_particles(y, serial, tmp_path):
    ckpt = tmp_path / "state.json"
    weighed = []

    def stop_after_two(event):
        if event.kind == "fit" and event.stage == "weigh":
            weighed.append(event.done)
            if event.done == 2:
                raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_search(X, y, POSTERIOR, checkpoint=ckpt, events=stop_after_two)
    saved = json.loads(ckpt.read_text())
    assert len(saved["pool"]) == 4 and len(saved["weighed"]) == 2
    resumed_events = []
    resumed = run_search(
        X, y, POSTERIOR, checkpoint=ckpt, resume=True, events=resumed_events.append
    )
    assert _doc(resumed) == _doc(serial)
    fits = [e.done for e in resumed_events if e.kind == "fit"]
    assert fits == [3, 4]  # only the two structures not weighed before; no level fitted again


def test_most_mass_is_on_the_structure_the_data_were_drawn_from():
    y = draw("SE(lengthscale=2.0, sd=1.0) + WN(sd=0.2)", 11)
    settings = replace(POSTERIOR, depth=1, pool=6)
    posterior = run_search(X, y, settings).posterior
    shares = {
        s.kernel.structure: float(w)
        for s, w in zip(posterior.structures, posterior.weights, strict=True)
    }
    assert len(shares) == 6 and shares["SE + WN"] > 0.9, shares  # against Lin, CP, CW, ...


def test_a_period_the_data_hold_is_a_probable_feature_with_its_interval(serial):
    posterior = serial.posterior
    assert serial.model.kernel.to_text() == posterior.best.kernel.to_text()
    found = FittedSearch.from_document(serial.to_dict())
    features = [
        f for f in posterior_features(found.model, posterior, ["x"]) if f["kind"] == "periodic"
    ]
    assert features[0]["probability"] > 0.99  # Per + WN drawn with period 1
    low, high = features[0]["interval"]
    assert low <= 1.0 <= high and high - low < 0.05


def test_the_model_file_holds_the_particles_and_predicts_with_their_mixture(serial):
    doc = json.loads(json.dumps(serial.to_dict()))
    check_model_document(doc, "model file")
    found = FittedSearch.from_document(doc)
    np.testing.assert_array_equal(found.posterior.weights, serial.posterior.weights)
    grid = np.linspace(X[-1], X[-1] + 2.0, 9)
    models, weights = found.posterior_mixture()
    table = predictive_table(models, grid, weights)
    # the mixture rebuilt from the file's entries alone: every draw of every structure, each
    # of weight w_S / draws, predicting as a GP of its kernel on the file's data
    scaling = found.model.scaling
    means, sds, shares = [], [], []
    for entry in doc["posterior"]["structures"]:
        kernel = parse_kernel(entry["kernel"])
        for theta in entry["theta"]:
            drawn = Model(
                kernel.with_theta(np.array(theta)), scaling, found.model.x, found.model.y, 0.0
            )
            mean, sd = drawn.predict(grid)
            means.append(mean)
            sds.append(sd)
            shares.append(entry["weight"] / len(entry["theta"]))
    means, sds, shares = np.array(means), np.array(sds), np.array(shares)
    assert len(models) == len(shares) and shares.sum() == pytest.approx(1.0)

    def cdf(q: np.ndarray) -> np.ndarray:
        return shares @ norm.cdf((q[None, :] - means) / sds)

    np.testing.assert_allclose(table["mean"], shares @ means, rtol=1e-9)
    for key, p in (("q2.5", 0.025), ("q10", 0.10), ("q50", 0.5), ("q90", 0.9), ("q97.5", 0.975)):
        np.testing.assert_allclose(cdf(table[key]), p, atol=1e-9)
    # and by brute force: the share of 200,000 draws of the mixture below each quantile
    rng = np.random.default_rng(0)
    pick = rng.choice(len(shares), size=200_000, p=shares / shares.sum())
    sample = means[pick, 4] + sds[pick, 4] * rng.standard_normal(pick.size)
    for key, p in (("q2.5", 0.025), ("q97.5", 0.975)):
        assert np.mean(sample <= table[key][4]) == pytest.approx(p, abs=0.002)


def test_spaced_draws_are_evenly_spread_along_the_chain_and_share_its_weight():
    """Of 32 equally weighted draws, 8 are the draws at the cumulative shares (i + ½)/8: rows
    1, 5, …, 29, each with an eighth of the structure's weight; drawn weights pick where their
    mass is (a draw of half the mass is taken four times: half the weight); all draws when
    the count reaches them."""
    kernel = parse_kernel("SE(lengthscale=1.0, sd=1.0)")
    theta = np.tile(kernel.theta(), (32, 1)) + np.arange(32.0)[:, None]
    spaced = Weighed(kernel, 0.0, 0.0, theta).spaced_draws(0.6, 8)
    assert [j for j, _, _ in spaced] == list(range(1, 32, 4))
    assert [w for _, _, w in spaced] == pytest.approx([0.6 / 8] * 8)
    for j, k, _ in spaced:
        np.testing.assert_array_equal(k.theta(), theta[j])
    shares = np.full(32, 0.5 / 31)
    shares[3] = 0.5
    weighted = Weighed(kernel, 0.0, 0.0, theta, draw_weights=shares).spaced_draws(1.0, 8)
    assert dict((j, w) for j, _, w in weighted)[3] == pytest.approx(0.5)
    assert sum(w for _, _, w in weighted) == pytest.approx(1.0)
    everything = Weighed(kernel, 0.0, 0.0, theta).spaced_draws(1.0, None)
    assert [j for j, _, _ in everything] == list(range(32))


def test_the_report_conditions_the_held_particles_once_and_predictions_reuse_them(
    serial, tmp_path, monkeypatch
):
    """A model file whose structures carry 32 draws each: the report conditions
    ``HELD_DRAWS`` of each held structure's draws (counted at the engine), each once, and
    predictions from the same file afterwards condition none and mix the same particles."""
    doc = json.loads(json.dumps(serial.to_dict()))
    rng = np.random.default_rng(0)
    for entry in doc["posterior"]["structures"]:
        theta = np.array(entry["theta"])
        if theta.size:
            rows = np.tile(theta, (4, 1))
            entry["theta"] = (rows + 1e-4 * rng.standard_normal(rows.shape)).tolist()
    doc["posterior"]["draws"] = 4 * POSTERIOR.draws
    check_model_document(doc, "model file")
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))
    found = read_model(path)
    draws = {_key(row) for entry in doc["posterior"]["structures"] for row in entry["theta"]}
    engine_class = type(found.model._engine)
    conditioned: list[tuple[float, ...]] = []
    original = engine_class.posterior

    def counting(self, kernel, *args, **kwargs):  # noqa: ANN001, ANN202
        conditioned.append(_key(kernel.theta()))
        return original(self, kernel, *args, **kwargs)

    monkeypatch.setattr(engine_class, "posterior", counting)
    report_context(found, figures=False)
    of_draws = [c for c in conditioned if c in draws]
    held = found.posterior.held()
    counts = [
        len(s.spaced_draws(1.0, HELD_DRAWS))
        for s, w in zip(held.structures, held.weights, strict=True)
        if w > 0
    ]
    expected = sum(counts)
    assert len(of_draws) == expected and len(set(of_draws)) == expected
    assert 0 < max(counts) < 4 * POSTERIOR.draws  # fewer than a structure's 32 draws
    models, weights = found.posterior_mixture()
    predictive_table(models, np.array([[X[-1] + 1.0]]), weights)
    assert len([c for c in conditioned if c in draws]) == expected
    assert {_key(m.kernel.theta()) for m in models} == set(of_draws)


def _key(theta) -> tuple[float, ...]:  # noqa: ANN001
    """A draw's parameters to 8 decimals (a kernel may give them back to the last bit only)."""
    return tuple(np.round(np.asarray(theta, dtype=float), 8).tolist())


def _broken(doc: dict, change) -> dict:
    bad = json.loads(json.dumps(doc))
    change(bad["posterior"])
    return bad


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda p: [e.update(weight=e["weight"] / 2) for e in p["structures"]], "summing to one"),
        (lambda p: p["structures"].reverse(), "most probable first"),
        (lambda p: p["structures"][0].update(theta=[[0.0]]), r"structures\[0\].theta"),
        (lambda p: p["structures"][0]["theta"][0].__setitem__(0, 1e6), r"theta\[0\] parameter"),
        (lambda p: p.update(prior="uniform"), r"posterior.prior"),
    ],
)
def test_a_model_file_with_a_broken_posterior_is_refused_in_one_line(serial, change, message):
    with pytest.raises(InputError, match=message) as refused:
        check_model_document(_broken(serial.to_dict(), change), "model file m.json")
    assert "\n" not in str(refused.value)


def test_a_particle_that_cannot_be_conditioned_is_named_not_a_crash(serial):
    def degenerate(posterior: dict) -> None:  # every scale e^-300: a singular covariance
        row = posterior["structures"][0]["theta"][1]
        row[:] = [-300.0] * len(row)

    found = FittedSearch.from_document(_broken(serial.to_dict(), degenerate), origin="m.json")
    with pytest.raises(InputError, match=r"model file m.json: posterior.structures\[0\]"):
        found.posterior_mixture()


def test_the_posterior_settings_are_checked():
    # several seeds' pools are weighed jointly (tests/kernel_search/test_joint.py)
    assert SearchSettings(method="posterior", seeds=2).pool_size == 20
    with pytest.raises(InputError, match="unknown method"):
        SearchSettings(method="sampler")
    with pytest.raises(InputError, match="draws"):
        SearchSettings(method="posterior", draws=MAX_DRAWS + 1)  # more than the chain keeps
    # a greedy search's settings say nothing of the posterior: its files are as before
    assert "method" not in SearchSettings().to_dict()


@pytest.mark.parametrize("round_", [approximate, weigh], ids=["laplace", "chain"])
def test_a_structure_whose_worker_died_is_weighed_again_on_resume(y, serial, tmp_path, round_):
    """In either round of the weighing; when it dies in the first, no chain runs before the
    resumed weighing knows every Laplace evidence, so the result is one run's."""
    ckpt = tmp_path / "state.json"
    stopped = []

    class Losing(SerialExecutor):  # as a pool whose worker died twice weighing the first
        def map(self, fn, *iterables, timeout=None, chunksize=1):
            items = list(zip(*iterables, strict=True))
            for i, item in enumerate(items):
                lost = fn is round_ and not stopped and i == 0
                yield (
                    Candidate(parse_kernel("WN(sd=1.0)"), FAILED_NLL, "failed")
                    if lost
                    else fn(*item)
                )
            if fn is round_:
                stopped.append(True)

    first = run_search(X, y, POSTERIOR, executor=Losing(), checkpoint=ckpt)
    assert sum(s.lost for s in first.posterior.structures) == 1
    saved = json.loads(ckpt.read_text())
    assert sum(w["failure"] == LOST for w in saved["weighed"]) == 1
    resumed = run_search(X, y, POSTERIOR, checkpoint=ckpt, resume=True)
    assert _doc(resumed) == _doc(serial)  # the lost structure weighed again, as in one run


def test_a_structure_without_bic_or_acceptance_is_read_back_and_ranked_after_those_with_one():
    """A method that scores no BIC and draws by no Metropolis chain gives None for them."""
    unscored = Weighed(parse_kernel("C(sd=1.0)"), None, -math.inf, np.zeros((0, 1)), None)
    back = Weighed.from_dict(json.loads(json.dumps(unscored.to_dict())))
    assert back.bic is None and back.acceptance is None
    scored = _weighed("C(sd=2.0)", 3.0, -math.inf)
    assert ranked([unscored, scored], 0).best is scored  # all failed: the lowest BIC holds it


def test_a_model_file_whose_structures_have_no_bic_or_acceptance_is_read(serial):
    doc = json.loads(json.dumps(serial.to_dict()))
    for entry in doc["posterior"]["structures"]:
        entry["bic"] = entry["acceptance"] = None
    check_model_document(doc, "model file")
    found = FittedSearch.from_document(doc)
    assert all(s.bic is None for s in found.posterior.structures)
