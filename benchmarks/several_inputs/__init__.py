"""Benchmarks of tables of several inputs (issue 31): recovery of known structure
(``bench_recovery`` with ``recovery_truth``), regression on real data (``bench_regression`` with
``regression_data`` and ``regression_methods``) and search time against N and D
(``bench_inputs_scaling``). Results, the kept models and notes in ``outputs/``."""

from pathlib import Path

#: where this group's results (and the notes written by hand about them) are kept
OUTPUTS = Path(__file__).resolve().parent / "outputs"
