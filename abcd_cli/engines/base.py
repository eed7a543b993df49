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
* ``settings`` and ``state``/``with_state``: what a model file records to rebuild the same
  engine and posterior (``EngineState``: what the engine carries from one fit to the next,
  skc's inducing inputs; an engine without state keeps the defaults).

What an engine can do is declared on its class (``capabilities``, a :class:`Capabilities`) and
read by the search, the model and the decomposition; they never test an engine's name. Engines
are chosen by name in one place, the registry (``abcd_cli.engines``).

A failed evaluation is a value (``FAILED_NLL``, zero gradient), never an exception.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import numpy as np

from abcd_cli.kernels import Kernel

if TYPE_CHECKING:
    from abcd_cli.data.scaling import Scaling

#: log 2π, the Gaussian density's constant.
LOG_2PI = math.log(2.0 * math.pi)
#: The objective's value when the covariance cannot be factorised or the numbers break.
FAILED_NLL = 1e20
#: The step in theta of the central differences that stand in for the gradient of an engine
#: without one (``Engine.objective``): about the cube root of the float64 epsilon.
DIFFERENCE_STEP = 1e-5


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


@dataclass(frozen=True)
class Capabilities:
    """What an engine can do, declared on its class and read by those who use it.

    * ``exact_likelihood``: its objective and score are −log p(y) itself (zero-width
      intervals); otherwise its scores are intervals (skc's upper end by preconditioned
      conjugate gradients): the search records their products (``NLLBounds.products``) and a
      note gives the chosen model's width;
    * ``gradients``: ``objective`` gives the analytic gradient; otherwise the base class's
      ``objective`` differences ``objective_value`` (2p + 1 values per gradient);
    * ``finalist_intervals``: ``likelihood_interval`` narrows a finalist's interval at extra
      cost: the search narrows those the buffer would keep before it chooses
      (``kernel_search.finalists``);
    * ``long_series``: built for long series: the search refines in two phases and adds
      harmonic starts, rules measured on long series with such an engine only
      (``kernel_search.stages``);
    * ``dense_posterior``: its posterior's moments cost O(N²) per new input (one Cholesky of
      all the points), so a long series' components are drawn on the default grid, not on one
      as fine as the data (``decompose.components``).
    """

    exact_likelihood: bool = True
    gradients: bool = True
    finalist_intervals: bool = False
    long_series: bool = False
    dense_posterior: bool = True


class EngineState(ABC):
    """What an engine carries from one fit to the next, made and read by that engine only:
    skc's inducing inputs (a CG warm start or Lanczos vectors would be others). Held in the
    user's units, so that a model file writes back what it read to the last bit."""

    @abstractmethod
    def record(self) -> dict[str, Any]:
        """Its entries in the model file's engine record (JSON values)."""


class LevelFit(Protocol):
    """A constant mean's generalised least-squares fit: its estimate β̂ and a = 1ᵀM⁻¹1."""

    @property
    def beta(self) -> float: ...

    @property
    def a(self) -> float: ...


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
    #: The constant mean's estimate (None without one): β̂ (``beta``) and a = 1ᵀM⁻¹1 (``a``),
    #: M the data's covariance or its engine's approximation; β ~ N(β̂, 1/a) (R&W eq. 2.42).
    _level: LevelFit | None

    @property
    def level(self) -> float:
        """β̂, 0 without a constant mean."""
        return 0.0 if self._level is None else self._level.beta

    @property
    def level_sd(self) -> float:
        """β's posterior sd 1/√a, 0 without a constant mean."""
        return 0.0 if self._level is None else 1.0 / math.sqrt(self._level.a)

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
    A new engine is one module with a subclass (its ``name``, ``capabilities``, the abstract
    methods) and one entry in the registry (``abcd_cli.engines``).
    """

    name: ClassVar[str]
    #: What it can do (see :class:`Capabilities`).
    capabilities: ClassVar[Capabilities] = Capabilities()
    #: The specs (``abcd_cli.schema``) of its settings in a model file's engine record.
    record_fields: ClassVar[Mapping[str, Any]] = {}
    #: The record's entries that hold its state (``EngineState.record``), not settings.
    state_keys: ClassVar[tuple[str, ...]] = ()
    #: Those of them that hold inputs (rows of the data's width, in the user's units): a model
    #: file checks them as it checks the data.
    state_inputs: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def for_series(cls, n: int, inducing: int | None, seed: int) -> Engine:
        """The engine a search of ``n`` points uses, told ``inducing`` (``--inducing``; None:
        the engine's choice) and ``seed``; an engine that takes neither ignores them."""
        return cls()

    @property
    def inducing_count(self) -> int | None:
        """The number of inducing inputs it conditions through (None: it has none)."""
        return None

    def objective(
        self,
        theta: np.ndarray,
        kernel: Kernel,
        X: np.ndarray,
        y: np.ndarray,
        constant_mean: bool = False,
    ) -> tuple[float, np.ndarray]:
        """The value to minimise at ``kernel.with_theta(theta)`` and its gradient in theta.
        An engine that declares ``capabilities.gradients`` gives its own; for one that does
        not, this default takes central differences of ``objective_value``,
        ∂f/∂θ_j ≈ (f(θ + h·e_j) − f(θ − h·e_j)) / 2h with h = ``DIFFERENCE_STEP``."""
        if self.capabilities.gradients:
            raise NotImplementedError(f"the {self.name} engine declares gradients but gives none")
        theta = np.asarray(theta, dtype=float)
        value = self.objective_value(kernel.with_theta(theta), X, y, constant_mean)
        grad = np.zeros_like(theta)
        if not value < FAILED_NLL:
            return FAILED_NLL, grad
        for j in range(theta.size):
            step = np.zeros_like(theta)
            step[j] = DIFFERENCE_STEP
            up = self.objective_value(kernel.with_theta(theta + step), X, y, constant_mean)
            down = self.objective_value(kernel.with_theta(theta - step), X, y, constant_mean)
            if not (up < FAILED_NLL and down < FAILED_NLL):
                return FAILED_NLL, np.zeros_like(theta)
            grad[j] = (up - down) / (2.0 * DIFFERENCE_STEP)
        return value, grad

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

    def polishing_engine(self) -> Engine | None:
        """The engine whose objective polishes the search's chosen model on all the data
        (``kernel_search.final_polish``), None when it has none (its objective is the
        search's own, or no tighter one is known)."""
        return None

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

    def state(self, x: np.ndarray, scaling: Scaling) -> EngineState | None:
        """What a fit on the user's inputs ``x`` leaves for the next one (None: nothing)."""
        return None

    def with_state(self, state: EngineState | None, scaling: Scaling) -> Engine:
        """The same engine carrying ``state`` (one of its own, from ``state`` or
        ``read_state``): what a saved model restores. ValueError when it cannot."""
        if state is not None:
            raise ValueError(f"the {self.name} engine carries no state")
        return self

    @classmethod
    def read_state(cls, record: Mapping[str, Any], n_dims: int) -> EngineState | None:
        """Its state from a model file's engine record (inputs of ``n_dims`` columns), None
        when the record holds none; ValueError (what is wrong) when it is not one."""
        return None
