"""Where one ``nll_and_grad`` call of the engine benchmark spends its time: each step re-done
alone, the kernel recursion by top-level term, CPU time and page faults, and a cProfile."""

from __future__ import annotations

import cProfile
import io
import pstats
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_solve
from scipy.linalg.lapack import dpotri

from abcd_cli.engines.cholesky import cholesky_factor as _cholesky
from abcd_cli.engines.cholesky import inverse_from_cholesky as _inverse_from_cholesky
from abcd_cli.engines.exact import nll_and_grad
from abcd_cli.kernels import Inputs, Kernel
from benchmarks.common import ROOT
from benchmarks.engines.gp_common import median_time


@dataclass
class Breakdown:
    """Where one ``nll_and_grad`` call spends its time."""

    steps: list[tuple[str, float]]  # (step, seconds); the last entry is the whole call
    operands: list[tuple[str, float]]  # kernel recursion of each top-level term
    user_ms: float  # CPU time per whole call (all threads)
    sys_ms: float  # kernel (system) time per whole call
    minor_faults: float  # page faults per whole call


def step_times(
    kernel: Kernel, theta: np.ndarray, X: np.ndarray, Y: np.ndarray, repeats: int
) -> list[tuple[str, float]]:
    """Median time of each step of a likelihood-and-gradient evaluation, re-done here step by
    step on the forward-mode route: gram_grad = the kernel recursion (``evaluate``) plus
    ``np.stack`` of the derivative slices, then the dK·W contraction; the inverse = LAPACK
    dpotri plus the symmetrising ``tril`` copies. ``engines.exact.nll_and_grad`` itself takes
    the reverse-mode route (``Kernel.vjp``), which builds no derivative slices.
    """
    k = kernel.with_theta(theta)
    K, dK_list = k.evaluate(Inputs(X), grad=True)
    dK = np.stack(dK_list)
    L = _cholesky(K)
    if L is None:
        raise SystemExit("breakdown: K cannot be factorised at the benchmark parameters")
    alpha = cho_solve((L, True), Y, check_finite=False)
    W = _inverse_from_cholesky(L)

    def recursion() -> None:
        k.evaluate(Inputs(X), grad=True)

    def contraction() -> None:
        W2 = W - np.outer(alpha, alpha)
        0.5 * (dK.reshape(len(dK), -1) @ W2.ravel())

    steps: list[tuple[str, Callable[[], object]]] = [
        ("with_theta (rebuild kernel)", lambda: kernel.with_theta(theta)),
        ("kernel recursion `evaluate(grad=True)`", recursion),
        ("`np.stack` of dK slices", lambda: np.stack(dK_list)),
        ("`_cholesky` (isfinite + mean + cholesky)", lambda: _cholesky(K)),
        ("`cho_solve` for alpha + NLL", lambda: cho_solve((L, True), Y, check_finite=False)),
        ("`dpotri` (LAPACK inverse)", lambda: dpotri(L, lower=1)),
        ("symmetrise (`tril` + `tril.T`)", lambda: _inverse_from_cholesky(L)),
        ("W -= ααᵀ and contraction dK·W", contraction),
    ]
    out = [(label, median_time(fn, repeats)) for label, fn in steps]
    # the symmetrise step above timed dpotri too; keep only the copies
    inv_total = out[6][1]
    out[6] = (out[6][0], max(inv_total - out[5][1], 0.0))
    return out


def operand_times(
    kernel: Kernel, theta: np.ndarray, X: np.ndarray, repeats: int
) -> list[tuple[str, float]]:
    """Median time of the kernel recursion of each top-level term (none for a single term)."""
    k = kernel.with_theta(theta)
    operands: list[tuple[str, float]] = []
    if k.operands:
        cached = Inputs(X)
        cached.diff(0)  # shared by the terms; computed once per Gram evaluation
        for term in k.operands:
            operands.append(
                (
                    f"`{term.structure}`",
                    median_time(lambda t=term: t.evaluate(cached, True), repeats),
                )
            )
    return operands


def breakdown(
    kernel: Kernel, theta: np.ndarray, X: np.ndarray, Y: np.ndarray, repeats: int
) -> Breakdown:
    """The steps of one ``nll_and_grad`` call, the whole call (median of ``repeats`` after a
    warm-up, with its CPU time and page faults per call) and the terms' recursions."""
    steps = step_times(kernel, theta, X, Y, repeats)
    whole: list[float] = []
    nll_and_grad(theta, kernel, X, Y)
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    for _ in range(repeats):
        t0 = time.perf_counter()
        nll_and_grad(theta, kernel, X, Y)
        whole.append(time.perf_counter() - t0)
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    steps.append(("whole `nll_and_grad`", float(np.median(whole))))
    return Breakdown(
        steps=steps,
        operands=operand_times(kernel, theta, X, repeats),
        user_ms=(r1.ru_utime - r0.ru_utime) / repeats * 1e3,
        sys_ms=(r1.ru_stime - r0.ru_stime) / repeats * 1e3,
        minor_faults=(r1.ru_minflt - r0.ru_minflt) / repeats,
    )


def profile_text(
    kernel: Kernel, theta: np.ndarray, X: np.ndarray, Y: np.ndarray, calls: int
) -> str:
    """cProfile of ``calls`` calls of ``nll_and_grad``: the 14 functions with the most own time,
    paths relative to the project and the interpreter's prefix."""
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        nll_and_grad(theta, kernel, X, Y)
    prof.disable()
    buf = io.StringIO()
    stats = pstats.Stats(prof, stream=buf).sort_stats("tottime")
    stats.print_stats(14)
    text = buf.getvalue()
    text = text.replace(str(ROOT) + "/", "").replace(sys.prefix + "/", "")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return "\n".join(lines)
