"""Where one skc search level's time goes, and what m the bounds need.

Resumes a search from its checkpoint (as ``make bench-long`` leaves one, e.g. after its time
limit) and runs the next level serially in this process, measuring:

* each candidate's CPU seconds by stage: the exact screen and convergence on the subset, the
  refinement with the skc bound, on all the data or on a subset (``refine_points``), then the
  finish on all the data (its objective evaluations, and how much lower the bound still went
  in its last iterations: what fewer iterations would give up);
* what the level would take on W workers (each stage's tasks in order to the first free
  worker, ``benchmarks.dask.paper.stage_time``);
* the bounds of the checkpoint's best model at several m (its parameters as fitted), with the
  cost of one bound-and-gradient evaluation and of the interval (PCG) at each m.

CPU time, one BLAS thread: the numbers hold on a machine busy with other work. Run from the
project folder::

    .venv/bin/python -m benchmarks.long_series.bench_skc_level --data DATA.csv \\
        --checkpoint CKPT.json [--widths 200,300,400,500] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

import abcd_cli
from abcd_cli.engines.sparse import SparseEngine
from abcd_cli.kernel_search.candidate import Candidate, FitTask, fit_candidate
from abcd_cli.kernel_search.events import SearchEvent
from abcd_cli.kernel_search.greedy import Search
from benchmarks.common import comma_integers, publish, python_command
from benchmarks.dask.paper import stage_time
from benchmarks.long_series.checkpointed import (
    best_of_checkpoint,
    checkpoint_parser,
    checkpoint_settings,
)

#: Evaluations after which the refinement's best bound is compared with its final one.
CUTS = (10, 20, 30, 40)
WORKERS = (1, 2, 8, 32, 128)  # as the Dask benchmark's scaling on paper, and one


@dataclass(frozen=True)
class Traced(SparseEngine):
    """The skc engine, keeping every value of its objective (one list per fit)."""

    values: list[list[float]] = field(default_factory=list, compare=False, repr=False)

    def objective(self, theta, kernel, X, y, constant_mean=False):
        value, grad = super().objective(theta, kernel, X, y, constant_mean)
        self.values[-1].append(float(value))
        return value, grad


@dataclass
class Task:
    stage: str
    cpu: float
    evaluations: int
    structure: str
    values: list[float]


def replay(data: Path, checkpoint: Path) -> tuple[Search, list[Task], float]:
    """The level after the checkpoint's, serially; its tasks and total CPU seconds."""
    series = abcd_cli.load(str(data))
    settings = checkpoint_settings(checkpoint)
    stage = ["screen"]

    def on_event(event: SearchEvent) -> None:
        if event.kind == "stage":
            stage[0] = str(event.stage)

    search = Search(series.x, series.y, settings, checkpoint=checkpoint, events=on_event)
    if not search.restore():
        raise SystemExit(f"{checkpoint}: no checkpoint of {data} with its own settings")
    search.checkpoint = None  # measure only: the file is left as it was
    search.settings = replace(settings, depth=search.level + 1, patience=0)
    engine = search.engine
    if not isinstance(engine, SparseEngine):
        raise SystemExit(f"{checkpoint}: the search's engine is {engine.name}, not skc")
    traced = Traced(**engine.settings())
    search.engine = traced
    tasks: list[Task] = []

    def timed(task: FitTask) -> Candidate:
        traced.values.append([])
        start = time.process_time()
        result = fit_candidate(task)
        cpu = time.process_time() - start
        tasks.append(
            Task(stage[0], cpu, result.evaluations, task.kernel.structure, traced.values[-1])
        )
        return result

    search.fitter.fit_fn = timed
    start = time.process_time()
    with threadpool_limits(limits=1, user_api="blas"):
        search.step()
    return search, tasks, time.process_time() - start


def stage_rows(tasks: list[Task]) -> list[str]:
    rows = [
        "| stage | tasks | evaluations | CPU s | "
        + " | ".join(f"{w} worker{'s' if w > 1 else ''} (s)" for w in WORKERS)
        + " |",
        "|---|---:|---:|---:|" + "---:|" * len(WORKERS),
    ]
    stages = list(dict.fromkeys(t.stage for t in tasks))
    for name in [*stages, "level"]:
        mine = [t for t in tasks if name in (t.stage, "level")]
        if name == "level":
            spans = [
                sum(stage_time([t.cpu for t in tasks if t.stage == s], w, 0.0) for s in stages)
                for w in WORKERS
            ]
        else:
            spans = [stage_time([t.cpu for t in mine], w, 0.0) for w in WORKERS]
        rows.append(
            f"| {'**level**' if name == 'level' else name} | {len(mine)}"
            f" | {sum(t.evaluations for t in mine)} | {sum(t.cpu for t in mine):.1f} | "
            + " | ".join(f"{s:.0f}" for s in spans)
            + " |"
        )
    return rows


def refine_rows(tasks: list[Task]) -> list[str]:
    cuts = " | ".join(f"after {c}" for c in CUTS)
    rows = [
        "Each fit on all the data: its CPU seconds, objective evaluations with gradient, and"
        " how many nats above the fit's final value (−LB, lower is better) the best value was"
        " after the first k evaluations.",
        "",
        f"| stage | candidate | CPU s | evaluations | {cuts} |",
        "|---|---|---:|---:|" + "---:|" * len(CUTS),
    ]
    for t in tasks:
        if not t.values:
            continue
        best = np.minimum.accumulate(t.values)
        gaps = " | ".join(f"{best[c - 1] - best[-1]:.2f}" if c <= best.size else "" for c in CUTS)
        rows.append(f"| {t.stage} | `{t.structure}` | {t.cpu:.1f} | {len(t.values)} | {gaps} |")
    return rows


def width_rows(data: Path, checkpoint: Path, ms: list[int]) -> list[str]:
    """The checkpoint's best model's bounds at each m, parameters as fitted."""
    search, state = best_of_checkpoint(data, checkpoint)
    if state is None:
        return []
    settings = search.settings
    kernel = state.best.kernel
    rows = [
        f"The checkpoint's best model, `{search.data.text(kernel, params=False)}`, with the"
        f" parameters it was fitted with at m = {settings.inducing}:",
        "",
        "| m | −LB (nats) | −UB (nats) | BIC interval width | bound + gradient (CPU s)"
        " | interval (CPU s) |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    with threadpool_limits(limits=1, user_api="blas"):
        for m in ms:
            engine = SparseEngine(m=m, seed=settings.seed)
            start = time.process_time()
            value, _ = engine.objective(kernel.theta(), kernel, search.data.X, search.data.Y)
            middle = time.process_time()
            data = search.data
            bounds = engine.score(kernel, data.X, data.Y, data.constant_mean, value)
            end = time.process_time()
            rows.append(
                f"| {m} | {bounds.high:.2f} | {bounds.low:.2f} | {2 * bounds.width:.2f}"
                f" | {middle - start:.2f} | {end - middle:.2f} |"
            )
    return rows


def markdown(args: argparse.Namespace, argv: list[str]) -> str:
    search, tasks, cpu = replay(args.data, args.checkpoint)
    row = search.trace[-1]
    lines = [
        "# Where an skc search level's time goes",
        "",
        f"Command: `{python_command('benchmarks.long_series.bench_skc_level', argv)}`",
        f"Measured {datetime.now(timezone.utc).isoformat(timespec='seconds')}: level"
        f" {row.level} of the search in `{args.checkpoint.name}` on {search.data.n} points"
        f" (m = {search.settings.inducing}), run serially; CPU seconds, one BLAS thread.",
        f"Its best: `{row.structure}`, BIC [{row.bic_low:.2f}, {row.bic:.2f}];"
        f" {row.candidates} candidates, {cpu:.0f} CPU s in all.",
        "",
        *stage_rows(tasks),
        "",
        *refine_rows([t for t in tasks if t.values]),
    ]
    if args.widths:
        lines += ["", *width_rows(args.data, args.checkpoint, args.widths)]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = checkpoint_parser(__doc__.splitlines()[0])
    parser.add_argument(
        "--widths",
        type=comma_integers,
        default=[],
        help="also the best model's bounds at these m (comma-separated)",
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    text = markdown(args, sys.argv[1:] if argv is None else argv)
    publish(text, args.out)


if __name__ == "__main__":
    main()
