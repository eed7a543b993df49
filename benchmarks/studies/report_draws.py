"""Issue 62, part 3: how few of the posterior's particles the report's forecast may condition.

For each extrapolation split's stored search (``calibration``'s depth-2 model files in
calibration_raw/models/), the posterior's mixture on the test part, calibrated as the report
shows it (``Calibration.widen``), is made from several choices of particles: the structures
holding 1 − ``negligible`` of the weight (``StructurePosterior.held``), each giving at most
``draws`` of its chain's draws (``Weighed.spaced_draws``). Each choice's test coverage of the
95% band, mean log predictive density (MLPD) and RMSE stand beside those of all draws (today's
choice), with the seconds its particles took to condition and predict, and how far its mean and
band moved from today's. The noise against which a choice is judged: the same counts of draws
taken at other offsets along the chains (rows r, r + 32/k, …), each as valid a thinning.

    nice -n 5 .venv/bin/python -m benchmarks.studies.report_draws \\
        --out benchmarks/studies/outputs/report_draws.md
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import logsumexp
from scipy.stats import norm

from abcd_cli.arrays import as_2d
from abcd_cli.found import read_model
from abcd_cli.kernel_search.posterior import StructurePosterior, Weighed
from abcd_cli.prediction import mixture_moments, mixture_quantile
from benchmarks.common import machine_line, publish, python_command
from benchmarks.studies.calibration import MODELS, SPLITS

#: The choices compared: (label, negligible weight, draws per structure (None: all), offset of
#: the draws along the chain (None: ``Weighed.spaced_draws``'s)).
CHOICES = (
    ("all draws, floor 1e-3 (before)", 1e-3, None, None),
    ("16 draws", 1e-3, 16, None),
    ("8 draws", 1e-3, 8, None),
    ("8 draws, offset 0", 1e-3, 8, 0),
    ("8 draws, offset 2", 1e-3, 8, 2),
    ("8 draws, offset 3", 1e-3, 8, 3),
    ("4 draws", 1e-3, 4, None),
    ("all draws, floor 1e-2", 1e-2, None, None),
    ("8 draws, floor 1e-2", 1e-2, 8, None),
)


@dataclass(frozen=True)
class Outcome:
    """One choice on one split: particles, test points inside the band, test points, summed
    log predictive density, squared error, the test y's spread, seconds, the mean's and the
    band's largest moves from the reference (in the reference's sds, and as a share of its
    width)."""

    particles: int
    inside: int
    n: int
    log_density: float
    squared_error: float
    seconds: float
    mean: np.ndarray
    sd: np.ndarray
    width: np.ndarray


def chosen(posterior: StructurePosterior, negligible: float, draws: int | None, offset: int | None):  # noqa: ANN201
    """The choice's particles: ((structure, draw), kernel, weight) of the held structures."""
    held = posterior.held(negligible, draws)
    if offset is None:
        return list(held.particles())
    out = []
    for i, (s, w) in enumerate(zip(held.structures, held.weights, strict=True)):
        rows = _offset_rows(s, draws, offset)
        out += [((i, j), s.kernels[j], float(w) / len(rows)) for j in rows]
    return out


def _offset_rows(s: Weighed, draws: int | None, offset: int) -> list[int]:
    n = len(s.kernels)
    if draws is None or draws >= n:
        return list(range(n))
    step = n // draws
    return list(range(min(offset, step - 1), n, step))[:draws]


def outcome(name: str, negligible: float, draws: int | None, offset: int | None) -> Outcome:
    """One choice's mixture on split ``name``'s test part, calibrated as the report shows it."""
    found = read_model(MODELS / f"{name}.json")
    test = pd.read_csv(SPLITS / f"{name}-test.csv")
    x, y = test["x"].to_numpy(float), test["y"].to_numpy(float)
    model = found.model
    particles = chosen(found.posterior, negligible, draws, offset)
    started = time.perf_counter()
    moments = []
    for _, kernel, _ in particles:
        particle = replace(model, kernel=kernel, nll=math.nan, nll_bounds=None)
        moments.append(particle.predict(as_2d(x)))
    seconds = time.perf_counter() - started
    means = np.array([m for m, _ in moments])
    sds = np.array([s for _, s in moments])
    w = np.array([p for _, _, p in particles])
    w = w / w.sum()
    mean, sd = mixture_moments(means, sds, w)
    table = {
        "mean": mean,
        "sd": sd,
        "q2.5": mixture_quantile(means, sds, 0.025, w),
        "q97.5": mixture_quantile(means, sds, 0.975, w),
    }
    end = float(np.max(model.X[:, 0]))
    calibration = found.calibration
    f = np.ones_like(x)
    if calibration is not None and calibration.present:
        table = calibration.widen(table, x, end)
        f = calibration.factor_at(x - end)
    inside = (y >= table["q2.5"]) & (y <= table["q97.5"])
    # the widened mixture: y' = m̄ + f (y − m̄) for y of the mixture, density p((y − m̄)/f + m̄)/f
    back = mean + (y - mean) / f
    log_parts = norm.logpdf(back[None, :], means, sds) + np.log(w)[:, None]
    log_density = float(np.sum(logsumexp(log_parts, axis=0) - np.log(f)))
    return Outcome(
        len(particles),
        int(inside.sum()),
        int(y.size),
        log_density,
        float(np.sum((y - mean) ** 2)),
        seconds,
        mean,
        table["sd"],
        table["q97.5"] - table["q2.5"],
    )


def table(names: list[str], results: dict[str, list[Outcome]]) -> str:
    """One row per choice: pooled coverage, series about right, MLPD, RMSE, particles,
    seconds, and the largest moves of the mean and the band from the reference."""
    lines = [
        "| choice | particles | seconds | pooled 95% coverage | series about right |"
        " median MLPD | MLPD vs before (median, worst) | median RMSE / before |"
        " largest mean move (before's sds) | largest band change | per series coverage |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    before = [results[n][0] for n in names]
    for c, (label, *_rest) in enumerate(CHOICES):
        rows = [results[n][c] for n in names]
        inside, n = sum(r.inside for r in rows), sum(r.n for r in rows)
        right = sum(r.inside / r.n >= (0.80 if r.n < 20 else 0.85) for r in rows)
        mlpd = [r.log_density / r.n for r in rows]
        gain = [m - b.log_density / b.n for m, b in zip(mlpd, before, strict=True)]
        rmse = [
            math.sqrt(r.squared_error / b.squared_error) if b.squared_error > 0 else 1.0
            for r, b in zip(rows, before, strict=True)
        ]
        moves = [
            float(np.max(np.abs(r.mean - b.mean) / b.sd)) for r, b in zip(rows, before, strict=True)
        ]
        bands = [
            float(np.max(np.abs(r.width / b.width - 1))) for r, b in zip(rows, before, strict=True)
        ]
        cells = " ".join(f"{100 * r.inside / r.n:.0f}" for r in rows)
        lines.append(
            f"| {label} | {sum(r.particles for r in rows)} | {sum(r.seconds for r in rows):.1f} |"
            f" {100 * inside / n:.1f}% | {right} of {len(rows)} | {np.median(mlpd):.3f} |"
            f" {np.median(gain):+.3f}, {min(gain):+.3f} | {np.median(rmse):.3f} |"
            f" {max(moves):.3f} | {100 * max(bands):.1f}% | {cells} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path)
    parser.add_argument("names", nargs="*")
    args = parser.parse_args(argv)
    names = args.names or sorted(p.stem for p in MODELS.glob("*.json"))
    results = {}
    for name in names:
        results[name] = [outcome(name, neg, d, off) for _, neg, d, off in CHOICES]
        print(f"{name}: done", file=sys.stderr, flush=True)
    argv_shown = sys.argv[1:] if argv is None else argv
    text = "\n".join(
        [
            "# How many of the posterior's particles the report conditions (issue 62, part 3)",
            "",
            "    nice -n 5 " + python_command("benchmarks.studies.report_draws", argv_shown),
            "",
            machine_line(),
            "",
            f"Series (per series coverage in this order): {', '.join(names)}.",
            "",
            table(names, results),
            "",
        ]
    )
    publish(text, args.out)


if __name__ == "__main__":
    main()
