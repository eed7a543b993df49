"""Fitting a stage's candidates on an executor, and starting the next stage's fits early.

A stage ends when its slowest fit does. On an executor with several workers, a worker left
idle at a stage's end starts the next stage's fit of the candidate leading so far
(``execution.speculation``); the next stage takes it if it chooses that candidate, and the
fits it does not choose are cancelled. A fit's result depends only on its task, so the choices
and every number are those of a serial search.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass, field

from abcd_cli.execution.speculation import Started, speculation_width
from abcd_cli.kernel_search.candidate import Candidate, FitTask

#: Told of each stage as it starts: its name and how many fits it has.
OnStage = Callable[[str, int], None]
#: Told of each fit as it arrives: the stage, the task, its result, fits done, fits in all.
OnFit = Callable[[str, FitTask, Candidate, int, int], None]


@dataclass(frozen=True)
class Ahead:
    """How the next stage's fits may start before this stage ends: ``pick`` gives the
    candidates it would choose from the results so far (best first), ``task`` the next
    stage's task of one of them."""

    stage: str
    pick: Callable[[dict[int, Candidate]], list[int]]
    task: Callable[[int, dict[int, Candidate]], FitTask]


@dataclass
class Fitter:
    """Runs ``fit_fn`` (top-level and picklable for a process pool) on ``executor``."""

    executor: Executor
    fit_fn: Callable[[FitTask], Candidate]
    on_stage: OnStage
    on_fit: OnFit
    ahead: dict[tuple[str, int], Started] = field(default_factory=dict)  # (stage, key) -> fit

    def fit_all(
        self,
        tasks: list[FitTask],
        stage: str,
        keys: list[int] | None = None,
        ahead: Ahead | None = None,
    ) -> list[Candidate]:
        """Fit ``tasks`` (the stage's candidates ``keys``, by default their positions),
        reporting each fit as it arrives; results in the tasks' order.

        Fits of this stage started early are taken from there (those not chosen after all are
        cancelled). With ``ahead``, whenever fewer fits than workers are left running, the
        next stage's fits of the candidates leading so far are started."""
        keys = list(range(len(tasks))) if keys is None else keys
        started = self._started_for(stage, keys)
        fresh = [i for i, k in enumerate(keys) if k not in started]
        width = speculation_width(self.executor) if ahead else 0  # Dask: asks the scheduler
        results: dict[int, Candidate] = {}
        self.on_stage(stage, len(tasks))

        def take(i: int, result: Candidate) -> None:
            results[i] = result
            self.on_fit(stage, tasks[i], result, len(results), len(tasks))
            if not width:
                return
            idle = width - (len(tasks) - len(results) + self._running())
            if ahead and idle > 0:
                self._start_ahead(ahead, {keys[j]: r for j, r in results.items()}, idle)

        for i, result in self._map(tasks, fresh):
            take(i, result)
        again = []
        for k, early in started.items():
            i = keys.index(k)
            result = early.result()
            if result is None:  # its worker died: fitted again the ordinary way
                again.append(i)
            else:
                take(i, result)
        if again:
            for i, result in self._map(tasks, again):
                take(i, result)
        return [results[i] for i in range(len(tasks))]

    def cancel_ahead(self) -> None:
        """Cancel the early fits no stage took (at a level's end)."""
        for early in self.ahead.values():
            early.cancel()
        self.ahead.clear()

    def _map(self, tasks: list[FitTask], which: list[int]) -> Iterator[tuple[int, Candidate]]:
        """(i, result) for the tasks ``which``, fitted on the executor, in order."""
        results = self.executor.map(self.fit_fn, [tasks[i] for i in which])
        return zip(which, results, strict=True)

    def _started_for(self, stage: str, keys: list[int]) -> dict[int, Started]:
        """The fits of ``stage``'s candidates ``keys`` started early; the stage's other early
        fits are cancelled."""
        mine = {k: self.ahead.pop((st, k)) for st, k in list(self.ahead) if st == stage}
        for k in [k for k in mine if k not in keys]:
            mine.pop(k).cancel()
        return mine

    def _start_ahead(self, ahead: Ahead, done: dict[int, Candidate], idle: int) -> None:
        """Start up to ``idle`` of the next stage's fits, leaders first."""
        for k in ahead.pick(done):
            if idle <= 0:
                return
            if (ahead.stage, k) not in self.ahead:
                self.ahead[(ahead.stage, k)] = self.executor.speculate(  # type: ignore[attr-defined]
                    self.fit_fn, ahead.task(k, done)
                )
                idle -= 1

    def _running(self) -> int:
        return sum(not early.done() for early in self.ahead.values())
