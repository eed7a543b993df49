"""What one fit of the additive GP tells a table's search (issue 66): which inputs matter, which
pairs of inputs interact and up to which order, measured on the fitted mean.

The additive kernel of every order (``kernels/additive.py``; shared/papers/002 §1.3) is fitted
once, with noise: k(x, x') = Σ_r σ_r² e_r(z_1, ..., z_D) + σ_n² δ, each z_d a unit-variance SE
of input d, and its fitted mean at the rows is m = K α, α = (K + σ_n² I)⁻¹ y. With K_(−S) the
kernel with z_d set to 1 for each d in S (those inputs ignored), α held:

* input d's part is m − m_(−d) = (K − K_(−d)) α: every term of the kernel that reads d;
* the interaction of i and j is m − m_(−i) − m_(−j) + m_(−ij): the terms that read both, each
  with the factor u_i u_j (u = 1 − z), zero when either input does nothing;
* order t's part is m_t = c_t e_t(U) α. Writing z_d = 1 − u_d and expanding each product over
  the subsets of its inputs, e_r(z) = Σ_{t≤r} (−1)^t C(D − t, r − t) e_t(u), so the kernel is
  a constant plus Σ_t c_t e_t(u) with c_t = (−1)^t Σ_{r≥t} σ_r² C(D − t, r − t): the part of
  exactly t inputs (a fitted σ_3 whose terms only lengthen pairs adds to pairs, not to t = 3).

An input's and a pair's share is its part's variance over the rows over var(m); an order's is
its variance over the sum of the orders' variances. The rule (thresholds ``INPUT_SHARE``,
``PAIR_SHARE``, ``ORDER_SHARE``):

* a pair interacts when its share is at least PAIR_SHARE and order 2 carries at least
  ORDER_SHARE;
* an input is searched over when its share is at least INPUT_SHARE or it is in an interacting
  pair (at least one input is always kept: the largest share); the coordinate-wise search
  (``table_plan``) keeps also the borderline inputs, share at least ``BORDER_SHARE`` (a
  quarter of INPUT_SHARE), and states their shares (``Screen.borderline``): an input whose
  share sits near INPUT_SHARE is then kept on every split rather than on some;
* products in the search reach the highest order t whose share is at least ORDER_SHARE (1 when
  no pair interacts, 2 when no three inputs interact pairwise), and only over inputs that
  interact pairwise (``table_grammar``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from itertools import combinations

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from threadpoolctl import threadpool_limits

from abcd_cli.arrays import evenly_spread
from abcd_cli.data.summary import InputSummaries
from abcd_cli.data.time_units import unit_of_name
from abcd_cli.kernel_search.candidate import entropy
from abcd_cli.kernel_search.fit import fit
from abcd_cli.kernels import WN, Additive, Kernel, Sum
from abcd_cli.kernels.additive import elementary_symmetric
from abcd_cli.schema import Either, List, Number, Numbers, Obj, Text, Whole

#: An input's share of the fitted mean's variance (its own order-1 part) needed to search it.
INPUT_SHARE = 0.02
#: The share that keeps a borderline input in the coordinate-wise search (module docstring).
BORDER_SHARE = INPUT_SHARE / 4
#: A pair's share (its pure interaction part) needed to be named an interaction.
PAIR_SHARE = 0.03
#: An order's share needed for products of that many inputs.
ORDER_SHARE = 0.02
#: The highest order the screening fit holds (products of more inputs are not searched).
SCREEN_ORDER = 3
#: The screening fit uses at most this many rows (evenly spread), whatever the table's size.
SCREEN_ROWS = 500
#: A resampled screen (``resampled_screen``) keeps an input when at least this share of its
#: fits on half the rows does (measured: docs/findings.md, "Screening by vote").
KEEP_PROBABILITY = 0.3


@dataclass(frozen=True)
class Shares:
    """Shares of the fitted mean's variance: per input (order 1), per pair (order 2, keyed
    (i, j) with i < j) and per order t = 1..R (``orders[t - 1]``)."""

    inputs: tuple[float, ...]
    pairs: dict[tuple[int, int], float]
    orders: tuple[float, ...]


@dataclass(frozen=True)
class Probabilities:
    """Of a screen by several fits on subsamples (``resampled_screen``): the share of its
    ``fits`` (``rows`` rows each) that kept each input and that named each pair an
    interaction (``pairs``), and the share from which the vote kept an input (``level``)."""

    inputs: tuple[float, ...]
    pairs: dict[tuple[int, int], float]
    fits: int
    rows: int
    level: float = KEEP_PROBABILITY


@dataclass(frozen=True)
class Screen:
    """The screen's verdict: the inputs searched over, the pairs that interact, the highest
    order of products, the inputs changes may act along, the shares it read, the fitted
    additive kernel (as text), the rows and seconds it took, the column names, a resampled
    screen's vote, and the share from which each fit kept an input (``floor``: ``decide``)."""

    inputs: tuple[int, ...]
    pairs: tuple[tuple[int, int], ...]
    max_order: int
    change_inputs: tuple[int, ...]
    shares: Shares
    kernel: str = ""
    rows: int = 0
    seconds: float = 0.0
    names: tuple[str, ...] = field(default=())
    probabilities: Probabilities | None = None
    floor: float = INPUT_SHARE

    @property
    def borderline(self) -> tuple[int, ...]:
        """The kept inputs whose own share is under ``INPUT_SHARE`` and that no named pair
        holds: kept as borderline (``decide``'s ``floor``)."""
        paired = {d for pair in self.pairs for d in pair}
        return tuple(
            d for d in self.inputs if self.shares.inputs[d] < INPUT_SHARE and d not in paired
        )

    @property
    def fits(self) -> int:
        """How many fits of the additive GP the screen took: on all the rows, and on each
        subsample."""
        return 1 + (self.probabilities.fits if self.probabilities is not None else 0)

    def name(self, d: int) -> str:
        return self.names[d] if d < len(self.names) else f"x{d + 1}"

    def to_dict(self) -> dict[str, object]:
        """The model file's ``screen``: what was kept, named by column, with the shares (and,
        of a resampled screen, the probabilities)."""
        d: dict[str, object] = {
            "inputs": [self.name(d) for d in self.inputs],
            "interactions": [[self.name(i), self.name(j)] for i, j in self.pairs],
            "max_order": self.max_order,
            "change_inputs": [self.name(d) for d in self.change_inputs],
            "input_shares": {self.name(d): round(s, 4) for d, s in enumerate(self.shares.inputs)},
            "borderline_inputs": [self.name(d) for d in self.borderline],
            "order_shares": [round(s, 4) for s in self.shares.orders],
            "additive_kernel": self.kernel,
            "rows": self.rows,
            "seconds": round(self.seconds, 3),
            "floor": self.floor,
        }
        if (p := self.probabilities) is not None:
            d["resampled"] = {
                "fits": p.fits,
                "rows_per_fit": p.rows,
                "keep_probability": p.level,
                "input_probabilities": {self.name(k): round(v, 3) for k, v in enumerate(p.inputs)},
                "pair_probabilities": [
                    [self.name(i), self.name(j), round(v, 3)] for (i, j), v in p.pairs.items()
                ],
            }
        return d


SHARE = Number(min=0)
PROBABILITY = Number(min=0, max=1)
#: The model file's ``screen`` (``Screen.to_dict``), nothing of which is read back (the notes
#: are stored as text). Every field is optional: a file before ``floor`` was recorded screened
#: from that of its ``settings.table_search`` (``table_plan.screen_floor``).
SCREEN_SCHEMA = Obj(
    optional={
        "inputs": List(Text()),
        "interactions": List(List(Text(), 2, 2)),
        "max_order": Whole(min=1),
        "change_inputs": List(Text()),
        "input_shares": Obj(extra=SHARE, noun="an object of shares by input"),
        "borderline_inputs": List(Text()),
        "order_shares": Numbers(SHARE),
        "additive_kernel": Text(),
        "rows": Whole(min=0),
        "seconds": Number(min=0),
        "floor": PROBABILITY,
        "resampled": Obj(
            optional={
                "fits": Whole(min=1),
                "rows_per_fit": Whole(min=1),
                "keep_probability": PROBABILITY,
                "input_probabilities": Obj(extra=PROBABILITY, noun="an object of probabilities"),
                "pair_probabilities": List(List(Either(Text(), PROBABILITY), 3, 3)),
            }
        ),
    },
    noun="a table's screen",
)


def order_coefficients(sds: tuple[float, ...], n_inputs: int) -> list[float]:
    """c_t = (−1)^t Σ_{r=t..R} σ_r² C(D − t, r − t) for t = 1..R: the additive kernel as
    Σ_t c_t e_t(u) plus a constant, with u_d = 1 − z_d."""
    order = len(sds)
    return [
        (-1.0) ** t
        * sum(sds[r - 1] ** 2 * math.comb(n_inputs - t, r - t) for r in range(t, order + 1))
        for t in range(1, order + 1)
    ]


def _mean_without(
    z: list[np.ndarray], sds: tuple[float, ...], alpha: np.ndarray, ignored: tuple[int, ...]
) -> np.ndarray:
    """K_(−S) α: the additive kernel with z_d = 1 for the members ``ignored``, times α."""
    kept = [np.ones_like(zd) if a in ignored else zd for a, zd in enumerate(z)]
    _, e = elementary_symmetric(kept, len(sds))
    K = sum(sd**2 * e[r] for r, sd in enumerate(sds, start=1))
    return np.asarray(K) @ alpha


def variance_shares(kernel: Additive, noise_sd: float, X: np.ndarray, y: np.ndarray) -> Shares:
    """The shares of the fitted mean's variance of ``kernel`` + noise on (X, y) (module
    docstring): per input, per pair and per order."""
    z = [member.gram(X) for member in kernel.members]
    dims = [member.dim for member in kernel.members]
    K = kernel.gram(X)
    noisy = K + (noise_sd**2 + 1e-8 * kernel.variance()) * np.eye(len(y))
    alpha = cho_solve(cho_factor(noisy, lower=True), y)
    mean = K @ alpha
    spread = float(np.var(mean)) or 1.0
    without = {(a,): _mean_without(z, kernel.sds, alpha, (a,)) for a in range(len(z))}
    inputs = [0.0] * (max(dims) + 1)
    for a, d in enumerate(dims):
        inputs[d] = float(np.var(mean - without[(a,)])) / spread
    pairs: dict[tuple[int, int], float] = {}
    for a, b in combinations(range(len(z)), 2):
        both = _mean_without(z, kernel.sds, alpha, (a, b))
        part = mean - without[(a,)] - without[(b,)] + both
        pairs[(dims[a], dims[b])] = float(np.var(part)) / spread
    _, e = elementary_symmetric([1.0 - zd for zd in z], kernel.order)
    c = order_coefficients(kernel.sds, len(z))
    by_order = [float(np.var(c[t - 1] * (e[t] @ alpha))) for t in range(1, kernel.order + 1)]
    total = sum(by_order) or 1.0
    return Shares(tuple(inputs), pairs, tuple(v / total for v in by_order))


def decide(
    shares: Shares, change_inputs: tuple[int, ...] = (), floor: float = INPUT_SHARE
) -> Screen:
    """The rule of the module docstring applied to ``shares``: inputs whose share is at least
    ``floor`` are kept (``BORDER_SHARE`` for the coordinate-wise search)."""
    orders = shares.orders
    pairs = (
        tuple(sorted(p for p, s in shares.pairs.items() if s >= PAIR_SHARE))
        if len(orders) >= 2 and orders[1] >= ORDER_SHARE
        else ()
    )
    kept = {d for d, s in enumerate(shares.inputs) if s >= floor}
    kept.update(d for pair in pairs for d in pair)
    if not kept:
        kept = {int(np.argmax(shares.inputs))}
    return Screen(
        tuple(sorted(kept)),
        pairs,
        highest_order(orders, pairs),
        tuple(d for d in change_inputs if d in kept),
        shares,
        floor=floor,
    )


def highest_order(orders: tuple[float, ...], pairs: tuple[tuple[int, int], ...]) -> int:
    """The highest order of products: the last t whose share is at least ORDER_SHARE, 1
    without ``pairs``, at most 2 when no three inputs interact pairwise."""
    max_order = max((t for t, s in enumerate(orders, start=1) if s >= ORDER_SHARE), default=1)
    if not pairs:
        return 1
    if not any(
        all(pair in pairs for pair in combinations(triple, 2))
        for triple in combinations(sorted({d for pair in pairs for d in pair}), 3)
    ):
        return min(max_order, 2)  # no three inputs interact pairwise: no product of three
    return max_order


def additive_start(n_inputs: int) -> Kernel:
    """The additive kernel of every order up to ``SCREEN_ORDER`` over every input, plus noise."""
    return Sum((Additive.on_inputs(n_inputs, min(n_inputs, SCREEN_ORDER)), WN()))


def screen_table(
    X: np.ndarray,
    y: np.ndarray,
    seed: int,
    restarts: int,
    max_iter: int,
    change_inputs: tuple[int, ...] = (),
    constant_mean: bool = False,
    names: tuple[str, ...] = (),
    floor: float = INPUT_SHARE,
) -> Screen:
    """Fit the additive GP of every order on (X, y) in internal units (at most ``SCREEN_ROWS``
    rows, evenly spread) from the seed and read its verdict (``decide``, inputs kept from
    ``floor``)."""
    started = time.perf_counter()
    rows = screen_rows(len(y))
    X, y = X[rows], y[rows]
    shares, kernel = fit_shares(
        X, y, entropy(seed, additive_start(X.shape[1])), restarts, max_iter, constant_mean, names
    )
    seconds = time.perf_counter() - started
    return replace(
        decide(shares, change_inputs, floor),
        kernel=kernel,
        rows=len(y),
        seconds=seconds,
        names=names,
    )


def screen_rows(n_rows: int) -> np.ndarray:
    """The rows of the screen's fit on all the rows: at most ``SCREEN_ROWS``, evenly spread."""
    return evenly_spread(n_rows, SCREEN_ROWS)


def fit_shares(
    X: np.ndarray,
    y: np.ndarray,
    stream: tuple[int, ...],
    restarts: int,
    max_iter: int,
    constant_mean: bool = False,
    names: tuple[str, ...] = (),
) -> tuple[Shares, str]:
    """One fit of the additive GP of every order on (X, y) from the random ``stream``: its
    shares (``variance_shares``) and the fitted kernel as text."""
    start = additive_start(X.shape[1])
    rng = np.random.default_rng(np.random.SeedSequence(list(stream)))
    with threadpool_limits(limits=1, user_api="blas"):  # more threads: ten times slower
        fitted = fit(
            start,
            X,
            y,
            rng,
            restarts=restarts,
            summary=InputSummaries.from_data(X, y),
            max_iter=max_iter,
            polish=1,
            constant_mean=constant_mean,
        ).kernel
    additive, noise = fitted.operands
    noise_sd = float(noise.params[noise.names.index("sd")])
    shares = variance_shares(additive, noise_sd, X, y - (np.mean(y) if constant_mean else 0.0))
    return shares, fitted.to_text(digits=4, names=names)


def screens(language: str, screen: bool, n_dims: int) -> bool:
    """Whether a search screens its inputs first: the full language on a table of several
    inputs, unless told not to (``SearchSettings.screen``)."""
    return screen and language == "abcd" and n_dims > 1


def time_inputs(names: tuple[str, ...]) -> tuple[int, ...]:
    """The inputs whose column's name says they count time (``data.time_units``): the only
    inputs a change (and a cycle) is searched along in a table."""
    return tuple(d for d, name in enumerate(names) if unit_of_name(name) is not None)
