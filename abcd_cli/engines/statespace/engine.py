"""The state-space engine (``--engine statespace``): each likelihood of a series of one input by
whichever exact method is cheaper for its kernel, the Kalman filter or the dense Cholesky.

The filter's cost grows as N·(nnz(A)·d + d²) with the state's size d, the Cholesky's as N³
whatever the kernel: a sum of a few smooth and periodic terms (d = 24-64) filters 2,000 points
1.6-6.5 times faster than the Cholesky and 4,000 points 4.5-20 times faster, while a product
of a periodic kernel with an SE (d = 440) filters 500 points about 1,000 times slower
(``benchmarks/engines/outputs/statespace_engine.md``).
So every evaluation estimates both from measured constants (``KALMAN_SECONDS``,
``CHOLESKY_N3_PER_SECOND``) and takes the cheaper; a kernel without a form here (several inputs, a
periodic kernel of too many harmonics) or a series of too many distinct gaps for the gradient's
tables goes to the Cholesky too. Both are the exact likelihood, the filter within its stated
approximation of SE, Per and RQ (``forms.Orders``; under 0.01 nats at N = 500 for SE and Per).

The posterior is the exact engine's (a dense Cholesky), so the engine takes the series the exact
engine takes; conditioning by the Kalman smoother, for longer series, is the next step (issue
54).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from abcd_cli.engines import exact
from abcd_cli.engines.base import Cost, Engine, NLLBounds
from abcd_cli.engines.exact_posterior import ExactPosterior
from abcd_cli.engines.statespace import gradient, kalman
from abcd_cli.engines.statespace.forms import NoStateSpaceForm, StateSpaceForm, state_space_form
from abcd_cli.errors import InputError
from abcd_cli.kernels import Kernel

#: Seconds of one point of the filter's likelihood and gradient per unit of nnz(A)·d + d²
#: (measured 3.3-4.4·10⁻⁹ for d = 22-440 at N = 500-4,000, one BLAS thread:
#: ``benchmarks/engines/bench_statespace.py``).
KALMAN_SECONDS = 4e-9
#: The Cholesky's likelihood and gradient in N³ per second, one BLAS thread as a search's worker
#: has (measured 0.8-2·10¹⁰ at N = 500-4,000 in the same study; the exact engine's own, more
#: cautious ``N3_PER_SECOND`` sizes what it refuses).
CHOLESKY_N3_PER_SECOND = 1.2e10


def kalman_seconds(form: StateSpaceForm, n: int) -> float:
    """The filter's estimated time for one likelihood and gradient on ``n`` points."""
    dynamics = form.dynamics
    if dynamics is None:
        return 0.0
    d = form.size
    return KALMAN_SECONDS * n * (dynamics.nonzeros() * d + d * d)


def cholesky_seconds(n: int) -> float:
    """The Cholesky's estimated time for one likelihood and gradient on ``n`` points."""
    return float(n) ** 3 / CHOLESKY_N3_PER_SECOND


def _one_input(X: np.ndarray) -> bool:
    return np.ndim(X) == 1 or np.shape(X)[1] == 1


@dataclass(frozen=True)
class StateSpaceEngine(Engine):
    """Exact likelihoods by the Kalman filter or the Cholesky, whichever is cheaper for the
    kernel; the exact engine's score and posterior."""

    name: ClassVar[str] = "statespace"

    def form(self, kernel: Kernel, X: np.ndarray) -> StateSpaceForm | None:
        """The kernel's form when the filter is the cheaper exact method on X, else None."""
        return self._cheaper_form(kernel, len(X)) if _one_input(X) else None

    @staticmethod
    def _cheaper_form(kernel: Kernel, n: int) -> StateSpaceForm | None:
        try:
            form = state_space_form(kernel)
        except NoStateSpaceForm:
            return None
        return form if kalman_seconds(form, n) < cholesky_seconds(n) else None

    def objective(
        self,
        theta: np.ndarray,
        kernel: Kernel,
        X: np.ndarray,
        y: np.ndarray,
        constant_mean: bool = False,
    ) -> tuple[float, np.ndarray]:
        """−log p(y) and its gradient in theta, by the cheaper exact method."""
        form = self.form(kernel.with_theta(theta), X)
        if form is not None:
            try:
                return gradient.nll_and_grad(theta, kernel, X, y, constant_mean, form=form)
            except NoStateSpaceForm:
                pass
        return exact.nll_and_grad(theta, kernel, X, y, constant_mean)

    def objective_value(
        self, kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool = False
    ) -> float:
        """−log p(y) alone, by the cheaper exact method."""
        form = self.form(kernel, X)
        if form is not None:
            return kalman.form_negative_log_likelihood(form, X, y, constant_mean)
        return exact.negative_log_likelihood(kernel, X, y, constant_mean)

    def score(
        self,
        kernel: Kernel,
        X: np.ndarray,
        y: np.ndarray,
        constant_mean: bool = False,
        objective: float | None = None,
    ) -> NLLBounds:
        """−log p(y) as an interval of zero width, as the exact engine scores."""
        if objective is None:
            objective = self.objective_value(kernel, X, y, constant_mean)
        return NLLBounds.exact(objective)

    def posterior(
        self, kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool = False
    ) -> ExactPosterior:
        return ExactPosterior(kernel, X, y, constant_mean)

    def cost(self, n: int, kernel: Kernel | None = None) -> Cost:
        """The filter's time for a kernel it takes more cheaply, with the memory of its
        kept states; else, and for a typical kernel, the exact engine's."""
        dense = exact.ExactEngine().cost(n, kernel)
        if kernel is None or not kernel.is_fitted:
            return dense
        form = self._cheaper_form(kernel, n)
        if form is None:
            return dense
        per_point = 8 * 4  # y, the noise, the gap's index and the noise's adjoint
        return Cost(float(gradient.STATE_BYTES + per_point * n), kalman_seconds(form, n))

    def check_size(self, n: int, evaluations_per_level: float) -> None:
        """Refuse what the exact engine refuses: the posterior is its dense one."""
        try:
            exact.ExactEngine().check_size(n, evaluations_per_level)
        except InputError:
            raise InputError(
                f"{n} points are too many for --engine statespace yet: its posterior is the"
                " exact engine's, which refuses them; use --engine skc or auto"
            ) from None
