"""The greedy compositional kernel search scored by BIC (thesis ch. 3, appendix §1.2): the
inference method that chooses one structure, level by level.

Each level expands the best model(s) of the previous level with the grammar's operators, fits
every new structure in stages (``stages``: screened, converged, on long series refined and
finished on all the data; in parallel on the executor the caller passes in, ``fitting``),
scores it by BIC = 2·NLL + p·log n in the user's units, and keeps the best ``beam`` (by default
two for the first three levels, where the cheap small models decide which family the search
explores, then one). The chosen model is the best over all levels.

After every level the state is written atomically to a checkpoint (``checkpoint``); a search
resumed from it continues exactly as an uninterrupted one would, since every candidate's random
numbers come from the seed and the candidate's structure alone.

Engines: ``settings.engine`` ("auto" by default) is resolved for the series' length by
``engine_choice`` (the exact GP below a measured size, else "skc" with m inducing inputs). The
subset stages always use the exact engine (a subset is small); fits on all the data use the
chosen one. An engine with interval scores gives each model an interval of BIC,
[2·low + p·log n, 2·high + p·log n]: models are ranked by its upper end, and the models
expanded at the next level are the beam plus those whose intervals overlap the best one's, at
most ``settings.buffer`` (``buffer``; the SKC paper's Algorithm 1). The exact engine's intervals
have no width, so its search is the beam search.

Size limit: every reported model is fitted on all N points, so the engine is asked first
whether N points are within its means (``Engine.check_size``).

Progress: the search reports ``events.SearchEvent`` s (each stage, each fit, each level's end
with its record, a resumption) to ``events``, and the plain line of each finished level and
resumption (worded in ``events``) to ``progress``.

The modules it uses: ``settings`` (what decides the result), ``engine_choice`` (the engine and
m for N points), ``search_data`` (the data, subsets and fit tasks), ``stages`` (one level's
fits), ``fitting`` (the executor and the fits started early), ``candidate`` (one candidate in a
worker), ``scoring`` (BIC and its interval), ``buffer`` (the models expanded next), ``records``
(a level's record and the result), ``events`` (what a running search reports), ``checkpoint``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np

from abcd_cli.engines.base import Engine
from abcd_cli.errors import RunError
from abcd_cli.execution.pool import SerialExecutor
from abcd_cli.kernel_search.buffer import keep
from abcd_cli.kernel_search.candidate import Candidate, FitTask, fit_candidate
from abcd_cli.kernel_search.checkpoint import LevelState, checkpoint_paths, load_state, save_state
from abcd_cli.kernel_search.engine_choice import resolve
from abcd_cli.kernel_search.events import Events, SearchEvent, as_lines
from abcd_cli.kernel_search.final_polish import polished
from abcd_cli.kernel_search.finalists import narrowed
from abcd_cli.kernel_search.fit import DEFAULT_ENGINE
from abcd_cli.kernel_search.fitting import Fitter
from abcd_cli.kernel_search.grammar import LANGUAGES, expand, start_kernels
from abcd_cli.kernel_search.posterior import Weighed
from abcd_cli.kernel_search.records import EarlyStop, LevelRecord, SearchResult
from abcd_cli.kernel_search.resampled_screen import resampled_screen
from abcd_cli.kernel_search.scoring import Scored
from abcd_cli.kernel_search.screening import Screen, screens, time_inputs
from abcd_cli.kernel_search.search_data import SearchData
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernel_search.stages import LevelStages
from abcd_cli.kernel_search.table_grammar import TableGrammar
from abcd_cli.kernel_search.table_plan import TablePlan, screen_floor, stage_costs
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.algebra import structure_key

Progress = Callable[[str], None]
#: A table's search (``screening``) stops after this many levels without a better BIC.
TABLE_PATIENCE = 1


def check_size(n: int, settings: SearchSettings, engine: Engine = DEFAULT_ENGINE) -> None:
    """Refuse a series too long for ``engine`` (``InputError``), before anything is fitted."""
    engine.check_size(n, settings.full_data_evaluations)


class Search:
    """One greedy search over one series; ``run`` does the levels, checkpointing after each."""

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
        the plain line of each finished level and resumption, ``events`` every event; ``tagged``:
        both say the seed (one of several searches)."""
        y = np.asarray(y, dtype=float)
        if engine is None:
            settings, engine = resolve(settings, y.size)
        check_size(y.size, settings, engine)
        self.settings = settings
        self.engine = engine
        self.data = SearchData.prepare(x, y, settings, x_names)
        self.language = LANGUAGES[settings.language]
        self.emit = sink(progress, events, settings.seed if tagged else None)
        self.checkpoint = Path(checkpoint) if checkpoint else None
        self.fitter = Fitter(executor or SerialExecutor(), fit_fn, self._on_stage, self._on_fit)
        self.screen, self.table = self._screen()
        # state, saved in the checkpoint
        self.level = -1
        self.parents: list[Scored] = []
        self.seen: set[str] = set()
        self.best: Scored | None = None
        self.trace: list[LevelRecord] = []
        self.stale = 0
        self.elapsed = self.screen.seconds if self.screen else 0.0
        self.pool: list[Scored] = []  # method "posterior": the best structures, best first
        # what the method weighing the pool saved of it, by kernel text (``pool_posterior``)
        self.weighed: dict[str, Weighed] = {}
        # this level's counts and progress (not saved)
        self.level_started = time.perf_counter()
        self.evaluations = self.full_evaluations = self.pcg_products = 0
        self.shown_best: tuple[float, float] | None = None

    # --- progress ------------------------------------------------------------------------
    def _on_stage(self, stage: str, total: int) -> None:
        self.event("stage", stage=stage, total=total)

    def _on_fit(self, stage: str, task: FitTask, result: Candidate, done: int, total: int) -> None:
        """Add a fit to the level's counts and, on all the data, to the best shown so far."""
        self.evaluations += result.evaluations
        if task.X is self.data.X:
            self.full_evaluations += result.evaluations
            if result.bounds is not None:
                self.pcg_products += result.bounds.products
            if result.status == "ok" and result.bounds is not None:
                scored = self.data.scorer.scored(
                    result.kernel, result.nll, self.data.n, result.bounds
                )
                if self.shown_best is None or scored.bic < self.shown_best[1]:
                    self.shown_best = (scored.low, scored.bic)
        self.event("fit", stage=stage, done=done, total=total)

    def event(self, kind: str, **fields: object) -> None:
        """Report an event of this search (its seconds since the stage began)."""
        if self.emit is not None:
            seconds = time.perf_counter() - self.level_started
            self.emit(
                SearchEvent(
                    kind,
                    level=self.level + 1 if kind in ("stage", "fit") else self.level,
                    depth=self.depth,
                    seconds=seconds,
                    best=self.shown_best,
                    **fields,  # type: ignore[arg-type]
                )
            )

    def begin_stage(self) -> None:
        """Start the clock and the best shown of a stage after the levels (a method's own
        work on the search's pool)."""
        self.level_started = time.perf_counter()
        self.shown_best = None

    def resumed(self) -> None:
        """Tell the watcher the search continues from its checkpoint."""
        self.event("resumed")

    # --- levels --------------------------------------------------------------------------
    def _screen(self) -> tuple[Screen | None, TableGrammar | TablePlan | None]:
        """On a table (``screening.screens``): the screen's verdict and the grammar it
        restricts, or with ``table_search`` "coordinate" the plan it sets; else (None, None)."""
        data, settings = self.data, self.settings
        coordinate = settings.table_search == "coordinate"
        if not screens(settings.language, settings.screen or coordinate, data.n_dims):
            return None, None
        screen = resampled_screen(
            data.X, data.Y, settings.seed, settings.restarts, settings.max_iter,
            settings.screen_fits, time_inputs(data.x_names), data.constant_mean, data.x_names,
            screen_floor(settings.table_search), self.fitter.executor,
        )  # fmt: skip
        periodic = tuple(d for d in data.periodic if d in screen.change_inputs)
        if coordinate:
            return screen, TablePlan.of(screen, periodic)
        return screen, TableGrammar.of(screen, settings.bases, periodic)

    @property
    def plan(self) -> TablePlan | None:
        """The coordinate-wise plan of a table's search (``table_plan``), if it has one."""
        return self.table if isinstance(self.table, TablePlan) else None

    @property
    def depth(self) -> int:
        """The last level: the settings' depth, or the plan's steps if fewer."""
        steps = len(self.plan.steps) if self.plan else self.settings.depth
        return min(steps, self.settings.depth)

    @property
    def patience(self) -> int:
        """Levels without a better BIC before the search stops: the settings', at most
        ``TABLE_PATIENCE`` on a table (its restricted grammar's next level rarely improves
        on a level that did not)."""
        if self.plan is not None:
            return 0  # a plan's steps are few and each looks at another input
        if self.table is None or not self.settings.patience:
            return self.settings.patience
        return min(self.settings.patience, TABLE_PATIENCE)

    def _children(self, kernel: Kernel) -> list[Kernel]:
        """The grammar's children of ``kernel``: the table's restricted one after a screen."""
        if isinstance(self.table, TableGrammar):
            return self.table.expand(kernel)
        return expand(
            kernel,
            self.language,
            self.settings.bases,
            self.settings.interpretable,
            n_dims=self.data.n_dims,
            periodic=self.data.periodic,
        )

    def _candidates(self) -> list[list[Kernel]]:
        """The new structures of this level: one family per kept model, none seen before."""
        n_dims, periodic = self.data.n_dims, self.data.periodic
        if self.level < 0:
            if self.table is not None:
                return [self.table.start()]
            return [start_kernels(self.language, n_dims, self.settings.max_order, periodic)]
        if self.plan is not None and self.best is not None:  # each step from the best so far
            best = structure_key(self.best.kernel)
            while self.level < self.depth:
                step = self.plan.candidates(self.level + 1, self.best.kernel)
                if step := [k for k in step if structure_key(k) != best]:
                    return [step]
                self.level += 1  # nothing to try at this step (a prune with no product)
            return [[]]
        families: list[list[Kernel]] = []
        for parent in self.parents:
            family = []
            for child in self._children(parent.kernel):
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
        if self.level >= self.depth or (self.level >= 0 and not self.language.searches):
            return False
        if self.patience and self.stale >= self.patience:
            return False
        families = self._candidates()
        if self.level < 0:
            self.seen.update(structure_key(k) for family in families for k in family)
        if not any(families):
            return False
        stages = LevelStages(self.data, self.settings, self.engine, self.fitter, self.level + 1)
        scored, counts = stages.score(families)
        scored = narrowed(
            scored,
            self.engine,
            self.fitter.executor,
            (self.data.X, self.data.Y, self.data.constant_mean),
            self.data.scorer,
            self.settings.beam_at(self.level + 1),
            self.settings.buffer,
        )
        self.level += 1
        if not scored:
            self.elapsed += time.perf_counter() - started
            self.trace.append(LevelRecord(self.level, **counts))
            if self.best is not None:  # nothing fitted at all: no state worth resuming from
                self.save()
            self.event("level", record=self.trace[-1])
            return False
        top, named = scored[0], self.plan is not None and self.plan.named(self.level)
        if self.best is None or top.bic < self.best.bic or named:  # named: the screen's pair
            self.best, self.stale = top, 0
        else:
            self.stale += 1
        self._keep_in_pool(scored)
        kept = keep(scored, self.settings.beam_at(self.level), self.settings.buffer)
        self.parents = kept.models
        self.elapsed += time.perf_counter() - started
        text = self.data.text
        exact = self.engine.capabilities.exact_likelihood
        self.trace.append(
            LevelRecord(
                self.level,
                **counts,
                structure=text(top.kernel, params=False),
                kernel=self.data.user_text(top.kernel),
                bic=top.bic,
                bic_low=top.low,
                bic_width=top.width,
                kept=len(kept),
                pruned=kept.pruned,
                evaluations=self.evaluations,
                full_data_evaluations=self.full_evaluations,
                pcg_products=None if exact else self.pcg_products,
                elapsed_seconds=round(self.elapsed, 3),
                finalists=None if exact else self._finalists(kept.models),
            )
        )
        self.save()  # before saying the level is done: an interrupt after the line loses nothing
        self.event("level", record=self.trace[-1])
        return True

    def _finalists(self, kept: list[Scored]) -> list[dict[str, object]]:
        """The kept models' structures and BIC intervals, for the trace and the appendix."""
        text = self.data.text
        return [
            {"structure": text(c.kernel, params=False), "bic_low": c.low, "bic": c.bic}
            for c in kept
        ]

    def _keep_in_pool(self, scored: list[Scored]) -> None:
        """Keep the ``pool_size`` structures of lowest BIC seen so far (one fit of each)."""
        if not self.settings.pool_size:
            return
        by_key = {structure_key(c.kernel): c for c in reversed(self.pool)}
        for c in scored:
            key = structure_key(c.kernel)
            if key not in by_key or c.bic < by_key[key].bic:
                by_key[key] = c
        self.pool = sorted(by_key.values(), key=lambda c: c.bic)[: self.settings.pool_size]

    def run(self) -> SearchResult:
        """Run the levels left; the result's model is the lowest BIC over all levels (with the
        method "posterior", ``pool`` then holds the structures to weigh:
        ``pool_posterior``); its fit polished at the end (``final_polish``)."""
        while self.step():
            pass
        if self.best is None:
            raise RunError("no model could be fitted to this series (every candidate failed)")
        announce, iterations = partial(self._on_stage, "polish"), self.settings.final_polish or 0
        self.begin_stage()
        chosen, polish = polished(self.best, self.data, self.engine, iterations, announce)
        return self.result(chosen, final_polish=polish)

    def result(self, chosen: Scored, **more: object) -> SearchResult:
        """The search's result with ``chosen`` (one it fitted) as the model; ``more`` are
        further fields of ``SearchResult`` (a method's posterior)."""
        data = self.data
        return SearchResult(
            data.model(chosen, self.engine),
            self.trace,
            self.settings,
            self.elapsed,
            fit_points=data.Y_fit.size,
            refine_points=data.Y_refine.size,
            stopped_early=self._stopped_early(),
            screen=self.screen,
            stages=stage_costs(self.plan, self.trace, self.screen.seconds, self.screen.fits)
            if self.plan and self.screen
            else [],
            **more,  # type: ignore[arg-type]
        )

    def _stopped_early(self) -> EarlyStop | None:
        """Why the search ended before ``depth`` (None when it did not)."""
        if self.trace and self.trace[-1].failed_level:
            return EarlyStop(self.trace[-1].level, failed=True)
        if self.patience and self.stale >= self.patience and self.level < self.settings.depth:
            return EarlyStop(self.level, stale=self.stale)
        return None

    # --- checkpoints ---------------------------------------------------------------------
    def save(self) -> None:
        """Write the state to the checkpoint (if there is one)."""
        if self.checkpoint is not None:
            state = LevelState(
                self.level,
                self.parents,
                self.best,
                self.seen,
                self.trace,
                self.stale,
                self.elapsed,
                self.pool,
                self.weighed,
            )
            save_state(self.checkpoint, state, self.settings, self.data.x, self.data.y)

    def restore(self) -> bool:
        """Load the checkpoint if there is one for this data and these settings."""
        if self.checkpoint is None:
            return False
        state = load_state(self.checkpoint, self.settings, self.data.x, self.data.y)
        if state is None:
            return False
        self.level, self.parents, self.best, self.seen = (
            state.level,
            state.parents,
            state.best,
            state.seen,
        )
        self.trace, self.stale, self.elapsed = state.trace, state.stale, state.elapsed
        self.pool = state.pool
        self.weighed = {key: w for key, w in state.weighed.items() if not w.lost}
        return True


def sink(progress: Progress | None, events: Events | None, seed: int | None) -> Events | None:
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


def run_searches(
    x: np.ndarray,
    y: np.ndarray,
    settings: SearchSettings,
    executor: Executor | None = None,
    progress: Progress | None = None,
    checkpoint: str | Path | None = None,
    resume: bool = False,
    fit_fn: Callable[[FitTask], Candidate] | None = None,
    engine: Engine | None = None,
    events: Events | None = None,
    x_names: Sequence[str] = (),
) -> tuple[list[Search], list[SearchResult]]:
    """The ``settings.seeds`` searches, run one after another with seeds seed, ...,
    seed + k − 1 (each with its own checkpoint, :func:`checkpoint_paths`, resumed from it if
    ``resume``), finished, and their results; the arguments as :func:`search` takes them."""
    paths = checkpoint_paths(checkpoint, settings) if checkpoint else [None] * settings.seeds
    searches, results = [], []
    for i, path in enumerate(paths[: settings.seeds]):
        one = replace(settings, seed=settings.seed + i, seeds=1)
        tagged = settings.seeds > 1
        one_search = Search(
            x, y, one, executor, progress, path, fit_fn or fit_candidate, engine, events,
            tagged, x_names,
        )  # fmt: skip
        if resume and one_search.restore():
            one_search.resumed()
        results.append(one_search.run())
        searches.append(one_search)
    return searches, results


def search(
    x: np.ndarray,
    y: np.ndarray,
    settings: SearchSettings,
    executor: Executor | None = None,
    progress: Progress | None = None,
    checkpoint: str | Path | None = None,
    resume: bool = False,
    fit_fn: Callable[[FitTask], Candidate] | None = None,
    engine: Engine | None = None,
    events: Events | None = None,
    x_names: Sequence[str] = (),
) -> SearchResult:
    """The method "greedy" (``methods``): the kernel that best explains y(x) by BIC; see the
    module docstring.

    With ``settings.seeds`` = k > 1, k searches are run (:func:`run_searches`) and the one
    whose model has the lowest BIC is returned (the first of equals), with every seed's model.
    ``fit_fn`` fits one candidate (None: :func:`fit_candidate`, which never raises);
    ``engine`` computes likelihoods (None: the one ``settings.engine`` chooses). ``progress``
    receives one line per finished level and resumption, ``events`` every ``SearchEvent``.
    ``x_names``, the input columns' names, name the inputs in the kernels' text
    (``SE[weight]``) with several.
    """
    _, results = run_searches(
        x, y, settings, executor, progress, checkpoint, resume, fit_fn, engine, events, x_names
    )
    if settings.seeds == 1:
        return results[0]
    chosen = min(results, key=lambda r: r.model.bic)  # the first of equals
    return replace(
        chosen,
        settings=replace(chosen.settings, seed=settings.seed, seeds=settings.seeds),
        elapsed_seconds=sum(r.elapsed_seconds for r in results),
        seed_models=[r.model for r in results],
    )
