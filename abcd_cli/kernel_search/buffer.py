"""Which models of a level are expanded at the next: the SKC paper's buffer (Kim & Teh,
Algorithm 1), on BIC intervals [low, high] (lower is better).

The best model is the one with the lowest upper end. Kept: the first ``beam`` by upper end (the
search's beam), then every other model whose interval overlaps the best one's (low < best's
high: the data cannot yet tell them apart), in order of upper end, at most ``size`` models in
all (never fewer than the beam). The rest are pruned. With the exact engine every interval has
zero width, so nothing but the beam is kept and the search is the beam search it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class Interval(Protocol):
    @property
    def low(self) -> float: ...

    @property
    def bic(self) -> float: ...  # the interval's upper end, by which models are ranked


@dataclass(frozen=True)
class Kept:
    models: list[Any]  # the kept models, in the order given (best first)
    pruned: int  # models not kept

    def __len__(self) -> int:
        return len(self.models)


def keep(ranked: Sequence[Interval], beam: int, size: int) -> Kept:
    """The models of ``ranked`` (sorted by upper end, best first) expanded next; see the
    module docstring."""
    if not ranked:
        return Kept([], 0)
    best_high = ranked[0].bic
    limit = max(beam, size)
    models = [c for i, c in enumerate(ranked) if i < beam or c.low < best_high][:limit]
    return Kept(models, len(ranked) - len(models))
