"""Running an inference method: greedy, the weighed pool, or any other in ``methods.REGISTRY``.
Every caller (``api``, ``batch``) runs ``settings.method`` through :func:`run_search` and never
names a method's module; the methods are siblings that know nothing of each other's state.

A method's ``search`` takes the series, the settings, the executor, the progress sinks and the
checkpoint and gives one ``SearchResult``: its model and, with a posterior, the weighted
particles that predict, decompose, the report, update and the model file read without knowing
which method made them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Any, Protocol, cast

import numpy as np

from abcd_cli.engines.base import Engine
from abcd_cli.kernel_search.candidate import Candidate, FitTask
from abcd_cli.kernel_search.events import Events
from abcd_cli.kernel_search.methods import REGISTRY
from abcd_cli.kernel_search.records import SearchResult
from abcd_cli.kernel_search.settings import SearchSettings


class Method(Protocol):
    """One inference method's entry point (its module's ``search``)."""

    def __call__(
        self,
        x: np.ndarray,
        y: np.ndarray,
        settings: SearchSettings,
        executor: Executor | None = None,
        progress: Callable[[str], None] | None = None,
        checkpoint: str | Path | None = None,
        resume: bool = False,
        fit_fn: Callable[[FitTask], Candidate] | None = None,
        engine: Engine | None = None,
        events: Events | None = None,
        x_names: Sequence[str] = (),
    ) -> SearchResult: ...


def method(name: str) -> Method:
    """The entry point of the method called ``name`` (one of ``METHODS``)."""
    return cast(Method, importlib.import_module(REGISTRY[name]).search)


def run_search(
    x: np.ndarray, y: np.ndarray, settings: SearchSettings | None = None, *args: Any, **kwargs: Any
) -> SearchResult:
    """Infer a model of y(x) by ``settings.method`` (default settings: greedy); the other
    arguments as :class:`Method` takes them (``fit_fn`` None fits each candidate with
    ``candidate.fit_candidate``)."""
    settings = settings or SearchSettings()
    return method(settings.method)(x, y, settings, *args, **kwargs)
