"""Exact (or stated-accuracy) Gaussian-process likelihoods of one sorted input in O(N) time, by
the state-space (Kalman) form of the grammar's kernels, with no inducing points (issue 54).

Modules, one job each:
  ``dynamics``    stationary LTI blocks (F, P∞; A = expm(FΔ), Q = P∞ − A P∞ Aᵀ), stacked for
                  sums and Kronecker products for products
  ``smooth``      SE by the Taylor expansion of its spectral density (Hartikainen and Särkkä
                  2010), RQ as a Gauss-Laguerre mixture of SEs
  ``periodic``    the periodic kernel (DC removed) as Bessel-weighted harmonics (Solin and
                  Särkkä 2014)
  ``forms``       a kernel expression → its form: stationary blocks, input-dependent observation
                  weights (Lin, gates, constants), the white-noise diagonal; ``NoStateSpaceForm``
  ``discretise``  the gaps between sorted inputs and the transitions over them, sparse
  ``kalman``      the log likelihood by a numba-compiled Kalman filter
  ``gradient``    its gradient in the kernel's parameters by the filter's adjoint
  ``engine``      the engine ``statespace``: per kernel the filter or the Cholesky, whichever
                  is cheaper, with the exact engine's posterior

Measured in ``benchmarks/studies/statespace_likelihood.py`` (the likelihood's accuracy and
cost) and ``benchmarks/engines/bench_statespace.py`` (the engine's choice).
"""

from abcd_cli.engines.statespace.forms import (
    NoStateSpaceForm,
    Orders,
    StateSpaceForm,
    state_space_form,
)
from abcd_cli.engines.statespace.kalman import (
    form_negative_log_likelihood,
    negative_log_likelihood,
)

__all__ = [
    "NoStateSpaceForm",
    "Orders",
    "StateSpaceForm",
    "form_negative_log_likelihood",
    "negative_log_likelihood",
    "state_space_form",
]
