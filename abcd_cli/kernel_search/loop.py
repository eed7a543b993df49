"""Greedy compositional kernel search scored by BIC (thesis ch. 3, appendix §1.2).

Each level expands the best model(s) of the previous level with the grammar's operators, fits
every new structure (in parallel on the executor the caller passes in), scores it by
BIC = 2·NLL + p·log n in the user's units, and keeps the best ``beam`` (by default two for the
first three levels, where the cheap small models decide which family the search explores, then
one). The chosen model is the best over all levels.

Long series: above ``subset_size`` points, candidates are optimised on a subset (evenly spread
pairs of neighbouring points) and ranked by their subset BIC; the best few are then refined on
all the data, and only full-data BICs are reported or compared.

After every level the state is written atomically to a checkpoint; a search resumed from it
continues exactly as an uninterrupted one would, since every candidate's random numbers come
from the seed and the candidate's structure alone.

Size limit: the fit is exact, and whatever the subset, every reported model is fitted on all N
points. One likelihood-and-gradient evaluation holds about ``N_MATRICES`` N×N float64 matrices
(K, its inverse and one derivative per parameter, for a kernel of ~12 parameters: about
8·N²·18 bytes, measured) and costs about N³ floating-point operations. A series whose estimate
exceeds ``MAX_EXACT_BYTES`` (4 GiB per worker process, N ≈ 5,460) is refused with an
``InputError`` before anything is fitted: the user must thin or aggregate the data, since
``subset_size`` only limits the search stage.
"""

from __future__ import annotations

import hashlib
import json
import time
import zlib
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from abcd_cli import __version__
from abcd_cli.data.scaling import Scaling
from abcd_cli.engines.exact import FAILED_NLL, fit
from abcd_cli.errors import InputError, RunError
from abcd_cli.execution.pool import SerialExecutor
from abcd_cli.files import atomic_write
from abcd_cli.kernel_search.grammar import DEFAULT_BASES, LANGUAGES, expand
from abcd_cli.kernel_search.init import DataSummary, period_limits
from abcd_cli.kernels import ChangeOperator, Cos, Kernel, Per
from abcd_cli.kernels.algebra import count_params, structure_key
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model, bic

Progress = Callable[[str], None]

#: What the GP expects before it sees the data: the mean of y, zero (the original's choice), or
#: a constant of unknown value with a flat prior, integrated out (its estimate is the generalised
#: least-squares level of each model; Rasmussen & Williams §2.7).
PRIOR_MEANS = ("data", "zero", "constant")
#: With a zero prior mean, a level this many spreads of y from zero is fitted poorly (see
#: benchmarks/accuracy/NOTES.md: a constant's likelihood fell short by 11 nats at 100 spreads).
FAR_LEVEL = 100.0
#: Largest memory one exact fit on all the data may need (per worker process).
MAX_EXACT_BYTES = 4 * 2**30
#: N×N float64 matrices alive during one likelihood-and-gradient evaluation of a ~12-parameter
#: kernel (measured: 18 for 11 parameters).
N_MATRICES = 18
#: Rough speed of one evaluation on one core, in N³ per second (measured 4.5e9 at N = 1000 and
#: 8.7e9 at N = 2000 on a busy 2-core machine).
N3_PER_SECOND = 5e9


@dataclass(frozen=True)
class SearchSettings:
    """Everything that decides the search's result (the seed included)."""

    depth: int = 10
    restarts: int = 10
    seed: int = 0
    seeds: int = 1  # independent searches, with seeds seed, seed + 1, ...; the lowest BIC wins
    beam: int = 2  # models of a level expanded at the next (1: the original's greedy search)
    beam_levels: int = 3  # levels that keep ``beam`` models; later ones keep one (0: all)
    language: str = "abcd"
    interpretable: bool = False
    bases: tuple[str, ...] = DEFAULT_BASES
    subset_size: int = 250  # above this many points, optimise on a subset first
    finalists: int = 6  # children of each kept model optimised to convergence per level
    refine: int = 3  # long series: of those, re-optimised on all the data per kept model
    patience: int = 3  # stop after this many levels without a better BIC (0: never)
    prior_mean: str = "data"  # the GP's prior mean: "data" (the mean of y), "zero", "constant"
    polish: int = 1  # restarts kept after ranking the starting points by likelihood
    screen_iter: int = 25  # L-BFGS-B iterations every candidate gets
    max_iter: int = 150  # iterations for finalists
    refine_iter: int = 40  # iterations on all the data (long series)

    def __post_init__(self) -> None:
        checks = {
            "depth": self.depth >= 0,
            "restarts": self.restarts >= 1,
            "seeds": self.seeds >= 1,
            "beam": self.beam >= 1,
            "beam_levels": self.beam_levels >= 0,
            "subset_size": self.subset_size >= 20,
            "refine": self.refine >= 1,
            "finalists": self.finalists >= 1,
            "screen_iter": self.screen_iter >= 1,
            "refine_iter": self.refine_iter >= 1,
            "patience": self.patience >= 0,
            "polish": self.polish >= 1,
            "max_iter": self.max_iter >= 1,
        }
        bad = [name for name, ok in checks.items() if not ok]
        if bad:
            raise InputError(f"bad search setting {bad[0]}={getattr(self, bad[0])}")
        if self.prior_mean not in PRIOR_MEANS:
            raise InputError(
                f"unknown prior mean {self.prior_mean!r} (choose from {', '.join(PRIOR_MEANS)})"
            )
        if self.language not in LANGUAGES:
            raise InputError(
                f"unknown language {self.language!r} (choose from {', '.join(LANGUAGES)})"
            )

    def beam_at(self, level: int) -> int:
        """Models of ``level`` that are expanded at the next one."""
        wide = self.beam_levels == 0 or level <= self.beam_levels
        return self.beam if wide else 1

    def to_dict(self) -> dict[str, object]:
        d = asdict(self)
        d["bases"] = list(self.bases)
        return d


# ------------------------------------------------------------------------------------------
# Fitting one candidate (runs in a worker process: top-level, picklable, never raises)
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FitTask:
    kernel: Kernel
    X: np.ndarray
    y: np.ndarray
    summary: DataSummary
    limits: DataSummary  # the full data's scales, for the validity check
    restarts: int
    polish: int
    max_iter: int
    entropy: tuple[int, ...]
    alternatives: tuple[Kernel, ...] = ()  # further fitted starts, ranked with the others
    constant_mean: bool = False  # integrate a flat-prior constant mean out of the likelihood


@dataclass(frozen=True)
class Candidate:
    kernel: Kernel  # fitted, internal units
    nll: float  # internal units, on the task's data
    status: str  # "ok", "failed" or "rejected"
    message: str = ""
    seconds: float = 0.0


def fit_candidate(task: FitTask) -> Candidate:
    """Fit one structure; a numerical failure is reported in the result, never raised."""
    start = time.perf_counter()
    try:
        rng = np.random.default_rng(np.random.SeedSequence(list(task.entropy)))
        # Matrices here are small: one BLAS thread each; the pool gives the parallelism.
        with threadpool_limits(limits=1, user_api="blas"):
            res = fit(
                task.kernel,
                task.X,
                task.y,
                rng,
                restarts=task.restarts,
                summary=task.summary,
                max_iter=task.max_iter,
                polish=task.polish,
                also_from=task.alternatives,
                constant_mean=task.constant_mean,
            )
    except Exception as exc:  # noqa: BLE001 - one candidate's failure must not end the search
        return Candidate(task.kernel, FAILED_NLL, "failed", f"{type(exc).__name__}: {exc}")
    seconds = time.perf_counter() - start
    if not res.ok:
        return Candidate(task.kernel, FAILED_NLL, "failed", "no start could be optimised", seconds)
    reason = invalid_reason(res.kernel, task.limits)
    if reason:
        return Candidate(res.kernel, res.nll, "rejected", reason, seconds)
    return Candidate(res.kernel, res.nll, "ok", "", seconds)


def lost_candidate(task: FitTask) -> Candidate:
    """The result recorded for a candidate whose worker process died twice."""
    return Candidate(task.kernel, FAILED_NLL, "failed", "the worker process fitting it died")


def invalid_reason(kernel: Kernel, s: DataSummary) -> str:
    """Why a fitted model may not be reported ('' when it may): periods must lie between two
    short spacings and half the range, changes must happen inside the data."""
    lo, hi = period_limits(s)
    for b in kernel.bases():
        if isinstance(b, (Per, Cos)) and not lo * (1 - 1e-9) <= b.param("period") <= hi * (
            1 + 1e-9
        ):
            return "period outside the range the data can show"
    for k in kernel.nodes():
        if isinstance(k, ChangeOperator) and not s.x_min <= k.param("location") <= s.x_max:
            return "change located outside the data"
    return ""


def _graft(unfitted: Kernel, fitted: Kernel) -> Kernel:
    """``unfitted``'s known values (inherited from a parent fitted on all the data) with
    ``fitted``'s values for its unknown ones. Optimising on a subset moves every parameter
    towards the subset's optimum, which can be far from the full data's; this start keeps
    the parent's full-data fit and takes from the subset only what it had to find."""
    known = unfitted.values()
    return unfitted.with_values(np.where(np.isfinite(known), known, fitted.values()))


def _entropy(seed: int, kernel: Kernel) -> tuple[int, ...]:
    return (seed, zlib.crc32(structure_key(kernel).encode()))


# ------------------------------------------------------------------------------------------
# The search
# ------------------------------------------------------------------------------------------


@dataclass
class _Scored:
    kernel: Kernel  # internal units, fitted on all the data
    nll: float  # user units, all the data
    bic: float


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


def exact_fit_cost(n: int) -> tuple[float, float]:
    """Estimated bytes and seconds of one likelihood-and-gradient evaluation on ``n`` points."""
    return 8.0 * n * n * N_MATRICES, float(n) ** 3 / N3_PER_SECOND


def check_size(n: int, settings: SearchSettings) -> None:
    """Refuse a series too long for the exact fit (see the module docstring)."""
    memory, seconds = exact_fit_cost(n)
    if memory <= MAX_EXACT_BYTES:
        return
    largest = int(np.sqrt(MAX_EXACT_BYTES / (8.0 * N_MATRICES)))
    hours = seconds * settings.refine * settings.beam * settings.refine_iter / 3600.0
    raise InputError(
        f"{n} points are too many for the exact Gaussian-process fit: it would need about"
        f" {memory / 2**30:.1f} GiB of memory per worker (limit {MAX_EXACT_BYTES / 2**30:g} GiB)"
        f" and roughly {hours:.1f} hours per search level; thin or aggregate the series to at"
        f" most {largest} points (--subset-size only limits the search stage: every model is"
        " still refined on all the data)"
    )


def prior_mean_units(x: np.ndarray, y: np.ndarray, prior_mean: str) -> tuple[Scaling, bool]:
    """The internal units for one of ``PRIOR_MEANS``, and whether a level is integrated out:
    y is centred unless the prior mean is zero; only "constant" estimates a level."""
    return Scaling.from_data(x, y, centre_y=prior_mean != "zero"), prior_mean == "constant"


def prior_mean_warning(y: np.ndarray, settings: SearchSettings) -> str | None:
    """The warning for a zero prior mean when |mean(y)| / sd(y) ≥ FAR_LEVEL, else None."""
    if settings.prior_mean != "zero":
        return None
    y = np.asarray(y, dtype=float)
    spreads = abs(float(np.mean(y))) / (float(np.std(y)) or 1.0)
    if spreads < FAR_LEVEL:
        return None
    return (
        f"the mean of y lies {spreads:.3g} standard deviations from zero; with --prior-mean zero"
        " a constant component must carry that level, which this far out is fitted poorly;"
        " --prior-mean data (the default) or constant does not have this problem"
    )


def _fingerprint(x: np.ndarray, y: np.ndarray) -> str:
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(x, dtype=float).tobytes())
    h.update(np.ascontiguousarray(y, dtype=float).tobytes())
    return h.hexdigest()[:16]


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
    ):
        self.x = np.asarray(x, dtype=float)
        self.y = np.asarray(y, dtype=float)
        check_size(self.y.size, settings)
        self.settings = settings
        self.fit_fn = fit_fn  # top-level and picklable when the executor is a process pool
        self.language = LANGUAGES[settings.language]
        self.executor = executor or SerialExecutor()
        self.progress = progress or (lambda _msg: None)
        self.checkpoint = Path(checkpoint) if checkpoint else None
        self.scaling, self.constant_mean = prior_mean_units(self.x, self.y, settings.prior_mean)
        self.X = self.scaling.x_in(self.x)[:, None]
        self.Y = self.scaling.y_in(self.y)
        self.n = self.Y.size
        idx = _subset(self.n, settings.subset_size)
        self.subset = idx if idx.size < self.n else None
        self.X_fit, self.Y_fit = self.X[idx], self.Y[idx]
        self.full_summary = DataSummary.from_data(self.X[:, 0], self.Y)
        # The subset's own spectrum is aliased by its uneven spacing (pairs of neighbours):
        # its starting periods are the full series' periodogram peaks.
        self.fit_summary = (
            self.full_summary
            if self.subset is None
            else replace(
                DataSummary.from_data(self.X_fit[:, 0], self.Y_fit),
                periods=self.full_summary.periods,
            )
        )
        # state, saved in the checkpoint
        self.level = -1
        self.parents: list[_Scored] = []
        self.seen: set[str] = set()
        self.best: _Scored | None = None
        self.trace: list[dict[str, object]] = []
        self.stale = 0
        self.elapsed = 0.0

    # --- scoring -------------------------------------------------------------------------
    def _user_nll(self, nll_internal: float, n: int) -> float:
        # an integrated-out level leaves a density over n - 1 dimensions
        return self.scaling.nll_out(nll_internal, n - self.constant_mean)

    def _fit_all(
        self,
        kernels: list[Kernel],
        full: bool,
        restarts: int,
        max_iter: int,
        alternatives: list[tuple[Kernel, ...]] | None = None,
    ) -> list[Candidate]:
        s = self.settings
        X, y = (self.X, self.Y) if full else (self.X_fit, self.Y_fit)
        summary = self.full_summary if full else self.fit_summary
        alternatives = alternatives or [()] * len(kernels)
        tasks = [
            FitTask(
                k,
                X,
                y,
                summary,
                self.full_summary,
                restarts,
                s.polish,
                max_iter,
                _entropy(s.seed, k),
                others,
                self.constant_mean,
            )
            for k, others in zip(kernels, alternatives, strict=True)
        ]
        return list(self.executor.map(self.fit_fn, tasks))

    def _best_per_family(
        self, results: dict[int, Candidate], family_of: list[int], count: int
    ) -> list[int]:
        """Positions of each family's best ``count`` fitted results, by BIC on the search data."""
        n = self.Y_fit.size

        def search_bic(j: int) -> float:
            r = results[j]
            return bic(self._user_nll(r.nll, n), count_params(r.kernel), n)

        ok = sorted((j for j, r in results.items() if r.status == "ok"), key=search_bic)
        chosen: list[int] = []
        for family in sorted(set(family_of)):
            chosen += [j for j in ok if family_of[j] == family][:count]
        return chosen

    def _score_level(self, families: list[list[Kernel]]) -> tuple[list[_Scored], dict[str, int]]:
        """Fit candidates in stages; return the survivors with full-data scores, best first.

        ``families``: the new children of each kept model (one family at the start). Stages 2
        and 3 choose within each family, so a kept model's children get what they would get in
        a greedy search, whatever the other families' children score.
        1. every candidate: screened restarts and a short optimisation on the search data;
        2. each family's best ``finalists`` by BIC: optimised to convergence on the search data;
        3. long series only: each family's best ``refine`` of those re-optimised on all the
           data, each from the likelier of two starts: its subset optimum, or ``_graft`` (the
           parent's values fitted on all the data, the subset's values for the new parameters).
        """
        s = self.settings
        kernels = [k for family in families for k in family]
        family_of = [i for i, family in enumerate(families) for _ in family]
        full = self.subset is None
        first = dict(enumerate(self._fit_all(kernels, full, s.restarts, s.screen_iter)))
        counts = {
            "candidates": len(first),
            "failed": sum(r.status == "failed" for r in first.values()),
            "rejected": sum(r.status == "rejected" for r in first.values()),
        }
        chosen = self._best_per_family(first, family_of, s.finalists)
        fits = self._fit_all([first[j].kernel for j in chosen], full, 1, s.max_iter)
        second = dict(zip(chosen, fits, strict=True))
        if not full:
            chosen = self._best_per_family(second, family_of, s.refine)
            grafts = [(_graft(kernels[j], second[j].kernel),) for j in chosen]
            fits = self._fit_all([second[j].kernel for j in chosen], True, 1, s.refine_iter, grafts)
            second = dict(zip(chosen, fits, strict=True))
        scored = [self._scored(r.kernel, r.nll) for r in second.values() if r.status == "ok"]
        scored.sort(key=lambda c: c.bic)
        return scored, counts

    def _scored(self, kernel: Kernel, nll_internal: float) -> _Scored:
        nll = self._user_nll(nll_internal, self.n)
        return _Scored(kernel, nll, bic(nll, count_params(kernel), self.n))

    # --- levels --------------------------------------------------------------------------
    def _candidates(self) -> list[list[Kernel]]:
        """The new structures of this level: one family per kept model, none seen before."""
        if self.level < 0:
            return [[parse_kernel(t) for t in self.language.start]]
        families: list[list[Kernel]] = []
        for parent in self.parents:
            family = []
            for child in expand(
                parent.kernel, self.language, self.settings.bases, self.settings.interpretable
            ):
                key = structure_key(child)
                if key not in self.seen:
                    self.seen.add(key)
                    family.append(child)
            families.append(family)
        return families

    def step(self) -> bool:
        """Run one level; False when there is nothing left to do."""
        started = time.perf_counter()
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
            self.progress(f"level {self.level}: every candidate failed")
            return False
        top = scored[0]
        if self.best is None or top.bic < self.best.bic:
            self.best, self.stale = top, 0
        else:
            self.stale += 1
        self.parents = scored[: self.settings.beam_at(self.level)]
        self.elapsed += time.perf_counter() - started
        self.trace.append(
            {
                "level": self.level,
                **counts,
                "structure": top.kernel.structure,
                "kernel": self.scaling.kernel_out(top.kernel).to_text(digits=6),
                "bic": top.bic,
                "elapsed_seconds": round(self.elapsed, 3),
            }
        )
        self._save()  # before saying the level is done: an interrupt after the line loses nothing
        self.progress(
            f"level {self.level}/{self.settings.depth}: {counts['candidates']} fitted"
            f" ({counts['failed']} failed, {counts['rejected']} rejected);"
            f" best {top.kernel.structure}  BIC {top.bic:.2f}  [{self.elapsed:.1f}s]"
        )
        return True

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
                " (of each kept model's children) refined on all the data"
            )
        stopped = ""
        if self.trace and self.trace[-1]["structure"] is None:
            stopped = (
                f"every candidate of level {self.trace[-1]['level']} failed; kept the best so far"
            )
        elif (
            self.settings.patience
            and self.stale >= self.settings.patience
            and self.level < self.settings.depth
        ):
            stopped = f"no better model in {self.stale} levels; stopped at level {self.level}"
        model = Model(
            self.best.kernel, self.scaling, self.x, self.y, self.best.nll, self.constant_mean
        )
        return SearchResult(model, self.trace, self.settings, self.elapsed, notes, stopped)

    # --- checkpoints ---------------------------------------------------------------------
    def _state(self) -> dict[str, object]:
        def scored(c: _Scored) -> dict[str, object]:
            return {"kernel": c.kernel.to_text(), "nll": c.nll, "bic": c.bic}

        return {
            "version": __version__,
            "settings": self.settings.to_dict(),
            "fingerprint": _fingerprint(self.x, self.y),
            "level": self.level,
            "parents": [scored(p) for p in self.parents],
            "best": scored(self.best) if self.best else None,
            "seen": sorted(self.seen),
            "trace": self.trace,
            "stale": self.stale,
            "elapsed_seconds": self.elapsed,
        }

    def _save(self) -> None:
        if self.checkpoint is not None:
            atomic_write(self.checkpoint, json.dumps(self._state()))

    def restore(self) -> bool:
        """Load the checkpoint if there is one for this data and these settings."""
        if self.checkpoint is None or not self.checkpoint.exists():
            return False
        try:
            state = json.loads(self.checkpoint.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read checkpoint {self.checkpoint}: {exc}") from None
        if not isinstance(state, dict):
            raise InputError(f"checkpoint {self.checkpoint} is not a search state; remove it")
        if state.get("fingerprint") != _fingerprint(self.x, self.y):
            raise InputError(
                f"checkpoint {self.checkpoint} was made for other data; remove it to start anew"
            )
        if state.get("settings") != self.settings.to_dict():
            raise InputError(
                f"checkpoint {self.checkpoint} was made with other settings;"
                " use the same options or remove it"
            )

        def scored(d: dict) -> _Scored:
            return _Scored(parse_kernel(d["kernel"]), float(d["nll"]), float(d["bic"]))

        try:
            level = int(state["level"])
            parents = [scored(p) for p in state["parents"]]
            best = scored(state["best"]) if state["best"] else None
            seen = {str(key) for key in state["seen"]}
            trace = [dict(t) for t in state["trace"]]
            stale = int(state["stale"])
            elapsed = float(state["elapsed_seconds"])
        except (AttributeError, KeyError, TypeError, ValueError, InputError) as exc:
            raise InputError(
                f"checkpoint {self.checkpoint} is damaged ({type(exc).__name__}: {exc});"
                " remove it to start anew"
            ) from None
        self.level, self.parents, self.best, self.seen = level, parents, best, seen
        self.trace, self.stale, self.elapsed = trace, stale, elapsed
        return True


def checkpoint_paths(checkpoint: str | Path, settings: SearchSettings) -> list[Path]:
    """Where each of the settings' searches keeps its state: the path itself for one seed,
    else one file per seed beside it (``NAME.seedK.json`` for ``NAME.json``)."""
    path = Path(checkpoint)
    if settings.seeds == 1:
        return [path]
    seeds = range(settings.seed, settings.seed + settings.seeds)
    return [path.with_name(f"{path.stem}.seed{k}{path.suffix}") for k in seeds]


def _tagged(progress: Progress, seed: int) -> Progress:
    return lambda msg: progress(f"seed {seed}: {msg}")


def run_search(
    x: np.ndarray,
    y: np.ndarray,
    settings: SearchSettings | None = None,
    executor: Executor | None = None,
    progress: Progress | None = None,
    checkpoint: str | Path | None = None,
    resume: bool = False,
    fit_fn: Callable[[FitTask], Candidate] = fit_candidate,
) -> SearchResult:
    """Search for the kernel that best explains y(x); see the module docstring.

    With ``settings.seeds`` = k > 1, k searches are run one after another with seeds seed, ...,
    seed + k − 1 (each with its own checkpoint, :func:`checkpoint_paths`), and the one whose
    model has the lowest BIC is returned (the first of equals), with every seed's BIC in its
    notes. ``fit_fn`` fits one candidate (the default, :func:`fit_candidate`, never raises).
    """
    settings = settings or SearchSettings()
    paths = checkpoint_paths(checkpoint, settings) if checkpoint else [None] * settings.seeds
    results = []
    for i, path in enumerate(paths):
        one = replace(settings, seed=settings.seed + i, seeds=1)
        say = _tagged(progress, one.seed) if progress and settings.seeds > 1 else progress
        search = Search(x, y, one, executor, say, path, fit_fn)
        if resume and search.restore() and say:
            say(f"resumed after level {search.level}")
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
        settings=settings,
        elapsed_seconds=sum(r.elapsed_seconds for r in results),
        notes=[*chosen.notes, note],
        seed_models=[r.model for r in results],
    )


def summary_line(result: SearchResult) -> str:
    """One line: the chosen model and its BIC (used by the CLI)."""
    m = result.model
    return f"{m.kernel.structure}   BIC {m.bic:.2f}   log likelihood {-m.nll:.2f}   n={m.n}"
