"""What decides a search's result: its settings, and the prior mean's internal units."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from numbers import Integral, Real

import numpy as np

from abcd_cli.data.scaling import Scaling
from abcd_cli.engines import engine_choices, unknown_engine
from abcd_cli.errors import InputError
from abcd_cli.kernel_search.grammar import BASES, DEFAULT_BASES, LANGUAGES
from abcd_cli.kernel_search.methods import REGISTRY
from abcd_cli.kernels.additive import MAX_ORDER

#: What the GP expects before it sees the data: the mean of y, zero (the original's choice), or
#: a constant of unknown value with a flat prior, integrated out (its estimate is the generalised
#: least-squares level of each model; Rasmussen & Williams §2.7).
PRIOR_MEANS = ("data", "zero", "constant")
#: The most parameter draws a structure of the posterior keeps: every draw a distinct step of
#: its chain (``weighing.STEPS``).
MAX_DRAWS = 200
#: How a table of several inputs (language "abcd") is searched: "grammar", the grammar's levels
#: (over every input, or restricted by ``screen``); "coordinate", the additive GP's screen and
#: then the coordinate-wise plan (``table_plan``, issue 66).
TABLE_SEARCHES = ("grammar", "coordinate")
#: With a zero prior mean, a level this many spreads of y from zero is fitted poorly (see
#: benchmarks/accuracy/outputs/NOTES.md: a constant's likelihood fell short by 11 nats at 100
#: spreads).
FAR_LEVEL = 100.0
#: The default refinement subset (``SearchSettings.refine_points``): a tenth of the points,
#: never fewer than this many. Measured on the synthetic hourly series
#: (benchmarks/long_series/outputs/long_series_notes.md): 2,500 of 10⁴ points reached a lower
#: BIC in 12.6 min than all of them did in 20; at 10⁵, 2,500 lost the weekly cycle that 10,000
#: found.
REFINE_MIN = 2_500
REFINE_SHARE = 10
#: The largest seed (of every search: seed + seeds - 1). numpy takes any whole number of at
#: least 0 but mixes it into a pool of 128 bits (``numpy.random.SeedSequence``), so larger
#: seeds give no more streams; they only grow the files and messages that name them.
MAX_SEED = 2**128 - 1
MAX_SEED_TEXT = "2**128 - 1"
#: The settings that must be whole numbers and their valid ranges, lowest and highest (None: no
#: upper bound); those in ``MAY_BE_NONE`` may also be None (``seed`` and ``inducing`` are
#: checked on their own). The model file checks its settings by these too.
WHOLE_RANGES: dict[str, tuple[int, int | None]] = {
    "depth": (0, None), "restarts": (1, None), "seeds": (1, None), "beam": (1, None),
    "beam_levels": (0, None), "subset_size": (20, None), "refine_size": (20, None),
    "refine": (1, None), "finalists": (1, None), "screen_iter": (1, None),
    "refine_iter": (1, None), "patience": (0, None), "polish": (1, None), "max_iter": (1, None),
    "buffer": (1, None), "pool": (1, None), "draws": (1, MAX_DRAWS), "max_order": (1, MAX_ORDER),
    "particles": (2, MAX_DRAWS), "data_steps": (1, None), "first_points": (1, None),
    "structure_moves": (0, None), "parameter_moves": (0, None), "screen_fits": (1, None),
    "final_polish": (0, None),
}  # fmt: skip
#: The whole-number settings a settings file may hold as null.
MAY_BE_NONE = ("refine_size", "max_order", "final_polish")
#: The sampler's settings (method "smc"), kept in a settings file only with that method.
SMC_FIELDS = ("particles", "data_steps", "first_points", "structure_moves", "parameter_moves")
#: The sampler's time settings (``smc_budget``): given only with method "smc", kept in a
#: settings file only when given.
BUDGET_FIELDS = ("budget", "moves_plan")
#: Every setting the sampler reads (``smc_method``): a settings file of method "smc" holds these
#: alone, since the greedy search's (depth, restarts, beam, ...) decide nothing it does.
SAMPLER_SETTINGS = ("seed", "method", "prior_mean", "engine", *SMC_FIELDS)


def is_whole(value: object) -> bool:
    """Whether ``value`` is a whole number (an int or a numpy integer, not a bool)."""
    return isinstance(value, Integral) and not isinstance(value, bool)


def check_seed(seed: object, seeds: int = 1) -> int:
    """``seed`` as an int, or an InputError: a whole number from 0 such that the last of
    ``seeds`` searches' seeds, seed + seeds - 1, is at most MAX_SEED."""
    if not is_whole(seed) or not 0 <= int(seed) <= MAX_SEED:  # type: ignore[arg-type]
        shown = repr(seed) if len(repr(seed)) <= 60 else repr(seed)[:57] + "..."
        raise InputError(f"the seed must be a whole number from 0 to {MAX_SEED_TEXT}, not {shown}")
    seed = int(seed)  # type: ignore[arg-type]
    if seed + seeds - 1 > MAX_SEED:
        raise InputError(
            f"with {seeds} seeds the last search's seed, seed + {seeds - 1}, would pass the"
            f" largest seed {MAX_SEED_TEXT}; use a seed of at most {MAX_SEED - seeds + 1}"
        )
    return seed


@dataclass(frozen=True)
class SearchSettings:
    """Everything that decides the search's result (the seed included)."""

    depth: int = 10
    restarts: int = 10
    seed: int = 0
    seeds: int = 1  # independent searches, with seeds seed, seed + 1, ...; the lowest BIC wins
    # (method "posterior": their pools are weighed jointly)
    beam: int = 2  # models of a level expanded at the next (1: the original's greedy search)
    beam_levels: int = 3  # levels that keep ``beam`` models; later ones keep one (0: all)
    language: str = "abcd"
    interpretable: bool = False
    bases: tuple[str, ...] = DEFAULT_BASES
    subset_size: int = 250  # above this many points, optimise on a subset first
    refine_size: int | None = None  # above this many points, refine on a subset of this size
    # and fit on all the data only the models the next level expands (None: ``refine_points``)
    finalists: int = 6  # children of each kept model optimised to convergence per level
    refine: int = 3  # long series: of those, re-optimised per kept model on all the data or
    # on ``refine_points`` of it
    patience: int = 3  # stop after this many levels without a better BIC (0: never)
    prior_mean: str = "data"  # the GP's prior mean: "data" (the mean of y), "zero", "constant"
    polish: int = 1  # restarts kept after ranking the starting points by likelihood
    screen_iter: int = 25  # L-BFGS-B iterations every candidate gets
    max_iter: int = 150  # iterations for finalists
    refine_iter: int = 40  # iterations on all the data (long series)
    max_order: int | None = None  # language "additive": highest order (None: every input's)
    engine: str = "auto"  # "auto" or a registered engine (``abcd_cli.engines``)
    inducing: int | None = None  # skc's inducing inputs (None: by the series' length)
    buffer: int = 3  # at most this many models expanded: the beam and those whose BIC
    # intervals overlap the best one's (with the exact engine's zero-width intervals: the beam)
    method: str = "greedy"  # one of methods.REGISTRY
    pool: int = 20  # method "posterior": the structures of lowest BIC each search keeps, all
    # weighed (with several seeds: every distinct one of their pools, at most seeds × pool)
    draws: int = 32  # method "posterior": parameter draws kept per structure
    screen: bool = False  # language "abcd" on a table of several inputs: screen its inputs first
    # with one fit of the additive GP and search the restricted grammar (``table_grammar``)
    # method "smc" (``smc``): its particles, the data in ``data_steps`` nested steps (the first
    # of ``first_points`` points), and the structure and parameter moves per particle and step
    particles: int = 16
    data_steps: int = 10
    first_points: int = 10
    structure_moves: int = 5
    parameter_moves: int = 10
    table_search: str = "grammar"  # one of TABLE_SEARCHES
    screen_fits: int = 1  # a table's screen: fits of the additive GP, each on a subsample of
    # the rows when more than one, whose vote keeps inputs and pairs (``resampled_screen``)
    # method "smc" (``smc_budget``): seconds the sampler should finish within (None: no limit),
    # and the (structure, parameter) moves of each data step (None: decided as the run goes;
    # a finished run's settings hold the plan it used, so that they give its result again)
    budget: float | None = None
    moves_plan: tuple[tuple[int, int], ...] | None = None
    # the greedy search's chosen model polished on all the data by this many L-BFGS-B
    # iterations of the engine's polishing objective (skc: CGLB; ``final_polish``); None: the
    # engine's choice (``engine_choice.resolve``: 25 with skc, none with an engine that has no
    # polishing objective); 0: none
    final_polish: int | None = None

    def __post_init__(self) -> None:
        for name, (low, high) in WHOLE_RANGES.items():
            value = getattr(self, name)
            if value is None:
                continue
            if not is_whole(value) or not low <= value <= (high or value):
                valid = f"from {low} to {high}" if high else f"of at least {low}"
                raise InputError(
                    f"bad search setting {name}={value!r}: a whole number {valid} is needed"
                )
            object.__setattr__(self, name, int(value))  # a plain int for JSON
        object.__setattr__(self, "seed", check_seed(self.seed, self.seeds))
        if self.prior_mean not in PRIOR_MEANS:
            raise InputError(
                f"unknown prior mean {self.prior_mean!r} (choose from {', '.join(PRIOR_MEANS)})"
            )
        if self.method not in REGISTRY:  # read as it is: a method registered later counts
            raise InputError(f"unknown method {self.method!r} (choose from {', '.join(REGISTRY)})")
        if self.engine not in engine_choices():
            raise InputError(unknown_engine(self.engine, engine_choices()))
        if self.table_search not in TABLE_SEARCHES:
            raise InputError(
                f"unknown table search {self.table_search!r}"
                f" (choose from {', '.join(TABLE_SEARCHES)})"
            )
        if self.inducing is not None and (not is_whole(self.inducing) or self.inducing < 1):
            raise InputError(
                f"the number of inducing inputs must be a whole number of at least 1,"
                f" not {self.inducing!r}"
            )
        if self.inducing is not None:
            object.__setattr__(self, "inducing", int(self.inducing))  # a plain int for JSON
        if self.language not in LANGUAGES:
            raise InputError(
                f"unknown language {self.language!r} (choose from {', '.join(LANGUAGES)})"
            )
        self._check_bases()
        self._check_budget()

    def _check_budget(self) -> None:
        """``budget``: a finite number of seconds above 0; ``moves_plan``: pairs of whole
        numbers from 0, at most ``data_steps`` of them; either only with method "smc"."""
        for name in BUDGET_FIELDS:
            if getattr(self, name) is not None and self.method != "smc":
                raise InputError(f"--{name.replace('_', '-')} only applies with --method smc")
        budget = self.budget
        if budget is not None:
            number = isinstance(budget, Real) and not isinstance(budget, bool)
            if not (number and math.isfinite(budget) and budget > 0):
                raise InputError(f"the budget must be a number of seconds above 0, not {budget!r}")
            object.__setattr__(self, "budget", float(budget))  # a plain float for JSON
        if self.moves_plan is not None:
            object.__setattr__(self, "moves_plan", checked_plan(self.moves_plan, self.data_steps))

    def _check_bases(self) -> None:
        """Base kernel names known to the search, each once, at least one."""
        choices = f"(choose from {', '.join(BASES)})"
        if not self.bases:
            raise InputError(f"no base kernels given {choices}")
        for i, name in enumerate(self.bases):
            if name not in BASES:
                raise InputError(f"unknown base kernel {name!r} {choices}")
            if name in self.bases[:i]:
                raise InputError(f"base kernel {name!r} given twice")

    def refine_points(self, n: int) -> int:
        """How many of ``n`` points the refinement uses (all of them when this is at least
        ``n``): ``refine_size``, or by default max(REFINE_MIN, n / REFINE_SHARE)."""
        return self.refine_size or max(REFINE_MIN, n // REFINE_SHARE)

    def beam_at(self, level: int) -> int:
        """Models of ``level`` that are expanded at the next one."""
        wide = self.beam_levels == 0 or level <= self.beam_levels
        return self.beam if wide else 1

    @property
    def full_data_evaluations(self) -> int:
        """Objective evaluations on all the data per level, at most: ``refine`` finalists of
        each of ``beam`` kept models, ``refine_iter`` iterations each (what the size check
        prices)."""
        return self.refine * self.beam * self.refine_iter

    @property
    def pool_size(self) -> int:
        """How many structures the search keeps for the posterior (none for "greedy")."""
        return self.pool if self.method == "posterior" else 0

    def to_dict(self) -> dict[str, object]:
        """The settings as JSON; ``max_order`` only when it was given (the other languages
        ignore it), ``screen`` only when on, ``table_search`` only when not "grammar",
        ``screen_fits`` only when not 1, ``final_polish`` only when not None, the posterior's
        ``pool`` and ``draws`` only with their method (the files of earlier versions,
        checkpoints among them, lack these); with the sampler, only ``SAMPLER_SETTINGS`` and
        the ``BUDGET_FIELDS`` that were given."""
        d = asdict(self)
        for name in BUDGET_FIELDS:  # given only with the sampler
            del d[name]
        if self.method == "smc":
            given = {name: getattr(self, name) for name in BUDGET_FIELDS}
            if self.moves_plan is not None:
                given["moves_plan"] = [list(moves) for moves in self.moves_plan]
            sampler = {name: d[name] for name in SAMPLER_SETTINGS}
            return sampler | {name: v for name, v in given.items() if v is not None}
        d["bases"] = list(self.bases)
        if self.max_order is None:
            del d["max_order"]
        if self.method != "posterior":
            del d["pool"], d["draws"]
        for name in SMC_FIELDS:
            del d[name]
        if self.method == "greedy":
            del d["method"]
        if not self.screen:  # the default: files of earlier versions lack it
            del d["screen"]
        if self.table_search == "grammar":  # the search of earlier versions: their files lack it
            del d["table_search"]
        if self.screen_fits == 1:  # one fit on the rows, as earlier versions: their files lack it
            del d["screen_fits"]
        if self.final_polish is None:  # no polish (the exact engines): earlier files lack it
            del d["final_polish"]
        return d


def checked_plan(plan: object, data_steps: int) -> tuple[tuple[int, int], ...]:
    """``plan`` as (structure moves, parameter moves) per data step: at most ``data_steps``
    pairs of whole numbers from 0, at least one pair; InputError otherwise."""
    bad = InputError(
        f"the moves plan must be 1 to {data_steps} pairs (structure moves, parameter moves) of"
        " whole numbers from 0, one per data step"
    )
    if isinstance(plan, str | bytes) or not isinstance(plan, Sequence):
        raise bad
    pairs = []
    for moves in plan:
        if isinstance(moves, str | bytes) or not isinstance(moves, Sequence) or len(moves) != 2:
            raise bad
        if not all(is_whole(m) and int(m) >= 0 for m in moves):
            raise bad
        pairs.append((int(moves[0]), int(moves[1])))
    if not 1 <= len(pairs) <= data_steps:
        raise bad
    return tuple(pairs)


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
