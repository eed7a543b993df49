"""The long-series benchmark's parts: ``synthetic`` (hourly series with known structure),
``bundled`` (real series from public packages), ``data`` (the series on disk with their
truth), ``truth`` (what a chosen kernel found of it), ``trace`` (the search's per-level
numbers from its JSON) and ``measure`` (one command's wall time and peak memory). The driver
is :mod:`benchmarks.bench_long`."""
