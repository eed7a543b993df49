"""The posterior's forecast band calibrated on the series' own past (issue 62).

A backtest (``kernel_search.backtest``) gives standardised errors z = (y − m̄)/s̄ with their
horizons h. The horizon (0, H] is cut into ``BANDS`` bands of equal length, and each band b
gets a factor f_b on the mixture's spread, past the data only:

- ``scale``: f_b = √(m_b − c·√(2/n)), m_b the mean of z² over the band, n the backtest's
  origins and c = ``SHRINK``: the factor making the band's mean square one, less the excess an
  honest band shows by chance. A forecast's errors along its horizon move together, so a band
  holds about one independent error per origin, and an honest band's m_b then has sd √(2/n)
  (a χ²_n/n); c such sds may be taken off before widening (the default c = 0: f_b = √m_b;
  measured in benchmarks/studies/outputs/calibration.md, c > 0 cost coverage where the
  structures miss);
- ``conformal``: f_b = |z|_(k) / z_0.975, |z|_(k) the k-th smallest of the band's n values,
  k = ⌈(n + 1)·0.95⌉ (the split-conformal quantile of a central 95% band), z_0.975 = 1.96.

``FLOOR`` (1: a band is widened, never narrowed) and the method are chosen by measurement
(docs/findings.md, benchmarks/studies/outputs/calibration.md). A prediction at x past the data's
last x_N, h = x − x_N, is widened about the mixture's mean: its sd by f(h) and each quantile q to
m̄ + f(h)·(q − m̄), f(h) the factor of the band holding h (the last band's past H; 1 at or
before x_N). Absent (``reason`` says why), the calibration changes nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: Bands the horizon is cut into.
BANDS = 3
#: The smallest factor the calibration gives (1: it may widen a band, never narrow it).
FLOOR = 1.0
#: Honest sampling sds of a band's mean square taken off before it widens the band (``scale``).
SHRINK = 0.0
#: The default method (see the module docstring).
METHOD = "scale"
METHODS = ("scale", "conformal")
#: z_0.975 of the standard normal: the half-width of a central 95% band in sds.
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Calibration:
    """Factors on the forecast's spread by horizon band: band b holds horizons in
    (edges[b−1], edges[b]] (edges[−1] = 0), in the input's units; how many forecast
    ``origins`` and ``errors`` made them, by which ``method``. With a ``reason`` it is absent:
    no bands, and the reason in words. ``h`` and ``z``: the backtest's horizons and
    standardised errors (for the report's figure); ``seconds``: the backtest's time (not in
    the model file, which one seed makes the same every time: the search's ``elapsed_seconds``
    include it)."""

    edges: tuple[float, ...] = ()
    factors: tuple[float, ...] = ()
    origins: int = 0
    errors: int = 0
    method: str = METHOD
    reason: str = ""
    h: np.ndarray = field(default_factory=lambda: np.zeros(0), compare=False, repr=False)
    z: np.ndarray = field(default_factory=lambda: np.zeros(0), compare=False, repr=False)
    seconds: float = field(default=0.0, compare=False)

    @property
    def present(self) -> bool:
        return not self.reason

    def factor_at(self, h: np.ndarray) -> np.ndarray:
        """f(h): 1 at h ≤ 0, the factor of the band holding h, the last band's past it."""
        h = np.asarray(h, dtype=float)
        if not self.present:
            return np.ones_like(h)
        bands = np.minimum(np.searchsorted(np.array(self.edges), h), len(self.factors) - 1)
        return np.where(h > 0, np.array(self.factors)[bands], 1.0)

    def widen(
        self, table: Mapping[str, np.ndarray], x: np.ndarray, data_end: float
    ) -> dict[str, np.ndarray]:
        """A predictive table (``mean``, ``sd``, quantiles ``q...``) at x (the time input)
        widened past ``data_end``: sd·f(h), quantiles m̄ + f(h)·(q − m̄)."""
        f = self.factor_at(np.asarray(x, dtype=float) - data_end)
        mean = table["mean"]
        out = {}
        for key, values in table.items():
            if key == "sd":
                out[key] = values * f
            elif key.startswith("q"):
                out[key] = mean + f * (values - mean)
            else:
                out[key] = values
        return out

    def to_dict(self) -> dict[str, Any]:
        if not self.present:
            return {"reason": self.reason}
        return {
            "method": self.method,
            "bands": [
                {"to": e, "factor": f} for e, f in zip(self.edges, self.factors, strict=True)
            ],
            "origins": self.origins,
            "errors": self.errors,
            "backtest": {"horizon": self.h.tolist(), "standardised_error": self.z.tolist()},
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Calibration:
        """The calibration :meth:`to_dict` wrote; ValueError naming what is wrong otherwise
        (the model file's check: ``calibration_problem``)."""
        problem = calibration_problem(d)
        if problem:
            raise ValueError(problem)
        if "reason" in d:
            return cls(reason=d["reason"])
        bands = d["bands"]
        backtest = d["backtest"]
        return cls(
            tuple(float(b["to"]) for b in bands),
            tuple(float(b["factor"]) for b in bands),
            int(d["origins"]),
            int(d["errors"]),
            str(d["method"]),
            h=np.array(backtest["horizon"], dtype=float),
            z=np.array(backtest["standardised_error"], dtype=float),
        )


def calibration_problem(d: object) -> str:
    """What is wrong with a model file's ``calibration`` ("" when nothing)."""
    if not isinstance(d, Mapping):
        return "must be an object"
    if "reason" in d:
        if set(d) != {"reason"} or not isinstance(d["reason"], str) or not d["reason"]:
            return "an absent calibration holds only its reason, a non-empty text"
        return ""
    if set(d) - {"method", "bands", "origins", "errors", "backtest"}:
        return "has unknown keys"
    if d.get("method") not in METHODS:
        return f"method must be one of {', '.join(METHODS)}"
    for key in ("origins", "errors"):
        v = d.get(key)
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            return f"{key} must be a whole number of at least 1"
    bands = d.get("bands")
    if not isinstance(bands, list) or not bands:
        return "bands must be a non-empty list"
    edges, factors = [], []
    for b in bands:
        if not isinstance(b, Mapping) or set(b) != {"to", "factor"}:
            return "each band must hold 'to' and 'factor'"
        if not all(_finite(b[k]) for k in ("to", "factor")):
            return "a band's 'to' and 'factor' must be finite numbers"
        edges.append(float(b["to"]))
        factors.append(float(b["factor"]))
    if edges[0] <= 0 or np.any(np.diff(edges) <= 0):
        return "the bands' ends must be positive and increasing"
    if any(f <= 0 for f in factors):
        return "a band's factor must be positive"
    backtest = d.get("backtest")
    if not isinstance(backtest, Mapping) or set(backtest) != {"horizon", "standardised_error"}:
        return "backtest must hold 'horizon' and 'standardised_error'"
    h, z = backtest["horizon"], backtest["standardised_error"]
    if not (isinstance(h, list) and isinstance(z, list) and len(h) == len(z)):
        return "the backtest's horizons and errors must be lists of one length"
    if not all(_finite(v) for v in h + z):
        return "the backtest's horizons and errors must be finite numbers"
    return ""


def _finite(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def band_factor(
    z: np.ndarray,
    method: str = METHOD,
    floor: float = FLOOR,
    origins: int = 1,
    shrink: float = SHRINK,
) -> float:
    """One band's factor from its standardised errors ``z`` made at ``origins`` forecast
    origins (module docstring; ``shrink`` is c, for ``scale``), at least ``floor``."""
    z = np.asarray(z, dtype=float)
    if method == "scale":
        f = math.sqrt(max(float(np.mean(z**2)) - shrink * math.sqrt(2 / origins), 0.0))
    elif method == "conformal":
        a = np.sort(np.abs(z))
        k = min(math.ceil((a.size + 1) * 0.95), a.size)
        f = float(a[k - 1]) / Z95
    else:
        raise ValueError(f"unknown calibration method {method!r}")
    return max(f, floor)


def horizon_bands(h: np.ndarray, horizon: float) -> tuple[tuple[float, ...], np.ndarray]:
    """The ends of the ``BANDS`` equal bands of (0, ``horizon``] and the band of each h (the
    last band's past ``horizon``)."""
    edges = tuple(horizon * (b + 1) / BANDS for b in range(BANDS))
    return edges, np.minimum(np.searchsorted(np.array(edges), h), BANDS - 1)


def calibrate(
    h: np.ndarray,
    z: np.ndarray,
    horizon: float,
    origins: int,
    method: str = METHOD,
    floor: float = FLOOR,
    seconds: float = 0.0,
    shrink: float = SHRINK,
) -> Calibration:
    """The calibration of a backtest's errors ``z`` at horizons ``h`` from ``origins`` forecast
    origins over (0, ``horizon``] cut into ``BANDS`` equal bands (a band without errors takes
    its nearer neighbour's)."""
    h, z = np.asarray(h, dtype=float), np.asarray(z, dtype=float)
    edges, band = horizon_bands(h, horizon)
    factors: list[float | None] = [
        band_factor(z[band == b], method, floor, origins, shrink) if np.any(band == b) else None
        for b in range(BANDS)
    ]
    filled = [f for f in factors if f is not None]
    last = filled[0]
    out = []
    for f in factors:
        last = f if f is not None else last
        out.append(last)
    return Calibration(edges, tuple(out), origins, int(z.size), method, h=h, z=z, seconds=seconds)
