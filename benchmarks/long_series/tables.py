"""The long-series benchmark's markdown: a summary per set of options, the known structure of
each series, and each run's levels."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence

from benchmarks.long_series.runs import (
    MEMORY_TARGET_FROM_N,
    MEMORY_TARGET_MIB,
    PDF_TARGET_MB,
    TIME_10K,
    TIME_100K,
    shown_command,
)

Row = Mapping[str, str]

SUMMARY = (
    ("series", "series"),
    ("N", "n"),
    ("even", "even"),
    ("status", "status"),
    ("wall (min)", "seconds"),
    ("search (min)", "search_seconds"),
    ("report (min)", "report_seconds"),
    ("largest process (MiB)", "largest_mib"),
    ("process tree (MiB)", "tree_mib"),
    ("PDF (MB)", "pdf_mb"),
    ("levels", "levels"),
    ("engine", "engine"),
    ("m", "inducing"),
    ("chosen structure", "structure"),
    ("BIC", "bic"),
    ("BIC interval", "model_interval"),
    ("periods found", "periods_found"),
    ("changes found", "changes_found"),
    ("time target (min)", "time_target"),
    ("time", "time_ok"),
    ("periods", "periods_ok"),
    ("memory", "memory_ok"),
    ("PDF", "pdf_ok"),
)
LEVELS = (
    ("level", "level"),
    ("best structure", "structure"),
    ("BIC", "bic"),
    ("BIC interval", "interval"),
    ("width", "width"),
    ("seconds", "seconds"),
    ("candidates", "candidates"),
    ("evaluations", "evaluations"),
    ("on all the data", "full_evaluations"),
    ("PCG iterations", "pcg"),
    ("kept", "kept"),
    ("pruned", "pruned"),
    ("peak memory (MiB)", "memory_mib"),
)
MINUTES = {"seconds", "search_seconds", "report_seconds", "time_target"}
VERDICTS = {"time_ok", "periods_ok", "memory_ok", "pdf_ok"}
#: the columns that join two fields into [low, high]
INTERVALS = {
    "interval": ("interval_low", "interval_high"),
    "model_interval": ("bic_low", "bic_high"),
}


def _cell(row: Row, field: str, minutes: bool) -> str:
    value = row.get(field, "")
    if field in INTERVALS:
        low, high = (row.get(name, "") for name in INTERVALS[field])
        return f"[{float(low):.1f}, {float(high):.1f}]" if low and high else ""
    if not value:
        return ""
    if minutes and field in MINUTES:
        return f"{float(value) / 60.0:.1f}"
    if field in VERDICTS:
        return "pass" if value == "yes" else "FAIL"
    if field in ("bic", "seconds"):  # a level's seconds (the summary's are in minutes above)
        return f"{float(value):.1f}"
    if field == "width":
        return f"{float(value):.2f}"
    if field == "structure":
        return f"`{value}`"
    if field == "n":
        return f"{int(value):,}"
    return str(value)


def table(
    rows: Sequence[Row], columns: Sequence[tuple[str, str]], minutes: bool = False
) -> list[str]:
    """A markdown table of ``rows``, times in minutes if ``minutes``; a column empty in every
    row is left out."""
    cells = [[_cell(r, field, minutes) for _, field in columns] for r in rows]
    keep = [j for j in range(len(columns)) if any(c[j] for c in cells)]
    head = [columns[j][0] for j in keep]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(keep)]
    lines += ["| " + " | ".join(c[j] or "–" for j in keep) + " |" for c in cells]
    return lines


def markdown(
    rows: Sequence[Row],
    levels: Sequence[Row],
    truths: Mapping[str, str],
    header: Sequence[str],
    unavailable: Mapping[str, str],
    notes: str = "",
) -> str:
    """The whole file: ``header`` lines, then per set of options its summary and levels."""
    lines = list(header)
    lines += [
        "",
        f"Targets (issue 30, two cores): N ≈ 10⁴ within {TIME_10K / 60:.0f} minutes and"
        f" N = 10⁵ evenly spaced within {TIME_100K / 60:.0f} minutes (the time column; no"
        " target at other sizes); the known periods found at every N (periods); peak memory of"
        f" the largest process under {MEMORY_TARGET_MIB / 1024:.0f} GiB from"
        f" {MEMORY_TARGET_FROM_N:,} points on (memory); a PDF under {PDF_TARGET_MB:.0f} MB"
        " (PDF). *Largest process*: the peak resident set of the largest single process of the"
        " command's tree (exact); *process tree*: the largest sum over the tree, sampled twice"
        " a second. *Search* ends when the report begins (its progress line).",
    ]
    by_args: dict[str, list[Row]] = {}
    for r in rows:
        by_args.setdefault(r["args"], []).append(r)
    if not rows:
        lines += ["", "No run has finished yet."]
    for args, group in by_args.items():
        lines += ["", f"## `{shown_command(shlex.split(args))}`", ""]
        lines += table(group, SUMMARY, minutes=True)
        lines += ["", "What the chosen kernels found (nearest value in the series' unit):", ""]
        for r in group:
            if r["status"] == "ok":
                lines.append(f"- {r['series']}: {r['found'] or 'nothing to check'}")
            else:
                lines.append(f"- {r['series']}: {r['status']}, no model: {r['note']}")
        for r in group:
            mine = [lv for lv in levels if lv["series"] == r["series"] and lv["args"] == args]
            if mine:
                lines += ["", f"### {r['series']}: levels", ""] + table(mine, LEVELS)
    shown = {r["series"] for r in rows}
    lines += ["", "## Known structure of each series", ""]
    lines += [f"- **{name}**: {text}" for name, text in truths.items() if name in shown]
    if unavailable:
        lines += ["", "Not available on this machine:", ""]
        lines += [f"- {name}: {why}" for name, why in unavailable.items()]
    if notes:
        lines += ["", "## Notes written by hand (`long_series_notes.md`)", "", notes.strip()]
    return "\n".join(lines) + "\n"
