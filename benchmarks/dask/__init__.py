"""The search on a Dask cluster against the process pool (``bench_dask``, one series looked into
by ``bench_dask_one``; ``cluster`` starts the local scheduler and workers, ``paper`` the expected
wall time at more workers, ``breakdown`` splits a search's wall time). Results and notes in
``outputs/``."""

from pathlib import Path

#: where this group's results (and the notes written by hand about them) are kept
OUTPUTS = Path(__file__).resolve().parent / "outputs"
