"""The true kernels of thesis table 3.2, their synthetic data, and structures compared by their
sum of products over inputs.

How the data are drawn. The thesis (``shared/papers/000``, §3.9) says: 300 points sampled
uniformly at random, function values drawn from the GP prior of the true kernel, i.i.d.
Gaussian noise added at a signal-to-noise ratio of 10, 1 or 0.1. It does not give the range of
the inputs, the parameter values, nor what the ratio is a ratio of. Those are taken from the
authors' published generator (``source/matlab/generate_synthetic_data.m`` of
github.com/jamesrobertlloyd/gp-structure-search, February 2013, the month of the experiments):

* x uniform on [-2, 2] in every dimension (``x_max = 2``), N = 300, D as in the table (inputs
  a true kernel does not name are irrelevant ones);
* parameters (GPML's log values, here in natural units): every sd 1; lengthscales e, 1 or
  1/e and the periodic kernel's period 1/e, as written in ``CASES`` below;
* f drawn with a 1e-6 jitter, then centred and scaled to sample sd 1; noise of sd 1/SNR added
  (SNR = 10 adds noise of sd 0.1: a ratio of standard deviations, not of variances).

Departures: the periodic kernel is this project's, without its constant part (the grammar
appendix's eq. 1.5; GPML's ``covPeriodic`` keeps it), with the same lengthscale and period.
The generator's ``Lin × Per`` used GPML's ``covLINone``, x·x' + 1, which is Lin + C here.

Structures are compared by their signal terms (:func:`signal_terms`): the sum of products
(thesis §4.1), each product as the multiset of (family, input) of its factors that read x,
without white-noise terms and without constants, which only set a level or a scale.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

from abcd_cli.kernels import RQ, SE, WN, C, Kernel, Lin, Per
from abcd_cli.kernels.algebra import sum_of_products
from abcd_cli.kernels.base import reads_x
from abcd_cli.kernels.text import parse_kernel

#: Points per data set and the inputs' half-range (x in [-X_MAX, X_MAX]^D).
N_POINTS = 300
X_MAX = 2.0
#: The three signal-to-noise ratios of the table (sd of f / sd of the noise).
SNRS = (10.0, 1.0, 0.1)
E = math.e


def _se(ell: float, dim: int) -> SE:
    return SE((ell, 1.0), dim=dim)


@dataclass(frozen=True)
class TrueKernel:
    """One row of table 3.2: the thesis's text of the true kernel (subscripts as digits, 1 the
    first input), the number of inputs D, and the kernel the data are drawn from."""

    label: str
    dims: int
    kernel: Kernel


#: The table's rows, in its order, with the generator's parameter values.
CASES: tuple[TrueKernel, ...] = (
    TrueKernel("SE + RQ", 1, _se(1.0, 0) + RQ((1 / E, 1.0, E**-2), dim=0)),
    TrueKernel(
        "Lin × Per",
        1,
        (Lin((1.0, 0.0), dim=0) + C((1.0,))) * Per((1.0, 1 / E, 1.0), dim=0),
    ),
    TrueKernel("SE1 + RQ2", 2, _se(E, 0) + RQ((1 / E, 1.0, 1 / E), dim=1)),
    TrueKernel(
        "SE1 + SE2 × Per1 + SE3",
        3,
        _se(E, 0) + Per((1 / E, 1 / E, 1.0), dim=0) * _se(1.0, 1) + _se(1 / E, 2),
    ),
    TrueKernel("SE1 × SE2", 4, _se(E, 0) * _se(1.0, 1)),
    TrueKernel("SE1 × SE2 + SE2 × SE3", 4, _se(1.0, 0) * _se(E, 1) + _se(1 / E, 1) * _se(1.0, 2)),
    TrueKernel(
        "(SE1 + SE2) × (SE3 + SE4)",
        4,
        (_se(1.0, 0) + _se(1.0, 1)) * (_se(1.0, 2) + _se(1.0, 3)),
    ),
)


def case(label: str) -> TrueKernel:
    """The row of ``CASES`` with this label."""
    for c in CASES:
        if c.label == label:
            return c
    raise KeyError(label)


def draw(
    true: TrueKernel, snr: float, seed: int, n: int = N_POINTS
) -> tuple[np.ndarray, np.ndarray]:
    """x (n, D) uniform on [-X_MAX, X_MAX]^D and y = f / sd(f) + noise of sd 1/snr, f a draw
    from the GP prior of ``true.kernel`` (with 1e-6 added to K's diagonal), centred."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-X_MAX, X_MAX, size=(n, true.dims))
    gram = true.kernel.gram(x) + 1e-6 * np.eye(n)
    f = np.linalg.cholesky(gram) @ rng.standard_normal(n)
    f = (f - f.mean()) / f.std(ddof=1)
    return x, f + rng.standard_normal(n) / snr


# ----------------------------------------------------------------------------- structures

Term = tuple[tuple[str, int], ...]


def signal_terms(kernel: Kernel) -> Counter[Term]:
    """The kernel's sum of products over inputs: each product's factors that read x, as sorted
    (family, input) pairs, counted; products holding white noise and those with no factor
    reading x (constants) are left out. SE × SE on one input is one SE (``sum_of_products``
    simplifies it)."""
    terms: Counter[Term] = Counter()
    for product in sum_of_products(kernel):
        nodes = list(product.nodes())
        if any(isinstance(node, WN) for node in nodes):
            continue
        factors = tuple(sorted((b.symbol, b.dim) for b in product.bases() if reads_x(b)))
        if factors:
            terms[factors] += 1
    return terms


#: The families the notation numbers by input: base kernels, and the gates a changepoint or
#: changewindow leaves in a sum of products (``Inside2``: inside a window along input 2).
_THESIS_BASE = re.compile(r"\b(SE|RQ|Per|Lin|Cos|Before|After|Inside|Outside)(\d*)\b")


def parse_thesis(text: str) -> Kernel | None:
    """A structure written as the thesis writes it (``SE1 + SE2 × Per1``: the digit is the
    input, from 1; none for one input), or None for '-' (no structure)."""
    text = text.strip()
    if text in ("-", "—", ""):
        return None

    def ours(m: re.Match[str]) -> str:
        dim = int(m.group(2)) - 1 if m.group(2) else 0
        return f"{m.group(1)}@{dim}" if dim else m.group(1)

    return parse_kernel(_THESIS_BASE.sub(ours, text.replace("×", "*")))


def thesis_terms(text: str) -> Counter[Term]:
    """:func:`signal_terms` of a structure in the thesis's notation ('-': none)."""
    kernel = parse_thesis(text)
    return Counter() if kernel is None else signal_terms(kernel)


def describe_terms(terms: Counter[Term]) -> str:
    """The terms in the thesis's notation, sorted: ``SE1 + SE2 × Per1`` ('-' when none)."""
    if not terms:
        return "-"
    written = []
    for term, count in sorted(terms.items()):
        text = " × ".join(f"{symbol}{dim + 1}" for symbol, dim in term)
        written += [text] * count
    return " + ".join(written)
