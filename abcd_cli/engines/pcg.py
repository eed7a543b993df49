"""Preconditioned conjugate gradients (CG, not CGS) on several right-hand sides at once, each
column stopped by a certificate computed from its true residual.

Solving C α = y for symmetric positive definite C is minimising φ(α) = ½ αᵀCα - αᵀy, whose
minimum is -½ yᵀC⁻¹y (SKC paper eq. 4: φ(α) bounds it from above for every α). With the true
residual r = y - Cα, φ(α) - min φ = ½ rᵀC⁻¹r, and for a preconditioner M ⪯ C (here
M = Q + D ⪯ K + D) that is at most ½ rᵀM⁻¹r: the certificate. CG's recursively updated
residual drifts from the true one in floating point, so a column counts as converged only when
the certificate of its true residual y - Cα (one more product) is within its tolerance; until
then the iteration restarts from there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

Operator = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Solution:
    """α (N×k), the true residual r = y - Cα, the certificates ½ rᵀM⁻¹r per column, the
    products with C made (true residuals included), and whether every column converged."""

    alpha: np.ndarray
    residual: np.ndarray
    certificate: np.ndarray
    products: int
    converged: bool


def _cg_steps(
    matvec: Operator,
    precond: Operator,
    alpha: np.ndarray,
    r: np.ndarray,
    tol: np.ndarray,
    budget: int,
) -> int:
    """Plain PCG iterations from (α, r) in place, until every column's recursive certificate
    ½ rᵀM⁻¹r is within ``tol`` or ``budget`` products are spent; returns the products made."""
    z = precond(r)
    rz = np.sum(r * z, axis=0)
    p = z.copy()
    made = 0
    while made < budget:
        active = 0.5 * rz > tol
        if not active.any():
            break
        q = matvec(p)
        made += 1
        pq = np.sum(p * q, axis=0)
        ok = active & (pq > 0)
        step = np.where(ok, rz / np.where(ok, pq, 1.0), 0.0)
        alpha += step * p
        r -= step * q
        z = precond(r)
        rz_new = np.sum(r * z, axis=0)
        ratio = np.where(ok & (rz > 0), rz_new / np.where(rz > 0, rz, 1.0), 0.0)
        p = z + ratio * p
        rz = rz_new
    return made


def pcg(
    matvec: Operator,
    precond: Operator,
    rhs: np.ndarray,
    tol: np.ndarray,
    max_products: int,
    alpha0: np.ndarray | None = None,
) -> Solution:
    """Solve C α = rhs column by column (C through ``matvec``, M⁻¹ through ``precond``, both on
    N×k arrays) until ½ rᵀM⁻¹r ≤ ``tol`` (per column) for the true residual, or until about
    ``max_products`` products with C."""
    tol = np.broadcast_to(np.asarray(tol, dtype=float), (rhs.shape[1],))
    alpha = np.zeros_like(rhs) if alpha0 is None else alpha0.copy()
    r = rhs.copy() if alpha0 is None else rhs - matvec(alpha)
    products = 0 if alpha0 is None else 1
    while True:
        cert = 0.5 * np.sum(r * precond(r), axis=0)
        converged = bool(np.all(cert <= tol))
        if converged or products >= max_products:
            return Solution(alpha, r, cert, products, converged)
        products += _cg_steps(matvec, precond, alpha, r, tol, max_products - products)
        r = rhs - matvec(alpha)  # the true residual, not the recursive one
        products += 1
