"""A fine grid over a series' last few cycles, for the figures of a curve too dense to read
over the whole span: the components' grid (``components.GRID_SIZE`` points over the span)
holds a weekly cycle of 14 years at about two points per period, which draws aliased
zigzags, not the cycle. The window is ``WINDOW_CYCLES`` whole periods of the series' shortest
cycle ending at the data's last x (so its periods are aligned on the data's end), at
``POINTS_PER_PERIOD`` points per period; each component's and each sum-so-far's posterior
mean and sd are computed on it. A cycle drawn on its own (its smooth shape apart from its
rough terms) gets a window of the same rule over its own period (``cycle_window``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from abcd_cli.kernels import Kernel, total
from abcd_cli.model import Model

#: Whole periods of the shortest cycle the window shows.
WINDOW_CYCLES = 4
#: Grid points per period in the window.
POINTS_PER_PERIOD = 40
#: The window is computed only when the data hold at least this many of the shortest cycle
#: (fewer read on the whole span's grid).
MIN_CYCLES = 20


@dataclass(frozen=True)
class Window:
    """Curves over the window (y's units): each component's mean and sd in report order, and
    the sum of the first k components with the level (``cumulative_mean[k - 1]``)."""

    x: np.ndarray
    period: float  # the shortest cycle's period, in x's units
    mean: list[np.ndarray]
    sd: list[np.ndarray]
    cumulative_mean: list[np.ndarray]
    cumulative_sd: list[np.ndarray]


def periods_of(terms: Sequence[Kernel]) -> list[float]:
    """The period of every periodic factor of ``terms`` (in the kernels' units)."""
    return [
        float(b.param("period"))
        for t in terms
        for b in t.bases()
        if getattr(b, "role", "") == "periodic"
    ]


def shortest_period(terms: Sequence[Kernel]) -> float | None:
    """The shortest period of any periodic factor of ``terms`` (internal units); None when
    none is periodic."""
    periods = periods_of(terms)
    return min(periods) if periods else None


def window_grid(model: Model, period: float | None) -> np.ndarray | None:
    """The window's grid (a column, internal units): ``WINDOW_CYCLES`` whole periods ending at
    the data's last x, ``POINTS_PER_PERIOD`` points per period; None without a period or when
    the data hold fewer than ``MIN_CYCLES`` of it."""
    x = model.scaling.x_in(model.X)[:, 0]
    if period is None or period <= 0 or float(np.ptp(x)) < MIN_CYCLES * period:
        return None
    end = float(x.max())
    grid = np.linspace(end - WINDOW_CYCLES * period, end, WINDOW_CYCLES * POINTS_PER_PERIOD + 1)
    return grid[:, None]


def cycle_window(model: Model, term: Kernel) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """One cycle's curve on the window of its own shortest period (``window_grid``), as (x,
    mean, sd) in the user's units: what a cycle drawn apart from the other components (its
    smooth shape, ``rough.py``) shows over its last few periods; None as ``window_grid``."""
    G = window_grid(model, shortest_period([term]))
    if G is None:
        return None
    sc = model.scaling
    mean, var = model.posterior.component(term, G)
    return sc.x_out(G)[:, 0], sc.y_scale * mean, sc.y_scale * np.sqrt(var)


def series_window(model: Model, terms: list[Kernel]) -> Window | None:
    """The window of a series' components ``terms`` (internal units, report order); None when
    no term is periodic or the data hold fewer than ``MIN_CYCLES`` of the shortest cycle."""
    period = shortest_period(terms)
    sc, post = model.scaling, model.posterior
    G = window_grid(model, period)
    if G is None:
        return None
    means, sds, cumulative_means, cumulative_sds = [], [], [], []
    for k, term in enumerate(terms):
        mean, var = post.component(term, G)
        means.append(sc.y_scale * mean)
        sds.append(sc.y_scale * np.sqrt(var))
        mean, var = post.component(total(terms[: k + 1]), G)
        cumulative_means.append(sc.y_out(mean + post.level))
        cumulative_sds.append(sc.y_scale * np.sqrt(var))
    x_user = sc.x_out(G)[:, 0]
    return Window(
        x_user,
        float(x_user[-1] - x_user[0]) / WINDOW_CYCLES,
        means,
        sds,
        cumulative_means,
        cumulative_sds,
    )
