"""The engine interface: what the search, the decomposition and prediction ask of a GP engine.

An engine answers, for a kernel and data (X, y), with y ~ N(0, K) or, with ``constant_mean``,
y ~ N(β·1, K) and a flat prior on β integrated out:

* ``objective(theta, kernel, X, y, constant_mean)``: the value L-BFGS-B minimises and its
  gradient in theta (exact: −log p(y); a sparse engine: minus its variational lower bound);
* ``objective_value``: the same value alone (cheaper: ranks starting points);
* ``score``: bounds on −log p(y), from which a BIC interval follows,
  [2·low + p·log n, 2·high + p·log n] (exact: zero width);
* ``posterior``: the model conditioned on the data, a :class:`Posterior`;
* ``cost`` and ``check_size``: its own estimate of memory and time, and the refusal of a
  series too long for it;
* ``settings``, ``inducing`` and ``with_inducing_inputs``: what a model file records to rebuild
  the same engine and posterior (an engine without inducing inputs keeps the defaults).

A failed evaluation is a value (``FAILED_NLL``, zero gradient), never an exception.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from abcd_cli.kernels import Kernel

#: log 2π, the Gaussian density's constant.
LOG_2PI = math.log(2.0 * math.pi)
#: The objective's value when the covariance cannot be factorised or the numbers break.
FAILED_NLL = 1e20


class PosteriorError(ArithmeticError):
    """The model cannot be conditioned on these data (its covariance cannot be factorised)."""


@dataclass(frozen=True)
class NLLBounds:
    """low ≤ −log p(y) ≤ high; an exact engine gives low = high. ``products``: the products
    with K + D that the upper bound's PCG took (0 for an exact engine; not compared)."""

    low: float
    high: float
    products: int = field(default=0, compare=False)

    @classmethod
    def exact(cls, nll: float) -> NLLBounds:
        return cls(nll, nll)

    @property
    def width(self) -> float:
        return self.high - self.low


@dataclass(frozen=True)
class Cost:
    """Estimated peak memory (bytes) and time (seconds, one core) of one objective-and-gradient
    evaluation."""

    bytes: float
    seconds: float


class Posterior(ABC):
    """A kernel conditioned on data (X, y): posteriors of the whole model and of additive parts.

    For f = Σ f_i with independent f_i ~ GP(0, k_i) and y = f(X) observed (thesis eq. 2.5-2.7)
    the component means, variances and cross-covariances at new inputs X* (None: at X itself,
    where a white-noise component is not zero). ``level`` is the constant mean's estimate β̂
    (0 without one), ``level_sd`` its posterior sd, ``residual`` = y − β̂ (the data the
    components explain).
    """

    kernel: Kernel
    X: np.ndarray
    residual: np.ndarray

    @property
    @abstractmethod
    def level(self) -> float: ...

    @property
    @abstractmethod
    def level_sd(self) -> float: ...

    @abstractmethod
    def mean(self, part: Kernel, Xs: np.ndarray | None = None) -> np.ndarray:
        """Posterior mean of the additive component with kernel ``part``."""

    def component(
        self, part: Kernel, Xs: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean and pointwise variance of the additive component ``part``: its
        variance given the level plus the level's share c² (``_moments``)."""
        mean, var, c = self._moments(part, Xs)
        return mean, np.maximum(var if c is None else var + c * c, 0.0)

    @abstractmethod
    def _moments(
        self, part: Kernel, Xs: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Mean, variance given the level, and the level coupling c (None without a level) of
        the additive component ``part`` at ``Xs`` (None: at the data)."""

    @abstractmethod
    def covariance(
        self, part: Kernel, other: Kernel | None = None, Xs: np.ndarray | None = None
    ) -> np.ndarray:
        """Posterior covariance matrix of one component (``other`` None) or between two."""

    @abstractmethod
    def predict(self, Xs: np.ndarray, noise: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Mean and variance of y (``noise``) or of the noise-free f at new inputs ``Xs``,
        the level included."""

    @abstractmethod
    def standardised_errors(self) -> np.ndarray:
        """One-step-ahead prediction errors of the residual in x order, each divided by its
        sd: independent N(0, 1) if the model is right (the model checks' input)."""

    @abstractmethod
    def given(self, train: np.ndarray, kernel: Kernel | None = None) -> Posterior:
        """``kernel`` (default: this posterior's own, the same function written otherwise, e.g.
        as the sum of its components) conditioned on the residual at the positions ``train``
        only, with a zero mean (the level stays as estimated on all the data): what
        cross-validation uses. Raises ``PosteriorError`` when that cannot be done."""


class Engine(ABC):
    """Likelihood, score, posterior and cost of one way of computing with a GP.

    Instances are small, immutable and picklable: a search sends one with every candidate.
    """

    name: str
    #: Its scores are intervals (bounds on −log p(y), the upper one by preconditioned conjugate
    #: gradients): the search records the products they took and notes the chosen width.
    interval_scores: ClassVar[bool] = False
    #: Built for long series: the search refines in two phases and adds harmonic starts, two
    #: rules measured on long series with such an engine only (``kernel_search.stages``).
    long_series: ClassVar[bool] = False
    #: Can narrow a finalist's interval at extra cost (``likelihood_interval``): the search
    #: narrows those of the models its buffer would keep before it chooses
    #: (``kernel_search.finalists``).
    finalist_intervals: ClassVar[bool] = False

    @abstractmethod
    def objective(
        self,
        theta: np.ndarray,
        kernel: Kernel,
        X: np.ndarray,
        y: np.ndarray,
        constant_mean: bool = False,
    ) -> tuple[float, np.ndarray]:
        """The value to minimise at ``kernel.with_theta(theta)`` and its gradient in theta."""

    @abstractmethod
    def objective_value(
        self, kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool = False
    ) -> float:
        """``objective``'s value alone, at the kernel's own values."""

    @abstractmethod
    def score(
        self,
        kernel: Kernel,
        X: np.ndarray,
        y: np.ndarray,
        constant_mean: bool = False,
        objective: float | None = None,
    ) -> NLLBounds:
        """Bounds on −log p(y) at the kernel's values. ``objective``: the objective's value
        there when it is already known (the engine need not compute it again)."""

    def likelihood_interval(
        self, kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool = False
    ) -> NLLBounds:
        """Bounds on −log p(y) as narrow as the engine can make them for a finalist (by
        default ``score``'s)."""
        return self.score(kernel, X, y, constant_mean)

    @abstractmethod
    def posterior(
        self, kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool = False
    ) -> Posterior:
        """The kernel conditioned on (X, y); ``PosteriorError`` when that cannot be done."""

    @abstractmethod
    def cost(self, n: int, kernel: Kernel | None = None) -> Cost:
        """Estimated memory and time of one evaluation on ``n`` points (a typical kernel of
        about twelve parameters when ``kernel`` is None)."""

    @abstractmethod
    def check_size(self, n: int, evaluations_per_level: float) -> None:
        """Raise ``InputError`` (one line saying what to do) when ``n`` points are too many;
        ``evaluations_per_level``: full-data evaluations one search level makes."""

    def settings(self) -> dict[str, Any]:
        """The keywords (JSON numbers) that rebuild this engine: ``get_engine(name, **them)``."""
        return {}

    def inducing(self, X: np.ndarray) -> np.ndarray | None:
        """Row indices of X that the posterior on X conditions through; None when it conditions
        on every point exactly or through inducing inputs of its own (``with_inducing_inputs``)."""
        return None

    def fixed_inducing_inputs(self) -> np.ndarray | None:
        """The inducing inputs given with ``with_inducing_inputs`` (None: none were given)."""
        return None

    def with_inducing_inputs(self, Z: np.ndarray) -> Engine:
        """The same engine conditioning through the inducing inputs Z (internal units) instead
        of choosing its own: what a saved model restores. An engine without inducing inputs
        refuses (ValueError)."""
        raise ValueError(f"the {self.name} engine has no inducing inputs")
