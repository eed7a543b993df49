"""One series on a Dask cluster and on a process pool, with every process's CPU seconds.

Where ``bench_dask`` compares wall times over all series, this looks inside one search: the
number of fits and stages, the sum of the fits' own seconds (as the workers measured them), and
the CPU seconds of each process of the machine's tree (scheduler, nannies, workers, this
client), so that a gap in wall time can be told apart from slower fits. Run from the project
folder::

    .venv/bin/python -m benchmarks.dask.bench_dask_one 03-mauna [--order dask,pool]
        [--worker-option --no-nanny] [--one-task-per-fit]

Environment variables reach the cluster's processes (e.g.
``DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False``).
"""

from __future__ import annotations

import argparse
import time

import psutil
from distributed import Client

from abcd_cli.execution import dask as abcd_dask
from abcd_cli.execution.dask import DaskExecutor
from abcd_cli.execution.pool import ResilientPool
from abcd_cli.kernel_search.candidate import lost_candidate
from abcd_cli.kernel_search.settings import SearchSettings
from benchmarks.dask.bench_dask import search_once
from benchmarks.dask.cluster import local_processes


def cpu_by_process() -> dict[int, tuple[str, float]]:
    """CPU seconds (user + system) of this process and every descendant, by pid."""
    me = psutil.Process()
    seconds: dict[int, tuple[str, float]] = {}
    for process in [me, *me.children(recursive=True)]:
        try:
            times = process.cpu_times()
            name = " ".join(process.cmdline()[2:4])[:30]
        except psutil.Error:
            continue
        seconds[process.pid] = (name, times.user + times.system)
    return seconds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("series", help="a bundled series, e.g. 03-mauna")
    parser.add_argument("--order", default="dask,pool", help="which runs, in this order")
    parser.add_argument("--worker-option", action="append", default=[])
    parser.add_argument(
        "--one-task-per-fit", action="store_true", help="no chunks: one Dask task per fit"
    )
    args = parser.parse_args(argv)
    if args.one_task_per_fit:
        abcd_dask.chunk_sizes = lambda n, workers, share=0: [1] * n
    settings = SearchSettings()
    pool = ResilientPool(2, on_lost=lost_candidate)
    cluster = local_processes(2, worker_options=args.worker_option)
    with cluster as address, Client(address, timeout=60) as client:
        client.wait_for_workers(2, timeout=120)
        dask = DaskExecutor(client, lost_candidate)
        for how in args.order.split(","):
            before, start = cpu_by_process(), time.perf_counter()
            run = search_once(args.series, settings, pool if how == "pool" else dask)
            wall, after = time.perf_counter() - start, cpu_by_process()
            fits = [t for level in run.levels for stage in level for t in stage]
            stages = sum(len(level) for level in run.levels)
            print(
                f"{how}: wall {wall:.1f} s, {len(fits)} fits in {stages} stages, fits' own"
                f" {sum(fits):.1f} s; {run.structure}, BIC {run.bic:.2f}"
            )
            for pid, (name, seconds) in sorted(after.items()):
                used = seconds - before.get(pid, ("", 0.0))[1]
                if used > 0.5:
                    print(f"   {pid:>7} {name:30s} {used:7.1f} CPU s")
        dask.shutdown()
    pool.shutdown()


if __name__ == "__main__":
    main()
