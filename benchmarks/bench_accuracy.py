"""Predictive accuracy on the 13 series: the papers' extrapolation and interpolation experiment.

Full run, from the project folder (many hours on two cores; interrupt it at any time and run the
same command again to continue):

    .venv/bin/python benchmarks/bench_accuracy.py --jobs 0 --out-dir benchmarks/accuracy

Options: ``--series NAME ...`` (default: every ``datasets/*.csv``), ``--methods M ...``,
``--tasks extrap interp``, ``--jobs N`` (0: one process per core, 1: serial), ``--depth D``,
``--restarts R``, ``--seed S``, ``--patience P`` (0: every level; defaults: those of
``SearchSettings``), ``--report-only``
(rewrite the tables from ``results.csv``, e.g. after editing ``NOTES.md``, running nothing),
``--merge CSV ...`` (first put the rows of runs made into other ``--out-dir`` folders, e.g. one
single-core process per core, into ``OUT/results.csv``, replacing rows of the same run),
``--merge-seeds CSV ...`` (the same for runs made with another ``--seed``: they go into
``OUT/other_seeds.csv``, and RESULTS.md gains a table of how much the seed moves the results).

For every series, task and method it searches the training file with ``run_search`` and predicts
the test x with ``abcd_cli.predict.predictive_table`` (the numbers ``abcd predict`` writes).
Tasks: ``extrap`` trains on ``datasets/splits/extrap_9010/NAME-train.csv`` (the first 90% of the
range) and tests on ``NAME-test.csv``; ``interp`` uses ``datasets/splits/interp_5050`` (a random
half). Methods: ``abcd`` (the full search), ``abcd-int`` (the full search with
``interpretable=True``) and the restricted languages ``se linear mkl tci spectral changepoint``.

Each finished run is appended at once to ``OUT/results.csv`` (test RMSE, mean log predictive
density of the test y under the Gaussian predictive, BIC and structure of the chosen model, wall
seconds, settings); runs already there are skipped (a failed run too: delete its row to retry).
Then ``OUT/RESULTS.md`` is written from every row of the CSV, beside the original system's
published RMSEs (``../shared/reference/``), with standardised RMSE (each RMSE divided by the best
on its series among our methods and the nine published ones), box plots
``OUT/boxplot_extrap.png`` / ``OUT/boxplot_interp.png`` and the tables ``OUT/rmse_extrap.csv`` /
``OUT/rmse_interp.csv``. Runs not yet done are shown as "—"; nothing is filled in. Notes written
by hand in ``OUT/NOTES.md`` (why a series misses, what its report shows) are copied in at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import math
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import Executor
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullFormatter
from scipy.stats import norm

from abcd_cli.data import Series, load_series
from abcd_cli.errors import InputError, RunError
from abcd_cli.files import atomic_write
from abcd_cli.grammar import LANGUAGES
from abcd_cli.model import Model
from abcd_cli.parallel import make_executor
from abcd_cli.parse import parse_kernel
from abcd_cli.predict import predictive_table
from abcd_cli.search import (
    PRIOR_MEANS,
    SearchSettings,
    lost_candidate,
    prior_mean_units,
    run_search,
)

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(__file__).resolve().parents[2] / "shared"
DATASETS = ROOT / "datasets"

TASKS = {"extrap": "extrap_9010", "interp": "interp_5050"}
TASK_TITLES = {
    "extrap": "Extrapolation (train on the first 90%)",
    "interp": "Interpolation (50/50)",
}
REFERENCE_FILES = {"extrap": "extrapolation_rmse.csv", "interp": "interpolation_rmse.csv"}

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
REFERENCE_METHODS = ("ABCD_acc", "ABCD_int", "SP", "TCI", "MKL", "EL_Eureqa", "CP", "SE", "LN")
#: medians of standardised RMSE (best of the nine = 1) as published (reference README)
PUBLISHED_MEDIANS = {
    "extrap": (1.07, 1.45, 1.54, 1.80, 1.85, 2.23, 2.25, 2.85, 3.19),
    "interp": (1.00, 1.06, 1.09, 1.06, 1.49, 2.84, 1.52, 2.30, 3.40),
}
#: targets of the issue for our full search
TARGET_WINS = 9
TARGET_MEDIAN = {"extrap": 1.07, "interp": 1.00}

# the search settings that each row records (the others are the defaults, stated in RESULTS.md)
SETTING_FIELDS = ("depth", "restarts", "seed", "beam", "beam_levels", "patience", "prior_mean")
FIELDS = [
    "series",
    "task",
    "method",
    "status",
    "n_train",
    "n_test",
    "rmse",
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

# the `SearchSettings` fields this script takes as options, with their help
SEARCH_OPTIONS = {
    "depth": None,
    "restarts": None,
    "seed": None,
    "patience": "stop a search after this many levels without a better BIC (0: run all --depth "
    "levels, as the original system did)",
}

Key = tuple[str, str, str]
#: the fields that name one run in ``results.csv``; ``other_seeds.csv`` adds the seed
RUN_KEY = ("series", "task", "method")
SEED_KEY = (*RUN_KEY, "seed")
#: the same runs made with other seeds (``--merge-seeds``), beside ``results.csv``
SEEDS_CSV = "other_seeds.csv"
Grid = dict[str, dict[str, float | None]]
Seeds = dict[int, dict[str, dict[str, str]]]  # seed -> series -> row
#: training BICs closer than this count as the same model (seed comparison)
SAME_BIC = 0.01


# ------------------------------------------------------------------------------------------
# Running
# ------------------------------------------------------------------------------------------


def all_series() -> list[str]:
    return sorted(p.stem for p in DATASETS.glob("*.csv"))


def split_files(series: str, task: str) -> tuple[Path, Path]:
    folder = DATASETS / "splits" / TASKS[task]
    return folder / f"{series}-train.csv", folder / f"{series}-test.csv"


def code_commit() -> str:
    """The project's git commit, with "+changes" when abcd_cli/ differs from it."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "status", "--porcelain", "abcd_cli"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return "unknown"
    return (head or "unknown") + ("+changes" if changed else "")


def read_results(
    path: Path, key: tuple[str, ...] = RUN_KEY
) -> dict[tuple[str, ...], dict[str, str]]:
    """Rows already in ``results.csv`` (or ``other_seeds.csv``), by their ``key`` fields."""
    if not path.exists():
        return {}
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != FIELDS:
            raise SystemExit(
                f"{path} has other columns than this script writes; use another --out-dir"
            )
        return {tuple(r[k] for k in key): r for r in reader}


def append_row(path: Path, row: dict[str, object]) -> None:
    new = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, FIELDS)
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
    atomic_write(path, out.getvalue())
    return taken


def test_scores(y: np.ndarray, mean: np.ndarray, sd: np.ndarray) -> tuple[float, float]:
    """RMSE of the predictive mean and mean log density of y under N(mean, sd²)."""
    rmse = float(np.sqrt(np.mean((y - mean) ** 2)))
    mlpd = float(np.mean(norm.logpdf(y, loc=mean, scale=sd)))
    return rmse, mlpd


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
        table = predictive_table(result.model, test.x)
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
            note=result.stopped_early if math.isfinite(rmse) else "non-finite test RMSE",
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


# ------------------------------------------------------------------------------------------
# Reference results and the tables
# ------------------------------------------------------------------------------------------


def read_reference(task: str) -> dict[str, dict[str, float]]:
    """Published RMSE per series and method; empty when the shared folder is absent."""
    path = SHARED / "reference" / REFERENCE_FILES[task]
    if not path.exists():
        return {}
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        missing = set(REFERENCE_METHODS) - set(reader.fieldnames or ())
        if missing:
            raise SystemExit(f"{path} lacks the columns {sorted(missing)}")
        table: dict[str, dict[str, float]] = {}
        for r in reader:
            cells = {m: _positive(r[m]) for m in REFERENCE_METHODS}
            table[r["dataset"]] = {m: v for m, v in cells.items() if v is not None}
        return table


def _positive(text: str | None) -> float | None:
    """A finite positive RMSE read from text, else None (an empty or unusable cell)."""
    try:
        value = float(text or "nan")
    except ValueError:
        return None
    return value if math.isfinite(value) and value > 0 else None


def our_rmse(row: dict[str, str] | None) -> float | None:
    if row is None or row["status"] != "ok":
        return None
    return _positive(row["rmse"])


def rmse_grid(
    rows: dict[Key, dict[str, str]],
    task: str,
    series: list[str],
    ref: dict[str, dict[str, float]],
    ref_cols: tuple[str, ...],
) -> Grid:
    grid: Grid = {}
    for s in series:
        cells: dict[str, float | None] = {m: our_rmse(rows.get((s, task, m))) for m in METHODS}
        cells.update({c: ref.get(s, {}).get(c) for c in ref_cols})
        grid[s] = cells
    return grid


def standardise(grid: Grid) -> Grid:
    """Each RMSE divided by the smallest RMSE on its series (over every column present)."""
    out: Grid = {}
    for s, cells in grid.items():
        usable = {c: v for c, v in cells.items() if v is not None and math.isfinite(v) and v > 0}
        best = min(usable.values()) if usable else None
        out[s] = {c: (usable[c] / best if c in usable and best else None) for c in cells}
    return out


def column(grid: Grid, col: str) -> list[float]:
    return [cells[col] for cells in grid.values() if cells.get(col) is not None]


def median_or_none(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


# ------------------------------------------------------------------------------------------
# Markdown
# ------------------------------------------------------------------------------------------


def md_table(header: list[str], body: Iterable[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cells) + " |" for cells in body]
    return lines


def fmt(value: float | None, spec: str = ".5g") -> str:
    return "—" if value is None else format(value, spec)


def our_cell(row: dict[str, str] | None, field: str, spec: str) -> str:
    """A value of one of our runs: "—" when not run, "failed" when it failed."""
    if row is None:
        return "—"
    if row["status"] != "ok":
        return "failed"
    return format(float(row[field]), spec)


def col_title(col: str) -> str:
    return f"ref {col}" if col in REFERENCE_METHODS else f"**{col}**"


def rmse_section(rows: dict[Key, dict[str, str]], task: str, grid: Grid) -> list[str]:
    cols = list(next(iter(grid.values())))
    body = []
    for s, cells in grid.items():
        best = min((v for v in cells.values() if v is not None), default=None)
        line = [s]
        for c in cols:
            text = (
                our_cell(rows.get((s, task, c)), "rmse", ".5g") if c in METHODS else fmt(cells[c])
            )
            line.append(f"**{text}**" if cells[c] is not None and cells[c] == best else text)
        body.append(line)
    return [
        "### Test RMSE (raw, in the series' units; best of the row in bold)",
        "",
        *md_table(["series", *map(col_title, cols)], body),
    ]


def standardised_section(task: str, std: Grid) -> list[str]:
    cols = list(next(iter(std.values())))
    body = [[s, *(fmt(cells[c], ".2f") for c in cols)] for s, cells in std.items()]
    body.append(["**median**", *(fmt(median_or_none(column(std, c)), ".2f") for c in cols)])
    body.append(["series counted", *(str(len(column(std, c))) for c in cols)])
    published = dict(zip(REFERENCE_METHODS, PUBLISHED_MEDIANS[task], strict=True))
    body.append(["published median", *(fmt(published.get(c), ".2f") for c in cols)])
    return [
        "### Standardised RMSE (RMSE / best RMSE on the series, over every column)",
        "",
        *md_table(["series", *map(col_title, cols)], body),
        "",
        "The published medians standardise by the best of the nine published methods only; ours"
        " by the best over all columns, so a reference median here can exceed its published one.",
    ]


def per_method_section(
    rows: dict[Key, dict[str, str]],
    task: str,
    series: list[str],
    title: str,
    field: str,
    spec: str,
    summary: str,
) -> list[str]:
    """A series × our-methods table of one field, with a summary row (mean or total)."""
    body = [[s, *(our_cell(rows.get((s, task, m)), field, spec) for m in METHODS)] for s in series]
    values = {
        m: [
            float(r[field]) for s in series if (r := rows.get((s, task, m))) and r["status"] == "ok"
        ]
        for m in METHODS
    }
    agg = statistics.fmean if summary == "mean" else math.fsum
    body.append([f"**{summary}**", *(fmt(agg(v) if v else None, spec) for v in values.values())])
    body.append(["runs counted", *(str(len(v)) for v in values.values())])
    return [title, "", *md_table(["series", *METHODS], body)]


def models_section(rows: dict[Key, dict[str, str]], task: str, series: list[str]) -> list[str]:
    body = []
    for s in series:
        line = [s]
        for m in ("abcd", "abcd-int"):
            r = rows.get((s, task, m))
            missing = our_cell(r, "bic", ".2f")  # "—" or "failed" unless the run succeeded
            structure = f"`{r['structure']}`" if r and r["status"] == "ok" else missing
            line += [structure, our_cell(r, "bic", ".2f")]
        body.append(line)
    header = ["series", "abcd structure", "abcd BIC", "abcd-int structure", "abcd-int BIC"]
    return [
        "### Models chosen by the full searches (BIC on the training data; all in results.csv)",
        "",
        *md_table(header, body),
    ]


def no_worse(ours: float | None, published: float | None) -> bool:
    """Whether our RMSE is at most the published one (False when either is missing)."""
    return ours is not None and published is not None and ours <= published


def wins_target(rows: dict[Key, dict[str, str]], grid: Grid, has_ref: bool) -> str:
    """Series where our abcd extrapolation RMSE ≤ published ABCD-accuracy, with the verdict.

    A failed run counts as compared and not won (a rerun with the same seed fails again)."""
    if not has_ref:
        return "cannot be checked: the reference results were not found"
    ran = [s for s in grid if (s, "extrap", "abcd") in rows and grid[s].get("ABCD_acc")]
    wins = sum(no_worse(grid[s]["abcd"], grid[s]["ABCD_acc"]) for s in ran)
    failed = sum(grid[s]["abcd"] is None for s in ran)
    open_ = len(grid) - len(ran)
    if wins >= TARGET_WINS:
        verdict = "**met**"
    elif wins + open_ < TARGET_WINS:
        verdict = "**not met**"
    else:
        verdict = f"not decided yet ({open_} series still to run)"
    target = f"target ≥ {TARGET_WINS} of {len(grid)}"
    failures = f", {failed} of them failed" if failed else ""
    return f"{wins} of {len(ran)} series run{failures} ({target}): {verdict}"


def median_target(task: str, std: Grid, series: list[str]) -> str:
    values = column(std, "abcd")
    if "ABCD_acc" not in std[series[0]]:
        return "cannot be checked: the reference results were not found"
    if not values:
        return f"no completed {task} run of `abcd` yet (target ≤ {TARGET_MEDIAN[task]:.2f})"
    med = statistics.median(values)
    verdict = "**met**" if med <= TARGET_MEDIAN[task] else "**not met**"
    done = [s for s in series if std[s]["abcd"] is not None]
    extra = ""
    if "ABCD_acc" in std[series[0]]:
        ref = median_or_none([std[s]["ABCD_acc"] for s in done if std[s]["ABCD_acc"] is not None])
        extra = f"; published ABCD_acc on the same series, same standardisation: {fmt(ref, '.2f')}"
    scope = "all 13 series" if len(done) == len(series) else f"provisional, {len(done)} series"
    return f"{med:.2f} (target ≤ {TARGET_MEDIAN[task]:.2f}): {verdict} ({scope}{extra})"


def in_published_place(grid: Grid) -> float | None:
    """Median of our abcd RMSE over the best of it and the eight other published methods per series:
    our full search standardised as the paper standardised ABCD-accuracy (its nine methods only)."""
    cols = ("abcd", *(c for c in REFERENCE_METHODS if c != "ABCD_acc"))
    std = standardise({s: {c: cells.get(c) for c in cols} for s, cells in grid.items()})
    return median_or_none(column(std, "abcd"))


def published_basis_line(grids: dict[str, Grid]) -> str:
    names = {"extrap": "extrapolation", "interp": "interpolation"}
    acc = REFERENCE_METHODS.index("ABCD_acc")
    medians = [
        f"{names[task]} {fmt(in_published_place(grids[task]), '.2f')}"
        f" (published {PUBLISHED_MEDIANS[task][acc]:.2f})"
        for task in TASKS
    ]
    return (
        "- not the issue's basis, for comparison: with our `abcd` in the place of ABCD-accuracy"
        " among the nine published methods, standardised as the paper did, its median is "
        + "; ".join(medians)
    )


def settings_lines(rows: dict[Key, dict[str, str]], base: SearchSettings) -> list[str]:
    """The search settings of the rows (those of this invocation when there is none yet)."""
    used = Counter(tuple(r[k] for k in SETTING_FIELDS) for r in rows.values())
    if not used:
        used[tuple(str(getattr(base, k)) for k in SETTING_FIELDS)] = 0
    others = {k: v for k, v in base.to_dict().items() if k not in ("language", "interpretable")}
    for name in SETTING_FIELDS:
        others.pop(name)

    def described(values: tuple[str, ...]) -> str:
        depth, restarts, seed, beam, levels, patience, prior_mean = values
        kept = "every level" if levels == "0" else f"the first {levels} levels"
        wide = "beam 1 (greedy)" if beam == "1" else f"beam {beam} for {kept}"
        stop = "every level run" if patience == "0" else f"patience {patience}"
        return (
            f"depth {depth}, restarts {restarts}, seed {seed}, {wide}, {stop}, "
            f"prior mean {prior_mean} ({used[values]} rows)"
        )

    listed = "; ".join(described(v) for v in sorted(used))
    lines = [
        f"- search settings: {listed}; other `SearchSettings` fields at their defaults {others}"
    ]
    if len(used) > 1:
        lines.append(
            "- **the rows were produced with different settings**; each row's are in `results.csv`"
        )
    return lines


def depth_line(rows: dict[Key, dict[str, str]]) -> str:
    """How far the searches went. ``levels`` counts level 0, so a search that ran every level of
    depth d has d + 1; a language that does not search (``se``, ``linear``) is a fixed model."""
    ok = [r for r in rows.values() if r.get("status") == "ok" and r.get("levels")]
    searched = [r for r in ok if LANGUAGES[METHODS[r["method"]][0]].searches]
    early = [r for r in searched if int(r["levels"]) < int(r["depth"]) + 1]
    stopped = ", ".join(sorted({f"{r['series']} {r['task']} {r['method']}" for r in early}))
    return (
        f"- levels run: {len(searched) - len(early)} of {len(searched)} searches ran every level"
        f" of their depth, whatever their patience; {len(ok) - len(searched)} rows are fixed"
        " models with no levels" + (f"; stopped early: {stopped}" if early else "")
    )


def header_lines(
    rows: dict[Key, dict[str, str]], base: SearchSettings, command: str, series: list[str]
) -> list[str]:
    total = len(series) * len(TASKS) * len(METHODS)
    complete = sum(1 for k in rows if k[0] in series)
    failed = sum(1 for k, r in rows.items() if k[0] in series and r["status"] != "ok")
    return [
        "# Predictive accuracy: extrapolation and interpolation on the 13 series",
        "",
        f"- date: {datetime.now(timezone.utc).isoformat(timespec='seconds')}",
        f"- command: `{command}`",
        f"- machine: {platform.platform()}, {os.cpu_count()} cores, Python"
        f" {platform.python_version()}",
        *settings_lines(rows, base),
        depth_line(rows),
        f"- runs complete: **{complete} of {total}** ({len(series)} series × {len(TASKS)} tasks ×"
        f' {len(METHODS)} methods), {failed} of them failed; missing runs are shown as "—"',
        "- method: `run_search` on the training file, then `predictive_table` (as `abcd predict`)"
        " at the test x; RMSE of the predictive mean; MLPD = mean over test points of"
        " log N(y; mean, sd²), noise included (in the units of y: compare within a series only).",
    ]


def tick_label(col: str, count: int, total: int) -> str:
    name = f"{col} (ref)" if col in REFERENCE_METHODS else col
    return name if count == total else f"{name}, n={count}"


def boxplot(std: Grid, cols: list[str], title: str, path: Path) -> bool:
    """Box plot (median, quartiles) and raw points of standardised RMSE, ordered by median."""
    data = {c: column(std, c) for c in cols}
    data = {c: v for c, v in data.items() if v}
    if not data:
        return False
    order = sorted(data, key=lambda c: statistics.median(data[c]))
    fig = Figure(figsize=(max(6.0, 0.55 * len(order) + 1.5), 4.2), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    positions = np.arange(1, len(order) + 1)
    ax.boxplot([data[c] for c in order], positions=positions, widths=0.6, showfliers=False)
    rng = np.random.default_rng(0)
    for pos, c in zip(positions, order, strict=True):
        colour = "#7f7f7f" if c in REFERENCE_METHODS else "#1f5d99"
        jitter = rng.uniform(-0.15, 0.15, len(data[c]))
        ax.scatter(pos + jitter, data[c], s=12, color=colour, alpha=0.8, zorder=3)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.axhline(1.0, color="#d9d9d9", lw=0.8, zorder=0)
    ax.set_xticks(positions)
    ax.set_xticklabels([tick_label(c, len(data[c]), len(std)) for c in order])
    for label, c in zip(ax.get_xticklabels(), order, strict=True):
        label.set_rotation(45)
        label.set_horizontalalignment("right")
        label.set_color("#555555" if c in REFERENCE_METHODS else "#1f5d99")
    ax.set_ylabel("standardised RMSE (best = 1, log scale)")
    ax.set_title(title, fontsize=10)
    fig.savefig(path, dpi=130)
    return True


def stored_model(row: dict[str, str]) -> tuple[Model, Series]:
    """The model of one ``results.csv`` row, rebuilt on its training file (no refitting) with
    the row's prior mean."""
    train = load_series(split_files(row["series"], row["task"])[0])
    scaling, constant_mean = prior_mean_units(train.x, train.y, row.get("prior_mean") or "data")
    kernel = scaling.kernel_in(parse_kernel(row["kernel"]))
    return Model(kernel, scaling, train.x, train.y, math.nan, constant_mean), train


Rebuilt = tuple[dict[str, str], tuple[Model, Series, Series] | str]
FORECASTS_PNG = "forecasts_extrap_abcd.png"  # the abcd extrapolations, beside RESULTS.md


def rebuilt_runs(rows: dict[Key, dict[str, str]], method: str, task: str) -> list[Rebuilt]:
    """Each finished ``method`` run of ``task`` with its model, training and test series rebuilt
    once (no refitting), or the name of the error that stopped the rebuild."""
    rebuilt: list[Rebuilt] = []
    for (series, t, m), row in sorted(rows.items()):
        if t != task or m != method or row.get("status") != "ok":
            continue
        try:
            model, train = stored_model(row)
            test = load_series(split_files(series, task)[1])
        except (InputError, ValueError, np.linalg.LinAlgError) as exc:
            rebuilt.append((row, type(exc).__name__))
        else:
            rebuilt.append((row, (model, train, test)))
    return rebuilt


def forecast_figure(done: list[Rebuilt], method: str, path: Path) -> bool:
    """One panel per series: the end of the training data, the test points and the ``method``
    model's predictive mean with its 95% band (noise included), as the RMSE scores them."""
    if not done:
        return False
    cols = 4
    fig = Figure(figsize=(12.0, 2.6 * math.ceil(len(done) / cols)), layout="constrained")
    FigureCanvasAgg(fig)
    for i, (row, rebuilt) in enumerate(done):
        ax = fig.add_subplot(math.ceil(len(done) / cols), cols, i + 1)
        if isinstance(rebuilt, str):
            ax.set_title(f"{row['series']}: not rebuilt ({rebuilt})", fontsize=9)
            continue
        model, train, test = rebuilt
        shown = train.x >= train.x[-1] - 0.3 * (test.x[-1] - train.x[0])
        grid = np.linspace(train.x[shown][0], test.x[-1], 300)
        mean, sd = model.predict(grid)
        ax.fill_between(grid, mean - 1.96 * sd, mean + 1.96 * sd, color="#c6dbef", lw=0)
        ax.plot(grid, mean, color="#1f5d99", lw=1.0)
        ax.plot(train.x[shown], train.y[shown], ".", color="#333333", ms=2.5)
        ax.plot(test.x, test.y, ".", color="#d62728", ms=3.5)
        ax.axvline(train.x[-1], color="#999999", lw=0.6, ls=":")
        ax.set_title(f"{row['series']}: RMSE {float(row['rmse']):.4g}", fontsize=9)
        ax.tick_params(labelsize=7)
        ax.xaxis.set_major_locator(MaxNLocator(4))
        ax.ticklabel_format(axis="both", useOffset=False, style="plain")
    fig.suptitle(
        f"{method} extrapolation: training data (black), test data (red), predictive mean and"
        " 95% band (blue)",
        fontsize=10,
    )
    fig.savefig(path, dpi=110)
    return True


def bias_section(done: list[Rebuilt], method: str) -> list[str]:
    """Where the ``method`` extrapolations lie: bias = mean(forecast − test y), beside the test
    mean, the training mean and the mean of the last training points (as many as the test)."""
    body = []
    for row, rebuilt in done:
        if isinstance(rebuilt, str):
            body.append([row["series"], f"not rebuilt ({rebuilt})", "", "", "", ""])
            continue
        model, train, test = rebuilt
        mean, sd = model.predict(test.x)
        rmse, _ = test_scores(test.y, mean, sd)
        recent = train.y[-test.n :]
        cells = [rmse, float(np.mean(mean - test.y)), float(np.mean(test.y))]
        cells += [float(np.mean(train.y)), float(np.mean(recent))]
        body.append([row["series"], *(f"{v:.5g}" for v in cells)])
    if not body:
        return []
    header = ["series", "RMSE (rebuilt)", "bias", "test mean", "training mean", "recent mean"]
    return [
        f"### Where the {method} forecasts lie (rebuilt from the kernels in `results.csv`)",
        "",
        "bias = mean of forecast − test y; recent mean = mean of the last training points, as"
        " many as there are test points.",
        "",
        *md_table(header, body),
    ]


def error_profile(x: np.ndarray, err: np.ndarray, parts: int = 5) -> tuple[list[float], float]:
    """Where the squared error of a prediction lies: the RMSE over each of ``parts`` equal
    groups of test points in order of x, and the share of sum(err²) held by the five worst
    points (0.05 for 100 points of equal error)."""
    order = np.argsort(x, kind="stable")
    sq = np.asarray(err, dtype=float)[order] ** 2
    by_part = [float(np.sqrt(np.mean(g))) for g in np.array_split(sq, parts) if g.size]
    worst = np.sort(sq)[::-1][:5]
    total = float(np.sum(sq))
    return by_part, float(np.sum(worst)) / total if total > 0 else 0.0


def interp_error_section(done: list[Rebuilt], method: str) -> list[str]:
    """Where the ``method`` interpolation errors lie, for each series: RMSE over each fifth of
    the test points in order of x, the share of the squared error in the five worst points, and
    the worst point's x and error (prediction − y)."""
    body = []
    for row, rebuilt in done:
        if isinstance(rebuilt, str):
            body.append([row["series"], f"not rebuilt ({rebuilt})", "", "", ""])
            continue
        model, _, test = rebuilt
        mean, sd = model.predict(test.x)
        rmse, _ = test_scores(test.y, mean, sd)
        err = mean - test.y
        by_part, share = error_profile(test.x, err)
        w = int(np.argmax(err**2))
        body.append(
            [
                row["series"],
                f"{rmse:.4g}",
                " / ".join(f"{v:.3g}" for v in by_part),
                f"{share:.2f}",
                f"{test.x[w]:.2f}: {err[w]:+.3g}",
            ]
        )
    if not body:
        return []
    header = ["series", "RMSE (rebuilt)", "RMSE by fifth of x", "worst 5 share", "worst x: error"]
    return [
        f"### Where the {method} interpolation errors lie (rebuilt from the kernels in"
        " `results.csv`)",
        "",
        "RMSE over each fifth of the test points in order of x; worst 5 share = part of the summed"
        " squared error from the five worst points (about 5/n if errors were even).",
        "",
        *md_table(header, body),
    ]


def runs_by_seed(rows: Iterable[dict[str, str]], task: str, method: str) -> Seeds:
    """The ``method`` runs of ``task``: seed → series → row (a later row of a run wins)."""
    out: Seeds = {}
    for r in rows:
        if r["task"] == task and r["method"] == method:
            out.setdefault(int(r["seed"]), {})[r["series"]] = r
    return out


def seed_section(
    rows: dict[Key, dict[str, str]],
    seed_rows: dict[tuple[str, ...], dict[str, str]],
    task: str,
    grid: Grid,
    method: str = "abcd",
) -> list[str]:
    """The ``method`` runs of ``task`` repeated with other seeds (``other_seeds.csv``).

    Per series, each seed's training BIC and test RMSE; then, for each seed and for the choice
    a user could make without the test data (on each series, the seed whose model has the lower
    training BIC), the runs no worse than the published counterpart and the median standardised
    RMSE, standardised against the same other columns as the main table."""
    seeds = runs_by_seed([*seed_rows.values(), *rows.values()], task, method)  # main rows win
    if len(seeds) < 2:
        return []
    ref = COUNTERPART[method]
    has_ref = any(cells.get(ref) is not None for cells in grid.values())
    order = sorted(seeds)

    def lower_bic(s: str) -> dict[str, str] | None:
        runs = every_seed_ran(seeds, s)
        return min(runs, key=lambda r: float(r["bic"])) if runs else None

    variants: dict[str, dict[str, dict[str, str] | None]] = {
        f"seed {k}": {s: seeds[k].get(s) for s in grid} for k in order
    }
    variants["lower training BIC of the seeds"] = {s: lower_bic(s) for s in grid}

    body = []
    for s in grid:
        line = [s, fmt(grid[s].get(ref))] if has_ref else [s]
        for k in order:
            r = seeds[k].get(s)
            ok = no_worse(our_rmse(r), grid[s].get(ref))
            line += [our_cell(r, "bic", ".2f"), our_cell(r, "rmse", ".5g") + (" ✓" if ok else "")]
        chosen = variants["lower training BIC of the seeds"][s]
        line.append("—" if chosen is None else chosen["seed"])
        body.append(line)
    header = ["series", *([f"ref {ref}"] if has_ref else [])]
    for k in order:
        header += [f"seed {k} BIC", f"seed {k} RMSE"]
    header.append("lower BIC: seed")

    summary = []
    for name, chosen_rows in variants.items():
        rmse = {s: our_rmse(r) for s, r in chosen_rows.items()}
        std = standardise({s: {**grid[s], method: rmse[s]} for s in grid})
        ran = sum(v is not None for v in rmse.values())
        wins = sum(no_worse(v, grid[s].get(ref)) for s, v in rmse.items())
        summary.append(
            [
                name,
                str(ran),
                f"{wins} of {ran}" if has_ref else "—",
                fmt(median_or_none(column(std, method)), ".2f"),
            ]
        )
    summary_header = ["runs", "series run", f"RMSE no worse than {ref}", "median standardised"]
    agree, compared = bic_rmse_agreement(seeds, list(grid))
    return [
        f"### How much the seed moves `{method}` (training BIC and test RMSE per seed)",
        "",
        "The same searches with other seeds (the seed draws the random restarts of every fit),"
        f" from `{SEEDS_CSV}`; ✓: no worse than the published {ref}.",
        "",
        *md_table(header, body),
        "",
        *md_table(summary_header, summary),
        "",
        "The last row takes, on each series, the seed whose model has the lower training BIC:"
        " a choice made without the test data, as a search that tried every seed would make it."
        " Medians standardise against the same other columns as the table above.",
        "",
        f"On {agree} of the {compared} series where the seeds' models differ in training BIC (by"
        f" more than {SAME_BIC}), the lowest BIC went with the lowest test RMSE.",
    ]


def every_seed_ran(seeds: Seeds, series: str) -> list[dict[str, str]]:
    """The runs of ``series``, one per seed, when every seed's run succeeded; else []."""
    runs = [seeds[k].get(series) for k in sorted(seeds)]
    done = [r for r in runs if r is not None and our_rmse(r) is not None]
    return done if len(done) == len(runs) else []


def bic_rmse_agreement(seeds: Seeds, series: list[str]) -> tuple[int, int]:
    """On how many series (of those where every seed's run succeeded and their training BICs
    are not all within ``SAME_BIC``) the run with the lowest BIC also has the lowest RMSE."""
    agree = compared = 0
    for s in series:
        done = [(float(r["bic"]), our_rmse(r) or 0.0) for r in every_seed_ran(seeds, s)]
        if not done or max(b for b, _ in done) - min(b for b, _ in done) <= SAME_BIC:
            continue
        compared += 1
        agree += min(done)[1] == min(rmse for _, rmse in done)
    return agree, compared


def write_rmse_csv(grid: Grid, path: Path) -> None:
    cols = list(next(iter(grid.values())))
    with path.open("w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["series", *cols])
        for s, cells in grid.items():
            writer.writerow([s, *("" if cells[c] is None else repr(cells[c]) for c in cols)])


def task_section(
    rows: dict[Key, dict[str, str]],
    task: str,
    series: list[str],
    out_dir: Path,
    seed_rows: dict[tuple[str, ...], dict[str, str]],
) -> tuple[list[str], Grid, Grid]:
    ref = read_reference(task)
    ref_cols = REFERENCE_METHODS if ref else ()
    grid = rmse_grid(rows, task, series, ref, ref_cols)
    std = standardise(grid)
    write_rmse_csv(grid, out_dir / f"rmse_{task}.csv")
    png = out_dir / f"boxplot_{task}.png"
    title = f"{TASK_TITLES[task]}: standardised test RMSE on {len(series)} series"
    plotted = boxplot(std, list(METHODS) + list(ref_cols), title, png)
    lines = [f"## {TASK_TITLES[task]}", ""]
    if not ref:
        lines += [f"Reference results not found under {SHARED / 'reference'}: ours only.", ""]
    lines += rmse_section(rows, task, grid) + [""]
    lines += standardised_section(task, std) + [""]
    lines += [f"![box plot]({png.name})" if plotted else "(no RMSE yet: no box plot)", ""]
    lines.append(
        f"Raw RMSE table: [{f'rmse_{task}.csv'}](rmse_{task}.csv). Box plot: median and"
        " quartiles, whiskers to 1.5 IQR, every series as a point (ours blue, published grey),"
        " methods ordered by median."
    )
    lines += [""] + per_method_section(
        rows,
        task,
        series,
        "### Mean log predictive density of the test y (higher is better)",
        "mlpd",
        ".4g",
        "mean",
    )
    lines += [""] + models_section(rows, task, series)
    seeds = seed_section(rows, seed_rows, task, grid)
    if seeds:
        lines += [""] + seeds
    rebuilt = rebuilt_runs(rows, "abcd", task)
    if task == "interp":
        lines += [""] + interp_error_section(rebuilt, "abcd")
    elif forecast_figure(rebuilt, "abcd", out_dir / FORECASTS_PNG):
        lines += [
            "",
            "What the full search's models forecast (rebuilt from the kernels in `results.csv`):",
            "",
            f"![abcd forecasts]({FORECASTS_PNG})",
        ]
        lines += [""] + bias_section(rebuilt, "abcd")
    lines += [""] + per_method_section(
        rows,
        task,
        series,
        "### Wall time (seconds: search and prediction)",
        "seconds",
        ".1f",
        "total",
    )
    return lines, grid, std


def markdown(
    rows: dict[Key, dict[str, str]], base: SearchSettings, command: str, out_dir: Path
) -> str:
    series = all_series()
    lines = header_lines(rows, base, command, series)
    sections, grids, stds = [], {}, {}
    seed_rows = read_results(out_dir / SEEDS_CSV, SEED_KEY)
    for task in TASKS:
        body, grids[task], stds[task] = task_section(rows, task, series, out_dir, seed_rows)
        sections += [""] + body
    has_ref = "ABCD_acc" in next(iter(grids["extrap"].values()))
    lines += [
        "",
        "## Targets (from the issue), on the completed rows",
        "",
        "- `abcd` extrapolation RMSE no worse than the published ABCD-accuracy: "
        + wins_target(rows, grids["extrap"], has_ref),
        "- median standardised RMSE of `abcd`, extrapolation: "
        + median_target("extrap", stds["extrap"], series),
        "- median standardised RMSE of `abcd`, interpolation: "
        + median_target("interp", stds["interp"], series),
    ]
    if has_ref:
        lines.append(published_basis_line(grids))
    lines += sections
    lines += [
        "",
        "## Notes",
        "",
        "- Reference: the original system's published RMSEs (Lloyd et al., AAAI 2014), from"
        " `shared/reference/`; its README lists the data caveats (03-mauna is stored"
        " mean-centred; the original ran a zero-mean GP on raw y with a constant kernel, we"
        " centre and scale y internally). Far from the training data our predictions revert to"
        " the training mean, the original's to zero, so a baseline such as SE can differ from its"
        " published RMSE for that reason alone.",
        "- Standardised RMSE of a series depends on which of our runs on it are complete, so"
        " medians are provisional until every run of the series is done.",
        "- Wall times were measured on this machine while other jobs may have been running; the"
        " 1-minute load average at the start of each run is in `results.csv`.",
    ]
    notes = out_dir / "NOTES.md"  # written by hand after looking at the runs; kept on rewrites
    if notes.exists():
        lines += ["", "## Notes written by hand (`NOTES.md`)", "", notes.read_text().strip()]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------
# Command line
# ------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    defaults = SearchSettings()
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--series", nargs="+", default=None, metavar="NAME")
    p.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    p.add_argument("--tasks", nargs="+", default=list(TASKS), choices=list(TASKS))
    p.add_argument("--jobs", type=int, default=0, help="0: one process per core; 1: serial")
    p.add_argument("--out-dir", type=Path, default=ROOT / "benchmarks" / "accuracy")
    for name, help_text in SEARCH_OPTIONS.items():
        p.add_argument(f"--{name}", type=int, default=getattr(defaults, name), help=help_text)
    p.add_argument(
        "--prior-mean",
        choices=PRIOR_MEANS,
        default=defaults.prior_mean,
        help="the GP's prior mean: the training mean of y (data) or zero, as the original system",
    )
    p.add_argument("--quiet", action="store_true", help="no line per search level")
    p.add_argument(
        "--merge",
        nargs="+",
        type=Path,
        default=[],
        metavar="CSV",
        help="first put the rows of these results.csv files into OUT/results.csv, replacing "
        "the rows of the same series, task and method (runs made in other folders)",
    )
    p.add_argument(
        "--merge-seeds",
        nargs="+",
        type=Path,
        default=[],
        metavar="CSV",
        help=f"first put the rows of these results.csv files, runs made with another --seed,"
        f" into OUT/{SEEDS_CSV} (one row per series, task, method and seed); RESULTS.md then"
        " shows how much the seed moves the full search",
    )
    p.add_argument(
        "--report-only",
        action="store_true",
        help="rewrite RESULTS.md and the tables from results.csv without running anything",
    )
    return p.parse_args(argv)


def this_command(argv: list[str]) -> str:
    """The command line that produces these results: ``--report-only`` and ``--merge CSV ...``
    left out, since they run nothing."""
    python = Path(sys.executable)
    with contextlib.suppress(ValueError):
        python = python.relative_to(Path.cwd())
    kept: list[str] = []
    merging = False
    for arg in argv:
        if arg.startswith("-"):
            merging = arg in ("--merge", "--merge-seeds")
        if not merging and arg != "--report-only":
            kept.append(arg)
    return shlex.join([str(python), *kept])


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    known = all_series()
    series = args.series or known
    unknown = [s for s in series if s not in known]
    if unknown:
        raise SystemExit(f"unknown series {unknown}; choose from {known}")
    base = SearchSettings(
        **{name: getattr(args, name) for name in SEARCH_OPTIONS}, prior_mean=args.prior_mean
    )
    args.out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = args.out_dir / "results.csv"
    refs = {task: read_reference(task) for task in TASKS}
    # Method by method, in the order given: partial results are whole methods.
    keys = [(s, t, m) for m in args.methods for t in args.tasks for s in series]
    read_results(csv_path)  # refuse a results.csv of another layout before running anything
    if args.merge:
        taken = merge_results(csv_path, args.merge)
        print(f"merged {taken} rows into {csv_path}", flush=True)
    if args.merge_seeds:
        seeds_path = args.out_dir / SEEDS_CSV
        taken = merge_results(seeds_path, args.merge_seeds, SEED_KEY)
        print(f"merged {taken} rows into {seeds_path}", flush=True)
    interrupted = False
    try:
        if not args.report_only:
            run_all(keys, csv_path, base, args.jobs, refs, args.quiet)
    except KeyboardInterrupt:
        interrupted = True
        print("interrupted: finished runs are kept; run the same command to continue", flush=True)
    report = args.out_dir / "RESULTS.md"
    report.write_text(markdown(read_results(csv_path), base, this_command(sys.argv), args.out_dir))
    print(f"wrote {report}", flush=True)
    if interrupted:
        sys.exit(130)


if __name__ == "__main__":
    main()
