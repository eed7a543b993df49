"""What a series is known to contain, and whether a chosen kernel found it.

A ``Truth`` is written in the series' own physical unit (days for hourly series, seconds for
the PPG, samples for ElectricDevices), measured from the series' start, together with the
positions of its first and last points in that unit. A kernel's parameters are in the units of
the model's x (decimal years for dates, or whatever the search made of the column), so the two
are tied through the data themselves: x = x_first + (u - first) · (x_last - x_first) /
(last - first), with x_first and x_last the model's first and last x. Nothing here assumes
how ``abcd`` converts dates.

A period p is found when some periodic node (Per, Cos) has |p_found / p - 1| ≤ its relative
tolerance; a change at c is found when some change (CP's location, either edge of a CW window,
location ∓ width/2, or the same on the gates Before/After/Outside/Inside) lies within its
tolerance of c.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from abcd_cli.kernels import Kernel
from abcd_cli.kernels.changes import CP, CW, After, Before, Inside, Outside
from abcd_cli.kernels.text import parse_kernel

WINDOWS = (CW, Outside, Inside)
POINTS = (CP, Before, After)


@dataclass(frozen=True)
class Period:
    """A period the model should find, in the truth's unit, with a relative tolerance."""

    name: str
    value: float
    tolerance: float = 0.02


@dataclass(frozen=True)
class Change:
    """A change the model should find, in the truth's unit from the start, ± ``tolerance``."""

    name: str
    value: float
    tolerance: float


@dataclass(frozen=True)
class Truth:
    """The known structure of one series (see the module docstring)."""

    unit: str
    first: float
    last: float
    periods: tuple[Period, ...] = ()
    changes: tuple[Change, ...] = ()
    description: str = ""
    source: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)

    @classmethod
    def from_dict(cls, d: dict) -> Truth:
        return cls(
            unit=d["unit"],
            first=float(d["first"]),
            last=float(d["last"]),
            periods=tuple(Period(**p) for p in d.get("periods", ())),
            changes=tuple(Change(**c) for c in d.get("changes", ())),
            description=d.get("description", ""),
            source=dict(d.get("source", {})),
        )

    @classmethod
    def read(cls, path: Path) -> Truth:
        return cls.from_dict(json.loads(path.read_text()))


@dataclass(frozen=True)
class Found:
    """What a kernel found of a truth: per period and change, the nearest value (in the
    truth's unit; None when the kernel has none) and whether it is within tolerance."""

    periods: tuple[tuple[Period, float | None, bool], ...]
    changes: tuple[tuple[Change, float | None, bool], ...]

    @property
    def all_periods(self) -> bool:
        return all(ok for _, _, ok in self.periods)

    @property
    def n_changes(self) -> int:
        return sum(ok for _, _, ok in self.changes)

    def summary(self) -> str:
        """``1 day yes (1.001); 7 days no (3.5); change yes (off by +0.2)``, values in the
        truth's unit."""
        parts = []
        for p, got, ok in self.periods:
            near = "none" if got is None else f"{got:.4g}"
            parts.append(f"{p.name} {'yes' if ok else 'no'} ({near})")
        for c, got, ok in self.changes:
            near = "none" if got is None else f"off by {got - c.value:+.3g}"
            parts.append(f"{c.name} {'yes' if ok else 'no'} ({near})")
        return "; ".join(parts)


def kernel_periods(kernel: Kernel) -> list[float]:
    """Every ``period`` parameter of the kernel's periodic nodes, in x units."""
    return [
        n.param("period")
        for n in kernel.nodes()
        if getattr(n, "role", None) == "periodic" and "period" in getattr(n, "names", ())
    ]


def kernel_changes(kernel: Kernel) -> list[float]:
    """Where the kernel changes, in x units: CP locations and both edges of CW windows (and of
    the gates the sum-of-products form writes for them)."""
    out: list[float] = []
    for n in kernel.nodes():
        if isinstance(n, WINDOWS):
            loc, width = n.param("location"), n.param("width")
            out += [loc - 0.5 * width, loc + 0.5 * width]
        elif isinstance(n, POINTS):
            out.append(n.param("location"))
    return [v for v in out if math.isfinite(v)]


def _nearest(values: Iterable[float], target: float, relative: bool) -> float | None:
    values = list(values)
    if not values:
        return None
    if relative:
        return min(values, key=lambda v: abs(math.log(abs(v) / target)) if v else math.inf)
    return min(values, key=lambda v: abs(v - target))


def check(kernel: Kernel | str, truth: Truth, x_first: float | None, x_last: float | None) -> Found:
    """Compare ``kernel`` (or its text) with ``truth``; ``x_first``/``x_last`` are the model's
    first and last x, the same points as ``truth.first``/``truth.last`` (None: x is already
    in the truth's unit, from its origin)."""
    k = parse_kernel(kernel) if isinstance(kernel, str) else kernel
    if x_first is None or x_last is None:
        scale, x0 = 1.0, truth.first
    else:
        scale = (x_last - x_first) / (truth.last - truth.first)  # x units per truth unit
        x0 = x_first
    periods = [p / scale for p in kernel_periods(k)]
    changes = [truth.first + (c - x0) / scale for c in kernel_changes(k)]
    found_p = []
    for p in truth.periods:
        near = _nearest(periods, p.value, relative=True)
        ok = near is not None and abs(near / p.value - 1.0) <= p.tolerance
        found_p.append((p, near, ok))
    found_c = []
    for c in truth.changes:
        near = _nearest(changes, c.value, relative=False)
        ok = near is not None and abs(near - c.value) <= c.tolerance
        found_c.append((c, near, ok))
    return Found(tuple(found_p), tuple(found_c))
