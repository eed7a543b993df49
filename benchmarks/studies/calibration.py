"""Issue 62, part 1: which calibration of the posterior's forecast band holds on held-out data.

For each extrapolation split (datasets/splits/extrap_9010: the first 90% of a series to train
on, the last 10% to test), ``--method posterior`` is run on the training part (which runs the
backtest, ``kernel_search.backtest``, on the training part alone and keeps its errors), and the
posterior's predictive table, not calibrated, on the test part; "search s" in the table is the
search without the backtest. Each variant of the calibration (``abcd_cli.calibration``: a width
factor or a conformal quantile per horizon band, floored at 1 or not) widens the test band;
the table gives each one's 95% coverage of the test points, pooled and per series, and how
many series are "about right" (coverage 85-100%; with under 20 test points, at least 80%).

Well specified: series drawn from a GP of a fixed structure (SE + Per + WN), that structure
refitted from its true values and weighed alone (a posterior of one structure with its
parameters' draws), then backtested; the table gives how much each variant changes the band
(the largest factor's distance from 1).

    nice -n 5 .venv/bin/python -m benchmarks.studies.calibration --depth 2 --restarts 1 \\
        --out benchmarks/studies/outputs/calibration.md

Each series' raw numbers are kept in benchmarks/studies/outputs/calibration_raw/ (a series
already there is read, not run again: ``--fresh`` runs it again), and its search's model file
in calibration_raw/models/. ``--refit fixed`` (``backtest_variants.WAYS``) runs only the backtest
again, from those model files, with the origins' parameters got another way; its errors go to
calibration_raw/<refit>/, and the variants' table compares the ways.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import abcd_cli
from abcd_cli.calibration import Calibration, calibrate
from abcd_cli.engines.base import Engine
from abcd_cli.execution.pool import SerialExecutor
from abcd_cli.found import read_model
from abcd_cli.kernel_search.backtest import run_backtest
from abcd_cli.kernel_search.engine_choice import resolve
from abcd_cli.kernel_search.posterior import StructurePosterior
from abcd_cli.kernel_search.refit import refit
from abcd_cli.kernel_search.search_data import SearchData
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model_update import search_settings
from abcd_cli.prediction import predictive_table
from benchmarks.common import DATASETS, machine_line, publish, python_command
from benchmarks.studies.backtest_variants import WARM, WAYS

SPLITS = DATASETS / "splits" / "extrap_9010"
RAW = Path(__file__).parent / "outputs" / "calibration_raw"
MODELS = RAW / "models"
VARIANTS = (
    ("none", None, 0.0),
    ("scale, floor 1", "scale", 1.0),
    ("scale, no floor", "scale", 0.0),
    ("conformal, floor 1", "conformal", 1.0),
    ("conformal, no floor", "conformal", 0.0),
)
#: The shrinks (``calibration.SHRINK``'s c) the variants' table compares.
SHRINKS = (0.0, 1.0, 1.5, 2.0)
#: The well-specified draws: structure (user units), points, draws.
TRUE_KERNEL = "SE(lengthscale=6.0, sd=1.0) + Per(lengthscale=1.0, period=3.0, sd=0.7) + WN(sd=0.3)"
TRUE_POINTS = 150
TRUE_DRAWS = 10


def run_split(name: str, depth: int, restarts: int) -> dict:
    """One split: the posterior search on its training part (which backtests it there and
    keeps the calibration's errors), and the mixture's table, not calibrated, on the test."""
    train = pd.read_csv(SPLITS / f"{name}-train.csv")
    test = pd.read_csv(SPLITS / f"{name}-test.csv")
    started = time.perf_counter()
    found = abcd_cli.search(
        x=train["x"].to_numpy(float),
        y=train["y"].to_numpy(float),
        method="posterior",
        depth=depth,
        restarts=restarts,
        jobs=1,
    )
    seconds = time.perf_counter() - started
    MODELS.mkdir(parents=True, exist_ok=True)
    found.save(MODELS / f"{name}.json")
    models, weights, _ = found.predictive_models(False, "evidence", "")
    x_test = test["x"].to_numpy(float)
    table = predictive_table(models, x_test[:, None], weights)
    assert found.search_result is not None
    c = found.search_result.calibration  # with its seconds, which the model file leaves out
    assert c is not None
    return {
        "name": name,
        "search_seconds": seconds - c.seconds,
        "reason": c.reason,
        "backtest": None
        if not c.present
        else {
            "horizon": c.edges[-1],
            "origins": c.origins,
            "h": c.h.tolist(),
            "z": c.z.tolist(),
            "seconds": c.seconds,
        },
        "test": {
            "h": (x_test - train["x"].max()).tolist(),
            "y": test["y"].tolist(),
            "mean": table["mean"].tolist(),
            "low": table["q2.5"].tolist(),
            "high": table["q97.5"].tolist(),
        },
    }


def backtest_again(name: str, way: str) -> dict:
    """The backtest of a split's stored search (calibration_raw/models/) run again with the
    origins' parameters got ``way`` (``backtest_variants.WAYS``): its errors, as ``run_split`` keeps
    them."""
    found = read_model(MODELS / f"{name}.json")
    posterior, model = found.posterior, found.model
    assert posterior is not None
    settings, engine = resolve(search_settings(found), model.n)
    b = run_backtest(
        model.x,
        model.y,
        model.scaling,
        posterior,
        settings,
        engine,
        SerialExecutor(),
        (),
        WAYS[way],
    )
    return {
        "name": name,
        "refit": way,
        "backtest": {
            "horizon": b.horizon,
            "origins": len(b.origins),
            "h": b.h.tolist(),
            "z": b.z.tolist(),
            "seconds": b.seconds,
        },
    }


def variant_calibration(
    raw: dict, method: str | None, floor: float, shrink: float = 0.0
) -> Calibration:
    """A backtest's (``raw["backtest"]``, a split's or a draw's) calibration by ``method``
    (None: none), ``floor`` and ``shrink`` (``calibration.SHRINK``'s c)."""
    b = raw.get("backtest", raw)
    if method is None or b is None:
        return Calibration(reason="none")
    h, z = np.array(b["h"]), np.array(b["z"])
    return calibrate(h, z, b["horizon"], b["origins"], method, floor, shrink=shrink)


def split_coverage(
    raws: list[dict], method: str | None, floor: float, shrink: float = 0.0
) -> tuple[list[str], float, int]:
    """Each split's coverage (%, as cells), the pooled coverage (%) and the series about
    right, their bands widened by one variant."""
    cells, total_in, total_n, right = [], 0, 0, 0
    for raw in raws:
        inside, n = coverage(raw, variant_calibration(raw, method, floor, shrink))
        total_in, total_n = total_in + inside, total_n + n
        right += about_right(inside, n)
        cells.append(f"{100 * inside / n:.0f}")
    return cells, 100 * total_in / total_n, right


def band_changes(draws: list[dict], method: str, floor: float, shrink: float = 0.0) -> list[float]:
    """Per well-specified draw, the largest |factor − 1| over the bands of one variant."""
    changes = []
    for d in draws:
        c = variant_calibration(d, method, floor, shrink)
        changes.append(max(abs(f - 1) for f in c.factors))
    return changes


def coverage(raw: dict, calibration: Calibration) -> tuple[int, int]:
    """Test points inside the widened 95% band, and the test points."""
    t = {k: np.array(v) for k, v in raw["test"].items()}
    f = calibration.factor_at(t["h"])
    low = t["mean"] + f * (t["low"] - t["mean"])
    high = t["mean"] + f * (t["high"] - t["mean"])
    inside = (t["y"] >= low) & (t["y"] <= high)
    return int(inside.sum()), int(inside.size)


def about_right(inside: int, n: int) -> bool:
    share = inside / n
    return share >= (0.80 if n < 20 else 0.85)


def weighed_draw(
    seed: int,
) -> tuple[np.ndarray, np.ndarray, SearchData, StructurePosterior, SearchSettings, Engine]:
    """One draw of the true structure (x, y), fitted and weighed alone (its parameters'
    draws as a posterior search makes them): the draw, its data, posterior, settings, engine."""
    rng = np.random.default_rng(seed)
    x = np.arange(TRUE_POINTS, dtype=float) / 10.0
    kernel = parse_kernel(TRUE_KERNEL)
    K = kernel.gram(x[:, None])
    y = np.linalg.cholesky(K + 1e-9 * np.eye(x.size)) @ rng.standard_normal(x.size)
    settings, engine = resolve(SearchSettings(method="posterior", seed=seed), x.size)
    data = SearchData.prepare(x, y, settings)
    executor = SerialExecutor()
    (fitted,) = refit([data.scaling.kernel_in(kernel)], data, settings, engine, executor)
    posterior = data.weigh([fitted.scored], settings, engine, executor)
    return x, y, data, posterior, settings, engine


def well_specified(seed: int, origin_fit: str = WARM) -> dict:
    """One draw of the true structure, fitted and weighed alone, then backtested: its
    standardised errors."""
    x, y, data, posterior, settings, engine = weighed_draw(seed)
    b = run_backtest(
        x, y, data.scaling, posterior, settings, engine, SerialExecutor(), (), WAYS[origin_fit]
    )
    return {
        "seed": seed,
        "refit": origin_fit,
        "horizon": b.horizon,
        "origins": len(b.origins),
        "h": b.h.tolist(),
        "z": b.z.tolist(),
        "seconds": b.seconds,
    }


def load_or_run(path: Path, fresh: bool, make) -> dict:  # noqa: ANN001
    if path.exists() and not fresh:
        return json.loads(path.read_text())
    raw = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(raw))
    return raw


def table(raws: list[dict], draws: list[dict]) -> str:
    lines = [
        "| variant | pooled 95% coverage | series about right | "
        + " | ".join(r["name"].split("-", 1)[1] for r in raws)
        + " |",
        "|---|---|---|" + "---|" * len(raws),
    ]
    for label, method, floor in VARIANTS:
        cells, pooled, right = split_coverage(raws, method, floor)
        lines.append(
            f"| {label} | {pooled:.1f}% | {right} of {len(raws)} | " + " | ".join(cells) + " |"
        )
    lines += [
        "",
        "Factors by horizon band (scale, no floor), and the backtest's cost:",
        "",
        "| series | origins | errors | factors | search s | backtest s | share |",
        "|---|---|---|---|---|---|---|",
    ]
    for raw in raws:
        b = raw["backtest"]
        if b is None:
            lines.append(
                f"| {raw['name']} | – | – | {raw['reason']} | {raw['search_seconds']:.1f} | – | – |"
            )
            continue
        c = variant_calibration(raw, "scale", 0.0)
        lines.append(
            f"| {raw['name']} | {b['origins']} | {len(b['z'])} | "
            + ", ".join(f"{f:.2f}" for f in c.factors)
            + f" | {raw['search_seconds']:.1f} | {b['seconds']:.1f} |"
            f" {100 * b['seconds'] / (raw['search_seconds'] + b['seconds']):.0f}% |"
        )
    lines += [
        "",
        f"Well specified ({TRUE_KERNEL}, {TRUE_POINTS} points, {len(draws)} draws):"
        " the largest |factor − 1| over the bands, per variant",
        "",
        "| variant | median | largest | draws within 15% |",
        "|---|---|---|---|",
    ]
    for label, method, floor in VARIANTS[1:]:
        changes = band_changes(draws, method, floor)
        lines.append(
            f"| {label} | {np.median(changes):.3f} | {max(changes):.3f} |"
            f" {sum(c < 0.15 for c in changes)} of {len(changes)} |"
        )
    return "\n".join(lines)


def variants_table(again: dict[str, tuple[list[dict], list[dict]]]) -> str:
    """The backtest's ways of getting an origin's parameters (``again``: refit → the splits'
    raws and the well-specified draws, backtested that way) crossed with the width factor's
    shrink (floor 1): the well-specified change and the splits' coverage."""
    lines = [
        "Variants of the backtest (refit at each origin or parameters fixed; width factor, floor"
        " 1, shrunk by c honest sds, `calibration.SHRINK`): well specified, the largest"
        " |factor − 1| over the bands; the extrapolation splits' 95% coverage",
        "",
        "| origins' parameters | c | median | largest | draws within 15% | pooled coverage"
        " | series about right | per series (the first table's order) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for way, (raws, draws) in again.items():
        for shrink in SHRINKS:
            changes = band_changes(draws, "scale", 1.0, shrink)
            splits = "not run | not run | –"
            if raws:
                cells, pooled, right = split_coverage(raws, "scale", 1.0, shrink)
                splits = f"{pooled:.1f}% | {right} of {len(raws)} | {' '.join(cells)}"
            lines.append(
                f"| {way} | {shrink:g} | {np.median(changes):.3f} | {max(changes):.3f} |"
                f" {sum(c < 0.15 for c in changes)} of {len(changes)} | {splits} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--restarts", type=int, default=1)
    parser.add_argument("--fresh", action="store_true")
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--refit",
        action="append",
        default=[],
        choices=[r for r in WAYS if r != WARM],
        help="run the backtest again from the stored searches this way (repeatable)",
    )
    parser.add_argument(
        "--refit-draws",
        action="append",
        default=[],
        choices=[r for r in WAYS if r != WARM],
        help="as --refit, on the well-specified draws only (repeatable)",
    )
    parser.add_argument("names", nargs="*")
    args = parser.parse_args(argv)
    names = args.names or sorted(p.name[: -len("-train.csv")] for p in SPLITS.glob("*-train.csv"))
    raws = []
    for name in names:
        raws.append(
            load_or_run(
                RAW / f"{name}.json",
                args.fresh,
                lambda n=name: run_split(n, args.depth, args.restarts),
            )
        )
        print(f"{name}: done", file=sys.stderr, flush=True)
    draws = [
        load_or_run(RAW / f"draw-{s}.json", args.fresh, lambda s=s: well_specified(s))
        for s in range(TRUE_DRAWS)
    ]
    again = {WARM: (raws, draws)}
    for way in [*args.refit, *args.refit_draws]:
        splits = way in args.refit
        again[way] = (
            [
                {
                    **raw,
                    "backtest": load_or_run(
                        RAW / way / f"{raw['name']}.json",
                        args.fresh,
                        lambda n=raw["name"], r=way: backtest_again(n, r),
                    )["backtest"],
                }
                for raw in raws
                if splits
            ],
            [
                load_or_run(
                    RAW / way / f"draw-{s}.json",
                    args.fresh,
                    lambda s=s, r=way: well_specified(s, r),
                )
                for s in range(TRUE_DRAWS)
            ],
        )
    argv_shown = sys.argv[1:] if argv is None else argv
    text = "\n".join(
        [
            "# Calibration of the posterior's band on held-out data (issue 62, part 1)",
            "",
            "    nice -n 5 " + python_command("benchmarks.studies.calibration", argv_shown),
            "",
            machine_line(),
            "",
            table(raws, draws),
            "",
            variants_table(again),
            "",
        ]
    )
    publish(text, args.out)


if __name__ == "__main__":
    main()
