"""skc's inducing inputs: how many by default, and the state that carries them from a search's
fit to a saved model's conditioning.

The default number when ``--inducing`` is not given (``default_inducing``):

    m(N) = min(N, M_MAX, max(M_MIN, ⌊√(NM2_BUDGET / N)⌋ rounded down to a multiple of 10)),

that is every point up to 500, then 500 up to N = 64,000, then as many as keep N·m² at
``NM2_BUDGET`` (400 at 10⁵), never fewer than 200. The paper used 40-80 on small data and
160-640 at 10⁴-4·10⁴ points; the bounds collapse below the kernel's effective rank
(``/work/shared/SCALING.md``: −21 nats at m = 100, −0.26 at m = 200 on 1,000 hourly points), so
m errs on the large side where it is cheap. At 10⁵ hourly points m = 200 left the daily cycle's
model (Per × SE, slowly modulated over eleven years) an interval 795 BIC wide, and the weekly
cycle was not found (``benchmarks/long_series/outputs/long_series_notes.md``).

The state (``InducingState``) holds the inducing inputs in the user's units, as the data's own
x values when the engine drew them, so that a model file written, read and written again keeps
them to the last bit:

    "engine": {"name": "skc", "m": 200, ..., "inducing_x": [x_1, ..., x_m]}
              (one list per row with several inputs)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from abcd_cli.engines.base import EngineState

#: The default m's limits and its budget of N·m² (see the module docstring).
M_MIN = 200
M_MAX = 500
NM2_BUDGET = 1.6e10
#: The record's entry holding the inducing inputs.
INDUCING_X = "inducing_x"


def default_inducing(n: int) -> int:
    """The number of inducing inputs for ``n`` points when none is asked for."""
    budget = int(math.sqrt(NM2_BUDGET / max(n, 1))) // 10 * 10
    return int(min(n, M_MAX, max(M_MIN, budget)))


@dataclass(frozen=True, eq=False)
class InducingState(EngineState):
    """The inducing inputs a fit conditioned through, in the user's units: (m,) with one
    input, (m, D) with D."""

    inducing_x: np.ndarray

    def record(self) -> dict[str, Any]:
        return {INDUCING_X: np.asarray(self.inducing_x).tolist()}

    @classmethod
    def read(cls, record: Mapping[str, Any], n_dims: int) -> InducingState | None:
        """The state in a record's ``inducing_x`` (None without one); ValueError when it is not
        rows of ``n_dims`` finite numbers."""
        if INDUCING_X not in record:
            return None
        try:
            z = np.asarray(record[INDUCING_X], dtype=float)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"{INDUCING_X} must be numbers") from None
        one = n_dims == 1
        if z.ndim != (1 if one else 2) or z.shape[0] < 1 or (not one and z.shape[1] != n_dims):
            raise ValueError(f"{INDUCING_X} must hold rows of {n_dims} input(s)")
        if not np.all(np.isfinite(z)):
            raise ValueError(f"{INDUCING_X} must be finite numbers")
        return cls(z)
