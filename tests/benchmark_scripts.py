"""Scripts of ``benchmarks/`` loaded as modules, for the tests of their functions."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@contextmanager
def benchmark_scripts(*names: str) -> Iterator[tuple[ModuleType, ...]]:
    """``benchmarks/NAME.py`` imported as ``NAME`` for each name, with ``benchmarks/`` on the path
    (the scripts import one another); the path and every module loaded from ``benchmarks/`` are
    removed afterwards."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        yield tuple(importlib.import_module(name) for name in names)
    finally:
        sys.path.remove(str(BENCHMARKS))
        for name, module in list(sys.modules.items()):
            if Path(getattr(module, "__file__", None) or "/").parent == BENCHMARKS:
                del sys.modules[name]
