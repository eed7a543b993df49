"""Plain records passed from the computation (decompose) to the presentation (describe, report).

These are the contract between the layers; they compute nothing about the model (a
component's order of interaction is read off its kernel). All numbers are in the
user's units: x as in the data (decimal years when ``Axis.kind`` is "date" or "year"), y in the
data's units.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from abcd_cli.data.time_units import unit_of_name
from abcd_cli.decompose.input_terms import term_order
from abcd_cli.kernels import Kernel


@dataclass(frozen=True)
class Axis:
    """What x and y are, for wording: ``kind`` is "date", "year" (decimal years) or "number"."""

    kind: str
    x_name: str
    y_name: str

    @property
    def is_time(self) -> bool:
        """Whether x is a calendar axis (decimal years), whose positions are dates."""
        return self.kind in ("date", "year")

    @property
    def unit(self) -> str | None:
        """The unit of time x counts: "year" on a calendar axis, else the one the column's name
        gives (``t_s``: "second", ``hours``: "hour"; :func:`unit_of_name`), else None."""
        return "year" if self.is_time else unit_of_name(self.x_name)


def _empty() -> np.ndarray:
    return np.zeros(0)


@dataclass(frozen=True)
class Surface:
    """A component of two inputs a, b: ``mean[j, i]`` at (``grid_a[i]``, ``grid_b[j]``)."""

    grid_a: np.ndarray
    grid_b: np.ndarray
    mean: np.ndarray


#: See :attr:`ComponentFacts.helps_jointly`: the rise of the whole model's CV MAE, as a
#: share of it, past which leaving a component out counts as a loss of prediction.
JOINT_GAIN = 0.02


@dataclass(frozen=True)
class ComponentFacts:
    """One additive component of the chosen model, after ordering.

    ``kernel`` is a product of base kernels (WN, C, SE, RQ, Per, Cos, Lin) and change factors
    (Before, After, Inside, Outside) in the user's units: one term of the sum-of-products form,
    reading the inputs ``dims``. Statistics follow thesis §4.1: R² of the data explained by the
    components up to and including this one (``cum_r2``), its gain (``delta_r2``), the share of
    the variance left by the earlier components that this one explains (``residual_r2``), and
    10-fold cross-validated mean absolute errors before and after adding it. ``x_grid``,
    ``mean`` and ``sd`` are its curve along the input it is drawn against (empty when it is
    not drawn along one); ``partial`` its partial residuals at the data, ``surface`` its mean
    over two inputs, ``share`` its share of the fitted mean's variance (None for noise).
    """

    index: int  # 1-based position in the report's order
    kernel: Kernel
    x_grid: np.ndarray  # the input's range, plus the extrapolation when it is time
    mean: np.ndarray  # posterior mean of the component on x_grid
    sd: np.ndarray  # posterior standard deviation on x_grid
    data_mean: np.ndarray  # posterior mean at the data's x
    cum_r2: float
    delta_r2: float
    residual_r2: float
    cv_mae_before: float
    cv_mae: float
    is_noise: bool  # a white-noise term (uncorrelated noise, possibly heteroscedastic)
    dims: tuple[int, ...] = ()  # the inputs it reads
    partial: np.ndarray = field(default_factory=_empty, repr=False)  # y's units, at the data
    surface: Surface | None = None  # with two inputs read, its mean over both
    share: float | None = None  # of the fitted mean's variance; None for noise
    #: a cycle with rough terms (``rough.py``): its smooth shape on x_grid (mean, sd; empty
    #: without one) and the sd of its rough part's mean at the data (None without one)
    shape_mean: np.ndarray = field(default_factory=_empty, repr=False)
    shape_sd: np.ndarray = field(default_factory=_empty, repr=False)
    rough_sd: float | None = None
    #: that shape over its last few periods on a fine grid (x, mean, sd: ``window.cycle_window``)
    shape_window: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    #: the cross-validated MAE of the whole model, and of the whole model without this
    #: component (None: not measured)
    cv_mae_whole: float | None = None
    cv_mae_without: float | None = None

    @property
    def cycle_mean(self) -> np.ndarray:
        """The curve a cycle's words and figure read: its smooth shape when it has rough
        terms, else its whole mean."""
        return self.shape_mean if self.shape_mean.size else self.mean

    @property
    def order(self) -> int:
        """Its order of interaction (a whole order of an additive kernel reads every input)."""
        return term_order(self.kernel)

    @property
    def mae_reduction(self) -> float:
        """Fractional reduction of the cross-validated MAE brought by this component."""
        if self.cv_mae_before <= 0:
            return 0.0
        return (self.cv_mae_before - self.cv_mae) / self.cv_mae_before

    @property
    def improves_cv(self) -> bool:
        return self.mae_reduction > 0.001

    @property
    def helps_jointly(self) -> bool:
        """It does not lower the CV MAE where it is added, yet the whole model's CV MAE rises
        by more than ``JOINT_GAIN`` without it: it predicts together with later components."""
        if self.improves_cv or self.cv_mae_whole is None or self.cv_mae_without is None:
            return False
        return self.cv_mae_without > (1.0 + JOINT_GAIN) * self.cv_mae_whole


@dataclass(frozen=True)
class ModelCheck:
    """One posterior predictive check of the residuals: the statistic's curve over
    ``lag_or_freq`` (lags, frequencies, or normal quantiles) and the central 95% of its
    simulations (for "quantile-quantile" the curve is the gap, the residuals' quantiles minus
    the normal ones)."""

    name: str  # "autocorrelation", "periodogram", "quantile-quantile"
    statistic: str  # what was compared, in words
    p_value: float
    observed: np.ndarray = field(default_factory=lambda: np.zeros(0))
    simulated_low: np.ndarray = field(default_factory=lambda: np.zeros(0))
    simulated_high: np.ndarray = field(default_factory=lambda: np.zeros(0))
    lag_or_freq: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @property
    def significant(self) -> bool:
        return self.p_value < 0.05
