"""Whole searches as tasks: many series searched at once, one per worker of a Dask cluster
(``abcd benchmark --distribute series``), so that 13 series keep a cluster busy.

Each series' search runs serially on its worker, with the same settings and so the same result
as anywhere else. Its checkpoint is written where the worker sees the output folder (every
worker of a local cluster does; machines without a shared folder start an interrupted series
over). A series whose workers keep dying is skipped with a note; the others go on.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from abcd_cli.execution.pool import SerialExecutor
from abcd_cli.found import FoundModel
from abcd_cli.kernel_search.checkpoint import checkpoint_paths
from abcd_cli.kernel_search.loop import SearchResult, run_search
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


def search_series(job: SeriesJob) -> SearchResult:
    """On a worker: the whole search, serially, resumed from its checkpoint if there is one."""
    path = job.checkpoint if Path(job.checkpoint).parent.is_dir() else None
    return run_search(job.x, job.y, job.settings, SerialExecutor(), None, path, resume=True)


def lost_series(job: SeriesJob) -> SeriesLost:
    return SeriesLost(job.name)


def search_many(
    files: list[Path], settings: SearchSettings, executor: Any, checkpoints: list[str]
) -> Iterator[tuple[Path, FoundModel | None]]:
    """Each file's model (None when its workers kept dying), in the files' order, as soon as
    it and those before it are done; every search is sent to ``executor`` at once."""
    from abcd_cli.api import load_warned

    loaded = [load_warned(str(path), settings, prefix=f"{path.stem}: ") for path in files]
    jobs = [
        SeriesJob(path.stem, s.x, s.y, settings, str(Path(ckpt).resolve()))
        for path, s, ckpt in zip(files, loaded, checkpoints, strict=True)
    ]
    results = executor.map(search_series, jobs, on_lost=lost_series)
    for path, series, job, result in zip(files, loaded, jobs, results, strict=True):
        if isinstance(result, SeriesLost):
            yield path, None
            continue
        paths = tuple(checkpoint_paths(job.checkpoint, settings))
        yield path, FoundModel.from_search(series, result, paths)
