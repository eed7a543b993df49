"""One-off studies: questions asked once of the engine, the search or the accuracy benchmark,
with their outputs in ``outputs/`` (the index, with what each found, is
``benchmarks/studies/README.md``)."""

from pathlib import Path

#: where the studies' outputs are kept
OUTPUTS = Path(__file__).resolve().parent / "outputs"
