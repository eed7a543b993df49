"""The search benchmark (``bench_search``): the default search on the 13 series, its BIC beside
the original system's and its wall time. Results, the chosen models and notes in ``outputs/``."""

from pathlib import Path

#: where this group's results (and the notes written by hand about them) are kept
OUTPUTS = Path(__file__).resolve().parent / "outputs"
