"""The data one search works on: the series in internal units, the subsets its stages fit on,
the summaries that start and bound their parameters, the fit task of a candidate on each, and
the weighing of a pool of structures on all the data.

Long series: above ``subset_size`` points, candidates are optimised on a subset (evenly spread
pairs of neighbouring points, ``subset``) and the best refined on all the data, or on a larger
subset of ``settings.refine_points(N)`` points when that is below N (``refine_on_subset``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np

from abcd_cli.arrays import as_2d
from abcd_cli.data.inputs import periodic_inputs
from abcd_cli.data.scaling import Scaling
from abcd_cli.data.summary import InputSummaries
from abcd_cli.engines.base import Engine, NLLBounds
from abcd_cli.kernel_search.candidate import FitTask, entropy
from abcd_cli.kernel_search.fit import DEFAULT_ENGINE
from abcd_cli.kernel_search.posterior import StructurePosterior, Weighed
from abcd_cli.kernel_search.scoring import Scored, Scorer
from abcd_cli.kernel_search.settings import SearchSettings, prior_mean_units
from abcd_cli.kernel_search.weighing import weigh_pool
from abcd_cli.kernels import Kernel
from abcd_cli.model import Model


def subset_rows(n: int, size: int) -> np.ndarray:
    """Indices of ``size`` points of the (sorted) series: ``size // 2`` evenly spread pairs of
    neighbours. The pairs keep the shortest lag in view (a thinned series would hide structure
    on the scale of a few samples, such as day-to-day weather in a daily series); their spread
    keeps the whole range."""
    if n <= size:
        return np.arange(n)
    starts = np.round(np.linspace(0, n - 2, size // 2)).astype(int)
    return np.unique(np.concatenate([starts, starts + 1]))


@dataclass(eq=False)
class SearchData:
    """One series as the search sees it. ``x``, ``y``: as given (user units); ``X`` (N, D),
    ``Y``: in the internal units of ``scaling``; ``X_fit``/``Y_fit``: the screening subset
    (all the data when ``subset`` is None); ``X_refine``/``Y_refine``: the refinement's data;
    ``periodic``: the inputs periodic kernels may act on; ``x_names`` name the inputs in the
    kernels' text."""

    x: np.ndarray
    y: np.ndarray
    x_names: tuple[str, ...]
    scaling: Scaling
    constant_mean: bool
    X: np.ndarray
    Y: np.ndarray
    subset: np.ndarray | None
    X_fit: np.ndarray
    Y_fit: np.ndarray
    refine_on_subset: bool
    X_refine: np.ndarray
    Y_refine: np.ndarray
    full_summary: InputSummaries
    fit_summary: InputSummaries
    periodic: tuple[int, ...]

    @classmethod
    def prepare(
        cls, x: np.ndarray, y: np.ndarray, settings: SearchSettings, x_names: Sequence[str] = ()
    ) -> SearchData:
        """The internal units for ``settings.prior_mean``, the subsets and the summaries."""
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        scaling, constant_mean = prior_mean_units(x, y, settings.prior_mean)
        X = as_2d(scaling.x_in(x))  # (N, D): one column per input
        Y = scaling.y_in(y)
        n = Y.size
        idx = subset_rows(n, settings.subset_size)
        subset = idx if idx.size < n else None
        rows = subset_rows(n, settings.refine_points(n))
        refine_on_subset = subset is not None and settings.subset_size < rows.size < n
        full_summary = InputSummaries.from_data(X, Y)
        # The subset's own spectrum is aliased by its uneven spacing (pairs of neighbours):
        # its starting periods are the full series' periodogram peaks.
        fit_summary = (
            full_summary
            if subset is None
            else InputSummaries.from_data(X[idx], Y[idx]).with_periods_of(full_summary)
        )
        return cls(
            x=x,
            y=y,
            x_names=tuple(x_names),
            scaling=scaling,
            constant_mean=constant_mean,
            X=X,
            Y=Y,
            subset=subset,
            X_fit=X[idx],
            Y_fit=Y[idx],
            refine_on_subset=refine_on_subset,
            X_refine=X[rows] if refine_on_subset else X,
            Y_refine=Y[rows] if refine_on_subset else Y,
            full_summary=full_summary,
            fit_summary=fit_summary,
            periodic=periodic_inputs(X),
        )

    @property
    def n(self) -> int:
        return int(self.Y.size)

    @property
    def n_dims(self) -> int:
        return int(self.X.shape[1])

    @property
    def scorer(self) -> Scorer:
        """Internal-unit NLLs on n points into user-unit NLLs and BICs."""
        return Scorer(self.scaling, self.constant_mean)

    def task(
        self,
        kernel: Kernel,
        on: str,
        settings: SearchSettings,
        engine: Engine,
        restarts: int,
        max_iter: int,
        others: tuple[Kernel, ...] = (),
    ) -> FitTask:
        """The task fitting ``kernel`` ``on`` "all" the data or the "refine" data (with the
        search's ``engine``), or the screening "subset" (with the exact engine)."""
        X, y = {
            "all": (self.X, self.Y),
            "refine": (self.X_refine, self.Y_refine),
            "subset": (self.X_fit, self.Y_fit),
        }[on]
        return FitTask(
            kernel,
            X,
            y,
            self.fit_summary if on == "subset" else self.full_summary,
            self.full_summary,
            restarts,
            settings.polish,
            max_iter,
            entropy(settings.seed, kernel),
            others,
            self.constant_mean,
            DEFAULT_ENGINE if on == "subset" else engine,
        )

    def weigh(
        self,
        pool: list[Scored],
        settings: SearchSettings,
        engine: Engine,
        executor: Executor,
        done: dict[str, Weighed] | None = None,
        on_weighed: Callable[[str, Weighed, int, int], None] | None = None,
    ) -> StructurePosterior:
        """The posterior over ``pool`` weighed on all the data (``weighing.weigh_pool`` with
        the settings' seed and draws; ``done`` and ``on_weighed`` as there)."""
        return weigh_pool(
            pool,
            self.X,
            self.Y,
            self.full_summary,
            self.scorer,
            settings.seed,
            settings.draws,
            engine,
            executor,
            done,
            on_weighed,
        )

    def model(self, scored: Scored, engine: Engine) -> Model:
        """The model of a structure fitted on all the data (its NLL interval from its BIC
        interval: BIC = 2·NLL + p·log n, so the NLL's lower end is NLL − width/2)."""
        return Model(
            scored.kernel,
            self.scaling,
            self.x,
            self.y,
            scored.nll,
            self.constant_mean,
            engine,
            nll_bounds=NLLBounds(scored.nll - scored.width / 2.0, scored.nll),
            x_names=self.x_names,
        )

    def text(self, kernel: Kernel, params: bool = True, digits: int | None = None) -> str:
        """The kernel as text, its inputs named by their columns, in the units it is in: the
        search's kernels are in internal units (``user_text`` writes them in the user's)."""
        return kernel.to_text(params, digits, names=self.x_names)

    def user_text(self, kernel: Kernel) -> str:
        """An internal-unit kernel as text in the user's units, every digit kept (``repr``):
        ``scaling.kernel_in(parse_kernel(text, x_names))`` is the kernel again."""
        return self.text(self.scaling.kernel_out(kernel))
