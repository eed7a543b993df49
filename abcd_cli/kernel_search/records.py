"""What a search leaves behind: one record per level (the trace) and its result.

In a model file the trace is a list of objects with the fields of :class:`LevelRecord` (a
level whose every candidate failed has only the counts, ``structure`` and ``bic`` null); the
result is the model file itself (:meth:`SearchResult.to_dict`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from abcd_cli import __version__
from abcd_cli.calibration import Calibration
from abcd_cli.kernel_search.posterior import StructurePosterior
from abcd_cli.kernel_search.screening import Screen
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.model import Model

if TYPE_CHECKING:
    from abcd_cli.kernel_search.final_polish import FinalPolish


@dataclass(frozen=True)
class LevelRecord:
    """One level of a search: how many candidates were fitted (failed, rejected), the best
    (its structure, its kernel in the user's units with every digit, so that it reads back into
    the fitted kernel, and BIC interval [bic_low, bic], in which ``bic_width`` = bic − bic_low),
    the models kept for the next level and those pruned, the objective's evaluations (in all, on
    all the data), the engine's conjugate-gradient products and the kept models' intervals
    (engines with interval scores only) and the seconds since the search began. A level whose
    every candidate failed has no best and nothing after the counts."""

    level: int
    candidates: int
    failed: int
    rejected: int
    structure: str | None = None
    kernel: str | None = None
    bic: float | None = None
    bic_low: float | None = None
    bic_width: float | None = None
    kept: int | None = None
    pruned: int | None = None
    evaluations: int | None = None
    full_data_evaluations: int | None = None
    pcg_products: int | None = None
    elapsed_seconds: float | None = None
    #: engines with interval scores: the models the buffer kept, best first, each
    #: {"structure", "bic_low", "bic"} (their intervals narrowed: ``kernel_search.finalists``)
    finalists: list[dict[str, Any]] | None = None

    @property
    def failed_level(self) -> bool:
        """Every candidate failed: the level has no best model."""
        return self.structure is None

    def to_dict(self) -> dict[str, object]:
        """The trace entry of a model file: the fields that are set (a failed level: the
        counts with ``structure`` and ``bic`` null)."""
        if self.failed_level:
            d = {f: getattr(self, f) for f in ("level", "candidates", "failed", "rejected")}
            return {**d, "structure": None, "bic": None}
        return {
            f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LevelRecord:
        """The record of a trace entry written by :meth:`to_dict` (unknown keys: TypeError)."""
        return cls(**d)


@dataclass(frozen=True)
class EarlyStop:
    """Why a search ended before its depth: every candidate of ``level`` failed
    (``failed``), or no model better than the best in ``stale`` levels (patience), at
    ``level``."""

    level: int
    failed: bool = False
    stale: int = 0


@dataclass
class SearchResult:
    """A search's chosen model, its trace, settings and seconds, why it stopped before its
    depth (None when it did not), the points its candidates were optimised on (``fit_points``)
    and refined on (``refine_points``; both the whole series unless it is long) and, with
    ``settings.seeds`` > 1, every search's model in seed order (``model`` is one of them);
    ``posterior``: the method's weighted particles, the record every reader takes
    (``posterior.StructurePosterior``; ``model`` is its most probable structure; a method that
    chooses one model gives none and gets that model alone, ``StructurePosterior.single``;
    with several seeds' pools weighed jointly, ``trace_seed`` is the seed whose search fitted
    ``model`` and whose trace this is); on a table, the ``screen`` that chose its grammar.
    The notes on it and its early stop in words: ``reporting.search_notes``. ``calibration``:
    with a posterior, its band calibrated on the series' own past (``backtest.calibration_of``),
    or why not."""

    model: Model
    trace: list[LevelRecord]
    settings: SearchSettings
    elapsed_seconds: float
    fit_points: int
    refine_points: int
    stopped_early: EarlyStop | None = None
    seed_models: list[Model] = field(default_factory=list)
    posterior: StructurePosterior | None = None
    trace_seed: int | None = None
    calibration: Calibration | None = None  # the posterior's band on its own past
    screen: Screen | None = None  # a table's screen by the additive GP (``screening``)
    # a table's coordinate-wise search: each stage's fits and seconds (``table_plan``)
    stages: list[dict[str, object]] = field(default_factory=list)
    final_polish: FinalPolish | None = None  # the chosen model's polish (``final_polish``)

    def __post_init__(self) -> None:
        if self.posterior is None:  # a method that chose one model: that model alone
            self.posterior = StructurePosterior.single(self.model.kernel, self.model.bic)

    @property
    def particles(self) -> StructurePosterior:
        """The weighted particles (``posterior``, set by the time the result exists)."""
        assert self.posterior is not None
        return self.posterior

    def to_dict(self, notes: Sequence[str] = (), stopped_early: str = "") -> dict[str, object]:
        """The model file's document (``abcd search --json``), with the ``notes`` on the search
        and why it ``stopped_early``, in words."""
        d = self.model.to_dict()
        if self.seed_models:
            d["seed_models"] = [
                {"seed": self.settings.seed + i, **m.to_dict(with_data=False)}
                for i, m in enumerate(self.seed_models)
            ]
        if self.settings.method != "smc":  # the sampler has no levels: its trace is by data step
            d["trace"] = [record.to_dict() for record in self.trace]  # (``posterior.steps``)
        d.update(
            {
                "settings": self.settings.to_dict(),
                "notes": list(notes),
                "stopped_early": stopped_early,
                "version": __version__,
                "elapsed_seconds": self.elapsed_seconds,
            }
        )
        if not self.particles.is_single:  # the model alone is the model's own fields
            d["posterior"] = self.particles.to_dict()
        if self.calibration is not None:
            d["calibration"] = self.calibration.to_dict()
        if self.screen is not None:
            d["screen"] = self.screen.to_dict()
        if self.stages:
            d["stages"] = self.stages
        return d


def summary_line(result: SearchResult) -> str:
    """One line: the chosen model and its BIC (used by the CLI)."""
    m = result.model
    return f"{m.structure}   BIC {m.bic:.2f}   log likelihood {-m.nll:.2f}   n={m.n}"
