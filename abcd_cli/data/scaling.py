"""Internal units for conditioning, and the way back to the user's units.

The fitter works on x_s = (x - x_shift) / x_scale and y_s = (y - y_shift) / y_scale. A kernel k_s
fitted there is the user-unit kernel k(x, x') = y_scale² k_s(x_s, x_s'); each parameter converts by
its unit kind (``Kernel.units``). The log likelihood of y is that of y_s minus n·log(y_scale).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from abcd_cli.kernels import Kernel
from abcd_cli.kernels.algebra import scale_kernel


@dataclass(frozen=True)
class Scaling:
    """Affine maps x = x_shift + x_scale·x_s and y = y_shift + y_scale·y_s."""

    x_shift: float = 0.0
    x_scale: float = 1.0
    y_shift: float = 0.0
    y_scale: float = 1.0

    @classmethod
    def from_data(cls, x: np.ndarray, y: np.ndarray, centre_y: bool = True) -> Scaling:
        """Centre x, and y unless ``centre_y`` is False (the GP's prior mean is then zero in the
        user's units, as in the original system); scale each by its standard deviation."""
        x = np.asarray(x, dtype=float)
        y = np.asarray(y, dtype=float)
        x_scale = float(np.std(x)) or 1.0
        y_scale = float(np.std(y)) or 1.0
        y_shift = float(np.mean(y)) if centre_y else 0.0
        return cls(float(np.mean(x)), x_scale, y_shift, y_scale)

    def x_in(self, x: np.ndarray) -> np.ndarray:
        return (np.asarray(x, dtype=float) - self.x_shift) / self.x_scale

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
        return _transform(
            kernel, -self.x_shift / self.x_scale, 1.0 / self.x_scale, self.y_scale**-2
        )


def _transform(kernel: Kernel, shift: float, scale: float, variance: float) -> Kernel:
    """Re-express k for inputs x' = shift + scale·x, multiplied by ``variance``."""
    return scale_kernel(_transform_x(kernel, shift, scale), variance)


def _transform_x(kernel: Kernel, shift: float, scale: float) -> Kernel:
    ops = [_transform_x(k, shift, scale) for k in kernel.operands]
    if kernel.own_values:
        values = []
        for v, unit in zip(kernel.own_values, kernel.units, strict=True):
            if unit == "length":
                v = v * scale
            elif unit == "location":
                v = shift + scale * v
            elif unit == "scale_per_x":
                v = v / scale
            values.append(v)
        kernel = kernel.with_own_values(values)
    return kernel.with_operands(ops) if ops else kernel
