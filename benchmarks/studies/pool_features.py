"""What a set of the greedy search's models says feature by feature, weighted by evidence.

For each extrapolation training file, the models of one seed-0 search, from either source:
- ``levels``: its level bests (``traces/seed0/SERIES.json``, as in ``laplace_mixture``);
- ``pools``: the 20 structures of lowest BIC it fitted (``candidates/seed0/SERIES.json``, as
  kept by ``candidate_mixture``; series without a pool yet are left out).

Each model is weighted by its Laplace evidence (``kernel_search/evidence.py``: the parameters
integrated out; a uniform prior over the set) and, beside it, by exp(−BIC/2). The features of
each weighting (``decompose/features.py``) are listed with their probabilities. The chosen
model's own features are certain by construction; these lists show how sure the search's own
models are of them.

    OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.studies.pool_features --source levels
"""

from __future__ import annotations

import argparse
import json
import math

import numpy as np

from abcd_cli.data.reader import load_series
from abcd_cli.decompose.features import Feature, features
from abcd_cli.kernel_search.settings import prior_mean_units
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model
from abcd_cli.prediction import evidence_weights
from benchmarks.accuracy.runs import all_series, split_files
from benchmarks.common import machine_line, publish, python_command
from benchmarks.studies import OUTPUTS
from benchmarks.studies.bench_selection import TRACES, level_models
from benchmarks.studies.candidate_mixture import CANDIDATES
from benchmarks.studies.laplace_mixture import laplace_of

#: Features below this probability are left out of the table.
SHOWN = 0.05


def models_of(series: str, source: str) -> tuple[list[Model], np.ndarray] | None:
    """The set's models (internal units) and their BICs; None when the series has none yet."""
    if source == "levels":
        levels = level_models(json.loads((TRACES / "seed0" / f"{series}.json").read_text()))
        return [m for *_, m in levels], np.array([b for _, _, b, _ in levels])
    path = CANDIDATES / "seed0" / f"{series}.json"
    if not path.exists():
        return None
    pool = json.loads(path.read_text())
    train = load_series(split_files(series, "extrap")[0])
    scaling, _ = prior_mean_units(train.x, train.y, "data")
    models = [
        Model(scaling.kernel_in(parse_kernel(e["kernel"])), scaling, train.x, train.y, math.nan)
        for e in pool["pool"]
    ]
    return models, np.array([float(e["bic"]) for e in pool["pool"]])


def shown(found: list[Feature]) -> str:
    """'periodic 1.002 [0.998, 1.01] 0.97; linear trend 0.64; ...' for features of at least
    ``SHOWN``: periods to 4 significant digits, change times to 6 (a tenth of a year)."""
    parts = []
    for f in found:
        if f.probability < SHOWN:
            continue
        digits = 6 if f.kind == "change" else 4
        value = "" if f.value is None else f" {f.value:.{digits}g}"
        interval = (
            ""
            if f.interval is None or f.interval[0] == f.interval[1]
            else f" [{f.interval[0]:.{digits}g}, {f.interval[1]:.{digits}g}]"
        )
        parts.append(f"{f.kind}{value}{interval} {f.probability:.2f}")
    return "; ".join(parts)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", choices=("levels", "pools"), default="levels")
    args = parser.parse_args(argv)
    lines = [
        f"# Features of the seed-0 searches' {args.source}, weighted by evidence",
        "",
        f"Made by `{python_command('benchmarks.studies.pool_features', ['--source', args.source])}`"
        f" ({machine_line()}). Features of probability {SHOWN} or more; periods in years (x's"
        " units), changes at x; [a, b] is a value's central 95% interval over the models.",
        "",
        "| series | models | weighted by Laplace evidence | weighted by exp(−BIC/2) |",
        "|---|---|---|---|",
    ]
    for series in all_series():
        found = models_of(series, args.source)
        if found is None:
            continue
        models, bics = found
        kernels = [m.user_kernel for m in models]
        ranges = [
            (float(m.X[:, d].min()), float(m.X[:, d].max()))
            for m in models[:1]
            for d in range(m.n_dims)
        ]
        by_laplace = evidence_weights(
            np.array([-2 * laplace_of(m)[0].log_evidence for m in models])
        )
        by_bic = evidence_weights(bics)
        lines.append(
            f"| {series} | {len(models)} | {shown(features(kernels, by_laplace, ranges))}"
            f" | {shown(features(kernels, by_bic, ranges))} |"
        )
        print(lines[-1], flush=True)
    publish("\n".join(lines) + "\n", OUTPUTS / f"features_{args.source}.md")


if __name__ == "__main__":
    main()
