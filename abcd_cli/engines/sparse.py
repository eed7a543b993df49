"""The sparse engine "skc": bounds on the marginal likelihood through m inducing inputs
(Kim & Teh, Scalable Kernel Composition, §3; ``/work/shared/SCALING.md``).

* objective: -LB, minus the variational lower bound (Titsias), with its analytic gradient,
  O(N m²) time and O(N m) memory (``sparse_bound``);
* score: NLLBounds(low = -UB, high = -LB), UB the Nyström log-determinant plus the quadratic
  bound from PCG on K + D (``sparse_upper``, O(N²) per product, never an N×N matrix);
  ``cheap_upper_bound`` is the O(N m²) bound with t = tr(K - Q), a pre-filter; a stationary
  kernel on a complete regular grid is scored by its exact value instead, NLLBounds(nll, nll),
  by the Durbin-Levinson recursion in O(N²) time and O(N) memory (``levinson``);
* posterior: the variational predictive (``sparse_posterior``).

The inducing inputs are m of the data's points, one drawn (with ``seed``) from each block of
N/m consecutive points in x order (``nystrom.inducing_indices``): the same for every kernel on
the same data, as a search needs (the bound grows with m, so candidates must share it). The
kernel must contain white noise everywhere (D > 0): without it the bound is -∞ and the
objective is ``FAILED_NLL``. ``inducing_inputs`` fixes them instead (a saved model's, restored
by ``with_state`` from its ``InducingState``, ``engines/inducing.py``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from scipy.linalg import LinAlgError

from abcd_cli.arrays import as_2d
from abcd_cli.data.checks import MAX_MAGNITUDE
from abcd_cli.engines.base import FAILED_NLL, Capabilities, Cost, Engine, EngineState, NLLBounds
from abcd_cli.engines.cglb import CGLBSettings, cglb_and_grad, cglb_value, value_from_solve
from abcd_cli.engines.inducing import INDUCING_X, InducingState, default_inducing
from abcd_cli.engines.levinson import grid_exact_nll
from abcd_cli.engines.nystrom import (
    BLOCK_ELEMENTS,
    KEEP_ELEMENTS,
    SQUARE_BLOCK_ELEMENTS,
    inducing_indices,
)
from abcd_cli.engines.sparse_bound import bound_and_grad, bound_value
from abcd_cli.engines.sparse_interval import (
    FINAL_PRODUCTS,
    MAX_STEPS,
    TARGET_WIDTH,
    likelihood_interval,
)
from abcd_cli.engines.sparse_posterior import SparsePosterior
from abcd_cli.engines.sparse_upper import (
    UpperBound,
    cheap_upper_bound,
    solve_with_nystrom,
    upper_bound,
    upper_from_solve,
)
from abcd_cli.errors import InputError
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.algebra import count_params
from abcd_cli.schema import Choice, Number, Whole

if TYPE_CHECKING:
    from abcd_cli.data.scaling import Scaling

#: Largest memory the engine's score (which keeps the m×N whitened cross-covariance for the
#: preconditioner) may need per worker process.
MAX_SPARSE_BYTES = 4 * 2**30
#: Speed of one lower bound with its gradient on one core, in N·m² per second, and the kernel's
#: share, in N·m·(parameters) per second (measured:
#: ``benchmarks/engines/outputs/sparse_engine.md``).
NM2_PER_SECOND = 2.4e9
NMP_PER_SECOND = 4e7
#: The objectives: the Titsias bound (``sparse_bound``, the default) or CGLB (``cglb``: tighter,
#: but its gradient's reverse pass over K is O(N²), 3-4× the Titsias bound's time at 2,000
#: points; ``benchmarks/engines/outputs/cglb_interval.md``).
BOUNDS = ("titsias", "cglb")
#: A typical kernel's parameter count (as the exact engine's estimate assumes).
TYPICAL_PARAMS = 12


@dataclass(frozen=True)
class SparseEngine(Engine):
    """Variational lower bound, Nyström + PCG upper bound and the SGPR posterior through
    ``m`` inducing inputs drawn with ``seed``.

    ``jitter``: relative jitter on K_zz (times its mean diagonal). It trades the bound's
    tightness against the gradient's rounding: on 1,000 hourly points (SE + SE×Per + WN, m = 100)
    the lower bound loses 0.01, 0.02 and 0.27 nats at 1e-10, 1e-8 and 1e-6, while the gradient's
    relative rounding on a nearly singular K_zz is about 1e-4, 4e-5 and 2e-6
    (benchmarks/engines/outputs/sparse_engine.md). ``pcg_tol``: the certificate, in nats, at
    which PCG stops; ``pcg_max_products``: its budget of products with K + D.
    ``inducing_inputs``: fixed inducing inputs (rows of Z in internal units), used whatever the
    data instead of the drawn ones; not a setting (engines with the same settings compare
    equal)."""

    m: int = 200
    seed: int = 0
    jitter: float = 1e-8
    pcg_tol: float = 0.01
    pcg_max_products: int = 200
    bound: str = "titsias"
    inducing_inputs: np.ndarray | None = field(default=None, compare=False, repr=False)

    name: ClassVar[str] = "skc"
    capabilities: ClassVar[Capabilities] = Capabilities(
        exact_likelihood=False, finalist_intervals=True, long_series=True, dense_posterior=False
    )
    record_fields: ClassVar[Mapping[str, Any]] = {
        "m": Whole(min=1),
        "seed": Whole(min=0),
        "jitter": Number(above=0, below=1),
        "pcg_tol": Number(above=0, magnitude=MAX_MAGNITUDE),
        "pcg_max_products": Whole(min=1),
        "bound": Choice(*BOUNDS),
    }
    state_keys: ClassVar[tuple[str, ...]] = (INDUCING_X,)
    state_inputs: ClassVar[tuple[str, ...]] = (INDUCING_X,)

    def __post_init__(self) -> None:
        if int(self.m) != self.m or self.m < 1:
            raise ValueError(
                f"the number of inducing inputs must be a positive integer, not {self.m}"
            )
        if not (0.0 < self.jitter < 1.0 and self.pcg_tol > 0 and self.pcg_max_products >= 1):
            raise ValueError("jitter in (0, 1), pcg_tol > 0 and pcg_max_products ≥ 1 are required")
        if self.bound not in BOUNDS:
            raise ValueError(f"the sparse bound is one of {', '.join(BOUNDS)}, not {self.bound!r}")
        if self.inducing_inputs is not None:
            Z = as_2d(self.inducing_inputs)
            if Z.shape[0] < 1 or not np.all(np.isfinite(Z)):
                raise ValueError("fixed inducing inputs must be at least one row of finite numbers")
            object.__setattr__(self, "inducing_inputs", Z)

    @classmethod
    def for_series(cls, n: int, inducing: int | None, seed: int) -> SparseEngine:
        """``inducing`` inputs (default: ``default_inducing(n)``), at most n, drawn with
        ``seed``."""
        return cls(m=min(n, inducing or default_inducing(n)), seed=seed)

    @property
    def inducing_count(self) -> int:
        return self.m

    # --- inducing inputs ------------------------------------------------------------------
    def settings(self) -> dict[str, Any]:
        """m, seed, jitter, pcg_tol and pcg_max_products (the fixed inputs are data)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.compare}

    def inducing(self, X: np.ndarray) -> np.ndarray | None:
        """Row indices of X drawn as inducing inputs (``nystrom.inducing_indices``); None when
        the inducing inputs are fixed."""
        if self.inducing_inputs is not None:
            return None
        return inducing_indices(as_2d(X), self.m, self.seed)

    def with_inducing_inputs(self, Z: np.ndarray) -> SparseEngine:
        """The same engine conditioning through Z (internal units) whatever the data."""
        return replace(self, inducing_inputs=np.array(Z, dtype=float))

    def state(self, x: np.ndarray, scaling: Scaling) -> InducingState:
        """The inducing inputs in the user's units: the rows of x it draws (as they are, to
        the last bit), else its fixed inputs scaled back."""
        fixed = self.inducing_inputs
        if fixed is None:
            rows = inducing_indices(as_2d(scaling.x_in(x)), self.m, self.seed)
            return InducingState(np.asarray(x)[rows])
        z = scaling.x_out(fixed if scaling.n_dims > 1 else fixed[:, 0])
        return InducingState(np.asarray(z, dtype=float))

    def with_state(self, state: EngineState | None, scaling: Scaling) -> SparseEngine:
        """Conditioning through the state's inducing inputs (none: its own draw)."""
        if state is None:
            return self
        if not isinstance(state, InducingState):
            raise ValueError(f"the {self.name} engine carries inducing inputs only")
        return self.with_inducing_inputs(scaling.x_in(state.inducing_x))

    @classmethod
    def read_state(cls, record: Mapping[str, Any], n_dims: int) -> InducingState | None:
        return InducingState.read(record, n_dims)

    def _inputs(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        X = as_2d(X)
        if self.inducing_inputs is not None:
            if self.inducing_inputs.shape[1] != X.shape[1]:
                raise ValueError(
                    f"the fixed inducing inputs have {self.inducing_inputs.shape[1]} columns,"
                    f" the data {X.shape[1]}"
                )
            return X, self.inducing_inputs
        return X, X[inducing_indices(X, self.m, self.seed)]

    # --- the objective: -LB -----------------------------------------------------------------
    def objective(
        self,
        theta: np.ndarray,
        kernel: Kernel,
        X: np.ndarray,
        y: np.ndarray,
        constant_mean: bool = False,
    ) -> tuple[float, np.ndarray]:
        """-LB at ``kernel.with_theta(theta)`` and its analytic gradient (``cglb``, or
        ``sparse_bound`` for the Titsias bound)."""
        X, Z = self._inputs(X)
        y = np.asarray(y, dtype=float)
        if self.bound == "cglb":
            return cglb_and_grad(theta, kernel, X, y, Z, constant_mean, self._cglb())
        return bound_and_grad(theta, kernel, X, y, Z, constant_mean, self.jitter)

    def _cglb(self) -> CGLBSettings:
        return CGLBSettings(self.jitter, self.pcg_tol, self.pcg_max_products)

    def polishing_engine(self) -> SparseEngine:
        """This engine with CGLB as its objective: on Seattle's hourly temperatures its polish
        lowered the exact BIC where the Titsias bound's did not
        (benchmarks/studies/outputs/cglb_polish.md, cglb_final.md)."""
        return replace(self, bound="cglb")

    def objective_value(
        self, kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool = False
    ) -> float:
        """-LB alone (no gradient, no reverse-mode caches)."""
        X, Z = self._inputs(X)
        y = np.asarray(y, dtype=float)
        if self.bound == "cglb":
            return cglb_value(kernel, X, y, Z, constant_mean, self._cglb())
        return bound_value(kernel, X, y, Z, constant_mean, self.jitter)

    def lower_bound(
        self, kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool = False
    ) -> float:
        """LB ≤ log p(y) (-``FAILED_NLL`` when it cannot be computed)."""
        return -self.objective_value(kernel, X, y, constant_mean)

    # --- upper bounds -----------------------------------------------------------------------
    def upper_bound(
        self, kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool = False
    ) -> UpperBound:
        """log p(y) ≤ UB: Nyström log-determinant + PCG quadratic, with its certificate."""
        X, Z = self._inputs(X)
        y = np.asarray(y, dtype=float)
        with np.errstate(all="ignore"):
            return upper_bound(
                kernel, X, y, Z, constant_mean, self.jitter, self.pcg_tol, self.pcg_max_products
            )

    def cheap_upper_bound(
        self, kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool = False
    ) -> float:
        """log p(y) ≤ this O(N m²) bound (looser than ``upper_bound``): a pre-filter."""
        X, Z = self._inputs(X)
        with np.errstate(all="ignore"):
            return cheap_upper_bound(
                kernel, X, np.asarray(y, dtype=float), Z, constant_mean, self.jitter
            )

    def score(
        self,
        kernel: Kernel,
        X: np.ndarray,
        y: np.ndarray,
        constant_mean: bool = False,
        objective: float | None = None,
    ) -> NLLBounds:
        """[-UB, -LB] ∋ -log p(y), -LB the tighter of the objective's bound and CGLB through
        the upper bound's own PCG vector (``cglb``; no extra product). ``objective``: the
        objective's value when already known. Falls back to the
        cheap upper bound when PCG breaks; an interval of ``FAILED_NLL`` when the lower bound
        cannot be computed. When both bounds are tight (m = N) rounding can put -UB a hair above
        -LB: low is then clipped to high. A stationary kernel on a complete regular grid gets
        the exact -log p(y) instead, an interval of zero width (``levinson``, O(N²))."""
        exact = grid_exact_nll(kernel, as_2d(X), y, constant_mean)
        if exact is not None:
            return NLLBounds.exact(exact)
        high = self.objective_value(kernel, X, y, constant_mean) if objective is None else objective
        if not high < FAILED_NLL:
            return NLLBounds(FAILED_NLL, FAILED_NLL)
        products = 0
        try:
            Xi, Z = self._inputs(X)
            y = np.asarray(y, dtype=float)
            with np.errstate(all="ignore"):
                sol = solve_with_nystrom(kernel, Xi, y, Z, constant_mean, *self._cglb().as_tuple())
                ub, products = upper_from_solve(sol, y).value, sol.products
                tighter = value_from_solve(sol, y)  # -CGLB through the same v
            if math.isfinite(tighter):
                high = min(high, tighter)
        except (LinAlgError, ValueError, FloatingPointError, ZeroDivisionError):
            ub = math.nan
        if not math.isfinite(ub):
            try:
                ub = self.cheap_upper_bound(kernel, X, y, constant_mean)
            except (LinAlgError, ValueError, FloatingPointError):
                return NLLBounds(FAILED_NLL, FAILED_NLL)
        return NLLBounds(min(-ub, high), high, products)

    def likelihood_interval(
        self,
        kernel: Kernel,
        X: np.ndarray,
        y: np.ndarray,
        constant_mean: bool = False,
        width: float = TARGET_WIDTH,
        max_steps: int = MAX_STEPS,
    ) -> NLLBounds:
        """A finalist's interval on -log p(y): the CG quadratic (up to ``FINAL_PRODUCTS``
        products), log|Q + D| and block Lanczos on
        the rest of the log-determinant until it is ``width`` nats wide or ``max_steps``
        vectors (``sparse_interval``), within skc's own ends; ``score`` when it breaks. A
        stationary kernel on a complete regular grid gets its exact value (``levinson``)."""
        exact = grid_exact_nll(kernel, as_2d(X), y, constant_mean)
        if exact is not None:
            return NLLBounds.exact(exact)
        Xi, Z = self._inputs(X)
        y = np.asarray(y, dtype=float)
        try:
            with np.errstate(all="ignore"):
                settings = (self.jitter, self.pcg_tol, max(self.pcg_max_products, FINAL_PRODUCTS))
                found = likelihood_interval(
                    kernel, Xi, y, Z, constant_mean, *settings, width, max_steps
                )
        except (LinAlgError, ValueError, FloatingPointError, ZeroDivisionError):
            return self.score(kernel, X, y, constant_mean)
        b = found.bounds
        if not (math.isfinite(b.low) and math.isfinite(b.high)):
            return self.score(kernel, X, y, constant_mean)
        return b

    # --- posterior --------------------------------------------------------------------------
    def posterior(
        self, kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool = False
    ) -> SparsePosterior:
        X, Z = self._inputs(X)
        return SparsePosterior(kernel, X, y, Z, constant_mean, self.jitter)

    # --- cost -------------------------------------------------------------------------------
    def cost(self, n: int, kernel: Kernel | None = None) -> Cost:
        """One lower bound with its gradient. Time: N m² / ``NM2_PER_SECOND`` (the triangular
        solves and products) + N m p / ``NMP_PER_SECOND`` (the kernel and its reverse mode).
        Memory: a row block of K_nz (all of it up to ``KEEP_ELEMENTS``) with about 7 + p
        matrices of reverse-mode cache, the m×m matrices, and ~(p + 12) N-vectors. The score
        also keeps A (m×N): see ``check_size``."""
        m = min(self.m, n)
        p = TYPICAL_PARAMS if kernel is None else count_params(kernel)
        cached = n * m if n * m <= KEEP_ELEMENTS else min(n, max(1, BLOCK_ELEMENTS // m)) * m
        bytes_ = 8.0 * (cached * (7 + p) + 8 * m * m + n * (p + 12))
        seconds = n * m * m / NM2_PER_SECOND + n * m * p / NMP_PER_SECOND
        return Cost(bytes_, seconds)

    def score_bytes(self, n: int) -> float:
        """Memory of ``score``: A (m×N), a row block of K(X, X) with its products, vectors."""
        m = min(self.m, n)
        return 8.0 * (m * n + 4 * min(n * n, SQUARE_BLOCK_ELEMENTS) + 12 * n + 8 * m * m)

    def check_size(self, n: int, evaluations_per_level: float) -> None:
        """Refuse a series whose evaluation or score needs more than ``MAX_SPARSE_BYTES``."""
        need = max(self.cost(n).bytes, self.score_bytes(n))
        if need <= MAX_SPARSE_BYTES:
            return
        hours = self.cost(n).seconds * evaluations_per_level / 3600.0
        raise InputError(
            f"{n} points with {self.m} inducing inputs are too many for the sparse fit: it would"
            f" need about {need / 2**30:.1f} GiB of memory per worker"
            f" (limit {MAX_SPARSE_BYTES / 2**30:g} GiB) and roughly {hours:.1f} hours per search"
            " level; use fewer inducing inputs or thin or aggregate the series"
        )
