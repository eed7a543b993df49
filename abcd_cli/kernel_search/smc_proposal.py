"""The sampler's proposal for new parameters: a defensive mixture of their prior and of values
read from the data so far.

A structure move (``smc_moves``) that adds a subtree proposes each new coordinate θ_i of theta
on its own, from

    q(θ_i) = (1 − w) p(θ_i) + w d(θ_i),

p the coordinate's prior (``evidence.ParameterPrior``, built from the whole series' bounds) and
d a density read from the rows the particles have seen so far (``DataSummary`` of those rows),
a mixture of normals in theta's units:

- a period: one normal per periodogram peak (the ``PEAKS`` highest inside the period limits),
  about log(peak) with sd ``PEAK_SD`` (the periodogram's peak is sharp; the chain refines it),
  the strongest peak weighing ½ and the others sharing the rest equally (one peak: all of it);
- any other length (a lengthscale, a change's steepness): log-uniform's ±2σ from two typical
  gaps to the range of x so far, as a normal;
- a standard deviation: about log(½ sd of y so far), a slope's about log(sd of y / range of
  x), with sd ``SCALE_SD``;
- a location (a linear kernel's, a change's): about the middle of x so far, sd a quarter of
  its range;
- a shape without units (periodic smoothness, the RQ's α): its prior (d = p).

The mixture weight ``w`` is ``DATA_SHARE`` (0.5, the costed design's "half prior, half data"):
the prior half keeps q ≥ ½ p everywhere, so p/q ≤ 2 and the Hastings ratio of a move whose
draws the data do not favour stays bounded; the data half puts the periods the spectrum shows
in reach of a move (the first sampler accepted 0.5-1.6% of its structure moves with the prior
alone, ../shared/SAMPLER.md). The Hastings ratio of a move holds p(θ_new)/q(θ_new) for the
coordinates it adds and q(θ_old)/p(θ_old) for those it removes (``log_weight``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from abcd_cli.data.summary import Summary
from abcd_cli.kernel_search.evidence import ParameterPrior
from abcd_cli.kernels import Kernel, Param
from abcd_cli.kernels.params import period_limits

#: The data's share of the mixture (w above).
DATA_SHARE = 0.5
#: Periodogram peaks a period is proposed about, and the sd of log period about each.
PEAKS = 3
PEAK_SD = 0.05
#: The sd of a log standard deviation about the data's own scale.
SCALE_SD = 1.0

Normals = list[tuple[float, float, float]]  # (weight, mean, sd) of normals in theta's units


def data_normals(spec: Param, scales: Summary, dim: int) -> Normals:
    """The data component d of coordinate ``spec`` on input ``dim`` (empty: d is the prior, as
    on rows whose x or y does not vary yet)."""
    s = scales.for_dim(dim)
    read = (s.x_range, s.spacing, s.y_sd)
    if not all(math.isfinite(v) and v > 0 for v in read):
        return []
    if spec.name == "period":
        lo, hi = period_limits(s)
        peaks = [p for p in s.periods if lo <= p <= hi][:PEAKS]
        if not peaks:
            return []
        shares = [1.0] if len(peaks) == 1 else [0.5] + [0.5 / (len(peaks) - 1)] * (len(peaks) - 1)
        return [(w, math.log(p), PEAK_SD) for w, p in zip(shares, peaks, strict=False)]
    if spec.unit == "length":
        lo, hi = math.log(min(2.0 * s.spacing, s.x_range)), math.log(s.x_range)
        return [(1.0, (lo + hi) / 2.0, max((hi - lo) / 4.0, PEAK_SD))]
    if spec.unit == "scale":
        return [(1.0, math.log(0.5 * s.y_sd), SCALE_SD)]
    if spec.unit == "scale_per_x":
        return [(1.0, math.log(s.y_sd / s.x_range), SCALE_SD)]
    if spec.unit == "location":
        return [(1.0, (s.x_min + s.x_max) / 2.0, max(s.x_range, 1e-12) / 4.0)]
    return []


def _log_normal_pdf(value: float, mean: float, sd: float) -> float:
    return -0.5 * ((value - mean) / sd) ** 2 - math.log(sd) - 0.5 * math.log(2 * math.pi)


@dataclass(frozen=True)
class ParameterProposal:
    """q above for the rows seen so far (``rows_summary``), with ``prior_summary`` (the whole
    series') giving p."""

    prior_summary: Summary
    rows_summary: Summary
    data_share: float = DATA_SHARE

    def __post_init__(self) -> None:
        if not 0.0 < self.data_share < 1.0:
            raise ValueError("the data's share of the proposal must lie strictly between 0 and 1")

    def _parts(self, kernel: Kernel) -> tuple[ParameterPrior, list[Normals]]:
        prior = ParameterPrior.of(kernel, self.prior_summary)
        normals = [data_normals(spec, self.rows_summary, d) for spec, d in kernel.param_specs()]
        return prior, normals

    def draw(self, kernel: Kernel, rng: np.random.Generator) -> Kernel:
        """``kernel`` with each unset (NaN) coordinate drawn from q, in theta's order."""
        theta = kernel.theta()
        prior, normals = self._parts(kernel)
        for i in np.flatnonzero(~np.isfinite(theta)):
            if normals[i] and rng.uniform() < self.data_share:
                shares = [w for w, _, _ in normals[i]]
                _, mean, sd = normals[i][int(rng.choice(len(shares), p=shares))]
            else:
                mean, sd = float(prior.centre[i]), float(prior.sd[i])
            theta[i] = mean + sd * rng.standard_normal()
        return kernel.with_theta(theta)

    def log_weight(self, kernel: Kernel, new: np.ndarray) -> float:
        """Σ_i log p(θ_i) − log q(θ_i) over the coordinates of ``kernel`` marked in ``new``."""
        theta = kernel.theta()
        prior, normals = self._parts(kernel)
        total = 0.0
        for i in np.flatnonzero(new):
            log_p = _log_normal_pdf(float(theta[i]), float(prior.centre[i]), float(prior.sd[i]))
            if not normals[i]:
                continue  # q = p
            data = [math.log(w) + _log_normal_pdf(float(theta[i]), m, s) for w, m, s in normals[i]]
            top = max(data)
            log_d = top + math.log(sum(math.exp(v - top) for v in data))
            log_q = np.logaddexp(
                math.log1p(-self.data_share) + log_p, math.log(self.data_share) + log_d
            )
            total += log_p - float(log_q)
        return total
