"""The factors of one product of base kernels and the roles they play in its phrase.

A component is one product of base kernels and change factors (thesis ch. 4). :func:`role_of`
reads the role each base kernel declares (periodic, smooth, noise, constant, linear, change
factor); :class:`Factors` sorts a product's factors by it, picks the head noun by the ordering
noise > periodic > smooth > linear > constant, and the factor whose declared words head the
phrase (``lead``). Nothing here tests a kernel's class. Change factors become the intervals of x
where the component is switched on (each declares its own, ``switched_on``); those that barely
change its amplitude over the data (:func:`acts_in_data`) are left out of what is said about
the data.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from abcd_cli.kernels import BaseKernel, Kernel, Product, Sum


@dataclass
class Factors:
    """The base kernels of one product, sorted by the role they play in the phrase."""

    periodic: list[BaseKernel] = field(default_factory=list)
    smooth: list[BaseKernel] = field(default_factory=list)
    noise: list[BaseKernel] = field(default_factory=list)
    const: list[BaseKernel] = field(default_factory=list)
    lin: list[BaseKernel] = field(default_factory=list)
    gates: list[BaseKernel] = field(default_factory=list)

    @property
    def head(self) -> str:
        """The head noun's kind: "noise", "periodic", "smooth", "linear" or "constant".

        White noise times any stationary kernel is still white noise (thesis ch. 4), so noise
        takes the head before a periodic factor; otherwise periodic > smooth > linear > change
        factors, and a constant only rescales.
        """
        if self.noise:
            return "noise"
        if self.periodic:
            return "periodic"
        if self.smooth:
            return "smooth"
        if self.lin:
            return "linear"
        return "constant"

    @property
    def lead(self) -> BaseKernel | None:
        """The factor whose declared words (``noun``, ``modifier``, ``shape_sentence``) head a
        periodic or smooth phrase: the first periodic factor; else the first smooth factor that
        declares a modifier, else the first smooth factor; None for other heads."""
        if self.noise:
            return None
        if self.periodic:
            return self.periodic[0]
        if self.smooth:
            return next((k for k in self.smooth if k.modifier), self.smooth[0])
        return None


#: The ``Factors`` field for each role a base kernel declares (``BaseKernel.role``).
_FIELD_OF_ROLE = {
    "periodic": "periodic",
    "smooth": "smooth",
    "noise": "noise",
    "constant": "const",
    "linear": "lin",
    "gate": "gates",
}
#: The ``Factors`` fields, in the order of the roles above.
ROLES = tuple(_FIELD_OF_ROLE.values())


def role_of(base: BaseKernel) -> str | None:
    """The ``Factors`` field ``base`` goes to (one of :data:`ROLES`), read from the role the
    kernel declares; None for a kernel without one the wording knows."""
    return _FIELD_OF_ROLE.get(getattr(base, "role", ""))


def factors_of(kernel: Kernel, x_data: np.ndarray | None = None) -> Factors | None:
    """Split a product of base kernels by role; None when ``kernel`` is not such a product or
    holds a kernel without a role. With ``x_data``, change factors that do not switch the
    component within the data are dropped (:func:`acts_in_data`)."""
    if any(not isinstance(k, (BaseKernel, Product)) for k in kernel.nodes()):
        return None
    parts = Factors()
    for base in kernel.bases():
        role = role_of(base)
        if role is None:
            return None
        getattr(parts, role).append(base)
    if len(parts.periodic) > 1:
        cycle = common_cycle(parts.periodic)
        parts.periodic = parts.periodic if cycle is None else [cycle]
    if parts.gates and x_data is not None:
        # A constant's curve is c·Π g(x): any change of its gates beyond STEADY_SHARE shows in
        # its figure. Other curves have shapes of their own; their gates are said when they switch.
        share = 1.0 - STEADY_SHARE if parts.head == "constant" else SWITCH_SHARE
        if not acts_in_data(parts.gates, x_data, share):
            parts.gates = []
    return parts


#: Cycles multiplied together whose periods all divide a period P at most this many times
#: their shortest are one cycle of period P (``common_period``); further apart, the longer ones
#: modulate the shortest.
MAX_MULTIPLE = 6
#: The relative tolerance of ``common_period``'s whole multiples.
MULTIPLE_TOLERANCE = 0.005


def common_period(periods: Sequence[float]) -> float | None:
    """The shortest P = n·max(p), n = 1 .. ``MAX_MULTIPLE``, that every period p divides a
    whole number of times (within ``MULTIPLE_TOLERANCE``), with P ≤ MAX_MULTIPLE·min(p); None
    when there is none: cycles of 3 and 4 months repeat together every 12 months, cycles of 1
    and 10 years are a cycle and its modulation."""
    longest, shortest = max(periods), min(periods)
    for n in range(1, MAX_MULTIPLE + 1):
        period = n * longest
        if period > MAX_MULTIPLE * shortest * (1.0 + MULTIPLE_TOLERANCE):
            return None
        ratios = [period / p for p in periods]
        if all(abs(r - round(r)) <= MULTIPLE_TOLERANCE * r for r in ratios):
            return period
    return None


def common_cycle(periodic: Sequence[BaseKernel]) -> BaseKernel | None:
    """Periodic factors that repeat together (``common_period``) only at a period P longer
    than any of theirs read as one cycle of period P (3 and 4 months: a year; a daily cycle
    times a weekly one stays a daily cycle modulated weekly): the first factor with period P,
    its amplitude the product of theirs and, when it declares a lengthscale ℓ (relative to its
    period), the one that keeps the narrowest feature of theirs, ℓ = ℓ_k·p_k / P (features
    ℓ·p/2π wide); None otherwise."""
    periods = [k.param("period") for k in periodic]
    period = common_period(periods)
    if period is None or period <= max(periods) * (1.0 + MULTIPLE_TOLERANCE):
        return None  # the longest holds the others: it modulates the shortest (1 day, 1 week)
    lead = periodic[0]
    values = dict(zip(lead.own_names, lead.own_values, strict=True))
    values["period"] = period
    if "sd" in values:
        values["sd"] = math.prod(k.param("sd") for k in periodic if "sd" in k.own_names)
    scaled = [
        k.param("lengthscale") * k.param("period") for k in periodic if "lengthscale" in k.own_names
    ]
    if "lengthscale" in values and scaled:
        values["lengthscale"] = min(scaled) / period
    return lead.with_own_values([values[name] for name in lead.own_names])


#: Change factors switch a component within the data when its amplitude, Π g(x), falls below
#: this share of its largest value somewhere in the data; above it everywhere, they only rescale
#: it there (a window far softer than the data's span, a changepoint beyond the data's end). A
#: change factor is on where its Π g(x) is at least this share of 1.
SWITCH_SHARE = 0.5
#: A constant's change factors are said when Π g(x) moves by more than this share of its largest
#: value across the data, since its curve, c·Π g(x), shows that change (a level that a gate
#: halves is no constant). The share beyond which a cycle's amplitude is no longer called
#: steady (``curves.AMPLITUDE_SHARE``).
STEADY_SHARE = 0.25


def gate_amplitude(gates: Sequence[BaseKernel], x: np.ndarray) -> np.ndarray:
    """The component's amplitude from its change factors, Π g(x), at ``x``."""
    amplitude = np.ones_like(x, dtype=float)
    for gate in gates:
        amplitude = amplitude * gate.modulator(x)  # type: ignore[attr-defined]
    return amplitude


def acts_in_data(
    gates: Sequence[BaseKernel], x_data: np.ndarray, share: float = SWITCH_SHARE
) -> bool:
    """Whether min Π g(x) < share · max Π g(x) over the data's x (True without data)."""
    x = np.asarray(x_data, dtype=float)
    if x.size == 0:
        return True
    amplitude = gate_amplitude(gates, x)
    return bool(amplitude.min() < share * amplitude.max())


def noise_terms(kernel: Kernel) -> list[Factors]:
    """The terms of a sum whose every term is noise (decompose merges them into one
    component); empty for anything else."""
    if not isinstance(kernel, Sum):
        return []
    terms = [factors_of(k) for k in kernel.operands]
    if any(t is None or t.head != "noise" for t in terms):
        return []
    return terms  # type: ignore[return-value]


def product_lengthscale(smooth: list[BaseKernel]) -> float:
    """The lengthscale of a product of smooth factors: 1/ℓ² adds up, ℓ = (Σ ℓ_k⁻²)^(-1/2)."""
    return float(sum(k.param("lengthscale") ** -2 for k in smooth) ** -0.5)


@dataclass(frozen=True)
class Interval:
    """An interval of x where a component is on; each end keeps its switch's steepness."""

    low: float
    high: float
    low_steep: float = 0.0
    high_steep: float = 0.0


def _gate_intervals(gate: BaseKernel) -> list[Interval]:
    """Where one change factor is switched on (a switch at its location, of its steepness), as
    the gate declares it."""
    return [Interval(*span) for span in gate.switched_on()]  # type: ignore[attr-defined]


def _intersect(a: list[Interval], b: list[Interval]) -> list[Interval]:
    """The intersections of two sets of intervals, sorted; each end keeps its own steepness."""
    out = []
    for p in a:
        for q in b:
            low, low_s = (p.low, p.low_steep) if p.low >= q.low else (q.low, q.low_steep)
            high, high_s = (p.high, p.high_steep) if p.high <= q.high else (q.high, q.high_steep)
            if low < high:
                out.append(Interval(low, high, low_s, high_s))
    return sorted(out, key=lambda i: i.low)


def on_intervals(gates: Sequence[BaseKernel]) -> list[Interval]:
    """Where the product of the change factors is switched on, as sorted intervals."""
    on = [Interval(-math.inf, math.inf)]
    for gate in gates:
        on = _intersect(on, _gate_intervals(gate))
    return on


def sharp_gates(gates: Sequence[BaseKernel], x_data: np.ndarray | None) -> list[BaseKernel]:
    """The change factors that switch rather than scale: each finite switch of theirs no wider
    (2 × steepness) than ``GRADUAL_SHARE`` of the data's span nor than the interval or the gap it
    bounds (:func:`_switches`).
    All of them without data. A gate softer than that (a changepoint whose switch takes as long
    as the data) scales the component gradually; intersected with a sharp one it would leave
    an empty interval and call a live component switched off."""
    if x_data is None or len(x_data) < 2:
        return list(gates)
    span = float(np.ptp(x_data))
    return [gate for gate in gates if _switches(_gate_intervals(gate), GRADUAL_SHARE * span)]


def _switches(on: list[Interval], longest: float) -> bool:
    """Whether every finite switch of the intervals ``on`` (2 × steepness wide) is no wider than
    ``longest``, than the interval it bounds, or than the gap it bounds between two intervals:
    a window's sides of 6.5 years around a 4-year gap dip the component, never switch it off."""
    on = sorted(on, key=lambda i: i.low)
    gaps = [b.low - a.high for a, b in zip(on, on[1:], strict=False)]
    for k, i in enumerate(on):
        before = gaps[k - 1] if k > 0 else math.inf
        after = gaps[k] if k < len(gaps) else math.inf
        for end, steep, gap in ((i.low, i.low_steep, before), (i.high, i.high_steep, after)):
            if math.isfinite(end) and 2.0 * steep > min(longest, i.high - i.low, gap):
                return False
    return True


def on_in_data(gates: Sequence[BaseKernel], x_data: np.ndarray | None) -> list[Interval]:
    """``on_intervals`` of the ``sharp_gates`` without those wholly outside the data: ending,
    switch included (one steepness), before its first x or beginning after its last (a
    window's side that lies beyond the data's start). All of them without data, or when none
    would be left."""
    on = on_intervals(sharp_gates(gates, x_data))
    if x_data is None or len(x_data) == 0:
        return on
    first, last = float(np.min(x_data)), float(np.max(x_data))
    inside = [i for i in on if i.high + i.high_steep > first and i.low - i.low_steep < last]
    return inside or on


def stated_intervals(gates: Sequence[BaseKernel], x_data: np.ndarray | None) -> list[Interval]:
    """``on_in_data`` as the report states it: an end lying beyond the data (a window that
    closes after the last x, or opened before the first) is left open, since the data cannot
    tell it: 'from 1898 onwards', not 'between 1898 and 1989' of data ending in 1970."""
    on = on_in_data(gates, x_data)
    if x_data is None or len(x_data) == 0:
        return on
    first, last = float(np.min(x_data)), float(np.max(x_data))
    return [
        Interval(
            -math.inf if i.low <= first else i.low,
            math.inf if i.high >= last else i.high,
            i.low_steep,
            i.high_steep,
        )
        for i in on
    ]


#: A switch wider (2 × steepness) than this share of the data's span, or than the interval
#: or gap it bounds, changes the component gradually rather than switching it: a window of four
#: weeks whose sides take a year is a slow rise and fall, not a window.
GRADUAL_SHARE = 0.25


def is_gradual(gates: Sequence[BaseKernel], x_data: np.ndarray | None) -> bool:
    """Whether the change factors scale the component gradually rather than switch it: some
    are not ``sharp_gates`` and the sharp ones do not switch it within the data, or some
    switch of the intervals within the data (``on_in_data``) is wider than ``GRADUAL_SHARE``
    of the data's span or than the interval or gap it bounds (False without data)."""
    if x_data is None or len(x_data) < 2:
        return False
    sharp = sharp_gates(gates, x_data)
    if len(sharp) < len(gates):
        ends = [e for i in stated_intervals(gates, x_data) for e in (i.low, i.high)]
        if not any(math.isfinite(e) for e in ends):
            return True
    return not _switches(on_in_data(gates, x_data), GRADUAL_SHARE * float(np.ptp(x_data)))


def gate_profile(gates: Sequence[BaseKernel], x_data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``gate_amplitude`` on 401 points across the data: (x, amplitude)."""
    xs = np.linspace(float(np.min(x_data)), float(np.max(x_data)), 401)
    return xs, gate_amplitude(gates, xs)


def switch_precision(steepness: float, spacing: float | None) -> float:
    """How precisely to print a switch: its width (2 steepness), never finer than the data."""
    width = 2.0 * steepness
    return max(width, spacing) if spacing else width
