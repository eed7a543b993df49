"""The long-series benchmark's data: every series as ``NAME.csv`` with ``NAME.truth.json``
(its known structure, :mod:`benchmarks.long_series.truth`) in a cache folder outside git.

Synthetic (:mod:`benchmarks.long_series.synthetic`): ``hourly-10k``, ``hourly-30k``,
``hourly-100k`` (10⁴, 3·10⁴, 10⁵ consecutive hours) and ``hourly-10k-gaps``,
``hourly-100k-gaps`` (the same with 10% of the hours removed). Real
(:mod:`benchmarks.long_series.bundled`): ``seattle-temps``, ``sf-temps``,
``electric-devices``, ``ppg``.

Write them all (or some) from the project folder::

    .venv/bin/python -m benchmarks.long_series.data [--series NAME ...] [--folder DIR]

A file already there is kept when it is what the code makes now; ``--no-fetch`` forbids the
one download (the sktime wheel for ElectricDevices when neither sktime nor aeon is installed).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from abcd_cli.files import write_output
from benchmarks.common import ROOT
from benchmarks.long_series import synthetic
from benchmarks.long_series.bundled import BUNDLED, Builder, Unavailable
from benchmarks.long_series.truth import Change, Period, Truth

FOLDER = ROOT / "results" / "long_series" / "data"
CHANGE_TOLERANCE = 0.01  # a change is found within this fraction of the span


def synthetic_series(n: int, irregular: bool = False) -> tuple[pd.DataFrame, Truth]:
    """The synthetic series of ``n`` hours as its CSV frame and truth (unit: days)."""
    s = synthetic.hourly_series(n, irregular=irregular)
    span_days = s.span_hours / 24.0
    change_time = (synthetic.START + pd.Timedelta(hours=s.change_hours)).strftime("%Y-%m-%d %H:%M")
    truth = Truth(
        unit="day",
        first=float(s.hours[0]) / 24.0,
        last=float(s.hours[-1]) / 24.0,
        periods=(Period("1 day", 1.0), Period("7 days", 7.0)),
        changes=(Change("amplitude change", s.change_hours / 24.0, CHANGE_TOLERANCE * span_days),),
        description=f"synthetic, {n:,} consecutive hours"
        + (f" with {synthetic.DROPPED:.0%} removed at random" if irregular else "")
        + ": linear trend + (slowly modulated, drifting) daily cycle + weekly cycle + noise;"
        f" the daily amplitude doubles at day {s.change_hours / 24.0:g} ({change_time})."
        " Checked: periods"
        " 1 day and 7 days (within 2%), the change (within 1% of the span,"
        f" {CHANGE_TOLERANCE * span_days:.1f} days)",
        source={"generator": "benchmarks.long_series.synthetic", "seed": str(synthetic.SEED)},
    )
    return s.frame(), truth


SYNTHETIC: dict[str, Builder] = {
    "hourly-10k": lambda cache, fetch: synthetic_series(10_000),
    "hourly-30k": lambda cache, fetch: synthetic_series(30_000),
    "hourly-100k": lambda cache, fetch: synthetic_series(100_000),
    "hourly-10k-gaps": lambda cache, fetch: synthetic_series(10_000, irregular=True),
    "hourly-100k-gaps": lambda cache, fetch: synthetic_series(100_000, irregular=True),
}
SERIES: dict[str, Builder] = {**SYNTHETIC, **BUNDLED}


@dataclass(frozen=True)
class Prepared:
    """A series on disk: its CSV, its truth, and how many points it has."""

    name: str
    csv: Path
    truth: Truth
    n: int


def truncated(frame: pd.DataFrame, truth: Truth, head: int) -> tuple[pd.DataFrame, Truth]:
    """The first ``head`` rows, with the truth of what they still contain: the changes past the
    last point are gone, the periods stay."""
    frame = frame.iloc[:head].reset_index(drop=True)
    last = truth.first + float(elapsed(frame.iloc[:, 0])[-1])
    changes = tuple(c for c in truth.changes if c.value <= last)
    return frame, replace(truth, last=last, changes=changes)


def elapsed(column: pd.Series) -> np.ndarray:
    """The time axis from its first point in the truth's unit: days for dates, else the
    column's own unit (seconds, samples)."""
    if pd.api.types.is_numeric_dtype(column):
        values = column.to_numpy(dtype=float)
        return values - values[0]
    stamps = pd.to_datetime(column)
    return (stamps - stamps.iloc[0]).dt.total_seconds().to_numpy() / 86400.0


def prepare(
    name: str, folder: Path = FOLDER, fetch: bool = True, head: int | None = None
) -> Prepared:
    """``folder/NAME.csv`` and ``NAME.truth.json`` (``NAME-headK`` with ``head``), made afresh
    (a second or two at 10⁵ points) and written only when they differ from the files there, so
    a changed generator never leaves stale data behind; Unavailable when the package that holds
    a real series is missing."""
    if name not in SERIES:
        raise KeyError(f"unknown series {name!r}; known: {', '.join(SERIES)}")
    stem = f"{name}-head{head}" if head else name
    frame, truth = SERIES[name](folder.parent, fetch)
    if head:
        frame, truth = truncated(frame, truth, head)
    folder.mkdir(parents=True, exist_ok=True)
    csv = folder / f"{stem}.csv"
    for path, text in (
        (csv, frame.to_csv(index=False)),
        (folder / f"{stem}.truth.json", truth.to_json() + "\n"),
    ):
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            write_output(path, text)
    return Prepared(stem, csv, truth, len(frame))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", nargs="+", default=list(SERIES), choices=list(SERIES))
    parser.add_argument("--folder", type=Path, default=FOLDER)
    parser.add_argument("--no-fetch", action="store_true", help="download nothing")
    args = parser.parse_args(argv)
    for name in args.series:
        try:
            p = prepare(name, args.folder, fetch=not args.no_fetch)
        except Unavailable as exc:
            print(f"{name}: not available: {exc}")
            continue
        print(f"{name}: {p.n:,} points in {p.csv} ({p.truth.source})")


if __name__ == "__main__":
    main()
