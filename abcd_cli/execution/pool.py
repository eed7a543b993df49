"""Executors for the search: serial, or a process pool whose workers use one BLAS thread each.

The search only needs ``executor.map`` returning results in order; any
``concurrent.futures.Executor`` can be passed instead. A Dask cluster is reached through
``abcd_cli.execution.dask`` (``make_executor(..., scheduler=...)``), not by passing a
``distributed.Client`` here: its ``map`` returns futures and its ``shutdown`` stops the cluster.

Interrupts are the parent's business: workers ignore SIGINT (Ctrl-C reaches the whole process
group), die on SIGTERM and end when the parent ends, even by SIGKILL (``orphans``); and
``ResilientPool.shutdown(wait=False)`` stops them at once instead of letting them finish the
candidates they hold.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError, Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from threadpoolctl import threadpool_limits

from abcd_cli.execution.orphans import die_with_parent
from abcd_cli.execution.speculation import Started


def init_worker(parent: int | None = None, parent_main_thread: int | None = None) -> None:
    """One BLAS thread; leave Ctrl-C to the parent, die quietly when terminated (a forked
    worker would otherwise inherit the command's SIGTERM handler and print tracebacks), and
    end with process ``parent`` if given (``orphans.die_with_parent``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    threadpool_limits(limits=1, user_api="blas")
    if parent is not None:
        die_with_parent(parent, parent_main_thread)


class SerialExecutor(Executor):
    """Runs each call in this process, in order."""

    def map(self, fn: Callable, *iterables: Iterable, timeout=None, chunksize=1) -> Iterator[Any]:
        return map(fn, *iterables)


class ResilientPool(Executor):
    """A process pool that survives the death of a worker (killed, out of memory).

    ``map`` submits every item; if the pool breaks, it is replaced and each unfinished item is
    tried once more, alone, on the new pool; an item that breaks it again gets ``on_lost(item)``.
    ``speculate`` starts one item ahead of its stage (``execution.speculation``).
    """

    def __init__(self, jobs: int, on_lost: Callable[[Any], Any] | None = None):
        self.jobs = jobs
        self.on_lost = on_lost
        self.replaced = 0
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self.jobs,
            initializer=init_worker,
            initargs=(os.getpid(), threading.main_thread().ident),
        )

    @property
    def workers(self) -> int:
        return self.jobs

    def map(self, fn: Callable, *iterables: Iterable, timeout=None, chunksize=1) -> Iterator[Any]:
        """Submit every item now; the results, in order, as they come (a search's progress
        counts them)."""
        items = list(zip(*iterables, strict=True))
        return self._results(fn, items, [self._submit(fn, *item) for item in items])

    def _submit(self, fn: Callable, *item: Any) -> Any:
        """Submit, on a new pool if a worker died since the last call (in a fit that ran
        ahead of its stage)."""
        try:
            return self._pool.submit(fn, *item)
        except BrokenProcessPool:
            self._replace()
            return self._pool.submit(fn, *item)

    def speculate(self, fn: Callable, item: Any) -> Started:
        """``fn(item)`` started now, its result None if its worker died."""
        future = self._submit(fn, item)

        def result() -> Any | None:
            try:
                return future.result()
            except (BrokenProcessPool, CancelledError):
                return None

        return Started(future.done, result, future.cancel)

    def _results(self, fn: Callable, items: list[tuple], futures: list) -> Iterator[Any]:
        """Each result in order; once the pool breaks, the rest are collected, the unfinished
        ones tried again, and then given."""
        results: list[Any] = []
        unfinished: list[int] = []
        for i, fut in enumerate(futures):
            try:
                result = fut.result()
            except BrokenProcessPool:
                result = None
                unfinished.append(i)
            if unfinished:
                results.append(result)
            else:
                yield result
        if not unfinished:
            return
        first = unfinished[0]
        results = [None] * first + results
        self._replace()
        for i in unfinished:  # one at a time, so a repeat offender is known for sure
            try:
                results[i] = self._pool.submit(fn, *items[i]).result()
            except BrokenProcessPool:
                self._replace()
                if self.on_lost is None:
                    raise
                results[i] = self.on_lost(*items[i])
        yield from results[first:]

    def _replace(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = self._new_pool()
        self.replaced += 1

    def submit(self, fn: Callable, /, *args: Any, **kwargs: Any):
        return self._pool.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """As ``ProcessPoolExecutor.shutdown``; ``wait=False`` (an interrupted run) also ends the
        workers now, so the program does not wait for the candidates they are fitting."""
        workers = list((getattr(self._pool, "_processes", None) or {}).values())
        manager = getattr(self._pool, "_executor_manager_thread", None)
        self._pool.shutdown(wait=wait, cancel_futures=cancel_futures)
        if not wait:
            for process in workers:
                if process.is_alive():
                    process.terminate()
            # Let the pool's manager thread see its workers gone and close its wake-up pipe now:
            # closed at the same moment as the interpreter's exit hook writes to it, it printed
            # "OSError: Bad file descriptor" after the one-line interrupt message.
            if manager is not None:
                manager.join(timeout=5.0)


def make_executor(
    jobs: int | None,
    on_lost: Callable[[Any], Any] | None = None,
    scheduler: str | None = None,
) -> Executor:
    """``jobs`` = 1: serial; None or 0: one process per core; otherwise that many processes.
    ``scheduler``: "local" (a local Dask cluster of ``jobs`` workers) or the address of a
    running Dask scheduler (``jobs`` is then the cluster's business); any other text, an
    empty one too, is refused (InputError) before Dask is asked."""
    if scheduler is not None:
        from abcd_cli.execution.cluster import connect

        return connect(scheduler, jobs, on_lost)
    n = jobs or os.cpu_count() or 1
    return SerialExecutor() if n == 1 else ResilientPool(n, on_lost)
