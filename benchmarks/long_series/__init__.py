"""The long-series benchmarks (issue 30), on the skc engine's ground.

``bench_long`` runs the default report on series of 10⁴-10⁵ points, from its parts:
``synthetic`` (hourly series with known structure), ``bundled`` (real series from public
packages), ``data`` (the series on disk with their truth), ``truth`` (what a chosen kernel found
of it), ``trace`` (the search's per-level numbers from its JSON), ``measure`` (one command's wall
time and peak memory), ``runs`` (the CSV of runs) and ``tables`` (the Markdown). Beside it:
``bench_skc_level`` (where one skc search level's time goes) and ``bench_skc_scale`` (what an skc
search costs as N grows), both on a checkpoint ``checkpointed`` reads; ``bench_skc_agreement``
(skc against exact on the 13 series); ``bench_skc_subset`` (the skc search with and without the
exact subset screen). Results and notes in ``outputs/``."""

from pathlib import Path

#: where this group's results (and the notes written by hand about them) are kept
OUTPUTS = Path(__file__).resolve().parent / "outputs"
