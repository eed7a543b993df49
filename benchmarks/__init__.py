"""Benchmarks of abcd: the product's (engine, search, accuracy) in this package, one-off studies
in ``benchmarks.studies``. Run each from the project folder as a module, for example
``.venv/bin/python -m benchmarks.bench_accuracy --report-only`` (see ``benchmarks/README.md``)."""
