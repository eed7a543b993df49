"""Internal units for conditioning, and the way back to the user's units.

The fitter works on x_s = (x - x_shift) / x_scale, column by column (each input dimension d has
its own shift and scale), and y_s = (y - y_shift) / y_scale. A kernel k_s fitted there is the
user-unit kernel k(x, x') = y_scale² k_s(x_s, x_s'); each parameter converts by its unit kind
(``Kernel.own_specs``) with the shift and scale of the input dimension it acts on. The log
likelihood of y is that of y_s minus n·log(y_scale).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from abcd_cli.arrays import columns
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.algebra import scale_kernel


def _per_dim(value: float | Sequence[float]) -> tuple[float, ...]:
    return (float(value),) if np.ndim(value) == 0 else tuple(float(v) for v in value)


@dataclass(frozen=True)
class Scaling:
    """Affine maps x_d = x_shift_d + x_scale_d·x_s,d and y = y_shift + y_scale·y_s.

    ``x_shift`` and ``x_scale`` hold one number per input dimension (a single number is read
    as one dimension)."""

    x_shift: tuple[float, ...] = (0.0,)
    x_scale: tuple[float, ...] = (1.0,)
    y_shift: float = 0.0
    y_scale: float = 1.0

    def __post_init__(self) -> None:
        shift, scale = _per_dim(self.x_shift), _per_dim(self.x_scale)
        if len(shift) != len(scale):
            raise ValueError("x_shift and x_scale need one value per input dimension")
        object.__setattr__(self, "x_shift", shift)
        object.__setattr__(self, "x_scale", scale)
        object.__setattr__(self, "y_shift", float(self.y_shift))
        object.__setattr__(self, "y_scale", float(self.y_scale))

    @property
    def n_dims(self) -> int:
        return len(self.x_shift)

    @classmethod
    def from_data(cls, x: np.ndarray, y: np.ndarray, centre_y: bool = True) -> Scaling:
        """Centre each input column, and y unless ``centre_y`` is False (the GP's prior mean is
        then zero in the user's units, as in the original system); scale each by its standard
        deviation. ``x`` is (N,) for one input or (N, D)."""
        inputs = columns(x)
        y = np.asarray(y, dtype=float)
        y_scale = float(np.std(y)) or 1.0
        y_shift = float(np.mean(y)) if centre_y else 0.0
        shifts = tuple(float(np.mean(c)) for c in inputs)
        scales = tuple(float(np.std(c)) or 1.0 for c in inputs)
        return cls(shifts, scales, y_shift, y_scale)

    def _column_maps(
        self, x: np.ndarray
    ) -> tuple[np.ndarray, float | np.ndarray, float | np.ndarray]:
        """x as floats with the shift and scale that broadcast over it: scalars for a 1-D x
        (one input), one value per column for an (N, D) x."""
        x = np.asarray(x, dtype=float)
        if x.ndim < 2:
            if self.n_dims != 1:
                raise ValueError(f"x needs {self.n_dims} columns")
            return x, self.x_shift[0], self.x_scale[0]
        if x.shape[1] != self.n_dims:
            raise ValueError(f"x has {x.shape[1]} columns, the scaling {self.n_dims}")
        return x, np.array(self.x_shift), np.array(self.x_scale)

    def x_in(self, x: np.ndarray) -> np.ndarray:
        x, shift, scale = self._column_maps(x)
        return (x - shift) / scale

    def x_out(self, x_s: np.ndarray) -> np.ndarray:
        x_s, shift, scale = self._column_maps(x_s)
        return shift + scale * x_s

    def y_in(self, y: np.ndarray) -> np.ndarray:
        return (np.asarray(y, dtype=float) - self.y_shift) / self.y_scale

    def y_out(self, y_s: np.ndarray) -> np.ndarray:
        return self.y_shift + self.y_scale * np.asarray(y_s, dtype=float)

    def nll_out(self, nll_s: float, n: int) -> float:
        """-log p(y) = -log p(y_s) + n·log(y_scale)  (Jacobian of y = y_shift + y_scale·y_s;
        n counts the dimensions the density is over)."""
        return nll_s + n * math.log(self.y_scale)

    def kernel_out(self, kernel: Kernel) -> Kernel:
        """The internal-unit kernel expressed in the user's units."""
        return _transform(kernel, self.x_shift, self.x_scale, self.y_scale**2)

    def kernel_in(self, kernel: Kernel) -> Kernel:
        """A user-unit kernel expressed in internal units (inverse of ``kernel_out``)."""
        shifts = tuple(-s / c for s, c in zip(self.x_shift, self.x_scale, strict=True))
        scales = tuple(1.0 / c for c in self.x_scale)
        return _transform(kernel, shifts, scales, self.y_scale**-2)

    def to_dict(self) -> dict[str, float | list[float]]:
        """The JSON form: plain numbers for one input, lists of one per column for several."""
        one = self.n_dims == 1
        return {
            "x_shift": self.x_shift[0] if one else list(self.x_shift),
            "x_scale": self.x_scale[0] if one else list(self.x_scale),
            "y_shift": self.y_shift,
            "y_scale": self.y_scale,
        }

    @classmethod
    def from_dict(cls, d: dict) -> Scaling:
        """Inverse of ``to_dict``; TypeError/ValueError/KeyError on a malformed entry, ValueError
        for a shift that is not finite or a scale that is not finite and above 0."""
        scaling = cls(d["x_shift"], d["x_scale"], d["y_shift"], d["y_scale"])
        if not all(math.isfinite(v) for v in (*scaling.x_shift, scaling.y_shift)):
            raise ValueError("the scaling's shifts must be finite numbers")
        if not all(math.isfinite(v) and v > 0 for v in (*scaling.x_scale, scaling.y_scale)):
            raise ValueError("the scaling's scales must be finite numbers above 0")
        return scaling


def _transform(
    kernel: Kernel, shifts: tuple[float, ...], scales: tuple[float, ...], variance: float
) -> Kernel:
    """Re-express k for inputs x'_d = shifts_d + scales_d·x_d, multiplied by ``variance``."""
    return scale_kernel(_transform_x(kernel, shifts, scales), variance)


def _transform_x(kernel: Kernel, shifts: tuple[float, ...], scales: tuple[float, ...]) -> Kernel:
    ops = [_transform_x(k, shifts, scales) for k in kernel.operands]
    if kernel.own_values:
        values = []
        for v, (spec, dim) in zip(kernel.own_values, kernel.own_specs(), strict=True):
            unit, shift, scale = spec.unit, shifts[dim], scales[dim]
            if unit == "length":
                v = v * scale
            elif unit == "location":
                v = shift + scale * v
            elif unit == "scale_per_x":
                v = v / scale
            values.append(v)
        kernel = kernel.with_own_values(values)
    return kernel.with_operands(ops) if ops else kernel
