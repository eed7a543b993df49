"""Scores for model selection, in the user's units: BIC = 2·NLL + p·log n, and the BIC
interval [2·low + p·log n, 2·high + p·log n] that an engine's bounds on the NLL give."""

from __future__ import annotations

from dataclasses import dataclass

from abcd_cli.data.scaling import Scaling
from abcd_cli.engines.base import NLLBounds
from abcd_cli.kernel_search.candidate import Candidate
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.algebra import count_params
from abcd_cli.model import bic


@dataclass
class Scored:
    kernel: Kernel  # internal units, fitted on all the data
    nll: float  # user units, all the data: the upper end of the engine's bounds
    bic: float  # the upper end of the BIC interval, by which models are ranked
    bic_low: float | None = None  # its lower end; None: no width (the exact engine)

    @property
    def low(self) -> float:
        """The BIC interval's lower end (``bic`` when it has no width)."""
        return self.bic if self.bic_low is None else self.bic_low

    @property
    def width(self) -> float:
        return self.bic - self.low


@dataclass(frozen=True)
class Scorer:
    """Turns internal-unit NLLs on n points into user-unit NLLs and BICs."""

    scaling: Scaling
    constant_mean: bool

    def user_nll(self, nll_internal: float, n: int) -> float:
        # an integrated-out level leaves a density over n - 1 dimensions
        return self.scaling.nll_out(nll_internal, n - self.constant_mean)

    def bic(self, kernel: Kernel, nll_internal: float, n: int) -> float:
        return bic(self.user_nll(nll_internal, n), count_params(kernel), n)

    def bic_interval(self, kernel: Kernel, bounds: NLLBounds, n: int) -> tuple[float, float]:
        """The BIC's bounds given the engine's bounds on the internal-unit NLL."""
        return self.bic(kernel, bounds.low, n), self.bic(kernel, bounds.high, n)

    def scored(
        self, kernel: Kernel, nll_internal: float, n: int, bounds: NLLBounds | None = None
    ) -> Scored:
        """``nll_internal`` is the upper end of ``bounds`` when they are given; an interval
        of zero width keeps no lower end."""
        nll = self.user_nll(nll_internal, n)
        low = None
        if bounds is not None and bounds.width > 0:
            low = self.bic(kernel, bounds.low, n)
        return Scored(kernel, nll, bic(nll, count_params(kernel), n), low)


def best_per_family(
    scorer: Scorer, results: dict[int, Candidate], family_of: list[int], count: int, n: int
) -> list[int]:
    """Positions of each family's best ``count`` fitted results, by BIC on ``n`` points."""
    ok = sorted(
        (j for j, r in results.items() if r.status == "ok"),
        key=lambda j: scorer.bic(results[j].kernel, results[j].nll, n),
    )
    chosen: list[int] = []
    for family in sorted(set(family_of)):
        chosen += [j for j in ok if family_of[j] == family][:count]
    return chosen
