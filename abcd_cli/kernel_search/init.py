"""Where parameters start and where they may go, read off the data.

All numbers here are in the fitter's internal units (``scaling.Scaling``). Every distribution is
built from the data's spacing, range, spread and spectrum, so nothing depends on the unit of x.
Each parameter's start, bounds and validity rule are declared once, on its kernel class
(``abcd_cli.kernels.params``); this module applies them in theta order to the data's summary
(``abcd_cli.data.summary``).
"""

from __future__ import annotations

import math

import numpy as np

from abcd_cli.data.summary import DataSummary, Summary
from abcd_cli.kernels import BASE_KERNELS, OPERATORS, BaseKernel, Kernel, Param
from abcd_cli.kernels.params import period_limits

__all__ = [
    "initial_values",
    "invalid_reason",
    "period_limits",
    "sample_value",
    "theta_bounds",
    "value_bounds",
]


def _spec(symbol: str, name: str) -> Param:
    """The declaration of parameter ``name`` of the kernel class called ``symbol``."""
    cls = BASE_KERNELS.get(symbol) or OPERATORS.get(symbol)
    if cls is None or name not in cls.names:
        raise ValueError(f"no parameter {symbol}.{name}")
    return cls.specs[cls.names.index(name)]


def sample_value(symbol: str, name: str, s: DataSummary, rng: np.random.Generator) -> float:
    """One random starting value for parameter ``name`` of a kernel of type ``symbol``."""
    return _spec(symbol, name).start(s, rng)


def value_bounds(symbol: str, name: str, s: DataSummary) -> tuple[float, float]:
    """Bounds of a parameter in natural units."""
    return _spec(symbol, name).bounds(s)


def theta_bounds(kernel: Kernel, s: Summary) -> list[tuple[float, float]]:
    """L-BFGS-B bounds on theta (log for positive parameters), each from the scales of the input
    dimension its kernel acts on."""
    out = []
    for spec, dim in kernel.param_specs():
        lo, hi = spec.bounds(s.for_dim(dim))
        out.append((math.log(lo), math.log(hi)) if spec.positive else (lo, hi))
    return out


def initial_values(
    kernel: Kernel, s: Summary, rng: np.random.Generator, keep_known: bool = True
) -> np.ndarray:
    """Natural-unit starting values: known values kept (if asked), unknown ones drawn (from the
    scales of the input dimension each kernel acts on)."""
    values = kernel.values()
    for i, (spec, dim) in enumerate(kernel.param_specs()):
        scales = s.for_dim(dim)
        if not keep_known or not math.isfinite(values[i]):
            values[i] = spec.start(scales, rng)
        lo, hi = spec.bounds(scales)
        values[i] = min(max(values[i], lo), hi)
    return values


def invalid_reason(kernel: Kernel, s: Summary) -> str:
    """Why a fitted model may not be reported ('' when it may): the first failed check of a
    declared parameter, base kernels first (periods must lie between two short spacings and half
    the range), then operators (changes must happen inside the data)."""
    operators = [k for k in kernel.nodes() if not isinstance(k, BaseKernel)]
    for node in [*kernel.bases(), *operators]:
        for (spec, dim), value in zip(node.own_specs(), node.own_values, strict=True):
            reason = spec.reason(value, s.for_dim(dim))
            if reason:
                return reason
    return ""
