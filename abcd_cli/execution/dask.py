"""Running the search's fits on a Dask cluster (``pip install 'abcd-cli[dask]'``).

:class:`DaskExecutor` gives a ``distributed.Client`` the one method the search needs, ``map``,
with results in order, as the process pool does:

* Data goes to the cluster once: every array field of a dataclass task (``FitTask.X`` and
  ``.y``) is sent as one small task of its own, keyed by its content, and the fits depend on
  it. Held as a task rather than scattered, it is recomputed (from the copy the scheduler keeps)
  if the worker holding it dies. Any engine's fits run this way (a long-series engine's
  inducing inputs too, if its task carries them as array fields).
* Task keys keep the scheduler's queueing on. Dask queues a task on the scheduler, handing it
  to the next free worker, only while its task group (the key's name before the first dash)
  is "root-ish": more tasks than twice the threads, depending on fewer than 5 tasks of fewer
  than 5 groups, where a group counts every task it ever held until all are forgotten. Any
  other task goes at once to a worker holding its data, and Dask keeps one copy of data no
  task is waiting for: a stage's first chunks all went to one worker, and the stage ended
  with the other idle (searches took 11-25% longer than on the process pool instead of
  4-6%, benchmarks/dask/outputs/dask_notes.md). So each array is a group of its own
  (``abcd_data_<digest>``), the fits on one set of arrays are a group of their own
  (``abcd_fit_<digest of the arrays' keys>-<unique>``) whatever ran before, and a
  placeholder task (``abcd_fit_<digest>-0``) keeps that group alive from stage to stage.
* Tasks go in chunks of consecutive tasks, by guided self-scheduling: each chunk takes
  1/(``CHUNK_SHARE`` · W) of the tasks not yet given out (W the cluster's threads), so a stage
  of many short fits costs the scheduler a few dozen tasks, not hundreds (each costs about
  5 ms of scheduler and client CPU, which on a small machine is taken from the workers), and
  the last chunks are single tasks that even out the workers' finishing times.
* A worker that dies mid-fit: the scheduler runs its tasks again elsewhere; a chunk whose
  workers keep dying ends in ``KilledWorker`` and its tasks are sent again one at a time, each
  after the one before (Dask also blames the tasks merely queued on a dying worker); a task
  that dies twice on its own gets ``on_lost(task)`` (a skipped candidate).
* ``speculate`` starts one task ahead of its stage (``execution.speculation``), sharing the
  data as ``map`` does; a task whose worker dies there gives None and is run again by ``map``.
* A cluster that goes away (scheduler lost, no workers for a while) or a worker running other
  code than this process raises :class:`ClusterError`, a one-line :class:`RunError`; the
  search's checkpoint holds every finished level.

``shutdown`` never stops a cluster it did not start: it cancels this executor's tasks and
closes what it opened (its client, its ``LocalCluster``). Reaching a cluster (an address
checked, a local cluster started): :mod:`abcd_cli.execution.cluster`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError, Executor
from pathlib import Path
from typing import Any

import numpy as np

import abcd_cli
from abcd_cli.errors import InputError, RunError
from abcd_cli.execution.speculation import Started

INSTALL_HINT = "pip install 'abcd-cli[dask]'"
#: Seconds without any worker before the cluster counts as gone.
NO_WORKER_GRACE = 120.0
#: Seconds between checks, while waiting for a result, that the cluster still has workers
#: (each is a request to the scheduler). A lost connection ends the wait at once instead: the
#: client cancels its futures.
_POLL = 5.0
_KEPT_DATA = 8  # arrays kept on the cluster (a search uses X and y of all points and a subset)
#: A chunk takes at most 1/(CHUNK_SHARE · W) of the tasks not yet given out.
CHUNK_SHARE = 2


class ClusterError(RunError):
    """The cluster cannot run the search: gone, unreachable, or running other code."""


def require_distributed() -> Any:
    """The ``distributed`` module, or an InputError naming the install command."""
    try:
        import distributed
    except ImportError:
        raise InputError(
            f"running on a Dask cluster needs the distributed package: {INSTALL_HINT}"
        ) from None
    return distributed


# ----------------------------------------------------------------------------- worker side


@functools.cache
def code_fingerprint() -> str:
    """abcd's version and a digest of its source files: what a worker must share with us."""
    root = Path(abcd_cli.__file__).parent
    digest = hashlib.blake2b(digest_size=8)
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return f"{abcd_cli.__version__}+{digest.hexdigest()}"


def worker_fingerprint() -> str:
    """Run on a worker by ``Client.run``: its own fingerprint."""
    return code_fingerprint()


def hold(value: Any) -> Any:
    """A task whose result is its argument: data the cluster keeps and can recompute."""
    return value


def run_tasks(
    fn: Callable, tasks: list[Any], expected: str, arrays: list[dict[str, np.ndarray]]
) -> list[Any]:
    """On a worker: refuse other code than the client's, then ``fn(task with its arrays)`` for
    each task of a chunk, in order."""
    mine = code_fingerprint()
    if mine != expected:
        raise ClusterError(_mismatch_text("a worker", mine, expected))
    return [
        fn(dataclasses.replace(task, **own) if own else task)
        for task, own in zip(tasks, arrays, strict=True)
    ]


def _killed_worker(exc: BaseException) -> bool:
    """Whether a task's error is Dask's ``KilledWorker`` (its workers kept dying)."""
    return type(exc).__name__ == "KilledWorker"


def chunk_sizes(n: int, workers: int, share: int = CHUNK_SHARE) -> list[int]:
    """Guided self-scheduling: sizes of consecutive chunks of n tasks, each
    ⌊remaining / (share · workers)⌋ tasks and at least one."""
    sizes: list[int] = []
    left = n
    while left > 0:
        sizes.append(max(1, left // (share * max(workers, 1))))
        left -= sizes[-1]
    return sizes


def _mismatch_text(who: str, theirs: str, ours: str) -> str:
    return (
        f"{who} runs other abcd code ({theirs}) than this machine ({ours}):"
        " install the same version of abcd on every worker"
    )


# ----------------------------------------------------------------------------- client side


def _digest(array: np.ndarray) -> str:
    array = np.ascontiguousarray(array)
    h = hashlib.blake2b(array.tobytes(), digest_size=12)
    h.update(f"{array.dtype.str}{array.shape}".encode())
    return h.hexdigest()


class DaskExecutor(Executor):
    """``map`` over a ``distributed.Client``; see the module docstring.

    ``owned``: what ``shutdown`` closes (the client and a LocalCluster this side started);
    a client passed in by the caller is left open.
    """

    def __init__(
        self,
        client: Any,
        on_lost: Callable[[Any], Any] | None = None,
        owned: tuple[Any, ...] = (),
        no_worker_grace: float = NO_WORKER_GRACE,
    ):
        self.client = client
        self.on_lost = on_lost
        self.owned = owned
        self.no_worker_grace = no_worker_grace
        self.lost = 0  # tasks given up after their workers kept dying
        self._data: OrderedDict[str, Any] = OrderedDict()  # key -> future of the data
        self._groups: OrderedDict[str, Any] = OrderedDict()  # key -> a fit group's placeholder
        self._pending: list[Any] = []
        self._ahead: list[Any] = []  # futures started by ``speculate``
        check_workers(client)

    @property
    def where(self) -> str:
        return str(getattr(self.client.scheduler, "address", "") or "the Dask scheduler")

    def _held(self, store: OrderedDict[str, Any], key: str, value: Any) -> Any:
        """The future of ``hold(value)`` under ``key``, submitted once; ``store`` keeps the
        ``_KEPT_DATA`` most recently used."""
        if key in store:
            store.move_to_end(key)
        else:
            store[key] = self.client.submit(hold, value, key=key, pure=False)
            while len(store) > _KEPT_DATA:
                store.popitem(last=False)
        return store[key]

    def _data_future(self, array: np.ndarray) -> Any:
        return self._held(self._data, f"abcd_data_{_digest(array)}", array)

    def _split(self, task: Any) -> tuple[Any, dict[str, Any]]:
        """The task without its arrays, and a future of each array."""
        if not dataclasses.is_dataclass(task) or isinstance(task, type):
            return task, {}
        arrays = {
            f.name: getattr(task, f.name)
            for f in dataclasses.fields(task)
            if isinstance(getattr(task, f.name), np.ndarray)
        }
        stub = dataclasses.replace(task, **dict.fromkeys(arrays)) if arrays else task
        return stub, {name: self._data_future(a) for name, a in arrays.items()}

    def submit(self, fn: Callable, /, *args: Any, **kwargs: Any) -> Any:
        """One call on the cluster (a ``distributed.Future``); its data is not shared."""
        return self.client.submit(fn, *args, pure=False, **kwargs)

    @property
    def workers(self) -> int:
        return self._threads()

    def speculate(self, fn: Callable, task: Any) -> Started:
        """``fn(task)`` started now on the cluster, its result None if its workers died."""
        future = self._submit_chunk(fn, [task])
        self._ahead = [f for f in self._ahead if not f.done()] + [future]

        def result() -> Any | None:
            try:
                return self._wait(future)[0]
            except Exception as exc:
                if _killed_worker(exc):
                    return None
                raise

        return Started(future.done, result, lambda: self.client.cancel([future]))

    def map(
        self,
        fn: Callable,
        *iterables: Iterable,
        timeout=None,
        chunksize=1,
        on_lost: Callable[[Any], Any] | None = None,
    ) -> Iterator[Any]:
        """``fn`` on each task (one iterable of single tasks), results in order as they come;
        ``on_lost`` (else the executor's) gives the result of a task whose workers kept dying."""
        if len(iterables) != 1:
            raise TypeError("DaskExecutor.map takes one iterable of tasks")
        tasks = list(iterables[0])
        if self.client.status in ("closing", "closed"):
            raise self._gone(None)
        try:
            chunks, start = [], 0
            for size in chunk_sizes(len(tasks), self._threads()):
                chunks.append(tasks[start : start + size])
                start += size
            futures = [self._submit_chunk(fn, chunk) for chunk in chunks]
        except (OSError, CancelledError) as exc:
            raise self._gone(exc) from None
        self._pending = futures
        return self._results(fn, chunks, futures, on_lost or self.on_lost)

    def _threads(self) -> int:
        """The cluster's worker threads now (1 when the scheduler does not say)."""
        try:
            return max(1, sum(self.client.nthreads().values()))
        except Exception:  # noqa: BLE001 - the first wait finds out whether it is gone
            return 1

    def _submit_chunk(self, fn: Callable, chunk: list[Any]) -> Any:
        stubs, arrays = zip(*(self._split(task) for task in chunk), strict=True)
        group = self._fit_group(data.key for own in arrays for data in own.values())
        return self.client.submit(
            run_tasks,
            fn,
            list(stubs),
            code_fingerprint(),
            list(arrays),
            key=f"{group}-{uuid.uuid4().hex}",
            pure=False,
        )

    def _fit_group(self, data_keys: Iterable[str]) -> str:
        """The task group of the fits on these arrays, kept alive by a placeholder task so
        that the scheduler keeps queueing them from stage to stage (module docstring)."""
        digest = hashlib.blake2b(",".join(sorted(set(data_keys))).encode(), digest_size=6)
        group = f"abcd_fit_{digest.hexdigest()}"
        self._held(self._groups, f"{group}-0", None)
        return group

    def _results(
        self,
        fn: Callable,
        chunks: list[list[Any]],
        futures: list[Any],
        on_lost: Callable[[Any], Any] | None,
    ) -> Iterator[Any]:
        for chunk, future in zip(chunks, futures, strict=True):
            yield from self._chunk_results(fn, chunk, future, on_lost)
        self._pending = []

    def _chunk_results(
        self, fn: Callable, chunk: list[Any], future: Any, on_lost: Callable[[Any], Any] | None
    ) -> list[Any]:
        """The chunk's results. After ``KilledWorker`` its tasks are sent again one at a time,
        each waiting for the one before, so that no innocent task sits queued beside the one
        that kills its worker (Dask also blames tasks merely queued on a dying worker); a
        task whose second single run also dies is lost."""
        try:
            return self._wait(future)
        except Exception as exc:
            if not _killed_worker(exc):
                raise
        results = []
        for task in chunk:
            for attempt in (1, 2):
                try:
                    results.extend(self._wait(self._submit_chunk(fn, [task])))
                    break
                except Exception as exc:
                    if not _killed_worker(exc):
                        raise
                    if attempt == 2:
                        results.append(self._lost(task, on_lost))
        return results

    def _lost(self, task: Any, on_lost: Callable[[Any], Any] | None) -> Any:
        if on_lost is None:
            raise ClusterError(f"the workers of {self.where} running one task kept dying")
        self.lost += 1
        return on_lost(task)

    def _wait(self, future: Any) -> Any:
        """``future.result()`` once the future is done, checking meanwhile that the cluster is
        still there. The wait is an event set by the future's done-callback, not
        ``result(timeout=...)``: on Python 3.11 that call's ``asyncio.wait_for`` can lose a
        race between the result and the timeout, which ``distributed`` then raises as an
        ``UnboundLocalError`` (seen once in a two-hour benchmark). An error of the task itself
        (``KilledWorker`` among them) is raised as it is; any other failure of the client is
        a lost cluster."""
        done = threading.Event()
        future.add_done_callback(lambda _future: done.set())
        empty_since: float | None = None
        while not done.wait(_POLL):  # not yet: is the cluster still there?
            empty_since = self._check_alive(empty_since)
        try:
            return future.result()
        except ImportError as exc:
            raise ClusterError(
                f"a worker of {self.where} cannot run abcd's code ({exc}):"
                " install the same version of abcd on every worker"
            ) from None
        except (OSError, CancelledError) as exc:
            raise self._gone(exc) from None
        except Exception as exc:
            if future.status == "error":
                raise
            raise self._gone(exc) from None

    def _check_alive(self, empty_since: float | None) -> float | None:
        """Raise ClusterError when the client is closed or the cluster has had no worker for
        ``no_worker_grace`` seconds; return when the cluster was first seen empty."""
        if self.client.status not in ("running", "connecting", "newly-created"):
            raise self._gone(None)
        try:
            workers = self.client.scheduler_info().get("workers", {})
        except Exception:  # noqa: BLE001 - not answering: the next poll or result decides
            return empty_since
        if workers:
            return None
        now = time.monotonic()
        if empty_since is not None and now - empty_since > self.no_worker_grace:
            raise ClusterError(
                f"the Dask cluster at {self.where} has had no workers for"
                f" {self.no_worker_grace:.0f} s"
            )
        return empty_since if empty_since is not None else now

    def _gone(self, exc: BaseException | None) -> ClusterError:
        if isinstance(exc, CancelledError) or exc is None:
            detail = "the connection to its scheduler was lost"
        else:
            detail = f"{type(exc).__name__}: {exc}"
        return ClusterError(f"lost the Dask cluster at {self.where} ({detail})")

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Cancel this executor's unfinished tasks (always when ``wait`` is False) and close
        what it opened; a cluster it merely connected to keeps running."""
        unfinished = self._pending + self._ahead
        if (cancel_futures or not wait) and unfinished:
            with contextlib.suppress(Exception):  # the cluster may be gone already
                self.client.cancel(unfinished)
        self._pending, self._ahead = [], []
        self._data.clear()
        self._groups.clear()
        for thing in self.owned:
            with contextlib.suppress(Exception):  # closing what may already be gone
                thing.close()


def check_workers(client: Any) -> None:
    """ClusterError when a connected worker runs other abcd code than this process."""
    expected = code_fingerprint()
    try:
        answers = client.run(worker_fingerprint)
    except Exception as exc:  # noqa: BLE001 - a worker that cannot even load abcd's code
        raise ClusterError(
            f"a worker cannot run abcd's code ({type(exc).__name__}: {exc}):"
            " install the same version of abcd on every worker"
        ) from None
    for worker, theirs in sorted(answers.items()):
        if theirs != expected:
            raise ClusterError(_mismatch_text(f"worker {worker}", theirs, expected))


def as_executor(executor: Any, on_lost: Callable[[Any], Any] | None = None) -> Executor:
    """A ``distributed.Client`` wrapped in a DaskExecutor (left open by ``shutdown``);
    any other executor as it is."""
    if type(executor).__name__ == "Client" and type(executor).__module__.startswith("distributed"):
        return DaskExecutor(executor, on_lost)
    return executor
