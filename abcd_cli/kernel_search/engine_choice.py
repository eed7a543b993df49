"""Which engine a search uses, and with how many inducing inputs.

``--engine auto`` (the default): below ``SPEED_CROSSOVER`` points one exact likelihood with
its gradient is cheaper than the sparse engine's bound at its default m, from it on the sparse
one is (``benchmarks/engines/outputs/engine_choice.md``, made by
``benchmarks/engines/bench_engine_choice.py``); a series the exact engine would refuse always
goes to the sparse engine. ``auto`` switches at ``AUTO_THRESHOLD``, above the crossover, because a
whole search is not yet faster with skc at 1,000 points: on the three 1,000-point benchmark
series skc took 138, 422 and 153 s against 95, 286 and 168 s exact, and one of the three
chose a model more than 10 BIC worse (``benchmarks/long_series/outputs/skc_agreement.md``).

With an engine that has a polishing objective (skc: CGLB), the greedy search's chosen model is
polished by ``final_polish`` iterations, by default ``final_polish.DEFAULT_ITERATIONS``.

The engine is built by its own class for the series (``Engine.for_series``: skc takes m,
by default ``engines.inducing.default_inducing``, and the seed); the names come from the one
registry (``abcd_cli.engines``).
"""

from __future__ import annotations

from dataclasses import replace

from abcd_cli.engines import (
    AUTO,
    DEFAULT_ENGINE,
    LONG_SERIES_ENGINE,
    engine_choices,
    engine_class,
    get_engine,
    unknown_engine,
)
from abcd_cli.engines.base import Engine
from abcd_cli.engines.inducing import M_MAX, M_MIN, NM2_BUDGET, default_inducing
from abcd_cli.errors import InputError
from abcd_cli.kernel_search.final_polish import DEFAULT_ITERATIONS
from abcd_cli.kernel_search.settings import SearchSettings

__all__ = ["M_MAX", "M_MIN", "NM2_BUDGET", "default_inducing", "engine_name", "resolve"]

#: Where one sparse evaluation becomes cheaper than one exact one (measured, rounded).
SPEED_CROSSOVER = 900
#: From this many points on, ``auto`` uses the sparse engine: above ``SPEED_CROSSOVER``, so
#: that the 1,000-point benchmark series (temperature, internet, births) stay exact (see the
#: module docstring).
AUTO_THRESHOLD = 2000


def exact_accepts(n: int, settings: SearchSettings) -> bool:
    """Whether the default (exact) engine takes ``n`` points (its own size check)."""
    try:
        get_engine(DEFAULT_ENGINE).check_size(n, settings.full_data_evaluations)
    except InputError:
        return False
    return True


def engine_name(choice: str, n: int, settings: SearchSettings | None = None) -> str:
    """The engine ``choice`` ("auto" or a registered engine's name) means for ``n`` points:
    auto is the default (exact) engine below ``AUTO_THRESHOLD`` when it accepts the series,
    else the long-series one (skc). InputError for a name the registry does not know."""
    if choice not in engine_choices():
        raise InputError(unknown_engine(choice, engine_choices()))
    if choice != AUTO:
        return choice
    settings = settings or SearchSettings()
    short = n < AUTO_THRESHOLD and exact_accepts(n, settings)
    return DEFAULT_ENGINE if short else LONG_SERIES_ENGINE


def resolve(settings: SearchSettings, n: int) -> tuple[SearchSettings, Engine]:
    """The settings with the engine and m actually used on ``n`` points (what a checkpoint
    records: ``auto`` that chose skc resumes as ``--engine skc`` with the same m would), and that
    engine, built by its class for the series (``Engine.for_series``; an engine without
    inducing inputs records ``inducing`` None)."""
    name = engine_name(settings.engine, n, settings)
    engine = engine_class(name).for_series(n, settings.inducing, settings.seed)
    chosen = replace(settings, engine=name, inducing=engine.inducing_count)
    return replace(chosen, final_polish=polish_iterations(chosen, engine)), engine


def polish_iterations(settings: SearchSettings, engine: Engine) -> int | None:
    """The chosen model's polish (``final_polish``) on ``engine``: None (none) when the engine
    has no polishing objective or the method is not the greedy search (the others choose
    from weighed structures), else the settings' value, by default ``DEFAULT_ITERATIONS``."""
    if engine.polishing_engine() is None or settings.method != "greedy":
        return None
    return DEFAULT_ITERATIONS if settings.final_polish is None else settings.final_polish
