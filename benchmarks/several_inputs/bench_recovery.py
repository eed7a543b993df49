"""Thesis table 3.2: the structure abcd's search chooses on synthetic data drawn from known
kernels, at SNR 10, 1 and 0.1, beside the structure the original search chose.

Run from the project folder (the full table; ``--seeds 1 --depth 1 --cases "SE1 × SE2"
--snrs 10`` is a smoke run)::

    .venv/bin/python -m benchmarks.several_inputs.bench_recovery --seeds 3 \\
        --out benchmarks/several_inputs/outputs/recovery.md

The data are drawn as ``recovery_truth.py`` says (300 points uniform on [-2, 2]^D, f from the
true kernel's GP prior scaled to sd 1, noise of sd 1/SNR); seed s of a row draws with
``default_rng(s)`` and searches with seed s. The original's choices are
``reference/synthetic_recovery.csv``. Structures are compared by their signal terms (sum of
products over inputs, constants and noise left out), so ``SE2 × Per1`` and ``Per1 × SE2``
agree. Rows are appended to ``--csv`` as they finish; a rerun with the same settings skips the
searches it finds there. With ``--method posterior`` (issue 52) each search also weighs its
best structures (``abcd search --method posterior``), and the table gives the posterior
probability of the true structure, the summed weight of the structures with its signal terms.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import pandas as pd

import abcd_cli
from abcd_cli.kernels.text import parse_kernel
from benchmarks.common import machine_line, publish, python_command
from benchmarks.reference import REFERENCE_DIR
from benchmarks.several_inputs import recovery_truth as truth

REFERENCE = REFERENCE_DIR / "synthetic_recovery.csv"
FIELDS = ["case", "snr", "seed", "depth", "method", "structure", "terms", "p_true", "bic"]
FIELDS += ["seconds"]


def reference() -> dict[tuple[str, float], str]:
    """The original search's choice per (true kernel, SNR), in the thesis's notation."""
    with REFERENCE.open(newline="") as f:
        return {(r["true_kernel"], float(r["snr"])): r["thesis_chosen"] for r in csv.DictReader(f)}


def method_label(method: str, table_search: str, screen_fits: int) -> str:
    """A row's method: the method, the table search unless "grammar", the screen's fits on
    half the rows when more than one."""
    tables = "" if table_search == "grammar" else f" {table_search}"
    fits = f" screen-fits {screen_fits}" if screen_fits > 1 else ""
    return f"{method}{tables}{fits}"


def search_one(
    true: truth.TrueKernel,
    snr: float,
    seed: int,
    depth: int,
    jobs: int,
    method: str,
    table_search: str = "grammar",
    screen_fits: int = 1,
) -> dict:
    """Draw the data of (true, snr, seed) and search them; the row to keep."""
    x, y = truth.draw(true, snr, seed)
    names = [f"x{i + 1}" for i in range(true.dims)]
    frame = pd.DataFrame(x, columns=names).assign(y=y)
    start = time.perf_counter()
    found = abcd_cli.search(
        frame,
        y="y",
        x=names,
        depth=depth,
        seed=seed,
        jobs=jobs,
        method=method,
        table_search=table_search,
        screen_fits=screen_fits,
    )
    seconds = time.perf_counter() - start
    terms = truth.signal_terms(parse_kernel(found.structure, names))
    p_true = ""
    if found.posterior is not None:
        want = truth.signal_terms(true.kernel)
        p_true = repr(
            sum(
                float(w)
                for s, w in zip(found.posterior.structures, found.posterior.weights, strict=True)
                if truth.signal_terms(s.kernel) == want
            )
        )
    return {
        "case": true.label,
        "snr": f"{snr:g}",
        "seed": str(seed),
        "depth": str(depth),
        "method": method_label(method, table_search, screen_fits),
        "structure": found.structure,
        "terms": truth.describe_terms(terms),
        "p_true": p_true,
        "bic": f"{found.bic:.3f}",
        "seconds": f"{seconds:.1f}",
    }


def _key(row: dict) -> tuple[str, str, str, str, str]:
    return (
        row["case"],
        f"{float(row['snr']):g}",
        str(row["seed"]),
        str(row["depth"]),
        row.get("method") or "greedy",
    )


def run(args: argparse.Namespace) -> list[dict]:
    done: dict[tuple[str, str, str, str], dict] = {}
    if args.csv is not None and args.csv.exists():
        with args.csv.open(newline="") as f:
            done = {_key(r): r for r in csv.DictReader(f)}
    rows = []
    for label in args.cases:
        for snr in args.snrs:
            for seed in range(args.seed, args.seed + args.seeds):
                key = (label, f"{snr:g}", str(seed), str(args.depth), args.method_label)
                if key in done:
                    rows.append(done[key])
                    continue
                row = search_one(
                    truth.case(label),
                    snr,
                    seed,
                    args.depth,
                    args.jobs,
                    args.method,
                    args.table_search,
                    args.screen_fits,
                )
                print(f"{label} SNR {snr:g} seed {seed}: {row['terms']} ({row['seconds']} s)")
                if args.csv is not None:
                    new = not args.csv.exists()
                    args.csv.parent.mkdir(parents=True, exist_ok=True)
                    with args.csv.open("a", newline="") as f:
                        writer = csv.DictWriter(f, FIELDS)
                        if new:
                            writer.writeheader()
                        writer.writerow(row)
                rows.append(row)
    return rows


def table(rows: list[dict], args: argparse.Namespace) -> list[str]:
    """One line per (true kernel, SNR): the thesis's choice, ours per seed (counted), how
    many seeds found the true structure and how many the thesis's, the median time; with
    ``--method posterior``, the true structure's posterior probability on each seed."""
    ref = reference()
    posterior = args.method == "posterior"
    lines = [
        "| true kernel | D | SNR | thesis chose | abcd chose (seeds) | true structure |"
        " same as thesis | median s |" + (" P(true structure) by seed |" if posterior else ""),
        "|---|---:|---:|---|---|---:|---:|---:|" + ("---|" if posterior else ""),
    ]
    for label in args.cases:
        true = truth.case(label)
        want = truth.signal_terms(true.kernel)  # the kernel the data were drawn from
        for snr in args.snrs:
            mine = [
                r
                for r in rows
                if r["case"] == label
                and float(r["snr"]) == snr
                and (r.get("method") or "greedy") == args.method_label
            ]
            if not mine:
                continue
            theirs = ref.get((label, snr), "?")
            their_terms = truth.thesis_terms(theirs) if theirs != "?" else None
            got = [truth.thesis_terms(r["terms"]) for r in mine]
            counts = Counter(r["terms"] for r in mine)
            chosen = "; ".join(f"{t} ({c})" for t, c in counts.most_common())
            n_true = sum(g == want for g in got)
            n_same = sum(g == their_terms for g in got)
            seconds = statistics.median(float(r["seconds"]) for r in mine)
            probabilities = ", ".join(f"{float(r['p_true']):.2f}" for r in mine if posterior)
            lines.append(
                f"| {label} | {true.dims} | {snr:g} | {theirs} | {chosen} |"
                f" {n_true}/{len(mine)} | {n_same}/{len(mine)} | {seconds:.0f} |"
                + (f" {probabilities} |" if posterior else "")
            )
    return lines


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    labels = [c.label for c in truth.CASES]
    parser.add_argument("--seeds", type=int, default=3, help="data sets (and searches) per cell")
    parser.add_argument("--seed", type=int, default=0, help="the first seed")
    parser.add_argument(
        "--cases", default=",".join(labels), help=f"comma-separated, from: {'; '.join(labels)}"
    )
    parser.add_argument("--snrs", default="10,1,0.1", help="comma-separated SNRs")
    parser.add_argument("--depth", type=int, default=10, help="the search's depth")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes per search")
    parser.add_argument("--method", choices=("greedy", "posterior"), default="greedy")
    parser.add_argument(
        "--table-search",
        choices=("grammar", "coordinate"),
        default="grammar",
        help="how a table of several inputs is searched (issue 66)",
    )
    parser.add_argument(
        "--screen-fits", type=int, default=1, help="the screen's fits on half the rows (issue 66)"
    )
    parser.add_argument("--out", type=Path, default=None, help="write the Markdown here")
    parser.add_argument("--csv", type=Path, default=None, help="keep one row per search here")
    args = parser.parse_args(argv)
    args.cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = [c for c in args.cases if c not in labels]
    if unknown or not args.cases:
        parser.error(f"unknown case {unknown[0] if unknown else '(none)'!r}")
    args.snrs = [float(v) for v in args.snrs.split(",") if v]
    args.method_label = method_label(args.method, args.table_search, args.screen_fits)
    if args.seeds < 1 or not args.snrs or any(v <= 0 for v in args.snrs):
        parser.error("--seeds must be at least 1 and every SNR positive")
    return args


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    rows = run(args)
    text = "\n".join(
        [
            "# Recovering known structure (thesis table 3.2)",
            "",
            f"Made by `{python_command('benchmarks.several_inputs.bench_recovery', argv)}`"
            f" on {dt.date.today()}.",
            f"- {machine_line()}.",
            f"- Per cell {args.seeds} data sets (seeds {args.seed}..{args.seed + args.seeds - 1}),"
            f" {truth.N_POINTS} points uniform on [-{truth.X_MAX:g}, {truth.X_MAX:g}]^D, f drawn"
            " from the true kernel with the original generator's parameters and scaled to sd 1,"
            " noise of sd 1/SNR (`benchmarks/several_inputs/recovery_truth.py`). Search:"
            f" `abcd_cli.search` with method {args.method}, table search {args.table_search}"
            f" (screen fits {args.screen_fits}), at"
            f" depth {args.depth}, {args.jobs} worker(s), every other setting its default.",
            "- Structures are compared as their sums of products over inputs, constants and"
            " noise terms left out. 'true structure': the seeds whose choice has exactly the"
            " terms of the kernel the data were drawn from (for Lin × Per that is"
            " Lin1 × Per1 + Per1: the generator's linear kernel is x·x' + 1); 'same as"
            " thesis': those equal to the original search's choice"
            " (`benchmarks/reference/synthetic_recovery.csv`).",
            "",
            *table(rows, args),
            "",
        ]
    )
    publish(text, args.out)


if __name__ == "__main__":
    main()
