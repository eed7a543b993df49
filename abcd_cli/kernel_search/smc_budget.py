"""How many moves the sampler makes at each data step (``smc``): the settings' moves, a plan
given in the settings (``SearchSettings.moves_plan``), or, with a time budget
(``SearchSettings.budget``), as many as the time left allows.

The moves of data step k are decided when data step k − 1 has ended, and recorded in the
sampler's state (``SMCState.moves``), its checkpoint and the finished run's settings, so that a
resumed run goes on from the moves it recorded and a run given the recorded plan repeats the
result. With a budget the plan depends on how fast the machine ran the steps before: the same
seed and budget can give another plan, and so another result, on another machine or load.

The cost model. The work of a data step on n_k rows is the likelihoods its particles compute:
one per structure or parameter move and one on the next step's rows, each costing about
c(n) = n^``COST_POWER`` + ``FIXED_ROWS``^``COST_POWER``: the kernel matrix's n² entries and a
fixed part (building the kernel, the proposal, the task) that the rows do not change. Measured
on this repository's loaded two-core machine: the exact engine's likelihood alone took 0.1 ms
at 40 points, 23 ms at 640 and 133 ms at 1,280 (between n² and n³ at a thousand points); on
airline (16 particles, 5 + 10 moves) every data step of 10 to 144 points took 0.2-0.5 s, about
0.8 ms a likelihood whatever the rows, which is the n² part at 640 rows scaled by 0.8 / 23:
(0.8 / 23)^½ × 640 ≈ 120 rows. Step 0 (drawing the particles and scoring them on the first
rows) is one likelihood on n_0 rows. With the steps so far, whose
(structure, parameter) moves were (s_j, p_j), the seconds per unit of cost are

    r = elapsed / (c(n_0) + Σ_{j<k} (s_j + p_j + 1) c(n_j)),

and the remaining steps, each with s + p moves, are projected to take
r (s + p + 1) Σ_{j≥k} c(n_j). Step k takes the settings' moves (S, P) when that fits the time
left, budget − elapsed; otherwise both are scaled by the one factor f that fits it,
s = max(1, ⌊f S⌋) and p = max(1, ⌊f P⌋) (never below one move each; a setting of 0 stays 0).
Each step's choice is made afresh from all the time spent so far, so an estimate that was
wrong at one step is corrected at the next; when even one move each does not fit, the run goes
on with one move each and ends after the budget (``overrun``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: The power of the rows in a likelihood's cost, and the rows whose cost equals its fixed part
#: (see the module docstring).
COST_POWER = 2.0
FIXED_ROWS = 120

#: A data step's (structure moves, parameter moves) per particle.
Moves = tuple[int, int]


def cost(rows: int) -> float:
    """c(n) = n^COST_POWER + FIXED_ROWS^COST_POWER: the cost of one likelihood on ``rows`` rows,
    in the model's units."""
    return float(rows) ** COST_POWER + float(FIXED_ROWS) ** COST_POWER


def scaled(asked: int, factor: float) -> int:
    """``asked`` moves scaled by ``factor`` ≤ 1, rounded down, never below 1 (0 stays 0)."""
    if asked == 0:
        return 0
    return min(asked, max(1, math.floor(factor * asked)))


@dataclass(frozen=True)
class MovePlanner:
    """Decides each data step's moves: ``asked`` (the settings' (S, P)) on data steps of
    ``sizes`` rows (one per data step with moves), within ``budget`` seconds (None: no
    limit), or the ``given`` plan's."""

    asked: Moves
    sizes: tuple[int, ...]
    budget: float | None = None
    given: tuple[Moves, ...] | None = None

    def __post_init__(self) -> None:
        if self.given is not None and len(self.given) != len(self.sizes):
            raise ValueError(
                f"the moves plan has {len(self.given)} data steps; this run has"
                f" {len(self.sizes)} (data steps merge when the series has few points)"
            )

    def moves(self, done: Sequence[Moves], elapsed: float) -> Moves:
        """The moves of the next data step, after the data steps whose moves were ``done``
        and ``elapsed`` seconds in all (see the module docstring)."""
        k = len(done)
        if self.given is not None:
            return self.given[k]
        if self.budget is None:
            return self.asked
        spent = cost(self.sizes[0]) + sum(
            (s + p + 1) * cost(n) for (s, p), n in zip(done, self.sizes, strict=False)
        )
        rate = max(elapsed, 0.0) / spent
        ahead = sum(cost(n) for n in self.sizes[k:])
        left = self.budget - elapsed
        structure, parameter = self.asked
        if rate * (structure + parameter + 1) * ahead <= left:
            return self.asked
        most = left / (rate * ahead) if rate > 0 else math.inf  # moves per step that fit, + 1
        factor = max(0.0, (most - 1.0) / max(structure + parameter, 1))
        return scaled(structure, factor), scaled(parameter, factor)


def plan_text(plan: Sequence[Sequence[int]]) -> str:
    """A plan as ``--moves-plan`` takes it: "S:P, S:P, ..." (structure:parameter moves)."""
    return ", ".join(f"{s}:{p}" for s, p in plan)


def fewer(asked: Moves, plan: Sequence[Moves]) -> bool:
    """Whether ``plan`` has a data step with fewer moves of either kind than ``asked``."""
    return any(s < asked[0] or p < asked[1] for s, p in plan)


def overrun(budget: float | None, seconds: float) -> bool:
    """Whether a run of ``seconds`` ended after its ``budget``."""
    return budget is not None and seconds > budget
