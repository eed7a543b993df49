"""The finalists' intervals narrowed before the buffer chooses (``kernel_search/finalists.py``):
with skc the models the buffer would keep get narrower intervals that still hold their exact
BIC, the others keep theirs; with the exact engine nothing changes."""

from __future__ import annotations

import json

import numpy as np

from abcd_cli.engines.exact import ExactEngine, negative_log_likelihood
from abcd_cli.engines.sparse import SparseEngine
from abcd_cli.execution.pool import SerialExecutor
from abcd_cli.kernel_search.finalists import narrowed
from abcd_cli.kernel_search.search_data import SearchData
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels.text import parse_kernel
from tests.sampling import gp_draw

RNG = np.random.default_rng(21)
# one point left out: on a complete grid these stationary candidates would be scored exactly
# (``engines/levinson.py``), with nothing left to narrow
X_USER = np.delete(np.arange(201.0), 100) / 10.0
TRUTH = parse_kernel(
    "SE(lengthscale=6.0, sd=1.0) * Per(lengthscale=1.0, period=2.0, sd=1.0) + WN(sd=0.02)"
)
Y_USER = 3.0 + gp_draw(TRUTH.gram(X_USER[:, None]), RNG)
CANDIDATES = [
    "SE(lengthscale=6.0, sd=1.0) * Per(lengthscale=1.0, period=2.0, sd=1.0) + WN(sd=0.02)",
    "SE(lengthscale=5.0, sd=1.0) * Per(lengthscale=1.1, period=2.0, sd=1.0) + WN(sd=0.02)",
    "SE(lengthscale=1.0, sd=1.0) + WN(sd=0.3)",
]


def _level(engine):
    data = SearchData.prepare(X_USER, Y_USER, SearchSettings())
    scored = []
    for text in CANDIDATES:
        kernel = data.scaling.kernel_in(parse_kernel(text))
        bounds = engine.score(kernel, data.X, data.Y, data.constant_mean)
        scored.append(data.scorer.scored(kernel, bounds.high, data.n, bounds))
    return data, sorted(scored, key=lambda c: c.bic)


def _narrowed(engine, data, scored, beam=1, size=2):
    arrays = (data.X, data.Y, data.constant_mean)
    return narrowed(scored, engine, SerialExecutor(), arrays, data.scorer, beam, size)


def test_the_finalists_intervals_narrow_and_hold_the_exact_bic():
    engine = SparseEngine(m=15, seed=2)
    data, scored = _level(engine)
    assert scored[0].width > 20.0 and scored[1].low < scored[0].bic  # two finalists overlap
    after = _narrowed(engine, data, scored)
    by_text = {str(c.kernel.theta()): c for c in after}
    for before in scored:
        now = by_text[str(before.kernel.theta())]
        nll = negative_log_likelihood(before.kernel, data.X, data.Y, data.constant_mean)
        exact = data.scorer.bic(before.kernel, nll, data.n)
        assert now.low - 1e-6 <= exact <= now.bic + 1e-6
        assert before.low - 1e-9 <= now.low and now.bic <= before.bic + 1e-9
    finalists = scored[:2]
    assert all(by_text[str(c.kernel.theta())].width < 10.0 for c in finalists)
    assert by_text[str(scored[2].kernel.theta())] is scored[2]  # not a finalist: unchanged
    assert [c.bic for c in after] == sorted(c.bic for c in after)


def test_on_a_complete_grid_stationary_finalists_are_exact_and_not_narrowed_again():
    engine = SparseEngine(m=15, seed=2)
    complete = np.arange(200.0) / 10.0
    y = 3.0 + gp_draw(TRUTH.gram(complete[:, None]), np.random.default_rng(22))
    data = SearchData.prepare(complete, y, SearchSettings())
    scored = []
    for text in CANDIDATES:
        kernel = data.scaling.kernel_in(parse_kernel(text))
        bounds = engine.score(kernel, data.X, data.Y, data.constant_mean)
        nll = negative_log_likelihood(kernel, data.X, data.Y, data.constant_mean)
        assert bounds.width == 0 and abs(bounds.high - nll) <= 1e-9 * abs(nll)
        scored.append(data.scorer.scored(kernel, bounds.high, data.n, bounds))
    scored.sort(key=lambda c: c.bic)
    after = _narrowed(engine, data, scored)
    assert all(a is b for a, b in zip(after, scored, strict=True))


def test_nothing_changes_with_the_exact_engine():
    engine = ExactEngine()
    data, scored = _level(engine)
    assert _narrowed(engine, data, scored) is scored


def test_a_search_records_each_levels_finalists_and_its_model_file_holds_them():
    from abcd_cli.kernel_search.infer import run_search
    from abcd_cli.model_file import check_model_document
    from abcd_cli.reporting.search_notes import search_notes

    settings = SearchSettings(depth=1, restarts=1, engine="skc", inducing=15, beam=2, buffer=3)
    result = run_search(X_USER, Y_USER, settings)
    last = result.trace[-1]
    assert last.finalists is not None and len(last.finalists) == last.kept >= 2
    bics = [f["bic"] for f in last.finalists]
    assert bics == sorted(bics) and all(f["bic_low"] <= f["bic"] for f in last.finalists)
    assert last.finalists[0]["structure"] == last.structure
    document = json.loads(json.dumps(result.to_dict()))
    check_model_document(document, "model file")
    note = [n for n in search_notes(result) if n.startswith("the last level's finalists")]
    assert len(note) == 1 and last.finalists[1]["structure"] in note[0]
