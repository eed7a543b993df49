"""Greedy compositional kernel search scored by BIC (thesis ch. 3, appendix §1.2): the levels.

Each level expands the best model(s) of the previous level with the grammar's operators, fits
every new structure (in parallel on the executor the caller passes in), scores it by
BIC = 2·NLL + p·log n in the user's units, and keeps the best ``beam`` (by default two for the
first three levels, where the cheap small models decide which family the search explores, then
one). The chosen model is the best over all levels.

Long series: above ``subset_size`` points, candidates are optimised on a subset (evenly spread
pairs of neighbouring points) and ranked by their subset BIC; the best few are then refined on
all the data, and only full-data BICs are reported or compared. With skc, where the
refinement is most of a level's time, it has two phases: a short one for every refined
candidate, then convergence for those the next level would expand. When
``settings.refine_points(N)`` is below N, the refinement runs on a subset of that size (chosen
the same way), and only the models the next level would expand are fitted on all the data: the
level's only scores.

A stage ends when its slowest fit does. On an executor with several workers, a worker left
idle at a stage's end starts the next stage's fit of the candidate leading so far
(``execution.speculation``); the next stage takes it if it chooses that candidate. The choices
and every number are those of a serial search.

After every level the state is written atomically to a checkpoint (``checkpoint``); a search
resumed from it continues exactly as an uninterrupted one would, since every candidate's random
numbers come from the seed and the candidate's structure alone.

Engines: ``settings.engine`` ("auto" by default) is resolved for the series' length by
``engine_choice`` (the exact GP below a measured size, else "skc" with m inducing inputs). The
subset stages always use the exact engine (a subset is small); fits on all the data use the
chosen one. skc gives each model an interval of BIC, [2·low + p·log n, 2·high + p·log n]:
models are ranked by its upper end, and the models expanded at the next level are the beam plus
those whose intervals overlap the best one's, at most ``settings.buffer`` (``buffer``; the SKC
paper's Algorithm 1). The exact engine's intervals have no width, so its search is the beam
search. A chosen model whose interval is wider than ``WIDE_BIC`` gets a note naming
``--inducing``.

Size limit: whatever the subset, every reported model is fitted on all N points, so the engine
is asked before anything is fitted whether N points are within its means
(``Engine.check_size``).

Progress: the search reports ``events.SearchEvent`` s (each stage, each fit, each level's end,
notes) to ``events``, and the plain line of each finished level and note to ``progress``.

The modules: ``settings`` (what decides the result), ``engine_choice`` (the engine and m for
N points), ``fit`` (multi-start optimisation through the engine), ``candidate`` (one candidate
in a worker), ``scoring`` (BIC and its interval), ``buffer`` (the models expanded next),
``events`` (what a running search reports), ``checkpoint``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from abcd_cli import __version__
from abcd_cli.data.inputs import periodic_inputs
from abcd_cli.data.summary import InputSummaries
from abcd_cli.engines.base import Engine, NLLBounds
from abcd_cli.errors import RunError
from abcd_cli.execution.pool import SerialExecutor
from abcd_cli.execution.speculation import Started, speculation_width
from abcd_cli.kernel_search.buffer import keep
from abcd_cli.kernel_search.candidate import (
    Candidate,
    FitTask,
    entropy,
    fit_candidate,
    graft,
    harmonic_starts,
)
from abcd_cli.kernel_search.checkpoint import LevelState, checkpoint_paths, load_state, save_state
from abcd_cli.kernel_search.engine_choice import resolve
from abcd_cli.kernel_search.events import Events, SearchEvent, as_lines, format_interval
from abcd_cli.kernel_search.fit import DEFAULT_ENGINE
from abcd_cli.kernel_search.grammar import LANGUAGES, expand, start_kernels
from abcd_cli.kernel_search.scoring import Scored, Scorer, best_per_family
from abcd_cli.kernel_search.settings import (
    SearchSettings,
    prior_mean_units,
)
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.algebra import structure_key
from abcd_cli.model import Model

Progress = Callable[[str], None]
#: A chosen model whose BIC interval is wider than this (BIC units) gets a note: m is too small
#: for it. Ten BIC units is where a difference between two models counts as strong evidence,
#: so narrower intervals rarely leave the choice in doubt.
WIDE_BIC = 10.0
#: skc: iterations every refined candidate gets on all the data before the models the next
#: level would expand are carried on to ``refine_iter`` (benchmarks/long_series_notes.md: the
#: refinement is ~90% of a level at N = 10⁴, and after 10-20 iterations the candidates are
#: already in their final order).
SKC_FIRST_REFINE = 15


@dataclass(frozen=True)
class Ahead:
    """How the next stage's fits may start before this stage ends: ``pick`` gives the
    candidates it would choose from the results so far (best first), ``task`` the next
    stage's task of one of them."""

    stage: str
    pick: Callable[[dict[int, Candidate]], list[int]]
    task: Callable[[int, dict[int, Candidate]], FitTask]


@dataclass
class SearchResult:
    model: Model
    trace: list[dict[str, object]]
    settings: SearchSettings
    elapsed_seconds: float
    notes: list[str] = field(default_factory=list)
    stopped_early: str = ""
    #: with ``settings.seeds`` > 1: every search's model, in seed order (``model`` is one of them)
    seed_models: list[Model] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        d = self.model.to_dict()
        if self.seed_models:
            d["seed_models"] = [
                {"seed": self.settings.seed + i, **m.to_dict(with_data=False)}
                for i, m in enumerate(self.seed_models)
            ]
        d.update(
            {
                "trace": self.trace,
                "settings": self.settings.to_dict(),
                "notes": self.notes,
                "stopped_early": self.stopped_early,
                "version": __version__,
                "elapsed_seconds": self.elapsed_seconds,
            }
        )
        return d


def _subset(n: int, size: int) -> np.ndarray:
    """Indices of ``size`` points of the (sorted) series: ``size // 2`` evenly spread pairs of
    neighbours. The pairs keep the shortest lag in view (a thinned series would hide structure
    on the scale of a few samples, such as day-to-day weather in a daily series); their spread
    keeps the whole range."""
    if n <= size:
        return np.arange(n)
    starts = np.round(np.linspace(0, n - 2, size // 2)).astype(int)
    return np.unique(np.concatenate([starts, starts + 1]))


def check_size(n: int, settings: SearchSettings, engine: Engine = DEFAULT_ENGINE) -> None:
    """Refuse a series too long for ``engine`` (``InputError``), before anything is fitted."""
    engine.check_size(n, settings.full_data_evaluations)


class Search:
    """One search over one series; ``run`` does the levels, checkpointing after each."""

    def __init__(
        self,
        x: np.ndarray,
        y: np.ndarray,
        settings: SearchSettings,
        executor: Executor | None = None,
        progress: Progress | None = None,
        checkpoint: str | Path | None = None,
        fit_fn: Callable[[FitTask], Candidate] = fit_candidate,
        engine: Engine | None = None,
        events: Events | None = None,
        tagged: bool = False,
        x_names: Sequence[str] = (),
    ):
        """``engine`` None: the one ``settings.engine`` chooses for this series (the settings
        kept, and checkpointed, say which: "exact", or "skc" with its m). ``progress`` gets
        the plain line of each finished level and note, ``events`` every event; ``tagged``:
        both say the seed (one of several searches)."""
        self.x = np.asarray(x, dtype=float)
        self.x_names = tuple(x_names)  # the kernels' text names the inputs by them
        self.y = np.asarray(y, dtype=float)
        if engine is None:
            settings, engine = resolve(settings, self.y.size)
        check_size(self.y.size, settings, engine)
        self.settings = settings
        self.engine = engine
        self.fit_fn = fit_fn  # top-level and picklable when the executor is a process pool
        self.language = LANGUAGES[settings.language]
        self.executor = executor or SerialExecutor()
        self.emit = _sink(progress, events, settings.seed if tagged else None)
        self.checkpoint = Path(checkpoint) if checkpoint else None
        self.scaling, self.constant_mean = prior_mean_units(self.x, self.y, settings.prior_mean)
        self.scorer = Scorer(self.scaling, self.constant_mean)
        X = self.scaling.x_in(self.x)
        self.X = X[:, None] if X.ndim == 1 else X  # (N, D): one column per input
        self.periodic = periodic_inputs(self.X)  # the inputs periodic kernels may act on
        self.Y = self.scaling.y_in(self.y)
        self.n = self.Y.size
        idx = _subset(self.n, settings.subset_size)
        self.subset = idx if idx.size < self.n else None
        self.X_fit, self.Y_fit = self.X[idx], self.Y[idx]
        # the refinement's data: a larger subset (``refine_points``) or all of it
        rows = _subset(self.n, settings.refine_points(self.n))
        self.refine_on_subset = (
            self.subset is not None and settings.subset_size < rows.size < self.n
        )
        self.X_refine, self.Y_refine = (
            (self.X[rows], self.Y[rows]) if self.refine_on_subset else (self.X, self.Y)
        )
        self.full_summary = InputSummaries.from_data(self.X, self.Y)
        # The subset's own spectrum is aliased by its uneven spacing (pairs of neighbours):
        # its starting periods are the full series' periodogram peaks.
        self.fit_summary = (
            self.full_summary
            if self.subset is None
            else InputSummaries.from_data(self.X_fit, self.Y_fit).with_periods_of(self.full_summary)
        )
        # state, saved in the checkpoint
        self.level = -1
        self.parents: list[Scored] = []
        self.seen: set[str] = set()
        self.best: Scored | None = None
        self.trace: list[dict[str, object]] = []
        self.stale = 0
        self.elapsed = 0.0
        # this level's counts and progress (not saved)
        self.level_started = time.perf_counter()
        self.evaluations = self.full_evaluations = self.pcg_products = 0
        self.shown_best: tuple[float, float] | None = None
        self.ahead: dict[tuple[str, int], Started] = {}  # (stage, candidate) -> early fit

    # --- fitting and scoring -------------------------------------------------------------
    def _task(
        self, kernel: Kernel, on: str, restarts: int, max_iter: int, others: tuple = ()
    ) -> FitTask:
        """The task fitting ``kernel`` ``on`` "all" the data or the "refine" subset (with the
        search's engine), or the screening "subset" (with the exact engine)."""
        s = self.settings
        X, y = {
            "all": (self.X, self.Y),
            "refine": (self.X_refine, self.Y_refine),
            "subset": (self.X_fit, self.Y_fit),
        }[on]
        return FitTask(
            kernel,
            X,
            y,
            self.fit_summary if on == "subset" else self.full_summary,
            self.full_summary,
            restarts,
            s.polish,
            max_iter,
            entropy(s.seed, kernel),
            others,
            self.constant_mean,
            DEFAULT_ENGINE if on == "subset" else self.engine,
        )

    def _fit_all(
        self,
        tasks: list[FitTask],
        stage: str,
        keys: list[int] | None = None,
        ahead: Ahead | None = None,
    ) -> list[Candidate]:
        """Fit ``tasks`` (the stage's candidates ``keys``, by default their positions),
        reporting each fit as it arrives; results in the tasks' order.

        Fits of this stage that ``ahead`` started early are taken from there (those not
        chosen after all are cancelled). With ``ahead``, whenever fewer fits than workers are
        left running, the next stage's fits of the candidates leading so far are started
        (``execution.speculation``)."""
        keys = list(range(len(tasks))) if keys is None else keys
        started = self._started_for(stage, keys)
        fresh = [i for i, k in enumerate(keys) if k not in started]
        width = speculation_width(self.executor) if ahead else 0  # Dask: asks the scheduler
        results: dict[int, Candidate] = {}
        self._event("stage", stage=stage, total=len(tasks))

        def take(i: int, result: Candidate) -> None:
            results[i] = result
            self._count(result, tasks[i].X is self.X)
            self._event("fit", stage=stage, done=len(results), total=len(tasks))
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

    def _map(self, tasks: list[FitTask], which: list[int]) -> Iterator[tuple[int, Candidate]]:
        """(i, result) for the tasks ``which``, fitted on the executor, in order."""
        results = self.executor.map(self.fit_fn, [tasks[i] for i in which])
        return zip(which, results, strict=True)

    def _count(self, result: Candidate, full: bool) -> None:
        """Add a fit to the level's counts and, on all the data, to the best shown so far."""
        self.evaluations += result.evaluations
        if full:
            self.full_evaluations += result.evaluations
            if result.bounds is not None:
                self.pcg_products += result.bounds.products
            if result.status == "ok" and result.bounds is not None:
                self._offer(self.scorer.scored(result.kernel, result.nll, self.n, result.bounds))

    # --- fits started ahead of their stage -----------------------------------------------
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

    def _cancel_ahead(self) -> None:
        """Cancel the early fits no stage took (at a level's end)."""
        for early in self.ahead.values():
            early.cancel()
        self.ahead.clear()

    # --- progress ------------------------------------------------------------------------
    def _offer(self, scored: Scored) -> None:
        """Keep the lowest BIC interval on all the data seen so far (progress only)."""
        if self.shown_best is None or scored.bic < self.shown_best[1]:
            self.shown_best = (scored.low, scored.bic)

    def _event(self, kind: str, **fields: object) -> None:
        if self.emit is not None:
            seconds = time.perf_counter() - self.level_started
            self.emit(
                SearchEvent(
                    kind,
                    level=self.level + 1 if kind in ("stage", "fit") else self.level,
                    depth=self.settings.depth,
                    seconds=seconds,
                    best=self.shown_best,
                    **fields,  # type: ignore[arg-type]
                )
            )

    def _best_per_family(
        self, results: dict[int, Candidate], family_of: list[int], count: int
    ) -> list[int]:
        """Positions of each family's best ``count`` fitted results, by BIC on the search data."""
        return best_per_family(self.scorer, results, family_of, count, self.Y_fit.size)

    def _score_level(self, families: list[list[Kernel]]) -> tuple[list[Scored], dict[str, int]]:
        """Fit candidates in stages; return the survivors with full-data scores, best first.

        ``families``: the new children of each kept model (one family at the start). Stages 2
        and 3 choose within each family, so a kept model's children get what they would get in
        a greedy search, whatever the other families' children score.
        1. every candidate: screened restarts and a short optimisation on the search data;
        2. each family's best ``finalists`` by BIC: optimised to convergence on the search data;
        3. long series only: each family's best ``refine`` of those re-optimised on the
           refinement's data (all of it, or ``refine_points`` of it), each from the likeliest
           of its starts: its subset optimum, ``graft`` (the parent's values fitted on all
           the data, the subset's values for the new parameters), and with skc the copies of
           both whose periods at a multiple of a periodogram peak are moved to it
           (``harmonic_starts``; measured on long series only, so the exact engine's
           published results stand);
        4. "finish": on all the data, for the refined candidates the next level would expand
           (``_expanded``), from where stage 3 left them (refined on a subset: or
           from ``graft`` of that fit, if likelier): ``refine_iter - SKC_FIRST_REFINE``
           further iterations (``refine_iter`` when that is not positive).
           After a subset's refinement these are the only fits on all the data, and the
           level's only scores; refined on all the data with skc, stage 3 has
           ``SKC_FIRST_REFINE`` iterations on all the data and each finished candidate keeps
           the better of its two fits.
        Each stage's choice is also the rule by which its fits start early (``Ahead``).
        """
        s = self.settings
        kernels = [k for family in families for k in family]
        family_of = [i for i, family in enumerate(families) for _ in family]
        full = self.subset is None
        small = "all" if full else "subset"
        on_subset = self.refine_on_subset  # stage 3 on a subset: stage 4 scores the level
        later = s.refine_iter - SKC_FIRST_REFINE
        two_phase = not full and not on_subset and s.engine == "skc" and later > 0
        first_refine = SKC_FIRST_REFINE if two_phase else s.refine_iter

        def finalists(done: dict[int, Candidate]) -> list[int]:
            return self._best_per_family(done, family_of, s.finalists)

        def converge(j: int, screened: dict[int, Candidate]) -> FitTask:
            return self._task(screened[j].kernel, small, 1, s.max_iter)

        def refined(done: dict[int, Candidate]) -> list[int]:
            return self._best_per_family(done, family_of, s.refine)

        def refine(j: int, converged: dict[int, Candidate]) -> FitTask:
            fitted = converged[j].kernel
            grafted = graft(kernels[j], fitted)
            others = (grafted,) + tuple(
                h
                for k in ((fitted, grafted) if s.engine == "skc" else ())
                for h in harmonic_starts(k, self.full_summary)
            )
            return self._task(fitted, "refine", 1, first_refine, others)

        def expanded(done: dict[int, Candidate]) -> list[int]:
            return self._expanded(done, self.Y_refine.size)

        def finish(j: int, refined: dict[int, Candidate]) -> FitTask:
            fitted = refined[j].kernel
            # from a subset's optimum, the parent's full-data values may be the better start
            others = (graft(kernels[j], fitted),) if on_subset else ()
            return self._task(fitted, "all", 1, later if later > 0 else s.refine_iter, others)

        screen = [self._task(k, small, s.restarts, s.screen_iter) for k in kernels]
        first = dict(
            enumerate(self._fit_all(screen, "screen", ahead=Ahead("converge", finalists, converge)))
        )
        counts = {
            "candidates": len(first),
            "failed": sum(r.status == "failed" for r in first.values()),
            "rejected": sum(r.status == "rejected" for r in first.values()),
        }
        chosen = finalists(first)
        after = None if full else Ahead("refine", refined, refine)
        tasks = [converge(j, first) for j in chosen]
        second = dict(zip(chosen, self._fit_all(tasks, "converge", chosen, after), strict=True))
        if not full:
            chosen = refined(second)
            after = Ahead("finish", expanded, finish) if two_phase or on_subset else None
            tasks = [refine(j, second) for j in chosen]
            second = dict(zip(chosen, self._fit_all(tasks, "refine", chosen, after), strict=True))
            if on_subset:
                second = self._finish_on_all(second, expanded(second), finish)
            elif two_phase:
                chosen = expanded(second)
                fits = self._fit_all([finish(j, second) for j in chosen], "finish", chosen)
                second.update(
                    {
                        j: fit if fit.status == "ok" and fit.nll <= second[j].nll else second[j]
                        for j, fit in zip(chosen, fits, strict=True)
                    }
                )
        self._cancel_ahead()
        scored = [
            self.scorer.scored(r.kernel, r.nll, self.n, r.bounds)
            for r in second.values()
            if r.status == "ok"
        ]
        scored.sort(key=lambda c: c.bic)
        return scored, counts

    def _finish_on_all(
        self,
        refined: dict[int, Candidate],
        chosen: list[int],
        finish: Callable[[int, dict[int, Candidate]], FitTask],
    ) -> dict[int, Candidate]:
        """Stage 4 after a subset's refinement: the ``chosen`` refined candidates fitted on
        all the data (their results, the level's only full-data fits); should none of them
        succeed, the other refined candidates are fitted too, so that a level has a model
        whenever one can be fitted."""
        done: dict[int, Candidate] = {}
        rest = [j for j in refined if j not in chosen and refined[j].status == "ok"]
        for group in (chosen, rest):
            if not group:
                continue
            fits = self._fit_all([finish(j, refined) for j in group], "finish", group)
            done.update(zip(group, fits, strict=True))
            if any(fit.status == "ok" for fit in done.values()):
                break
        return done

    def _expanded(self, refined: dict[int, Candidate], n: int) -> list[int]:
        """Stage 4's candidates: the refined ones (fitted on ``n`` points) the next level would
        expand, ranked by their intervals after stage 3 (``keep``)."""
        scored = sorted(
            (
                (self.scorer.scored(r.kernel, r.nll, n, r.bounds), j)
                for j, r in refined.items()
                if r.status == "ok"
            ),
            key=lambda pair: (pair[0].bic, pair[1]),
        )
        expanded = keep(
            [c for c, _ in scored], self.settings.beam_at(self.level + 1), self.settings.buffer
        )
        return [j for c, j in scored if any(c is k for k in expanded.models)]

    # --- levels --------------------------------------------------------------------------
    def _candidates(self) -> list[list[Kernel]]:
        """The new structures of this level: one family per kept model, none seen before."""
        if self.level < 0:
            return [
                start_kernels(
                    self.language, self.X.shape[1], self.settings.max_order, self.periodic
                )
            ]
        families: list[list[Kernel]] = []
        for parent in self.parents:
            family = []
            for child in expand(
                parent.kernel,
                self.language,
                self.settings.bases,
                self.settings.interpretable,
                n_dims=self.X.shape[1],
                periodic=self.periodic,
            ):
                key = structure_key(child)
                if key not in self.seen:
                    self.seen.add(key)
                    family.append(child)
            families.append(family)
        return families

    def step(self) -> bool:
        """Run one level; False when there is nothing left to do."""
        started = self.level_started = time.perf_counter()
        self.evaluations = self.full_evaluations = self.pcg_products = 0
        self.shown_best = None if self.best is None else (self.best.low, self.best.bic)
        if self.level >= self.settings.depth or (self.level >= 0 and not self.language.searches):
            return False
        if self.settings.patience and self.stale >= self.settings.patience:
            return False
        families = self._candidates()
        if self.level < 0:
            self.seen.update(structure_key(k) for family in families for k in family)
        if not any(families):
            return False
        scored, counts = self._score_level(families)
        self.level += 1
        if not scored:
            self.elapsed += time.perf_counter() - started
            self.trace.append({"level": self.level, **counts, "structure": None, "bic": None})
            if self.best is not None:  # nothing fitted at all: no state worth resuming from
                self._save()
            self._event("level", text=f"level {self.level}: every candidate failed")
            return False
        top = scored[0]
        if self.best is None or top.bic < self.best.bic:
            self.best, self.stale = top, 0
        else:
            self.stale += 1
        kept = keep(scored, self.settings.beam_at(self.level), self.settings.buffer)
        self.parents = kept.models
        self.elapsed += time.perf_counter() - started
        self.trace.append(
            {
                "level": self.level,
                **counts,
                "structure": self._text(top.kernel, params=False),
                "kernel": self._text(self.scaling.kernel_out(top.kernel), digits=6),
                "bic": top.bic,
                "bic_low": top.low,
                "bic_width": top.width,
                "kept": len(kept),
                "pruned": kept.pruned,
                "evaluations": self.evaluations,
                "full_data_evaluations": self.full_evaluations,
                **({"pcg_products": self.pcg_products} if self.engine.name == "skc" else {}),
                "elapsed_seconds": round(self.elapsed, 3),
            }
        )
        self._save()  # before saying the level is done: an interrupt after the line loses nothing
        self._event(
            "level",
            pruned=kept.pruned,
            text=f"level {self.level}/{self.settings.depth}: {counts['candidates']} fitted"
            f" ({counts['failed']} failed, {counts['rejected']} rejected);"
            f" best {self._text(top.kernel, params=False)}  BIC {format_interval(top.low, top.bic)}"
            f"  [{self.elapsed:.1f}s]; {kept.pruned} pruned",
        )
        return True

    def _text(self, kernel: Kernel, params: bool = True, digits: int | None = None) -> str:
        return kernel.to_text(params, digits, names=self.x_names)

    def run(self) -> SearchResult:
        while self.step():
            pass
        if self.best is None:
            raise RunError("no model could be fitted to this series (every candidate failed)")
        notes = []
        if self.subset is not None:
            notes.append(
                f"candidates were optimised on {self.X_fit.shape[0]} of {self.n}"
                " points (evenly spread pairs of neighbours),"
                f" and the best {self.settings.refine} of each level"
                " (of each kept model's children) refined on "
                + (
                    "all the data"
                    if not self.refine_on_subset
                    else f"{self.Y_refine.size} points (chosen the same way); only the models"
                    " each next level expanded were fitted on all the data"
                )
            )
        notes += self._engine_notes()
        best = self.best
        # the NLL interval from the BIC interval: BIC = 2·NLL + p·log n, so NLL_low = NLL − width/2
        bounds = NLLBounds(best.nll - best.width / 2.0, best.nll)
        model = Model(
            best.kernel,
            self.scaling,
            self.x,
            self.y,
            best.nll,
            self.constant_mean,
            self.engine,
            nll_bounds=bounds,
            x_names=self.x_names,
        )
        return SearchResult(
            model, self.trace, self.settings, self.elapsed, notes, self._stopped_early()
        )

    def _engine_notes(self) -> list[str]:
        """With skc: what the BICs are, and a call to raise m when the chosen model's interval
        is wider than ``WIDE_BIC``."""
        best = self.best
        if best is None or self.settings.engine != "skc":
            return []
        m = self.settings.inducing
        notes = [
            f"likelihoods were bounded with {m} inducing inputs (the skc engine): each BIC is the"
            f" upper end of an interval, the chosen model's [{best.low:.2f}, {best.bic:.2f}]"
        ]
        if best.width > WIDE_BIC:
            notes.append(
                f"the chosen model's BIC interval is {best.width:.1f} wide (more than"
                f" {WIDE_BIC:g}): {m} inducing inputs are too few for it; raise --inducing"
                f" (e.g. --inducing {min(self.n, 2 * m)}) to narrow it"
            )
        return notes

    def _stopped_early(self) -> str:
        """Why the search ended before ``depth`` ('' when it did not)."""
        if self.trace and self.trace[-1]["structure"] is None:
            return (
                f"every candidate of level {self.trace[-1]['level']} failed; kept the best so far"
            )
        if (
            self.settings.patience
            and self.stale >= self.settings.patience
            and self.level < self.settings.depth
        ):
            return f"no better model in {self.stale} levels; stopped at level {self.level}"
        return ""

    # --- checkpoints ---------------------------------------------------------------------
    def _save(self) -> None:
        if self.checkpoint is not None:
            state = LevelState(
                self.level,
                self.parents,
                self.best,
                self.seen,
                self.trace,
                self.stale,
                self.elapsed,
            )
            save_state(self.checkpoint, state, self.settings, self.x, self.y)

    def note(self, text: str) -> None:
        """Tell the watcher something (a "note" event)."""
        self._event("note", text=text)

    def restore(self) -> bool:
        """Load the checkpoint if there is one for this data and these settings."""
        if self.checkpoint is None:
            return False
        state = load_state(self.checkpoint, self.settings, self.x, self.y)
        if state is None:
            return False
        self.level, self.parents, self.best, self.seen = (
            state.level,
            state.parents,
            state.best,
            state.seen,
        )
        self.trace, self.stale, self.elapsed = state.trace, state.stale, state.elapsed
        return True


def _sink(progress: Progress | None, events: Events | None, seed: int | None) -> Events | None:
    """One handler passing each event (tagged with ``seed`` unless None) to ``events`` and
    its plain line to ``progress``; None when neither is given."""
    handlers = [h for h in (as_lines(progress) if progress else None, events) if h]
    if not handlers:
        return None

    def handle(event: SearchEvent) -> None:
        event = event if seed is None else replace(event, seed=seed)
        for h in handlers:
            h(event)

    return handle


def run_search(
    x: np.ndarray,
    y: np.ndarray,
    settings: SearchSettings | None = None,
    executor: Executor | None = None,
    progress: Progress | None = None,
    checkpoint: str | Path | None = None,
    resume: bool = False,
    fit_fn: Callable[[FitTask], Candidate] = fit_candidate,
    engine: Engine | None = None,
    events: Events | None = None,
    x_names: Sequence[str] = (),
) -> SearchResult:
    """Search for the kernel that best explains y(x); see the module docstring.

    With ``settings.seeds`` = k > 1, k searches are run one after another with seeds seed, ...,
    seed + k − 1 (each with its own checkpoint, :func:`checkpoint_paths`), and the one whose
    model has the lowest BIC is returned (the first of equals), with every seed's BIC in its
    notes. ``fit_fn`` fits one candidate (the default, :func:`fit_candidate`, never raises);
    ``engine`` computes likelihoods (None: the one ``settings.engine`` chooses). ``progress``
    receives one line per finished level and note, ``events`` every ``SearchEvent``.
    ``x_names``, the input columns' names, name the inputs in the kernels' text
    (``SE[weight]``) with several.
    """
    settings = settings or SearchSettings()
    paths = checkpoint_paths(checkpoint, settings) if checkpoint else [None] * settings.seeds
    results = []
    for i, path in enumerate(paths):
        one = replace(settings, seed=settings.seed + i, seeds=1)
        tagged = settings.seeds > 1
        search = Search(
            x, y, one, executor, progress, path, fit_fn, engine, events, tagged, x_names
        )
        if resume and search.restore():
            search.note(f"resumed after level {search.level}")
        results.append(search.run())
    if settings.seeds == 1:
        return results[0]
    chosen = min(results, key=lambda r: r.model.bic)  # the first of equals
    bics = ", ".join(f"{r.settings.seed}: {r.model.bic:.2f}" for r in results)
    note = (
        f"the lowest BIC of {settings.seeds} searches, by seed {bics};"
        f" the model and trace are seed {chosen.settings.seed}'s"
    )
    return replace(
        chosen,
        settings=replace(chosen.settings, seed=settings.seed, seeds=settings.seeds),
        elapsed_seconds=sum(r.elapsed_seconds for r in results),
        notes=[*chosen.notes, note],
        seed_models=[r.model for r in results],
    )


def summary_line(result: SearchResult) -> str:
    """One line: the chosen model and its BIC (used by the CLI)."""
    m = result.model
    return f"{m.structure}   BIC {m.bic:.2f}   log likelihood {-m.nll:.2f}   n={m.n}"
