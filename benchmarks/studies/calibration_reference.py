"""Issue 62, the well-specified target, second attempt: the band's factor taken against a
reference from the model itself.

The backtest's mean z² per horizon band (``m_b``) is biased and noisy even for an honest model:
each origin's structures are refitted on fewer points, and a band holds about one independent
error per origin. The reference measures both on series the model itself makes: R series drawn
from the most probable structure at its fitted values at the data's own x, each backtested
exactly as the data were (the same origins, structures and particles, ``backtest.run_backtest``
with ``--refit``'s way of getting each origin's parameters), give R values of each band's mean
z² under the model. A rule (``RULES``) then widens a band only as far as the data's ``m_b``
exceeds that reference:

- ``median``: f_b = √(m_b / med_b), floored at 1 (the reference's median removes the bias);
- ``beyond q90``: f_b = √(m_b / med_b) where m_b exceeds the reference's 90% quantile, else 1
  (an excess the model's own series show one time in ten is not acted on);
- ``to q90``: f_b = √(m_b / q90_b), floored at 1 (only the excess beyond that quantile).

Well specified: the calibration study's draws (``calibration.weighed_draw``); the extrapolation
splits: the study's stored searches (calibration_raw/models/) and their backtests
(calibration_raw/<split>.json). Each series' reference is kept in
calibration_raw/reference/<refit>/ (read, not run again, unless ``--fresh``).

    nice -n 5 .venv/bin/python -m benchmarks.studies.calibration_reference --replicates 20 \\
        --jobs 2 --out benchmarks/studies/outputs/calibration_reference.md
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import replace
from pathlib import Path

import numpy as np

from abcd_cli.arrays import as_2d
from abcd_cli.calibration import BANDS, Calibration, horizon_bands
from abcd_cli.data.scaling import Scaling
from abcd_cli.engines.base import Engine
from abcd_cli.execution.pool import make_executor
from abcd_cli.found import read_model
from abcd_cli.kernel_search.backtest import run_backtest
from abcd_cli.kernel_search.candidate import lost_candidate
from abcd_cli.kernel_search.engine_choice import resolve
from abcd_cli.kernel_search.posterior import StructurePosterior
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels import Kernel
from abcd_cli.model_update import search_settings
from benchmarks.common import machine_line, publish, python_command
from benchmarks.studies.backtest_variants import WAYS
from benchmarks.studies.calibration import (
    MODELS,
    RAW,
    SPLITS,
    TRUE_DRAWS,
    about_right,
    coverage,
    load_or_run,
    variant_calibration,
    weighed_draw,
)

RULES = ("median", "beyond q90", "to q90")
#: The reference's upper quantile (``beyond q90``, ``to q90``).
UPPER = 0.9


def simulated(
    kernel: Kernel, scaling: Scaling, x: np.ndarray, count: int, seed: int
) -> list[np.ndarray]:
    """``count`` series (user units) drawn at ``x`` from the GP of ``kernel`` (internal units
    of ``scaling``, its noise included) about the data's centre: y = shift + scale·L·ε."""
    X = as_2d(scaling.x_in(np.asarray(x, dtype=float)))
    gram = kernel.gram(X)
    jitter = 1e-9 * float(np.mean(np.diag(gram)))
    chol = np.linalg.cholesky(gram + jitter * np.eye(X.shape[0]))
    rng = np.random.default_rng([62, seed])
    return [scaling.y_out(chol @ rng.standard_normal(X.shape[0])) for _ in range(count)]


def band_mean_squares(h: np.ndarray, z: np.ndarray, horizon: float) -> list[float]:
    """Each horizon band's mean z² (NaN for a band without errors)."""
    h, z = np.asarray(h, dtype=float), np.asarray(z, dtype=float)
    _, band = horizon_bands(h, horizon)
    return [
        float(np.mean(z[band == b] ** 2)) if np.any(band == b) else math.nan for b in range(BANDS)
    ]


def lightened(posterior: StructurePosterior, draws: int) -> StructurePosterior:
    """The most probable structure alone, with ``draws`` of its chain's draws evenly spread
    (the light reference: one structure's refits and ``draws`` particles per origin)."""
    top = posterior.structures[0]
    count = top.theta.shape[0]
    rows = np.unique(np.round(np.linspace(0, count - 1, min(draws, count))).astype(int))
    return StructurePosterior([replace(top, theta=top.theta[rows])], np.ones(1), rows.size)


def reference(
    x: np.ndarray,
    scaling: Scaling,
    posterior: StructurePosterior,
    settings: SearchSettings,
    engine: Engine,
    executor: Executor,
    way: str,
    count: int,
    seed: int,
    light: int | None = None,
) -> dict:
    """The reference of one series: its most probable structure's ``count`` simulated series,
    each backtested ``way`` with the series' own posterior (``light``: with ``lightened``'s
    instead); each one's band mean squares, and the seconds the whole took."""
    started = time.perf_counter()
    tested = posterior if light is None else lightened(posterior, light)
    m_ref = []
    for y in simulated(posterior.structures[0].kernel, scaling, x, count, seed):
        b = run_backtest(x, y, scaling, tested, settings, engine, executor, (), WAYS[way])
        m_ref.append(band_mean_squares(b.h, b.z, b.horizon))
    return {"m_ref": m_ref, "replicates": count, "seconds": time.perf_counter() - started}


def rule_factors(m_obs: list[float], m_ref: list[list[float]], rule: str) -> tuple[float, ...]:
    """Each band's factor by ``rule`` (module docstring) from the data's band mean squares
    ``m_obs`` and the reference's (rows: simulated series); 1 where a band has no errors."""
    ref = np.array(m_ref, dtype=float)
    factors = []
    for b, m in enumerate(m_obs):
        column = ref[:, b][np.isfinite(ref[:, b])]
        if not math.isfinite(m) or column.size == 0:
            factors.append(1.0)
            continue
        median, upper = float(np.median(column)), float(np.quantile(column, UPPER))
        if rule == "median":
            f = math.sqrt(m / median)
        elif rule == "beyond q90":
            f = math.sqrt(m / median) if m > upper else 1.0
        elif rule == "to q90":
            f = math.sqrt(m / upper)
        else:
            raise ValueError(f"unknown rule {rule!r}")
        factors.append(max(f, 1.0))
    return tuple(factors)


def rule_calibration(backtest: dict, m_ref: list[list[float]], rule: str) -> Calibration:
    """A backtest's (its ``h``, ``z``, ``horizon``) calibration by ``rule`` against ``m_ref``."""
    h, z = np.array(backtest["h"]), np.array(backtest["z"])
    edges, _ = horizon_bands(h, backtest["horizon"])
    factors = rule_factors(band_mean_squares(h, z, backtest["horizon"]), m_ref, rule)
    return Calibration(edges, factors, backtest["origins"], int(z.size), h=h, z=z)


def draw_reference(
    seed: int, way: str, count: int, executor: Executor, light: int | None = None
) -> dict:
    """The reference of the calibration study's well-specified draw ``seed``."""
    x, _, data, posterior, settings, engine = weighed_draw(seed)
    return reference(
        x, data.scaling, posterior, settings, engine, executor, way, count, seed, light
    )


def split_reference(
    name: str, way: str, count: int, executor: Executor, light: int | None = None
) -> dict:
    """The reference of a split's stored search (calibration_raw/models/)."""
    found = read_model(MODELS / f"{name}.json")
    posterior, model = found.posterior, found.model
    assert posterior is not None
    settings, engine = resolve(search_settings(found), model.n)
    return reference(
        model.x, model.scaling, posterior, settings, engine, executor, way, count,
        settings.seed, light,
    )  # fmt: skip


def first_replicates(ref: dict, count: int) -> dict:
    """A stored reference cut to its first ``count`` simulated series (a reference stored
    with more replicates read as a smaller one; its seconds scaled to match)."""
    kept = ref["m_ref"][:count]
    share = len(kept) / len(ref["m_ref"])
    return ref | {"m_ref": kept, "replicates": len(kept), "seconds": ref["seconds"] * share}


def change(c: Calibration) -> float:
    """The largest |factor − 1| over the bands."""
    return max(abs(f - 1) for f in c.factors)


def rules_table(
    draws: list[dict], refs: list[dict], splits: list[dict], split_refs: list[dict]
) -> str:
    """Per rule (the current one first): the well-specified draws' change and the splits'
    95% coverage."""
    names = [s["name"].split("-", 1)[1] for s in splits]
    lines = [
        "| rule | median change | largest | draws within 15% | pooled coverage | series about"
        " right |" + "".join(f" {n} |" for n in names),
        "|---|---|---|---|---|---|" + "---|" * len(names),
    ]
    makers: list[tuple[str, Callable[[dict, dict], Calibration]]] = [
        ("current (√ mean z², floor 1)", lambda b, r: variant_calibration(b, "scale", 1.0)),
        *((rule, lambda b, r, q=rule: rule_calibration(b, r["m_ref"], q)) for rule in RULES),
    ]
    for label, make in makers:
        changes = [change(make(d, r)) for d, r in zip(draws, refs, strict=True)]
        cells, inside, total, right = [], 0, 0, 0
        for s, r in zip(splits, split_refs, strict=True):
            i, n = coverage(s, make(s["backtest"], r))
            inside, total, right = inside + i, total + n, right + about_right(i, n)
            cells.append(f"{100 * i / n:.0f}")
        pooled = f"{100 * inside / total:.1f}%" if total else "not run"
        lines.append(
            f"| {label} | {np.median(changes):.3f} | {max(changes):.3f} |"
            f" {sum(c < 0.15 for c in changes)} of {len(changes)} | {pooled} |"
            f" {right} of {len(splits)} |" + "".join(f" {c} |" for c in cells)
        )
    return "\n".join(lines)


def cost_table(
    splits: list[dict], split_refs: list[dict], draws: list[dict], refs: list[dict]
) -> str:
    lines = [
        "| series | origins | backtest s | R | reference s | times the backtest |",
        "|---|---|---|---|---|---|",
    ]
    rows = [(f"draw {d['seed']}", d, r) for d, r in zip(draws, refs, strict=True)]
    rows += [(s["name"], s["backtest"], r) for s, r in zip(splits, split_refs, strict=True)]
    for label, b, r in rows:
        lines.append(
            f"| {label} | {b['origins']} | {b['seconds']:.1f} | {r['replicates']} |"
            f" {r['seconds']:.1f} | {r['seconds'] / b['seconds']:.1f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=20)
    parser.add_argument("--refit", default="warm", choices=[r for r in WAYS if r != "reweigh"])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument(
        "--light",
        type=int,
        help="backtest the simulated series with the top structure alone and this many draws",
    )
    parser.add_argument("--fresh", action="store_true")
    parser.add_argument("--draws-only", action="store_true", help="leave the splits out")
    parser.add_argument("--out", type=Path)
    parser.add_argument("names", nargs="*")
    args = parser.parse_args(argv)
    executor = make_executor(args.jobs, on_lost=lost_candidate)
    folder = RAW / "reference" / (args.refit + (f"-light{args.light}" if args.light else ""))
    try:
        draws, refs = [], []
        for s in range(TRUE_DRAWS):
            draws.append(json.loads((RAW / f"draw-{s}.json").read_text()))
            refs.append(
                first_replicates(
                    load_or_run(
                        folder / f"draw-{s}.json",
                        args.fresh,
                        lambda s=s: draw_reference(
                            s, args.refit, args.replicates, executor, args.light
                        ),
                    ),
                    args.replicates,
                )
            )
            print(f"draw {s}: {refs[-1]['seconds']:.1f} s", file=sys.stderr, flush=True)
        names = (
            []
            if args.draws_only
            else args.names
            or sorted(p.name[: -len("-train.csv")] for p in SPLITS.glob("*-train.csv"))
        )
        splits, split_refs = [], []
        for name in names:
            splits.append(json.loads((RAW / f"{name}.json").read_text()))
            split_refs.append(
                first_replicates(
                    load_or_run(
                        folder / f"{name}.json",
                        args.fresh,
                        lambda n=name: split_reference(
                            n, args.refit, args.replicates, executor, args.light
                        ),
                    ),
                    args.replicates,
                )
            )
            print(f"{name}: {split_refs[-1]['seconds']:.1f} s", file=sys.stderr, flush=True)
    finally:
        executor.shutdown()
    shown = sys.argv[1:] if argv is None else argv
    text = "\n".join(
        [
            "# The calibration against a reference from the model itself (issue 62)",
            "",
            "    nice -n 5 " + python_command("benchmarks.studies.calibration_reference", shown),
            "",
            machine_line(),
            "",
            f"Origins' parameters: {args.refit}"
            + (
                f"; the reference backtests the top structure alone with {args.light} draws"
                if args.light
                else ""
            )
            + f". Largest |factor − 1| over the bands on the"
            f" {len(draws)} well-specified draws, and the 95% coverage of the extrapolation"
            " splits' test points, per rule:",
            "",
            rules_table(draws, refs, splits, split_refs),
            "",
            "Cost of the reference (seconds of the R backtests against the data's one backtest;"
            " the draws' backtests were timed by the calibration study):",
            "",
            cost_table(splits, split_refs, draws, refs),
            "",
        ]
    )
    publish(text, args.out)


if __name__ == "__main__":
    main()
