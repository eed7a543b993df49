"""Running the peers: one row of ``results.csv`` per series × task × method, appended as each
run finishes; runs already in the file are skipped, so an interrupted benchmark resumes."""

from __future__ import annotations

import math
import os
import signal
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from abcd_cli.execution.pool import init_worker
from benchmarks.accuracy.peers import PEERS, forecaster
from benchmarks.accuracy.peers.scores import score
from benchmarks.accuracy.peers.split import load_split
from benchmarks.accuracy.runs import RUN_KEY, SPLIT_FIELDS, code_commit, read_results
from benchmarks.accuracy.runs import append_row as accuracy_append_row

FIELDS = [
    *SPLIT_FIELDS,
    "mae",
    "covered",
    "coverage",
    "width_factor",
    "mlpd",
    "crps",
    "seconds",
    "detail",
    "note",
    "tool_version",
    "load_avg",
    "finished",
    "commit",
]
Key = tuple[str, str, str]
#: methods run one split at a time in this process, after the peers (abcd has its own workers)
SERIAL_METHODS = ("abcd", "abcd-posterior")
#: The code a peer row depends on: the package and the peers' own scripts.
CODE_PATHS = ("abcd_cli", "benchmarks")


def tool_version(method: str) -> str:
    """``package version`` of the tool behind ``method``."""
    package = PEERS[method][1]
    try:
        return f"{package} {version(package)}"
    except PackageNotFoundError:
        return f"{package} (not installed)"


def read_rows(path: Path) -> dict[Key, dict[str, str]]:
    """The rows already in ``path`` by (series, task, method)."""
    return read_results(path, RUN_KEY, FIELDS)  # type: ignore[return-value]


def append_row(path: Path, row: dict[str, object]) -> None:
    """One row at the end of ``path``, synced."""
    accuracy_append_row(path, row, FIELDS)


def _num(value: float | None) -> str:
    return "" if value is None else repr(float(value))


class RunTimeout(Exception):
    """A peer ran past its time limit."""


def _time_out(signum: int, frame: object) -> None:
    raise RunTimeout


def run_one(key: Key, time_limit: int = 0, commit: str = "") -> dict[str, object]:
    """Fit ``method`` on the split's training points and score it on its test points; a
    failure, or a run past ``time_limit`` seconds (0: none), is recorded in the row, not
    raised. ``commit``: the code the run uses (default: as it is now)."""
    series, task, method = key
    split = load_split(series, task)
    row: dict[str, object] = dict.fromkeys(FIELDS, "")
    row.update(
        series=series,
        task=task,
        method=method,
        n_train=split.x_train.size,
        n_test=split.x_test.size,
        tool_version=tool_version(method),
        load_avg=f"{os.getloadavg()[0]:.2f}",
        commit=commit or code_commit(CODE_PATHS),
    )
    start = time.perf_counter()
    previous = signal.signal(signal.SIGALRM, _time_out) if time_limit else None
    signal.alarm(time_limit)
    try:
        result = forecaster(method)(split)
        s = score(result, split.y_test)
    except RunTimeout:
        row.update(status="timeout", note=f"stopped after the time limit of {time_limit} s")
    except Exception as exc:  # noqa: BLE001 - one failed tool must not end the benchmark
        row.update(status="failed", note=f"{type(exc).__name__}: {exc}"[:300])
    else:
        ok = math.isfinite(s.rmse)
        row.update(
            status="ok" if ok else "failed",
            rmse=_num(s.rmse),
            mae=_num(s.mae),
            covered=s.covered,
            coverage=_num(s.coverage),
            width_factor=_num(s.width_factor),
            mlpd=_num(s.mlpd),
            crps=_num(s.crps),
            detail=result.detail,
            note="" if ok else "non-finite test RMSE",
        )
    finally:
        signal.alarm(0)
        if previous is not None:
            signal.signal(signal.SIGALRM, previous)
    row["seconds"] = f"{time.perf_counter() - start:.2f}"
    row["finished"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return row


def run_line(row: dict[str, object]) -> str:
    """One printed line per finished run."""
    head = f"{row['series']} {row['task']} {row['method']}:"
    if row["status"] != "ok":
        return f"{head} FAILED ({row['note']}) after {row['seconds']} s"
    return (
        f"{head} RMSE {float(str(row['rmse'])):.5g}, coverage {row['covered']}/{row['n_test']},"
        f" {row['seconds']} s ({row['detail']})"
    )


def run_all(
    keys: Iterable[Key],
    path: Path,
    jobs: int = 1,
    say: Callable[[str], None] = print,
    time_limit: int = 0,
) -> None:
    """Run every key not yet in ``path``: the peers first (``jobs`` at a time, each stopped
    after ``time_limit`` seconds; 0: no limit), then abcd one split at a time, without a
    limit; each row is appended as soon as its run ends. An interrupt cancels the runs not yet
    started."""
    commit = code_commit(CODE_PATHS)  # the code as loaded now, once for every run
    done = read_rows(path)
    keys = list(keys)
    todo = [k for k in keys if k not in done]
    say(f"{len(keys) - len(todo)} of {len(keys)} requested runs already in {path}")
    peers = [k for k in todo if k[2] not in SERIAL_METHODS]
    serial = [k for k in todo if k[2] in SERIAL_METHODS]
    if jobs > 1 and peers:
        pool = ProcessPoolExecutor(jobs, initializer=init_worker)
        try:
            futures = [pool.submit(run_one, k, time_limit, commit) for k in peers]
            for future in as_completed(futures):
                row = future.result()
                append_row(path, row)
                say(run_line(row))
        except KeyboardInterrupt:
            workers = list((pool._processes or {}).values())  # shutdown forgets them
            pool.shutdown(wait=False, cancel_futures=True)
            for process in workers:
                process.terminate()
            raise
        pool.shutdown()
        peers = []
    for key in peers + serial:
        row = run_one(key, time_limit if key[2] not in SERIAL_METHODS else 0, commit)
        append_row(path, row)
        say(run_line(row))
