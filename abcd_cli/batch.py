"""Whole searches as tasks: many series searched at once, one per worker of a Dask cluster
(``abcd benchmark --distribute series``), so that 13 series keep a cluster busy.

Each series' search runs serially on its worker, with the same settings and so the same result
as anywhere else. Its checkpoint is written where the worker sees the output folder (every
worker of a local cluster does; machines without a shared folder start an interrupted series
over). A series whose workers keep dying is skipped with a note; a series that cannot be read or
searched (any :class:`~abcd_cli.errors.AbcdError`) is given as its error; the others go on.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from abcd_cli.errors import AbcdError, InputError, RunError
from abcd_cli.execution.pool import SerialExecutor
from abcd_cli.found import FoundModel
from abcd_cli.kernel_search.checkpoint import checkpoint_paths
from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.records import SearchResult
from abcd_cli.kernel_search.settings import SearchSettings


@dataclass(frozen=True)
class SeriesJob:
    """One series' search, as sent to a worker."""

    name: str
    x: np.ndarray
    y: np.ndarray
    settings: SearchSettings
    checkpoint: str  # absolute path


@dataclass(frozen=True)
class SeriesLost:
    """The result recorded for a series whose workers kept dying."""

    name: str


@dataclass(frozen=True)
class SeriesFailed:
    """The result of a series whose search raised one of the library's errors (kept as its
    message and kind, so that one series' failure neither ends the chunk of series it was
    sent with nor the results of the others)."""

    name: str
    message: str
    input_error: bool

    def error(self) -> AbcdError:
        return (InputError if self.input_error else RunError)(self.message)


def search_series(job: SeriesJob) -> SearchResult | SeriesFailed:
    """On a worker: the whole search, serially, resumed from its checkpoint if there is one;
    an error of the library's is returned, not raised."""
    path = job.checkpoint if Path(job.checkpoint).parent.is_dir() else None
    try:
        return run_search(job.x, job.y, job.settings, SerialExecutor(), None, path, resume=True)
    except AbcdError as exc:
        return SeriesFailed(job.name, exc.message, isinstance(exc, InputError))


def lost_series(job: SeriesJob) -> SeriesLost:
    return SeriesLost(job.name)


def search_many(
    files: list[Path], settings: SearchSettings, executor: Any, checkpoints: list[str]
) -> Iterator[tuple[Path, FoundModel | AbcdError | None]]:
    """Each file's model (None when its workers kept dying, the error when it could not be
    read or searched), in the files' order, as soon as it and those before it are done; every
    search that can start is sent to ``executor`` at once. A cluster lost on the way is the
    error of every series not yet done."""
    from abcd_cli.api import load_warned

    loaded: dict[int, Any] = {}
    failed: dict[int, AbcdError] = {}
    for i, path in enumerate(files):
        try:
            loaded[i] = load_warned(str(path), settings, prefix=f"{path.stem}: ")
        except AbcdError as exc:
            failed[i] = exc
    jobs = {
        i: SeriesJob(files[i].stem, s.x, s.y, settings, str(Path(checkpoints[i]).resolve()))
        for i, s in loaded.items()
    }
    results = iter(executor.map(search_series, list(jobs.values()), on_lost=lost_series))
    lost: AbcdError | None = None
    for i, path in enumerate(files):
        if i in failed:
            yield path, failed[i]
            continue
        if lost is None:
            try:
                result = next(results)
            except AbcdError as exc:  # the cluster, not this series: every later one too
                lost = exc
        if lost is not None:
            yield path, lost
        elif isinstance(result, SeriesLost):
            yield path, None
        elif isinstance(result, SeriesFailed):
            yield path, result.error()
        else:
            paths = tuple(checkpoint_paths(jobs[i].checkpoint, settings))
            yield path, FoundModel.from_search(loaded[i], result, paths)
