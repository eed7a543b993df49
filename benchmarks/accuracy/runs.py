"""Running the accuracy experiment: which files each run trains and tests on, one run (search
the training file, predict the test file as ``abcd predict`` does), and the CSV of runs.

A row of ``results.csv`` (columns ``FIELDS``) is one series × task × method; ``other_seeds.csv``
holds the same runs made with other ``--seed`` values, keyed by ``SEED_KEY``.
"""

from __future__ import annotations

import csv
import io
import math
import os
import subprocess
import time
from collections.abc import Iterable
from concurrent.futures import Executor
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from scipy.stats import norm

from abcd_cli.data.reader import load_series
from abcd_cli.errors import InputError, RunError
from abcd_cli.execution.pool import make_executor
from abcd_cli.files import write_output
from abcd_cli.kernel_search.candidate import lost_candidate
from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.prediction import predictive_table
from abcd_cli.reporting.search_notes import stop_sentence
from benchmarks.common import DATASETS, ROOT

TASKS = {"extrap": "extrap_9010", "interp": "interp_5050"}

#: our method -> (search language, interpretable), in the default run order: the full search
#: first (the issue's targets are about it), the cheap baselines, the interpretable variant last
METHODS: dict[str, tuple[str, bool]] = {
    "abcd": ("abcd", False),
    "se": ("se", False),
    "linear": ("linear", False),
    "mkl": ("mkl", False),
    "tci": ("tci", False),
    "spectral": ("spectral", False),
    "changepoint": ("changepoint", False),
    "abcd-int": ("abcd", True),
}
#: the published method each of ours rebuilds
COUNTERPART = {
    "abcd": "ABCD_acc",
    "abcd-int": "ABCD_int",
    "se": "SE",
    "linear": "LN",
    "mkl": "MKL",
    "tci": "TCI",
    "spectral": "SP",
    "changepoint": "CP",
}

# the search settings that each row records (the others are the defaults, stated in RESULTS.md)
SETTING_FIELDS = ("depth", "restarts", "seed", "beam", "beam_levels", "patience", "prior_mean")
#: the fields that name one run in ``results.csv``; ``other_seeds.csv`` adds the seed
RUN_KEY = ("series", "task", "method")
#: the first columns of every CSV of runs on the splits (this benchmark's and the peers')
SPLIT_FIELDS = (*RUN_KEY, "status", "n_train", "n_test", "rmse")
FIELDS = [
    *SPLIT_FIELDS,
    "mlpd",
    "bic",
    "n_params",
    "structure",
    "kernel",
    "levels",
    "note",
    "seconds",
    *SETTING_FIELDS,
    "load_avg",
    "finished",
    "commit",
]

Key = tuple[str, str, str]
SEED_KEY = (*RUN_KEY, "seed")
#: the same runs made with other seeds (``--merge-seeds``), beside ``results.csv``
SEEDS_CSV = "other_seeds.csv"


def all_series() -> list[str]:
    return sorted(p.stem for p in DATASETS.glob("*.csv"))


def split_files(series: str, task: str) -> tuple[Path, Path]:
    folder = DATASETS / "splits" / TASKS[task]
    return folder / f"{series}-train.csv", folder / f"{series}-test.csv"


def code_commit(paths: tuple[str, ...] = ("abcd_cli",)) -> str:
    """The project's git commit, with "+changes" when ``paths`` differ from it."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "status", "--porcelain", *paths], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return "unknown"
    return (head or "unknown") + ("+changes" if changed else "")


def read_results(
    path: Path, key: tuple[str, ...] = RUN_KEY, fields: list[str] = FIELDS
) -> dict[tuple[str, ...], dict[str, str]]:
    """Rows already in ``results.csv`` (or ``other_seeds.csv``), by their ``key`` fields;
    the file must have the columns ``fields``."""
    if not path.exists():
        return {}
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != fields:
            raise SystemExit(
                f"{path} has other columns than this script writes; use another --out-dir"
            )
        return {tuple(r[k] for k in key): r for r in reader}


def append_row(path: Path, row: dict[str, object], fields: list[str] = FIELDS) -> None:
    """One row at the end of ``path`` (with the header when the file is new), synced."""
    new = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, fields)
        if new:
            writer.writeheader()
        writer.writerow(row)
        f.flush()
        os.fsync(f.fileno())


def merge_results(path: Path, sources: Iterable[Path], key: tuple[str, ...] = RUN_KEY) -> int:
    """Put the rows of other ``results.csv`` files into ``path``, each replacing the row with the
    same ``key`` fields; the file is rewritten atomically. Returns the rows taken."""
    rows = read_results(path, key)
    taken = 0
    for source in sources:
        if not source.exists():
            raise SystemExit(f"{source} does not exist")
        new = read_results(source, key)
        rows.update(new)
        taken += len(new)
    out = io.StringIO()
    writer = csv.DictWriter(out, FIELDS)
    writer.writeheader()
    writer.writerows(rows.values())
    write_output(path, out.getvalue())
    return taken


def rmse(predicted: np.ndarray, observed: np.ndarray) -> float:
    """Root mean squared difference of ``predicted`` and ``observed``."""
    return float(np.sqrt(np.mean((np.asarray(observed) - np.asarray(predicted)) ** 2)))


def test_scores(y: np.ndarray, mean: np.ndarray, sd: np.ndarray) -> tuple[float, float]:
    """RMSE of the predictive mean and mean log density of y under N(mean, sd²)."""
    mlpd = float(np.mean(norm.logpdf(y, loc=mean, scale=sd)))
    return rmse(mean, y), mlpd


def _num(value: float) -> str:
    return repr(float(value))


def run_one(key: Key, base: SearchSettings, executor: Executor, quiet: bool) -> dict[str, object]:
    """Search the training file, predict the test file; one row of ``results.csv``."""
    series, task, method = key
    language, interpretable = METHODS[method]
    settings = replace(base, language=language, interpretable=interpretable)
    train_path, test_path = split_files(series, task)
    train, test = load_series(train_path), load_series(test_path)
    row: dict[str, object] = {
        "series": series,
        "task": task,
        "method": method,
        "n_train": train.n,
        "n_test": test.n,
        **{name: getattr(base, name) for name in SETTING_FIELDS},
        "load_avg": f"{os.getloadavg()[0]:.2f}",
        "commit": code_commit(),
    }
    label = f"{series} {task} {method}"
    progress = None if quiet else (lambda msg: print(f"  {label}: {msg}", flush=True))
    start = time.perf_counter()
    try:
        result = run_search(train.x, train.y, settings, executor, progress=progress)
        table = predictive_table([result.model], test.x)
    except (InputError, RunError, ArithmeticError, ValueError, np.linalg.LinAlgError) as exc:
        # recorded, not raised: one failed run must not end a run of many hours
        row.update(status="failed", note=f"{type(exc).__name__}: {exc}")
    else:
        rmse, mlpd = test_scores(test.y, table["mean"], table["sd"])
        model = result.model
        row.update(
            status="ok" if math.isfinite(rmse) else "failed",
            rmse=_num(rmse),
            mlpd=_num(mlpd),
            bic=_num(model.bic),
            n_params=model.n_params,
            structure=model.kernel.structure,
            kernel=model.user_kernel.to_text(),
            levels=len(result.trace),
            note=stop_sentence(result) if math.isfinite(rmse) else "non-finite test RMSE",
        )
    row["seconds"] = f"{time.perf_counter() - start:.2f}"
    row["finished"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return row


def run_line(row: dict[str, object], refs: dict[str, dict[str, dict[str, float]]]) -> str:
    """One printed line per finished run, with the published counterpart's RMSE."""
    series, task, method = str(row["series"]), str(row["task"]), str(row["method"])
    head = f"{series} {task} {method}:"
    if row["status"] != "ok":
        return f"{head} FAILED ({row['note']}) after {row['seconds']} s"
    ref = refs.get(task, {}).get(series, {}).get(COUNTERPART[method])
    ref_text = f" (published {COUNTERPART[method]} {ref:.5g})" if ref is not None else ""
    return (
        f"{head} RMSE {float(str(row['rmse'])):.5g}{ref_text}, MLPD"
        f" {float(str(row['mlpd'])):.4g}, BIC {float(str(row['bic'])):.2f},"
        f" {row['structure']}, {row['seconds']} s"
    )


def run_all(
    keys: list[Key],
    csv_path: Path,
    base: SearchSettings,
    jobs: int,
    refs: dict[str, dict[str, dict[str, float]]],
    quiet: bool,
) -> None:
    done = read_results(csv_path)
    todo = [k for k in keys if k not in done]
    print(
        f"{len(keys) - len(todo)} of {len(keys)} requested runs already in {csv_path}", flush=True
    )
    executor = make_executor(jobs, on_lost=lost_candidate)
    try:
        for key in todo:
            row = run_one(key, base, executor, quiet)
            append_row(csv_path, row)
            print(run_line(row, refs), flush=True)
    except KeyboardInterrupt:
        executor.shutdown(wait=False, cancel_futures=True)
        raise
    executor.shutdown()
