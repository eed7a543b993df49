"""Benchmarks of abcd, one subpackage per thing measured (``engines``, ``search``, ``accuracy``,
``long_series``, ``several_inputs``, ``dask``), each with its results in its own ``outputs/``;
one-off studies in ``benchmarks.studies``; ``common`` and ``reference`` shared by all. Run each
script from the project folder as a module, for example
``.venv/bin/python -m benchmarks.accuracy.bench_accuracy --report-only`` (see
``benchmarks/README.md``)."""
