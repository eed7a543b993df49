"""A first look at the sequential Monte Carlo sampler's forecasts (``kernel_search/smc.py``) on
the 13 extrapolation splits, beside the greedy search's winner.

For each training file (in the fitter's units, as the search has it) the sampler runs with the
default structure prior and ``--particles`` particles over ``--steps`` data steps; the forecast
of the test file is the weighted mixture of the particles' predictive normals, scored as in
``laplace_mixture`` (coverage of the mixture's 95% band, width factor, RMSE, MLPD, CRPS), with
the features the particles state. One row per series goes to ``smc_forecasts.csv`` as it is
made (a rerun skips the series already there); the winner's rows are those of
``laplace_mixture.csv``.

    OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.studies.smc_forecasts [--particles 16]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from abcd_cli.data.reader import load_series
from abcd_cli.data.summary import InputSummaries
from abcd_cli.decompose.features import features
from abcd_cli.engines import get_engine
from abcd_cli.engines.base import PosteriorError
from abcd_cli.kernel_search.settings import prior_mean_units
from abcd_cli.kernel_search.smc import Sampler, SMCSettings
from abcd_cli.kernel_search.structure_prior import StructurePrior
from abcd_cli.model import Model
from benchmarks.accuracy.runs import all_series, append_row, split_files
from benchmarks.common import publish, python_command
from benchmarks.studies import OUTPUTS
from benchmarks.studies.laplace_mixture import plan_rows, read_rows, table
from benchmarks.studies.pool_features import shown

CSV = OUTPUTS / "smc_forecasts.csv"
FIELDS = ["series", "forecast", "n_test", "covered", "width_factor", "rmse", "mlpd", "crps"]
FIELDS += ["weights", "features", "structure_acceptance", "seconds"]


def study_series(series: str, settings: SMCSettings, seed: int) -> list[dict[str, object]]:
    """The sampler's row for one series."""
    start = time.perf_counter()
    train = load_series(split_files(series, "extrap")[0])
    test = load_series(split_files(series, "extrap")[1])
    scaling, _ = prior_mean_units(train.x, train.y, "data")
    X, y = scaling.x_in(train.X), scaling.y_in(train.y)
    sampler = Sampler(
        X, y, InputSummaries.from_data(X, y), get_engine("exact"), StructurePrior(), settings,
        seed,
    )  # fmt: skip
    particles = sampler.run()
    means, sds, weights = [], [], []
    for kernel, w in zip(particles.kernels, particles.weights, strict=True):
        try:
            mean, sd = Model(kernel, scaling, train.x, train.y, math.nan).predict(test.x)
        except (PosteriorError, np.linalg.LinAlgError, ValueError, ArithmeticError):
            continue
        if np.all(np.isfinite(mean)) and np.all(np.isfinite(sd)) and np.all(sd > 0):
            means.append(mean)
            sds.append(sd)
            weights.append(w)
    user = [scaling.kernel_out(k) for k in particles.kernels]
    found = features(user, particles.weights, [(float(train.x.min()), float(train.x.max()))])
    top = np.argsort(-particles.weights)[:3]
    shares = "; ".join(f"{particles.kernels[i].structure} {particles.weights[i]:.2f}" for i in top)
    if not weights:
        raise SystemExit(f"{series}: no particle could be conditioned on the training data")
    plans = {"smc": (np.array(means), np.array(sds), np.array(weights), shares)}
    extra = {
        "features": shown(found),
        "structure_acceptance": f"{particles.structure_acceptance:.3f}",
        "seconds": f"{time.perf_counter() - start:.1f}",
    }
    return plan_rows(series, test.y, plans, extra)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("series", nargs="*")
    parser.add_argument("--particles", type=int, default=16)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    settings = SMCSettings(particles=args.particles, steps=args.steps)
    done = {r["series"] for r in read_rows(CSV)}
    for series in args.series or all_series():
        if series in done:
            continue
        rows = study_series(series, settings, args.seed)
        for row in rows:
            append_row(CSV, row, FIELDS)
        print(
            f"{series}: {rows[0]['covered']}/{rows[0]['n_test']}; {rows[0]['features']}", flush=True
        )
    winners = [r for r in read_rows(OUTPUTS / "laplace_mixture.csv") if r["forecast"] == "winner"]
    ours = read_rows(CSV)
    made = {r["series"] for r in ours}
    command = python_command(
        "benchmarks.studies.smc_forecasts",
        ["--particles", str(args.particles), "--steps", str(args.steps)],
    )
    title = "The sequential Monte Carlo sampler's forecasts beside the greedy search's winner"
    rows = [r for r in winners if r["series"] in made] + ours
    publish(
        table(rows, command, ("winner", "smc"), "smc_forecasts.csv", title),
        OUTPUTS / "smc_forecasts.md",
    )


if __name__ == "__main__":
    main()
