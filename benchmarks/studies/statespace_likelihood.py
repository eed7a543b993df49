"""Issue 54, first step: the state-space (Kalman) log likelihood against the dense one.

Prints, and writes as Markdown with the command that made it:

1. accuracy against the expansion order: |Δ log p| (nats, N = 500 on a regular grid, data
   drawn from the model) for SE at Taylor orders 8-24 and for Per at dropped-weight tolerances
   1e-2 … 1e-6, over lengthscale / spacing (SE) or unitless lengthscale (Per) and noise sd;
2. time per log-likelihood evaluation against N (10³ … 10⁵, 10⁶ with ``--million``) for kernels
   of several state sizes, beside the dense engine's up to N = 4,000;
3. time against the state size d at N = 10⁵;
4. the first call's compile time of the numba filter in a fresh process with an empty cache,
   and with the cache that first process wrote;
5. the 13 benchmark series' chosen kernels: their state sizes at the default orders and the
   Kalman value against the dense one (or why they have no form).

    OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.studies.statespace_likelihood \\
        --out benchmarks/studies/outputs/statespace_likelihood.md
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from abcd_cli.engines.exact import negative_log_likelihood as dense_nll
from abcd_cli.engines.statespace.forms import (
    NoStateSpaceForm,
    Orders,
    state_space_form,
)
from abcd_cli.engines.statespace.kalman import form_negative_log_likelihood
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.text import parse_kernel

N_ACCURACY = 500
SE_ORDERS = (8, 10, 12, 14, 16, 18, 20, 22, 24)
SE_RATIOS = (1, 3, 10, 30, 100)  # lengthscale / spacing
PER_TOLERANCES = (1e-3, 1e-4, 1e-6, 1e-8, 1e-10, 1e-12)
PER_LENGTHSCALES = (0.3, 0.5, 1.0, 2.0, 5.0)  # unitless
PER_PERIOD_POINTS = 25  # points per period
NOISES = (0.1, 0.03, 0.01)  # noise sd, the signal's sd being 1
MODELS = "benchmarks/accuracy/outputs/peers/models/*.json"


def _draw(kernel: Kernel, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    K = kernel.gram(x)
    return np.linalg.cholesky(K + 1e-9 * np.eye(x.size)) @ rng.standard_normal(x.size)


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _error_table(
    name: str,
    cases: list[tuple[str, Kernel]],
    settings: list[tuple[str, Orders]],
) -> str:
    rng = np.random.default_rng(0)
    x = np.linspace(0.0, 1.0, N_ACCURACY)
    rows, worst = [], np.zeros(len(settings))
    for label, kernel in cases:
        y = _draw(kernel, x, rng)
        exact = dense_nll(kernel, x, y)
        errors = []
        for j, (_, orders) in enumerate(settings):
            try:
                err = abs(
                    form_negative_log_likelihood(state_space_form(kernel, orders), x, y) - exact
                )
            except NoStateSpaceForm:
                err = float("nan")
            errors.append(err)
            worst[j] = max(worst[j], err) if np.isfinite(err) else worst[j]
        rows.append([label] + [f"{e:.1e}" for e in errors])
    rows.append(["**largest**"] + [f"**{w:.1e}**" for w in worst])
    return _table([name] + [s for s, _ in settings], rows)


def se_accuracy() -> str:
    spacing = 1.0 / (N_ACCURACY - 1)
    cases = [
        (
            f"ℓ/Δx = {r}, noise {s:g}",
            parse_kernel(f"SE(lengthscale={r * spacing!r}, sd=1.0) + WN(sd={s!r})"),
        )
        for s in NOISES
        for r in SE_RATIOS
    ]
    settings = [(f"order {o}", Orders(se=o)) for o in SE_ORDERS]
    return _error_table("SE + WN", cases, settings)


def per_accuracy() -> str:
    period = PER_PERIOD_POINTS / (N_ACCURACY - 1)
    cases = [
        (
            f"ℓ = {ell:g}, noise {s:g}",
            parse_kernel(f"Per(lengthscale={ell!r}, period={period!r}, sd=1.0) + WN(sd={s!r})"),
        )
        for s in NOISES
        for ell in PER_LENGTHSCALES
    ]
    settings = [(f"tol {t:g}", Orders(per_tolerance=t, max_harmonics=200)) for t in PER_TOLERANCES]
    table = _error_table(f"Per + WN ({PER_PERIOD_POINTS} points a period)", cases, settings)
    from abcd_cli.engines.statespace.periodic import harmonics

    counts = [
        [f"ℓ = {ell:g}"] + [str(harmonics(ell, t)) for t in PER_TOLERANCES]
        for ell in PER_LENGTHSCALES
    ]
    return (
        table
        + "\n\nHarmonics J kept (d = 2J):\n\n"
        + _table(["lengthscale"] + [f"tol {t:g}" for t in PER_TOLERANCES], counts)
    )


def _timed(f: Callable[[], float], repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return best


TIMING_KERNELS = (
    "SE(lengthscale=0.05, sd=1.0) + WN(sd=0.1)",
    "Lin(sd=0.5, location=0.2) * SE(lengthscale=0.05, sd=1.0)"
    " + Per(lengthscale=1.0, period=0.01, sd=1.0) + C(sd=1.0) + WN(sd=0.1)",
    "Per(lengthscale=1.0, period=0.01, sd=1.0) + Per(lengthscale=2.0, period=0.1, sd=1.0)"
    " + SE(lengthscale=0.3, sd=1.0) + WN(sd=0.1)",
)


def time_vs_n(sizes: tuple[int, ...]) -> str:
    rng = np.random.default_rng(1)
    forms = [state_space_form(parse_kernel(t)) for t in TIMING_KERNELS]
    header = ["N"] + [f"kernel {i + 1} (d = {f.size})" for i, f in enumerate(forms)]
    header += ["kernel 2, irregular x", "dense, kernel 2"]
    rows = []
    for n in sizes:
        x = np.linspace(0.0, 1.0, n)
        y = rng.standard_normal(n)
        row = [f"{n:,}"]
        for f in forms:
            form_negative_log_likelihood(f, x[:10], y[:10])
            row.append(f"{_timed(lambda f=f, x=x, y=y: form_negative_log_likelihood(f, x, y)):.4f}")
        xr = np.sort(rng.uniform(0.0, 1.0, n))
        row.append(
            f"{_timed(lambda x=xr, y=y: form_negative_log_likelihood(forms[1], x, y), 1):.4f}"
        )
        if n <= 4000:
            k = forms[1].kernel
            row.append(f"{_timed(lambda k=k, x=x, y=y: dense_nll(k, x, y), 1):.4f}")
        else:
            row.append("—")
        rows.append(row)
    kernels = "\n".join(f"{i + 1}. `{t}`" for i, t in enumerate(TIMING_KERNELS))
    return (
        kernels + "\n\nSeconds per evaluation (best of 3; one thread):\n\n" + _table(header, rows)
    )


def time_vs_d(n: int) -> str:
    rng = np.random.default_rng(2)
    x = np.linspace(0.0, 1.0, n)
    y = rng.standard_normal(n)
    se = "SE(lengthscale=0.05, sd=1.0) + WN(sd=0.1)"
    cases = [(f"SE order {o} + WN", se, Orders(se=o)) for o in (4, 8, 12, 16, 20, 24)]
    for ell in (2.0, 1.0, 0.7, 0.5, 0.4):
        per = f"Per(lengthscale={ell}, period=0.01, sd=1.0) + WN(sd=0.1)"
        cases.append((f"Per ℓ = {ell:g} + WN", per, Orders()))
    product = "SE(lengthscale=0.3, sd=1.0) * Per(lengthscale=1.0, period=0.01, sd=1.0) + WN(sd=0.1)"
    for o in (2, 4, 8):
        orders = Orders(se=o, per_tolerance=1e-4)  # 5 harmonics
        cases.append((f"SE(order {o}) × Per(ℓ = 1, 5 harmonics) + WN", product, orders))
    rows = []
    for label, text, orders in cases:
        f = state_space_form(parse_kernel(text), orders)
        form_negative_log_likelihood(f, x[:10], y[:10])
        t = _timed(lambda f=f: form_negative_log_likelihood(f, x, y), 3 if f.size < 40 else 1)
        rows.append([label, str(f.size), f"{t:.4f}", f"{t / n * 1e9:.0f}"])
    return _table(["kernel", "d", f"seconds at N = {n:,}", "ns per point"], rows)


_COMPILE_SNIPPET = """
import time, numpy as np
t0 = time.perf_counter()
from abcd_cli.engines.statespace.kalman import negative_log_likelihood
from abcd_cli.kernels.text import parse_kernel
t1 = time.perf_counter()
k = parse_kernel("SE(lengthscale=0.3, sd=1.0) + WN(sd=0.1)")
x = np.linspace(0, 1, 100)
negative_log_likelihood(k, x, np.sin(x))
t2 = time.perf_counter()
negative_log_likelihood(k, x, np.sin(x))
t3 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2)
"""


def compile_times() -> str:
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for label in ("empty cache (compiles)", "cache written by the first run"):
            out = subprocess.run(
                [sys.executable, "-c", _COMPILE_SNIPPET], env=env, capture_output=True,
                text=True, check=True,
            ).stdout.split()  # fmt: skip
            imp, first, second = (float(v) for v in out)
            rows.append([label, f"{imp:.2f}", f"{first:.3f}", f"{second * 1e3:.2f} ms"])
    return _table(["new process", "import (s)", "first call (s)", "second call"], rows)


def benchmark_kernels() -> str:
    import abcd_cli

    rows = []
    for path in sorted(glob.glob(MODELS)):
        model = abcd_cli.read_model(path).model
        x = model.scaling.x_in(model.X)[:, 0]
        y = model.scaling.y_in(model.y)
        name = Path(path).stem.replace("-extrap", "")
        try:
            form = state_space_form(model.kernel)
        except NoStateSpaceForm as e:
            rows.append([name, str(model.n), "—", "—", "—", "—", f"no form: {e}"])
            continue
        sizes = "+".join(str(t.dynamics.size) for t in form.terms)
        if form.size > 400:
            rows.append(
                [name, str(model.n), str(form.size), sizes, "—", "—", "too large to run here"]
            )
            continue
        exact = dense_nll(model.kernel, x, y, model.constant_mean)
        t = time.perf_counter()
        value = form_negative_log_likelihood(form, x, y, model.constant_mean)
        t = time.perf_counter() - t
        rows.append(
            [name, str(model.n), str(form.size), sizes]
            + [f"{exact:.3f}", f"{value - exact:+.2e}", f"{t:.3f} s"]
        )
    return _table(
        ["series", "N", "d", "terms' state sizes", "dense −log p", "Kalman − dense", "Kalman time"],
        rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="write the tables as Markdown here")
    parser.add_argument("--million", action="store_true", help="also time N = 10⁶")
    parser.add_argument("--only", choices=["accuracy", "time", "compile", "series"])
    args = parser.parse_args()
    sizes = (1000, 2000, 4000, 10_000, 100_000) + ((1_000_000,) if args.million else ())
    parts = []
    sections = {
        "accuracy": [
            ("SE: |Δ log p| against the Taylor order", se_accuracy),
            ("Per: |Δ log p| against the dropped weight's tolerance", per_accuracy),
        ],
        "time": [
            ("Time against N", lambda: time_vs_n(sizes)),
            ("Time against the state size (N = 10⁵, regular grid)", lambda: time_vs_d(100_000)),
        ],
        "compile": [("Compile time of the filter", compile_times)],
        "series": [("The benchmark series' chosen kernels (default orders)", benchmark_kernels)],
    }
    for key, items in sections.items():
        if args.only and key != args.only:
            continue
        for title, make in items:
            text = f"## {title}\n\n{make()}\n"
            print(text, flush=True)
            parts.append(text)
    if args.out:
        command = "OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.studies.statespace_likelihood"
        command += " " + " ".join(sys.argv[1:])
        head = f"# State-space log likelihood against the dense one\n\nMade by `{command}`.\n\n"
        Path(args.out).write_text(head + "\n".join(parts))


if __name__ == "__main__":
    main()
