"""One series through the default user command, measured; its row and its per-level rows.

The command is ``abcd report DATA.csv -o OUT.pdf --json MODEL.json`` plus the benchmark's
pass-through options, run as ``python -m abcd_cli`` from the project folder in a process of
its own. A finished run appends its row to the results CSV and its levels to the levels CSV
(each synced), so an interrupted benchmark resumes where it stopped.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.accuracy.runs import append_row, code_commit, read_results
from benchmarks.common import ROOT
from benchmarks.long_series import trace
from benchmarks.long_series.data import Prepared, elapsed
from benchmarks.long_series.measure import Measured, run
from benchmarks.long_series.truth import check

FIELDS = [
    "series",
    "args",
    "n",
    "even",
    "status",
    "seconds",
    "search_seconds",
    "report_seconds",
    "largest_mib",
    "tree_mib",
    "pdf_mb",
    "levels",
    "structure",
    "kernel",
    "bic",
    "bic_low",
    "bic_high",
    "engine",
    "inducing",
    "periods_found",
    "changes_found",
    "found",
    "time_target",
    "time_ok",
    "periods_ok",
    "memory_ok",
    "pdf_ok",
    "note",
    "load_avg",
    "finished",
    "commit",
]
LEVEL_FIELDS = [
    "series",
    "args",
    "level",
    "structure",
    "bic",
    "seconds",
    "candidates",
    "evaluations",
    "full_evaluations",
    "kept",
    "pcg",
    "interval_low",
    "interval_high",
    "width",
    "pruned",
    "memory_mib",
]
KEY = ("series", "args")
#: The issue's targets on two cores: wall seconds (N = 10⁴ within 15 minutes, N = 10⁵ evenly
#: spaced within 60), peak memory of the largest process at 10⁵ points, the PDF's size.
TIME_10K = 900.0
TIME_100K = 3600.0
MEMORY_TARGET_MIB = 2048.0
MEMORY_TARGET_FROM_N = 95_000
PDF_TARGET_MB = 5.0  # 10⁶ bytes
#: The line ``abcd report`` prints when the search is over and the report begins.
REPORT_STARTS = "decomposing the model"


def time_target(n: int, even: bool) -> float | None:
    """The issue's wall-time target in seconds for ``n`` points (None: none at this size):
    up to about 10⁴ points 15 minutes; about 10⁵ evenly spaced points 60 minutes."""
    if n <= 10_500:
        return TIME_10K
    if MEMORY_TARGET_FROM_N <= n <= 105_000 and even:
        return TIME_100K
    return None


def evenly_spaced(csv: Path) -> bool:
    """Whether the first column's points are equally spaced (to 10⁻⁹ of the step)."""
    step = np.diff(elapsed(pd.read_csv(csv, usecols=[0]).iloc[:, 0]))
    return bool(step.size and np.allclose(step, step[0], rtol=1e-9, atol=0.0))


def label(args: Sequence[str]) -> str:
    """A folder name for a set of pass-through options: ``default``, ``engine-skc``."""
    text = re.sub(r"[^A-Za-z0-9.]+", "-", " ".join(args)).strip("-")
    return text or "default"


def abcd_command(csv: Path, pdf: Path, model: Path, args: Sequence[str]) -> list[str]:
    return [sys.executable, "-m", "abcd_cli", "report", str(csv), "-o", str(pdf)] + [
        "--json",
        str(model),
        *args,
    ]


def shown_command(args: Sequence[str]) -> str:
    """The command as a user types it."""
    return shlex.join(["abcd", "report", "DATA.csv", "-o", "OUT.pdf", "--json", "OUT.json", *args])


def _num(value: float | None, digits: int = 6) -> str:
    return "" if value is None else f"{value:.{digits}g}"


def _verdict(ok: bool | None) -> str:
    return "" if ok is None else ("yes" if ok else "no")


@dataclass(frozen=True)
class Outcome:
    row: dict[str, object]
    levels: list[dict[str, object]]


def run_series(
    prepared: Prepared, args: Sequence[str], folder: Path, time_limit: float = 0.0
) -> Outcome:
    """Run the command on one prepared series, outputs in ``folder``; the row says what
    happened (a failure is recorded, not raised)."""
    folder.mkdir(parents=True, exist_ok=True)
    pdf = folder / f"{prepared.name}.pdf"
    model = folder / f"{prepared.name}.model.json"
    for stale in (pdf, model):
        stale.unlink(missing_ok=True)
    command = abcd_command(prepared.csv, pdf, model, args)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    started = time.time()
    measured = run(command, folder / f"{prepared.name}.log", time_limit, cwd=ROOT, env=env)
    even = evenly_spaced(prepared.csv)
    row: dict[str, object] = dict.fromkeys(FIELDS, "")
    row.update(
        series=prepared.name,
        args=shlex.join(args),
        n=prepared.n,
        even="yes" if even else "no",
        seconds=f"{measured.seconds:.1f}",
        largest_mib=f"{measured.largest_mib:.0f}",
        tree_mib="" if measured.tree_mib is None else f"{measured.tree_mib:.0f}",
        load_avg=f"{os.getloadavg()[0]:.2f}",
        finished=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        commit=code_commit(("abcd_cli", "benchmarks")),
    )
    _split_times(row, measured)
    target = time_target(prepared.n, even)
    row["time_target"] = "" if target is None else f"{target:.0f}"
    if measured.timed_out or measured.returncode != 0 or not model.exists():
        # no model: the targets that apply are missed
        row["time_ok"] = _verdict(False if target is not None else None)
        row["periods_ok"] = _verdict(False if prepared.truth.periods else None)
        if measured.timed_out:
            row.update(status="timeout", note=f"stopped after the time limit of {time_limit:.0f} s")
        else:
            said = [line.strip() for _, line in measured.lines if line.strip()]
            tail = " | ".join(said[-3:])
            row.update(status="failed", note=f"exit code {measured.returncode}: {tail}"[:400])
        levels = _checkpoint_levels(prepared.name, row["args"], pdf, started)
        row["levels"] = len(levels) if levels else ""
        return Outcome(row, levels)
    row["status"] = "ok"
    document = trace.read(model)
    levels = _level_rows(prepared.name, row["args"], trace.levels(document))
    _model_fields(row, prepared, document, measured, target, pdf)
    row["levels"] = len(levels)
    return Outcome(row, levels)


def _checkpoint_levels(
    series: str, args: object, pdf: Path, started: float
) -> list[dict[str, object]]:
    """The levels a stopped run finished, from the checkpoint ``abcd report`` keeps beside its
    output (``OUT.pdf.ckpt.json``: the search's trace so far); none when this run wrote none."""
    checkpoint = pdf.with_name(pdf.name + ".ckpt.json")
    if not checkpoint.exists() or checkpoint.stat().st_mtime < started:
        return []
    try:
        document = trace.read(checkpoint)
    except (OSError, ValueError):
        return []
    return _level_rows(series, args, trace.levels(document))


def _split_times(row: dict[str, object], measured: Measured) -> None:
    """Search and report seconds, split where ``abcd report`` says the report begins."""
    split = measured.first_line_with(REPORT_STARTS)
    if split is not None:
        row["search_seconds"] = f"{split:.1f}"
        row["report_seconds"] = f"{measured.seconds - split:.1f}"


def _model_fields(
    row: dict[str, object],
    prepared: Prepared,
    document: dict,
    measured: Measured,
    target: float | None,
    pdf: Path,
) -> None:
    chosen = trace.chosen(document)
    found = check(chosen.kernel, prepared.truth, chosen.x_first, chosen.x_last)
    low, high = chosen.interval or (None, None)
    pdf_mb = pdf.stat().st_size / 1e6 if pdf.exists() else None
    memory_applies = prepared.n >= MEMORY_TARGET_FROM_N
    row.update(
        structure=chosen.structure or "",
        kernel=chosen.kernel,
        bic=_num(chosen.bic, 8),
        bic_low=_num(low, 8),
        bic_high=_num(high, 8),
        engine=chosen.engine or "",
        inducing="" if chosen.inducing is None else chosen.inducing,
        periods_found=f"{sum(ok for *_, ok in found.periods)}/{len(found.periods)}",
        changes_found=f"{found.n_changes}/{len(found.changes)}",
        found=found.summary(),
        time_ok=_verdict(None if target is None else measured.seconds <= target),
        periods_ok=_verdict(found.all_periods if found.periods else None),
        memory_ok=_verdict(measured.largest_mib < MEMORY_TARGET_MIB if memory_applies else None),
        pdf_ok=_verdict(None if pdf_mb is None else pdf_mb < PDF_TARGET_MB),
        pdf_mb=_num(pdf_mb, 3),
        note=" | ".join(chosen.notes)[:600],
    )


def _level_rows(series: str, args: object, levels: list[trace.Level]) -> list[dict[str, object]]:
    rows = []
    for lv in levels:
        low, high = lv.interval or (None, None)
        rows.append(
            {
                "series": series,
                "args": args,
                "level": lv.level,
                "structure": lv.structure or "",
                "bic": _num(lv.bic, 8),
                "seconds": _num(lv.seconds, 4),
                "candidates": "" if lv.candidates is None else lv.candidates,
                "evaluations": "" if lv.evaluations is None else lv.evaluations,
                "full_evaluations": "" if lv.full_evaluations is None else lv.full_evaluations,
                "kept": "" if lv.kept is None else lv.kept,
                "pcg": "" if lv.pcg is None else lv.pcg,
                "interval_low": _num(low, 8),
                "interval_high": _num(high, 8),
                "width": _num(lv.width, 4),
                "pruned": "" if lv.pruned is None else lv.pruned,
                "memory_mib": _num(lv.memory, 4),
            }
        )
    return rows


def read_rows(path: Path) -> dict[tuple[str, ...], dict[str, str]]:
    """Rows already in the results CSV, by (series, args)."""
    return read_results(path, KEY, FIELDS)


def read_levels(path: Path) -> list[dict[str, str]]:
    """Every level row of the levels CSV, in file order."""
    if not path.exists():
        return []
    return list(read_results(path, (*KEY, "level"), LEVEL_FIELDS).values())


def record(outcome: Outcome, results: Path, levels: Path) -> None:
    """The levels first, then the row: a row in the results CSV means its levels are there."""
    for level in outcome.levels:
        append_row(levels, level, LEVEL_FIELDS)
    append_row(results, outcome.row, FIELDS)
