"""Every structure the greedy search fits, weighted by its evidence with the parameters
integrated out: are the forecasts of that mixture calibrated? (Issue 52, "the greedy search's
candidates weighted by a Laplace evidence with parameter uncertainty; measure it beside the SMC
before choosing".)

For each of the 13 extrapolation splits, the default search (seed ``--seed``) runs on the
training file, serially, with its fit function wrapped so that every candidate it fits is
recorded. The structures fitted on all the training points form the pool (their fits as the
search left them: a structure fitted more than once keeps its lowest −log p(y)); the
``--top`` of them by BIC are kept, saved to ``outputs/candidates/SERIES.json`` (a rerun reads
them instead of searching again). Each kept structure gets a Laplace approximation and
``--draws`` importance-weighted parameter draws (``laplace_mixture.drawn_moments``). Forecasts
of the test file, scored as in ``laplace_mixture``:

- ``winner``: the search's own choice (lowest BIC), its parameters as fitted;
- ``winner+θ``: its parameters drawn and importance-weighted;
- ``pool-bic``: the kept structures as fitted, weights ∝ exp(−BIC/2);
- ``pool-is+θ``: the kept structures with weights ∝ their importance-sampling evidence (a
  uniform prior over them), each with its weighted parameter draws;
- ``pool-laplace+mcmc``: the kept structures with weights ∝ their Laplace evidence, each with
  its Metropolis chain's draws (``kernel_search/parameter_chain.py``).

    OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.studies.candidate_mixture [SERIES ...]

(``--table-only`` writes the table of the rows made so far, while a run goes on.)
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np

from abcd_cli.data.reader import load_series
from abcd_cli.execution.pool import SerialExecutor
from abcd_cli.kernel_search.candidate import Candidate, FitTask, fit_candidate
from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.settings import SearchSettings, prior_mean_units
from abcd_cli.kernels.algebra import structure_key
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model, bic
from abcd_cli.prediction import evidence_weights
from benchmarks.accuracy.runs import all_series, append_row, split_files
from benchmarks.common import publish, python_command
from benchmarks.studies import OUTPUTS
from benchmarks.studies.laplace_mixture import (
    chain_mixture,
    draw_counts,
    drawn_moments,
    importance_mixture,
    plan_rows,
    read_rows,
    table,
)

FORECASTS = ("winner", "winner+θ", "winner+mcmc", "pool-bic", "pool-is+θ", "pool-laplace+mcmc")
FIELDS = ["series", "forecast", "n_test", "covered", "width_factor", "rmse", "mlpd", "crps"]
FIELDS += ["weights", "pool", "floored", "failed_draws", "min_effective_draws", "acceptance"]
FIELDS += ["seconds"]
CANDIDATES = OUTPUTS / "candidates"
CSV = OUTPUTS / "candidate_mixture.csv"
TABLE = OUTPUTS / "candidate_mixture.md"


def searched_pool(series: str, seed: int, top: int) -> dict[str, object]:
    """The search's choice and its ``top`` structures by BIC fitted on all the training points
    (kernels in the user's units), searched now or read from ``CANDIDATES``."""
    path = CANDIDATES / f"seed{seed}" / f"{series}.json"
    if path.exists():
        return json.loads(path.read_text())
    train = load_series(split_files(series, "extrap")[0])
    fitted: dict[str, tuple[float, object]] = {}

    def recording(task: FitTask) -> Candidate:
        result = fit_candidate(task)
        if result.status == "ok" and task.X.shape[0] == train.n:
            key = structure_key(result.kernel)
            if key not in fitted or result.nll < fitted[key][0]:
                fitted[key] = (result.nll, result.kernel)
        return result

    start = time.perf_counter()
    settings = SearchSettings(seed=seed)
    result = run_search(train.x, train.y, settings, SerialExecutor(), fit_fn=recording)
    scaling, _ = prior_mean_units(train.x, train.y, settings.prior_mean)
    n = train.n
    ranked = sorted(
        (bic(scaling.nll_out(nll, n), kernel.n_params, n), kernel)
        for nll, kernel in fitted.values()
    )[:top]
    pool = {
        "series": series,
        "seed": seed,
        "winner": result.model.user_kernel.to_text(),
        "search_seconds": round(time.perf_counter() - start, 1),
        "fitted_structures": len(fitted),
        "pool": [
            {"bic": bic, "kernel": scaling.kernel_out(kernel).to_text()} for bic, kernel in ranked
        ],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(pool, indent=1))
    return pool


def study_series(series: str, seed: int, top: int, draws: int) -> list[dict[str, object]]:
    """The forecasts' rows for one series."""
    pool = searched_pool(series, seed, top)
    start = time.perf_counter()
    train = load_series(split_files(series, "extrap")[0])
    test = load_series(split_files(series, "extrap")[1])
    scaling, _ = prior_mean_units(train.x, train.y, "data")

    def model_of(text: str) -> Model:
        return Model(scaling.kernel_in(parse_kernel(text)), scaling, train.x, train.y, math.nan)

    winner = model_of(str(pool["winner"]))
    entries = list(pool["pool"])  # type: ignore[arg-type]
    models = [model_of(e["kernel"]) for e in entries]
    bics = np.array([float(e["bic"]) for e in entries])
    rng = np.random.default_rng(seed)
    point = [m.predict(test.x) for m in models]
    means, sds = np.array([p[0] for p in point]), np.array([p[1] for p in point])
    own = winner.predict(test.x)
    win_drawn = drawn_moments(winner, draws, rng, test.x)
    drawn = [drawn_moments(m, draws, rng, test.x) for m in models]
    by_bic = evidence_weights(bics)
    by_importance = evidence_weights(np.array([-2 * d.log_importance for d in drawn]))
    by_laplace = evidence_weights(np.array([-2 * d.log_laplace for d in drawn]))
    structures = [m.kernel.structure for m in models]
    plans = {
        "winner": (own[0][None, :], own[1][None, :], np.ones(1), ""),
        "winner+θ": (win_drawn.means, win_drawn.sds, win_drawn.weights, ""),
        "pool-bic": (means, sds, by_bic, _shares(by_bic, structures)),
        "pool-is+θ": (
            *importance_mixture(by_importance, drawn),
            _shares(by_importance, structures),
        ),
        "winner+mcmc": (*chain_mixture(np.ones(1), [win_drawn]), ""),
        "pool-laplace+mcmc": (*chain_mixture(by_laplace, drawn), _shares(by_laplace, structures)),
    }
    extra = {
        "pool": f"{len(models)} of {pool['fitted_structures']}",
        **draw_counts(drawn),
        "seconds": f"{float(pool['search_seconds']) + time.perf_counter() - start:.1f}",
    }
    return plan_rows(series, test.y, plans, extra)


def _shares(weights: np.ndarray, structures: list[str]) -> str:
    """The structures holding at least 5% of the weight: 'SE + WN 0.62; Per + WN 0.38'."""
    order = np.argsort(-weights)
    return "; ".join(f"{structures[i]} {weights[i]:.2f}" for i in order if weights[i] >= 0.05)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("series", nargs="*")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--draws", type=int, default=32)
    parser.add_argument("--csv", type=Path, default=CSV)
    parser.add_argument(
        "--table-only", action="store_true", help="write the table of the rows made so far"
    )
    args = parser.parse_args(argv)
    done = {r["series"] for r in read_rows(args.csv)}
    for series in [] if args.table_only else args.series or all_series():
        if series in done:
            continue
        rows = study_series(series, args.seed, args.top, args.draws)
        for row in rows:
            append_row(args.csv, row, FIELDS)
        print(
            series + ": " + ", ".join(f"{r['forecast']} {r['covered']}/{r['n_test']}" for r in rows)
        )
    command = python_command("benchmarks.studies.candidate_mixture", ["--seed", str(args.seed)])
    rows = read_rows(args.csv)
    title = (
        "Every structure the greedy search fitted, weighted by its evidence, with parameter draws"
    )
    publish(table(rows, command, FORECASTS, "candidate_mixture.csv", title), TABLE)


if __name__ == "__main__":
    main()
