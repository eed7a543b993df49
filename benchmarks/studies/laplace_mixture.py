"""Do the greedy search's own models, weighted by a Laplace evidence and with their parameters'
uncertainty, give calibrated forecasts? (Issue 52: "measure it beside the SMC before choosing".)

For each of the 13 extrapolation splits, the seed-0 search's level bests (its trace, as in
``bench_selection``; ``traces/seed0/SERIES.json``) are scored on the test file by seven
forecasts, all from the training data alone:

- ``winner``: the lowest-BIC model, its parameters as fitted (what ``abcd`` reports today);
- ``winner+θ``: the same structure, its parameters drawn from their Laplace posterior
  N(θ̂, H⁻¹) (``kernel_search/evidence.py``) and weighted by p(y | θ) p(θ) / q(θ) (importance
  sampling: the Gaussian alone, where a parameter is held by its prior only, draws values the
  likelihood rules out), the forecast the weighted mixture of the draws;
- ``bic-mix``: the level bests mixed with weights ∝ exp(−BIC/2);
- ``laplace-mix``: the level bests, as fitted, mixed with weights ∝ their Laplace evidence;
- ``is-mix+θ``: the level bests mixed with weights ∝ their importance-sampling evidence, each
  one's parameters drawn and weighted as in ``winner+θ``;
- ``winner+mcmc``: the winner's parameters drawn by a random-walk Metropolis chain started at
  θ̂ with the Laplace covariance as its proposal's shape (``kernel_search/parameter_chain.py``:
  ``--steps`` kept after as many warm-up steps, thinned to ``--draws``), equally weighted;
- ``laplace-mix+mcmc``: the level bests with weights ∝ their Laplace evidence, each with its
  chain's draws.

Each forecast is a Gaussian mixture at each test x; its 95% band is the mixture's 2.5% and 97.5%
quantiles. Scores: the points inside the band (and whether that count is consistent with 95%,
``coverage_verdict``), the width factor, RMSE of the mixture mean, MLPD and CRPS (closed form for
a Gaussian mixture). One row per series and forecast goes to ``laplace_mixture.csv`` as it is
made (a rerun skips the series already there); the table is written from it.

    OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.studies.laplace_mixture [--draws 32]
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.stats import norm

from abcd_cli.data.reader import load_series
from abcd_cli.data.summary import InputSummaries
from abcd_cli.engines.base import FAILED_NLL, PosteriorError
from abcd_cli.kernel_search.evidence import Laplace, importance, laplace, parameter_draws
from abcd_cli.kernel_search.parameter_chain import posterior_draws
from abcd_cli.kernels import Kernel
from abcd_cli.model import Model
from abcd_cli.prediction import evidence_weights, mixture_quantile
from benchmarks.accuracy.peers.scores import coverage_verdict, crps_mixture, width_factor
from benchmarks.accuracy.peers.split import Forecast
from benchmarks.accuracy.runs import all_series, append_row, rmse, split_files
from benchmarks.common import machine_line, publish, python_command
from benchmarks.studies import OUTPUTS
from benchmarks.studies.bench_selection import TRACES, level_models

FORECASTS = (
    "winner",
    "winner+θ",
    "winner+mcmc",
    "bic-mix",
    "laplace-mix",
    "is-mix+θ",
    "laplace-mix+mcmc",
)
FIELDS = ["series", "forecast", "n_test", "covered", "width_factor", "rmse", "mlpd", "crps"]
FIELDS += ["weights", "floored", "failed_draws", "min_effective_draws", "acceptance", "seconds"]
CSV = OUTPUTS / "laplace_mixture.csv"
TABLE = OUTPUTS / "laplace_mixture.md"


def scores(means: np.ndarray, sds: np.ndarray, w: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Coverage of the mixture's 95% band, its width factor, RMSE, MLPD and CRPS at ``y``."""
    w = np.asarray(w, dtype=float) / np.sum(w)
    mean = w @ means
    low = mixture_quantile(means, sds, 0.025, w)
    high = mixture_quantile(means, sds, 0.975, w)
    density = w @ norm.pdf(y[None, :], loc=means, scale=sds)
    return {
        "covered": int(np.sum((y >= low) & (y <= high))),
        "width_factor": width_factor(Forecast(mean, low, high), y),
        "rmse": rmse(mean, y),
        "mlpd": float(np.mean(np.log(np.maximum(density, 1e-300)))),
        "crps": crps_mixture(means, sds, w, y),
    }


@dataclass(frozen=True)
class Drawn:
    """One structure's parameter draws predicted at the test x (rows of means and sds): from the
    Laplace Gaussian with importance weights, and from a Metropolis chain (equal weights); the
    Laplace and importance-sampling log evidences, the eigenvalues of H floored, the Gaussian
    draws that failed, their effective sample size and the chain's acceptance rate."""

    means: np.ndarray
    sds: np.ndarray
    weights: np.ndarray
    chain_means: np.ndarray
    chain_sds: np.ndarray
    log_laplace: float
    log_importance: float
    floored: int
    failed: int
    effective: float
    acceptance: float


def _predict_all(
    model: Model, kernels: list[Kernel], x_test: np.ndarray
) -> tuple[list, list, list]:
    """Each kernel's −log p(y) on the model's data (internal units; inf when it cannot be
    conditioned) and predictive mean and sd at ``x_test``."""
    sc = model.scaling
    X, y = sc.x_in(model.X), sc.y_in(model.y)
    nlls, means, sds = [], [], []
    for kernel in kernels:
        try:
            nll = model.engine.objective_value(kernel, X, y)
            mean, sd = Model(kernel, sc, model.x, model.y, math.nan).predict(x_test)
        except (PosteriorError, np.linalg.LinAlgError, ValueError, ArithmeticError):
            nll, mean, sd = math.inf, np.zeros(x_test.size), np.ones(x_test.size)
        if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(sd)) and np.all(sd > 0)):
            nll, mean, sd = math.inf, np.zeros(x_test.size), np.ones(x_test.size)
        nlls.append(nll if math.isfinite(nll) and nll < FAILED_NLL else math.inf)
        means.append(mean)
        sds.append(sd)
    return nlls, means, sds


def laplace_of(model: Model) -> tuple[Laplace, np.ndarray, np.ndarray]:
    """The Laplace approximation of ``model``'s structure at its fitted values, with its data
    in the fitter's units."""
    sc = model.scaling
    X, y = sc.x_in(model.X), sc.y_in(model.y)
    return laplace(model.kernel, X, y, InputSummaries.from_data(X, y), model.engine), X, y


def drawn_moments(
    model: Model, draws: int, rng: np.random.Generator, x_test: np.ndarray, steps: int = 200
) -> Drawn:
    """The structure of ``model`` with its parameters drawn (``kernel_search/evidence.py``,
    ``parameter_chain.py``), predicted at ``x_test``."""
    approx, X, y = laplace_of(model)
    kernels = parameter_draws(approx, draws, rng)
    nlls, means, sds = _predict_all(model, kernels, x_test)
    weighted = importance(approx, kernels, np.array(nlls))
    chained, chain = posterior_draws(approx, X, y, model.engine, draws, rng, steps, steps)
    _, chain_means, chain_sds = _predict_all(model, chained, x_test)
    return Drawn(
        np.array(means),
        np.array(sds),
        weighted.weights,
        np.array(chain_means),
        np.array(chain_sds),
        approx.log_evidence,
        weighted.log_evidence,
        approx.floored,
        int(np.sum(~np.isfinite(nlls))),
        weighted.effective_size,
        chain.acceptance,
    )


def study_series(series: str, draws: int, seed: int, steps: int = 200) -> list[dict[str, object]]:
    """The forecasts' rows for one series."""
    start = time.perf_counter()
    doc = json.loads((TRACES / "seed0" / f"{series}.json").read_text())
    test = load_series(split_files(series, "extrap")[1])
    levels = level_models(doc)
    rng = np.random.default_rng(seed)
    point = [m.predict(test.x) for *_, m in levels]
    means, sds = np.array([p[0] for p in point]), np.array([p[1] for p in point])
    bics = np.array([b for _, _, b, _ in levels])
    drawn = [drawn_moments(m, draws, rng, test.x, steps) for *_, m in levels]
    winner = int(np.argmin(bics))
    by_bic = evidence_weights(bics)
    by_laplace = evidence_weights(np.array([-2 * d.log_laplace for d in drawn]))
    by_importance = evidence_weights(np.array([-2 * d.log_importance for d in drawn]))
    plans = {
        "winner": (means[[winner]], sds[[winner]], np.ones(1), ""),
        "winner+θ": (drawn[winner].means, drawn[winner].sds, drawn[winner].weights, ""),
        "bic-mix": (means, sds, by_bic, _shares(by_bic, levels)),
        "laplace-mix": (means, sds, by_laplace, _shares(by_laplace, levels)),
        "is-mix+θ": (*importance_mixture(by_importance, drawn), _shares(by_importance, levels)),
        "winner+mcmc": (*chain_mixture(np.ones(1), drawn[winner : winner + 1]), ""),
        "laplace-mix+mcmc": (*chain_mixture(by_laplace, drawn), _shares(by_laplace, levels)),
    }
    extra = {**draw_counts(drawn), "seconds": f"{time.perf_counter() - start:.1f}"}
    return plan_rows(series, test.y, plans, extra)


Plan = tuple[np.ndarray, np.ndarray, np.ndarray, str]  # means, sds, weights, shares in words


def plan_rows(
    series: str, y: np.ndarray, plans: dict[str, Plan], extra: dict[str, object]
) -> list[dict[str, object]]:
    """One row per forecast: its scores at the test values ``y`` and the ``extra`` columns."""
    return [
        {
            "series": series,
            "forecast": name,
            "n_test": y.size,
            **scores(m, s, w, y),
            "weights": shares,
            **extra,
        }
        for name, (m, s, w, shares) in plans.items()
    ]


def equal_weights(drawn: Drawn) -> np.ndarray:
    """Equal weights over a chain's draws, summing to one."""
    return np.full(drawn.chain_means.shape[0], 1.0 / drawn.chain_means.shape[0])


def importance_mixture(
    weights: np.ndarray, drawn: list[Drawn]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every structure's Gaussian draws, the structure's weight times each draw's importance
    weight."""
    return (
        np.concatenate([d.means for d in drawn]),
        np.concatenate([d.sds for d in drawn]),
        np.concatenate([w * d.weights for w, d in zip(weights, drawn, strict=True)]),
    )


def chain_mixture(
    weights: np.ndarray, drawn: list[Drawn]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every structure's chain draws, the structure's weight shared equally among them."""
    return (
        np.concatenate([d.chain_means for d in drawn]),
        np.concatenate([d.chain_sds for d in drawn]),
        np.concatenate([w * equal_weights(d) for w, d in zip(weights, drawn, strict=True)]),
    )


def draw_counts(drawn: list[Drawn]) -> dict[str, str | int]:
    """The row's columns on the draws: H's floored eigenvalues and failed draws (summed), the
    fewest effective importance draws and the median chain acceptance."""
    return {
        "floored": sum(d.floored for d in drawn),
        "failed_draws": sum(d.failed for d in drawn),
        "min_effective_draws": f"{min(d.effective for d in drawn):.1f}",
        "acceptance": f"{np.median([d.acceptance for d in drawn]):.2f}",
    }


def _shares(weights: np.ndarray, levels: list) -> str:
    """The levels holding at least 1% of the weight: 'L7 0.62 L8 0.38'."""
    order = np.argsort(-weights)
    return " ".join(f"L{levels[i][0]} {weights[i]:.2f}" for i in order if weights[i] >= 0.01)


def read_rows(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def table(
    rows: list[dict[str, str]],
    command: str,
    forecasts: tuple[str, ...] = FORECASTS,
    source: str = "laplace_mixture.csv",
    title: str = "The greedy search's level bests with a Laplace evidence and parameter draws",
) -> str:
    """Pooled and per-series coverage, and the medians of the other scores, per forecast."""
    lines = [
        f"# {title}",
        "",
        f"Made by `{command}` ({machine_line()}); rows in `{source}`.",
        "",
        "| forecast | pooled coverage | series covered at about 95% | median width factor"
        " | median RMSE ratio to winner | median MLPD | median CRPS ratio to winner |",
        "|---|---|---|---|---|---|---|",
    ]
    by = {(r["series"], r["forecast"]): r for r in rows}
    series = sorted({r["series"] for r in rows})
    for name in forecasts:
        own = [by[(s, name)] for s in series if (s, name) in by]
        if not own:
            continue
        covered = sum(int(r["covered"]) for r in own)
        n = sum(int(r["n_test"]) for r in own)
        right = sum(
            coverage_verdict(int(r["covered"]), int(r["n_test"])) == "about right" for r in own
        )
        ratio = [float(r["rmse"]) / float(by[(r["series"], "winner")]["rmse"]) for r in own]
        crps = [float(r["crps"]) / float(by[(r["series"], "winner")]["crps"]) for r in own]
        lines.append(
            f"| {name} | {covered}/{n} = {covered / n:.1%} | {right} of {len(own)}"
            f" | {np.median([float(r['width_factor']) for r in own]):.2f}"
            f" | {np.median(ratio):.3f} | {np.median([float(r['mlpd']) for r in own]):.3f}"
            f" | {np.median(crps):.3f} |"
        )
    lines += ["", "| series | forecast | covered | width factor | RMSE | MLPD | CRPS | weights |"]
    lines.append("|---|---|---|---|---|---|---|---|")
    for r in sorted(rows, key=lambda r: (r["series"], forecasts.index(r["forecast"]))):
        lines.append(
            f"| {r['series']} | {r['forecast']} | {r['covered']}/{r['n_test']}"
            f" | {float(r['width_factor']):.2f} | {float(r['rmse']):.4g} | {float(r['mlpd']):.3f}"
            f" | {float(r['crps']):.4g} | {r['weights']} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--series", nargs="*", default=None)
    args = parser.parse_args(argv)
    done = {r["series"] for r in read_rows(CSV)}
    for series in args.series or all_series():
        if series in done:
            continue
        rows = study_series(series, args.draws, args.seed, args.steps)
        for row in rows:
            append_row(CSV, row, FIELDS)
        print(
            f"{series}: "
            + ", ".join(f"{r['forecast']} {r['covered']}/{r['n_test']}" for r in rows),
            flush=True,
        )
    command = python_command(
        "benchmarks.studies.laplace_mixture",
        ["--draws", str(args.draws), "--steps", str(args.steps)],
    )
    publish(table(read_rows(CSV), command), TABLE)


if __name__ == "__main__":
    main()
