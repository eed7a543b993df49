"""The original system's published numbers, read from ``benchmarks/reference/`` (provenance in
its README): the BIC of its chosen model per series, and the raw test RMSE of the nine
published methods on the extrapolation and interpolation splits."""

from __future__ import annotations

import csv
import math
from pathlib import Path

REFERENCE_DIR = Path(__file__).resolve().parent / "reference"
BIC_FILE = REFERENCE_DIR / "abcd_bic.csv"
RMSE_FILES = {
    "extrap": REFERENCE_DIR / "extrapolation_rmse.csv",
    "interp": REFERENCE_DIR / "interpolation_rmse.csv",
}
#: the nine published methods, in the papers' column order
REFERENCE_METHODS = ("ABCD_acc", "ABCD_int", "SP", "TCI", "MKL", "EL_Eureqa", "CP", "SE", "LN")
#: medians of standardised RMSE (RMSE / best of the nine on the series), in the order of
#: REFERENCE_METHODS: the column medians of tables 1.1 (interp) and 1.2 (extrap) of the grammar
#: paper's supplement (tables A.1 and A.2 of the thesis)
PUBLISHED_MEDIANS = {
    "extrap": (1.07, 1.45, 1.54, 1.80, 1.85, 2.23, 2.25, 2.85, 3.19),
    "interp": (1.00, 1.06, 1.09, 1.06, 1.49, 2.84, 1.52, 2.30, 3.40),
}


def reference_bics() -> dict[str, dict[str, str]]:
    """The rows of ``abcd_bic.csv`` by series name."""
    with BIC_FILE.open(newline="") as f:
        return {row["dataset"]: row for row in csv.DictReader(f)}


def reference_rmse(task: str) -> dict[str, dict[str, float]]:
    """Published RMSE per series and method for ``task`` ("extrap" or "interp"); a cell that is
    empty or not a finite positive number is left out."""
    path = RMSE_FILES[task]
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        missing = set(REFERENCE_METHODS) - set(reader.fieldnames or ())
        if missing:
            raise SystemExit(f"{path} lacks the columns {sorted(missing)}")
        table: dict[str, dict[str, float]] = {}
        for r in reader:
            cells = {m: positive(r[m]) for m in REFERENCE_METHODS}
            table[r["dataset"]] = {m: v for m, v in cells.items() if v is not None}
        return table


def positive(text: str | None) -> float | None:
    """A finite positive number read from text, else None (an empty or unusable cell)."""
    try:
        value = float(text or "nan")
    except ValueError:
        return None
    return value if math.isfinite(value) and value > 0 else None
