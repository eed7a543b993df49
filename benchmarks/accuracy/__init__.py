"""The accuracy benchmarks on the fixed extrapolation and interpolation splits: the search and
its restricted languages beside the published methods (``bench_accuracy`` with ``runs``,
``tables``, ``seeds`` and ``figures``), and ``abcd`` beside the tools users pick instead
(``bench_peers`` with the ``peers`` package). Results in ``outputs/`` (the peers' in
``outputs/peers/``)."""

from pathlib import Path

#: where this group's results (and the notes written by hand about them) are kept
OUTPUTS = Path(__file__).resolve().parent / "outputs"
