"""Running the peers: one row of ``results.csv`` per series × task × method, appended as each
run finishes; runs already in the file are skipped, so an interrupted benchmark resumes."""

from __future__ import annotations

import csv
import math
import os
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from benchmarks.accuracy_runs import code_commit
from benchmarks.peers import PEERS, forecaster
from benchmarks.peers.scores import score
from benchmarks.peers.split import load_split

FIELDS = [
    "series",
    "task",
    "method",
    "status",
    "n_train",
    "n_test",
    "rmse",
    "mae",
    "covered",
    "coverage",
    "width_factor",
    "mlpd",
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
SERIAL_METHODS = ("abcd",)


def tool_version(method: str) -> str:
    """``package version`` of the tool behind ``method``."""
    package = PEERS[method][1]
    try:
        return f"{package} {version(package)}"
    except PackageNotFoundError:
        return f"{package} (not installed)"


def read_rows(path: Path) -> dict[Key, dict[str, str]]:
    """The rows already in ``path`` by (series, task, method)."""
    if not path.exists():
        return {}
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != FIELDS:
            raise SystemExit(f"{path} has other columns than this script writes")
        return {(r["series"], r["task"], r["method"]): r for r in reader}


def append_row(path: Path, row: dict[str, object]) -> None:
    """One row at the end of ``path`` (with the header when the file is new), synced."""
    new = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, FIELDS)
        if new:
            writer.writeheader()
        writer.writerow(row)
        f.flush()
        os.fsync(f.fileno())


def _num(value: float | None) -> str:
    return "" if value is None else repr(float(value))


def run_one(key: Key) -> dict[str, object]:
    """Fit ``method`` on the split's training points and score it on its test points; a
    failure is recorded in the row, not raised."""
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
        commit=code_commit(),
    )
    start = time.perf_counter()
    try:
        result = forecaster(method)(split)
        s = score(result, split.y_test)
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
            detail=result.detail,
            note="" if ok else "non-finite test RMSE",
        )
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


def _single_thread() -> None:
    """Worker start-up: one BLAS thread per worker, so that workers do not oversubscribe."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)


def run_all(
    keys: Iterable[Key], path: Path, jobs: int = 1, say: Callable[[str], None] = print
) -> None:
    """Run every key not yet in ``path``: the peers first (``jobs`` at a time), then abcd one
    split at a time; each row is appended as soon as its run ends."""
    done = read_rows(path)
    keys = list(keys)
    todo = [k for k in keys if k not in done]
    say(f"{len(keys) - len(todo)} of {len(keys)} requested runs already in {path}")
    peers = [k for k in todo if k[2] not in SERIAL_METHODS]
    serial = [k for k in todo if k[2] in SERIAL_METHODS]
    if jobs > 1 and peers:
        with ProcessPoolExecutor(jobs, initializer=_single_thread) as pool:
            for future in as_completed([pool.submit(run_one, k) for k in peers]):
                row = future.result()
                append_row(path, row)
                say(run_line(row))
    else:
        serial = peers + serial
    for key in serial:
        row = run_one(key)
        append_row(path, row)
        say(run_line(row))
