"""The search on a real Dask cluster beside the process pool, and its scaling on paper.

Run from the project folder:

    .venv/bin/python -m benchmarks.dask.bench_dask --out benchmarks/dask/outputs/dask.md

(a) Starts ``dask scheduler`` and ``--workers`` (2) ``dask worker ADDRESS --nthreads 1``
processes on 127.0.0.1, as the README shows, and searches every series (the 13 bundled, or
``--series NAME``) twice, one after the other: candidate fits on the process pool of the same
number of workers, then on the cluster. It prints each series' wall time both ways, the
overhead, and whether both found the same model. The per-task overhead of each is measured
with no-op fits.

(b) From the fit times measured in the pool run, the expected wall time of each search at 2,
8, 32 and 128 workers (``benchmarks/dask/paper.py``: the scheduler's greedy order, each task
its fit time plus the measured per-task overhead; the critical path is a level's slowest
candidate per stage). ``--csv`` keeps every candidate's fit time.

Each finished series is kept in ``--state`` (JSON, written atomically after every series), so an
interrupted run resumes with the series it has not finished; ``--fresh`` starts over.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import platform
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from abcd_cli.data.reader import load_series
from abcd_cli.data.summary import InputSummaries
from abcd_cli.execution.dask import DaskExecutor
from abcd_cli.execution.pool import ResilientPool
from abcd_cli.execution.speculation import Started, workers
from abcd_cli.files import write_output
from abcd_cli.kernel_search.candidate import FitTask, entropy, lost_candidate
from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels.text import parse_kernel
from benchmarks.common import DATASETS, python_command
from benchmarks.dask.cluster import local_processes, noop_fit
from benchmarks.dask.paper import Levels, per_level_table, per_series_table

NOOP_TASKS = 200


class Recorder(Executor):
    """An executor that keeps each stage's per-candidate fit times, level by level. Fits
    started ahead of their stage (``speculate``) count in the stage that takes them."""

    def __init__(self, inner: Executor):
        self.inner = inner
        self.levels: Levels = []
        self._stages: list[list[float]] = []

    @property
    def workers(self) -> int:
        return workers(self.inner)

    def map(self, fn: Callable, *iterables: Iterable, timeout=None, chunksize=1) -> Iterator[Any]:
        stage: list[float] = []
        self._stages.append(stage)
        return self._record(stage, self.inner.map(fn, *iterables))

    @staticmethod
    def _record(stage: list[float], results: Iterator[Any]) -> Iterator[Any]:
        for result in results:
            stage.append(result.seconds)
            yield result

    def speculate(self, fn: Callable, task: Any) -> Started:
        started = self.inner.speculate(fn, task)  # type: ignore[attr-defined]

        def result() -> Any | None:
            fit = started.result()
            if fit is not None:
                self._stages[-1].append(fit.seconds)
            return fit

        return Started(started.done, result, started.cancel)

    def level_done(self, _line: str) -> None:
        self.levels.append(self._stages)
        self._stages = []


@dataclass
class Run:
    """One series searched one way."""

    seconds: float
    structure: str
    bic: float
    levels: Levels = field(default_factory=list)


def search_once(name: str, settings: SearchSettings, executor: Executor) -> Run:
    series = load_series(DATASETS / f"{name}.csv")
    recorder = Recorder(executor)
    start = time.perf_counter()
    result = run_search(series.x, series.y, settings, recorder, progress=recorder.level_done)
    seconds = time.perf_counter() - start
    return Run(seconds, result.model.kernel.structure, result.model.bic, recorder.levels)


def per_task_overhead(executor: Executor, workers: int, name: str) -> float:
    """Seconds one task occupies a worker beyond its fit: (wall of n no-op tasks) × W / n,
    with the series' data in every task, as in a search."""
    series = load_series(DATASETS / f"{name}.csv")
    X, y = series.x[:, None], series.y
    summary = InputSummaries.from_data(X, y)
    kernel = parse_kernel("SE")
    tasks = [
        FitTask(kernel, X, y, summary, summary, 1, 1, 1, entropy(i, kernel))
        for i in range(NOOP_TASKS)
    ]
    list(executor.map(noop_fit, tasks[:workers]))  # warm up: workers started, data sent
    start = time.perf_counter()
    list(executor.map(noop_fit, tasks))
    return (time.perf_counter() - start) * workers / NOOP_TASKS


def load_runs(path: Path, key: str) -> dict[str, dict[str, Run]]:
    """The series a previous run with the same settings (``key``) finished; none without the
    file or with other settings."""
    if not path.exists():
        return {}
    saved = json.loads(path.read_text())
    if saved.get("key") != key:
        return {}
    return {
        name: {how: Run(**run) for how, run in both.items()} for name, both in saved["runs"].items()
    }


def save_runs(path: Path, key: str, runs: dict[str, dict[str, Run]]) -> None:
    text = {name: {how: asdict(run) for how, run in both.items()} for name, both in runs.items()}
    write_output(path, json.dumps({"key": key, "runs": text}))


def compare(
    names: list[str],
    settings: SearchSettings,
    workers: int,
    worker_options: list[str],
    state: Path | None = None,
) -> dict[str, Any]:
    """Both runs of every series on one process pool and one started cluster; the series
    already in ``state`` (with these settings) are kept, and each new one is added to it as it
    finishes."""
    key = json.dumps([settings.to_dict(), workers, worker_options], sort_keys=True)
    from distributed import Client

    started = time.perf_counter()
    pool = ResilientPool(workers, on_lost=lost_candidate)
    cluster = local_processes(workers, worker_options=worker_options)
    with cluster as address, Client(address, timeout=60) as client:
        client.wait_for_workers(workers, timeout=120)
        cluster_start = time.perf_counter() - started
        dask = DaskExecutor(client, lost_candidate)
        try:
            overhead = {
                "pool": per_task_overhead(pool, workers, names[0]),
                "dask": per_task_overhead(dask, workers, names[0]),
            }
            done = load_runs(state, key) if state else {}
            runs: dict[str, dict[str, Run]] = {}
            for name in names:
                if name in done:
                    runs[name] = done[name]
                    continue
                runs[name] = {
                    "pool": search_once(name, settings, pool),
                    "dask": search_once(name, settings, dask),
                }
                pool_s, dask_s = runs[name]["pool"].seconds, runs[name]["dask"].seconds
                print(f"  {name}: pool {pool_s:.1f} s, dask {dask_s:.1f} s", flush=True)
                if state:
                    save_runs(state, key, {**done, **runs})
        finally:
            dask.shutdown()
            pool.shutdown()
    return {"runs": runs, "overhead": overhead, "cluster_start": cluster_start}


def comparison_table(runs: dict[str, dict[str, Run]]) -> list[str]:
    lines = [
        "| series | process pool (s) | Dask (s) | overhead | same model | pool's model |",
        "|---|---:|---:|---:|---|---|",
    ]
    total_pool = total_dask = 0.0
    for name, both in runs.items():
        pool, dask = both["pool"], both["dask"]
        total_pool += pool.seconds
        total_dask += dask.seconds
        same = pool.structure == dask.structure and round(pool.bic, 2) == round(dask.bic, 2)
        verdict = "yes" if same else f"no (Dask: {dask.structure}, BIC {dask.bic:.2f})"
        lines.append(
            f"| {name} | {pool.seconds:.1f} | {dask.seconds:.1f}"
            f" | {_ratio(dask.seconds, pool.seconds)} | {verdict}"
            f" | {pool.structure}, BIC {pool.bic:.2f} |"
        )
    lines.append(
        f"| **total** | {total_pool:.1f} | {total_dask:.1f}"
        f" | {_ratio(total_dask, total_pool)} | | |"
    )
    return lines


def _ratio(new: float, old: float) -> str:
    return f"{100 * (new - old) / old:+.1f}%" if old > 0 else "-"


def markdown(measured: dict[str, Any], settings: SearchSettings, args: list[str]) -> str:
    runs, overhead = measured["runs"], measured["overhead"]
    pool_fits = {name: both["pool"].levels for name, both in runs.items()}
    longest = max(runs, key=lambda n: runs[n]["pool"].seconds)
    lines = [
        "# The search on a Dask cluster",
        "",
        f"Command: `{python_command('benchmarks.dask.bench_dask', args)}`",
        f"Measured {datetime.now(timezone.utc).isoformat(timespec='seconds')} on"
        f" {platform.node()} ({platform.processor() or platform.machine()}),"
        f" settings depth {settings.depth}, restarts {settings.restarts}, seed {settings.seed}.",
        "",
        "## (a) Process pool and Dask cluster, the same number of workers",
        "",
        f"A `dask scheduler` and {measured['workers']} `dask worker --nthreads 1"
        f"{''.join(' ' + o for o in measured['worker_options'])}` processes on"
        f" 127.0.0.1 (started and connected in {measured['cluster_start']:.1f} s), beside a"
        f" process pool of {measured['workers']} workers. Per-task overhead, measured with"
        f" {NOOP_TASKS} no-op fits carrying the data: process pool"
        f" {1000 * overhead['pool']:.1f} ms, Dask {1000 * overhead['dask']:.1f} ms.",
        "",
        *comparison_table(runs),
        "",
        "## (b) Scaling on paper, from the measured fit times",
        "",
        "Expected wall time of each search at W workers: each stage of a level (all candidates,"
        " the finalists, the refined) waits for the one before; its tasks go in order to the"
        " first free worker and each costs its fit time (measured in the pool run) plus Dask's"
        f" per-task overhead ({1000 * overhead['dask']:.1f} ms). The critical path is the"
        " slowest candidate of each stage: no number of workers does better.",
        "",
        *per_series_table(pool_fits, overhead["dask"]),
        "",
        f"Per level, on the longest search ({longest}):",
        "",
        *per_level_table(longest, pool_fits[longest], overhead["dask"]),
        "",
    ]
    return "\n".join(lines)


def write_fit_times(path: Path, runs: dict[str, dict[str, Run]]) -> None:
    text = io.StringIO()
    writer = csv.writer(text)
    writer.writerow(["series", "run", "level", "stage", "candidate", "seconds"])
    writer.writerows(
        [name, how, level, stage, i, f"{t:.4f}"]
        for name, both in runs.items()
        for how, run in both.items()
        for level, stages in enumerate(run.levels)
        for stage, times in enumerate(stages)
        for i, t in enumerate(times)
    )
    write_output(path, text.getvalue())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--series", action="append", help="only this series (repeatable)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--depth", type=int, default=SearchSettings().depth)
    parser.add_argument("--restarts", type=int, default=SearchSettings().restarts)
    parser.add_argument("--out", type=Path, help="also write the Markdown here")
    parser.add_argument("--csv", type=Path, help="every candidate's fit time, both runs")
    parser.add_argument(
        "--state",
        type=Path,
        default=Path("results/bench_dask_state.json"),
        help="finished series, kept across interrupted runs",
    )
    parser.add_argument("--fresh", action="store_true", help="forget --state's series")
    parser.add_argument(
        "--worker-option",
        action="append",
        default=[],
        help="add this to each `dask worker` command line (repeatable, e.g. --no-nanny)",
    )
    args = parser.parse_args(argv)
    names = args.series or sorted(p.stem for p in DATASETS.glob("*.csv"))
    settings = SearchSettings(depth=args.depth, restarts=args.restarts)
    if args.fresh and args.state.exists():
        args.state.unlink()
    args.state.parent.mkdir(parents=True, exist_ok=True)
    measured = compare(names, settings, args.workers, args.worker_option, args.state)
    measured["workers"] = args.workers
    measured["worker_options"] = args.worker_option
    if args.csv:
        write_fit_times(args.csv, measured["runs"])
    text = markdown(measured, settings, sys.argv[1:] if argv is None else argv)
    print(text)
    if args.out:
        write_output(args.out, text)


if __name__ == "__main__":
    main()
