"""The engine benchmark's Markdown report: the machine, the settings, the table of
measurements, the targets and the breakdown of one evaluation."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import sys
from pathlib import Path

import numpy as np
import scipy
import sklearn

from benchmarks.common import python_command
from benchmarks.engines.gp_breakdown import Breakdown
from benchmarks.engines.gp_common import KERNEL_TEXT, load_average
from benchmarks.engines.gp_measure import Row
from benchmarks.engines.gp_sklearn import DOT_SIGMA0_BOUNDS, VARIANCE_BOUNDS

EVAL_TARGET = 3.0  # evaluation / floor at N >= 500
SPEEDUP_TARGET = 5.0  # sklearn fit time / our fit time at every N


def machine_text() -> list[str]:
    """Lines on the platform, CPU, library versions, BLAS and thread settings."""
    lines = [
        f"- platform: {platform.platform()} ({platform.machine()}), "
        f"processor: {platform.processor() or 'n/a'}",
        f"- CPU: {cpu_model()}; os.cpu_count() = {os.cpu_count()}",
        f"- Python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"scikit-learn {sklearn.__version__}",
    ]
    try:
        from threadpoolctl import threadpool_info

        for lib in threadpool_info():
            if lib.get("user_api") == "blas":
                lines.append(
                    f"- BLAS: {lib.get('internal_api')} {lib.get('version')} "
                    f"({lib.get('architecture')}, {lib.get('threading_layer')}, "
                    f"{lib.get('num_threads')} threads) from {Path(lib['filepath']).name}"
                )
    except ImportError:
        lines.append("- BLAS: threadpoolctl not installed")
    env = {k: os.environ[k] for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS") if k in os.environ}
    lines.append(f"- thread environment: {env or 'unset'}")
    return lines


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, or ``unknown``."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def command_text() -> str:
    """The command line of this run."""
    return python_command("benchmarks.engines.bench_gp", sys.argv[1:])


def table(rows: list[Row]) -> list[str]:
    """The results table, one line per data set."""
    head = (
        "| dataset | N | our eval (ms) | floor (ms) | ratio | sklearn eval (ms) | our fit (s) "
        "| sklearn fit (s) | speed-up | our NLL | sklearn NLL "
        "| screened fit (s) | screened speed-up | screened NLL |"
    )
    lines = [head, "|" + "---|" * 14]
    for r in rows:
        lines.append(
            f"| {r.name} | {r.n} | {r.eval_s * 1e3:.1f} | {r.floor_s * 1e3:.1f} | {r.ratio:.2f} "
            f"| {r.sk_eval_s * 1e3:.1f} | {r.fit_s:.1f} | {r.sk_fit_s:.1f} | {r.speedup:.1f}× "
            f"| {r.nll:.2f} | {r.sk_nll:.2f} | {r.screened_s:.1f} | {r.screened_speedup:.1f}× "
            f"| {r.screened_nll:.2f} |"
        )
    return lines


def settings_lines(args: argparse.Namespace) -> list[str]:
    """The Settings section: what each column measures, with this run's options."""
    out = [
        "## Settings",
        "",
        f"- kernel `{KERNEL_TEXT}` (10 parameters); data scaled to internal units by "
        "`Scaling.from_data` (x and y centred and divided by their standard deviations).",
        f"- eval: one `nll_and_grad` at a fixed random vector (`initial_values`, seed "
        f"{args.seed}), median of {args.repeats} after a warm-up.",
        "- floor: `scipy.linalg.cholesky` + `cho_solve(identity)` (check_finite=False) on a "
        f"random SPD matrix of size N, median of {args.repeats} after a warm-up.",
        f"- our fit: `fit(kernel, X, Y, default_rng({args.seed}), restarts={args.restarts})` "
        "(L-BFGS-B, maxiter 200 per start: ten full optimisations), timed once. Screened fit: "
        "the same with `polish=1`, as the search runs it (the ten starting points ranked by their "
        "likelihood, the best one optimised).",
        f"- sklearn: `GaussianProcessRegressor(C*DotProduct*ExpSineSquared + C*RBF + "
        f"WhiteKernel*DotProduct, n_restarts_optimizer={args.sklearn_restarts}, normalize_y=True, "
        f"random_state={args.seed})` (so {args.sklearn_restarts + 1} optimiser runs; default "
        "alpha=1e-10 jitter, default L-BFGS-B options), fitted once on the same scaled X, Y. "
        "Its first run starts at the same random values as our eval (mapped to its kernel); its "
        "restarts are drawn log-uniformly within the bounds (sklearn's own scheme). Bounds: "
        "periodicity, both length scales as the engine's `value_bounds`; variances "
        f"{VARIANCE_BOUNDS}; DotProduct σ0 {DOT_SIGMA0_BOUNDS}. sklearn eval = one "
        f"`log_marginal_likelihood(theta, eval_gradient=True)` at that start, median of "
        f"{args.sk_eval_repeats} after a warm-up (8 hyperparameters vs our 10).",
        "- NLL in the user's units: ours is `sc.nll_out(fit.nll, N)` = NLL(Y) + N·log(y_scale). "
        "sklearn's `-log_marginal_likelihood_value_` is the NLL of its normalised "
        "y_n = (Y - mean(Y)) / std(Y); NLL(Y) = that + N·log(std(Y)) (its `_y_train_std`, which is "
        "1 to rounding since Y is already standardised), then the same `sc.nll_out`. Both models "
        "subtract the sample mean of y, so the two NLLs are directly comparable.",
    ]
    if args.sklearn_restarts != 9:
        out.append(
            f"- **reduced sklearn setting**: `n_restarts_optimizer={args.sklearn_restarts}` "
            f"instead of 9 — the sklearn fit times below are for {args.sklearn_restarts + 1} "
            "optimiser runs, as run, not scaled."
        )
    return out


def target_lines(rows: list[Row]) -> list[str]:
    """Whether each data set meets the evaluation and speed-up targets."""
    out = ["Targets:"]
    for r in rows:
        if r.n >= 500:
            ok = "met" if r.ratio <= EVAL_TARGET else "NOT met"
            out.append(f"- {r.name}: eval/floor {r.ratio:.2f} (target ≤ {EVAL_TARGET:g}): {ok}")
    for r in rows:
        ok = "met" if r.speedup >= SPEEDUP_TARGET else "NOT met"
        out.append(
            f"- {r.name}: fit speed-up {r.speedup:.1f}× (target ≥ {SPEEDUP_TARGET:g}×): {ok};"
            f" screened fit as the search runs it: {r.screened_speedup:.1f}×"
        )
    return out


def detail_lines(rows: list[Row]) -> list[str]:
    """Per data set: evaluations and failures of each fit, and the fitted kernels."""
    out = ["Details:", ""]
    for r in rows:
        out += [
            f"- {r.name}: our fit {r.fit_evals} likelihood evaluations "
            f"({r.fit_s / max(r.fit_evals, 1) * 1e3:.1f} ms each incl. optimiser), "
            f"{r.fit_failed} failed starts; sklearn {r.sk_evals} evaluations "
            f"({r.sk_fit_s / max(r.sk_evals, 1) * 1e3:.1f} ms each); "
            f"sklearn y std {r.sk_y_std:.6g}.",
            f"  - ours: `{r.kernel}`",
            f"  - sklearn (internal units): `{r.sk_kernel}`",
        ]
        out += [f"  - note: {note}" for note in r.notes]
    return out


def breakdown_lines(bd: Breakdown, big: Row, repeats: int) -> list[str]:
    """The section on where one ``nll_and_grad`` at data set ``big`` spends its time."""
    steps = bd.steps
    total = steps[-1][1]
    out = [
        f"## Where one `nll_and_grad` spends its time ({big.name}, N={big.n})",
        "",
        f"Each step of the forward-mode evaluation re-run alone, median of {repeats} after a "
        "warm-up; shares are of the whole call timed the same way (the engine's "
        "`nll_and_grad` takes the reverse-mode route through `Kernel.vjp` instead).",
        "",
        "| step | ms | share |",
        "|---|---|---|",
    ]
    for label, sec in steps[:-1]:
        out.append(f"| {label} | {sec * 1e3:.1f} | {sec / total * 100:.0f}% |")
    parts = sum(sec for _, sec in steps[:-1])
    out += [
        f"| sum of steps | {parts * 1e3:.1f} | {parts / total * 100:.0f}% |",
        f"| {steps[-1][0]} | {total * 1e3:.1f} | 100% |",
        "",
        f"Per whole call: {bd.user_ms:.0f} ms user CPU (all threads), {bd.sys_ms:.0f} ms "
        f"system CPU, {bd.minor_faults:.0f} minor page faults (fresh N×N temporaries "
        "being mapped and zeroed by the OS).",
    ]
    if bd.operands:
        out += ["", "Kernel recursion by top-level term (`evaluate(grad=True)`, diff cached):", ""]
        out += ["| term | ms |", "|---|---|"]
        out += [f"| {label} | {sec * 1e3:.1f} |" for label, sec in bd.operands]
    return out


def report(
    rows: list[Row],
    args: argparse.Namespace,
    started: dt.datetime,
    load_start: str,
    bd: Breakdown | None,
    prof: str | None,
    elapsed: float,
) -> str:
    """The whole report: run, machine, settings, results, targets, details and breakdown."""
    out = [
        "# GP engine benchmark",
        "",
        f"- date: {started.isoformat(timespec='seconds')} (run took {elapsed / 60:.1f} min)",
        f"- command: `{command_text()}` (from `{os.getcwd()}`)",
        f"- load average (1/5/15 min) at start: {load_start}; at end: {load_average()}",
        *machine_text(),
        "",
        *settings_lines(args),
        "",
        "## Results",
        "",
        *table(rows),
        "",
        *target_lines(rows),
        "",
        *detail_lines(rows),
    ]
    if bd is not None and rows:
        out += ["", *breakdown_lines(bd, rows[-1], args.repeats)]
    if prof:
        out += [
            "",
            f"cProfile of {args.profile_calls} calls at the same point (top by own time):",
            "",
            "```",
            prof,
            "```",
        ]
    return "\n".join(out) + "\n"
