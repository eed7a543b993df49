"""Which engine a search uses, and with how many inducing inputs.

``--engine auto`` (the default): below ``SPEED_CROSSOVER`` points one exact likelihood with
its gradient is cheaper than the sparse engine's bound at its default m, from it on the sparse
one is (``benchmarks/engines/outputs/engine_choice.md``, made by
``benchmarks/engines/bench_engine_choice.py``); a series the exact engine would refuse always
goes to the sparse engine. ``auto`` switches at ``AUTO_THRESHOLD``, above the crossover, because a
whole search is not yet faster with skc at 1,000 points: on the three 1,000-point benchmark
series skc took 138, 422 and 153 s against 95, 286 and 168 s exact, and one of the three
chose a model more than 10 BIC worse (``benchmarks/long_series/outputs/skc_agreement.md``).

The default number of inducing inputs, when ``--inducing`` is not given (``default_inducing``):

    m(N) = min(N, M_MAX, max(M_MIN, ⌊√(NM2_BUDGET / N)⌋ rounded down to a multiple of 10)),

that is every point up to 500, then 500 up to N = 64,000, then as many as keep N·m² at
``NM2_BUDGET`` (400 at 10⁵), never fewer than 200. The paper used 40-80 on small data and
160-640 at 10⁴-4·10⁴ points; the bounds collapse below the kernel's effective rank
(``/work/shared/SCALING.md``: −21 nats at m = 100, −0.26 at m = 200 on 1,000 hourly points), so
m errs on the large side where it is cheap. At 10⁵ hourly points m = 200 left the daily cycle's
model (Per × SE, slowly modulated over eleven years) an interval 795 BIC wide, and the weekly
cycle was not found (``benchmarks/long_series/outputs/long_series_notes.md``).
"""

from __future__ import annotations

import math
from dataclasses import replace

from abcd_cli.engines import get_engine
from abcd_cli.engines.base import Engine
from abcd_cli.errors import InputError
from abcd_cli.kernel_search.settings import SearchSettings

#: Where one sparse evaluation becomes cheaper than one exact one (measured, rounded).
SPEED_CROSSOVER = 900
#: From this many points on, ``auto`` uses the sparse engine: above ``SPEED_CROSSOVER``, so
#: that the 1,000-point benchmark series (temperature, internet, births) stay exact (see the
#: module docstring).
AUTO_THRESHOLD = 2000
#: The default m's limits and its budget of N·m² (see the module docstring).
M_MIN = 200
M_MAX = 500
NM2_BUDGET = 1.6e10


def default_inducing(n: int) -> int:
    """The number of inducing inputs for ``n`` points when none is asked for."""
    budget = int(math.sqrt(NM2_BUDGET / max(n, 1))) // 10 * 10
    return int(min(n, M_MAX, max(M_MIN, budget)))


def exact_accepts(n: int, settings: SearchSettings) -> bool:
    """Whether the exact engine takes ``n`` points (its own size check)."""
    try:
        get_engine("exact").check_size(n, settings.full_data_evaluations)
    except InputError:
        return False
    return True


def engine_name(choice: str, n: int, settings: SearchSettings | None = None) -> str:
    """The engine ``choice`` ("auto" or an engine's name) means for ``n`` points: auto is exact
    below ``AUTO_THRESHOLD`` when the exact engine accepts the series, else skc."""
    if choice != "auto":
        return choice
    settings = settings or SearchSettings()
    return "exact" if n < AUTO_THRESHOLD and exact_accepts(n, settings) else "skc"


def resolve(settings: SearchSettings, n: int) -> tuple[SearchSettings, Engine]:
    """The settings with the engine and m actually used on ``n`` points (what a checkpoint
    records: ``auto`` that chose skc resumes as ``--engine skc`` with the same m would), and that
    engine. The exact and state-space engines take no m (``inducing`` None); skc's m is at
    most n."""
    name = engine_name(settings.engine, n, settings)
    if name in ("exact", "statespace"):
        return replace(settings, engine=name, inducing=None), get_engine(name)
    m = min(n, settings.inducing or default_inducing(n))
    return replace(settings, engine="skc", inducing=m), get_engine("skc", m=m, seed=settings.seed)
