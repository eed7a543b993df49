"""Regression accuracy on real data of several inputs, in the manner of thesis table 3.3:
mean squared error and negative log-likelihood per test point of abcd's kernel search (over its
default base kernels, and over SE and RQ only as the thesis did), abcd's additive GP,
scikit-learn's SE-ARD GP and linear regression, on the same seeded 90/10 splits.

Run from the project folder (the full run; ``--splits 1 --depth 1`` is a smoke run)::

    .venv/bin/python -m benchmarks.several_inputs.bench_regression \\
        --out benchmarks/several_inputs/outputs/regression.md

Each split shuffles the rows with ``numpy.random.default_rng((seed, split))``, holds out the
last 10% (rounded up) and trains on at most ``--max-train`` of the rest; x and y are
standardised with the training rows' means and sds, so the scores are in units of y's sd (as
the thesis's, whose MSE of a constant predictor is about 1). The data and the methods are
described in ``regression_data.py`` and ``regression_methods.py``. Rows are appended to
``--csv`` as they finish; a rerun with the same settings skips the rows it finds there.
``--models DIR`` keeps each abcd fit's model document (its trace holds every level's best
model with its parameters, for studies of how to choose among them).
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import math
import re
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import NamedTuple

from abcd_cli.files import write_output
from benchmarks.common import machine_line, publish, python_command
from benchmarks.several_inputs import regression_data, regression_methods

FIELDS = [
    "dataset",
    "split",
    "method",
    "depth",
    "max_train",
    "seed",
    "n_train",
    "n_test",
    "mse",
    "nll",
    "seconds",
    "chosen",
    "screen_seconds",
    "story",
    "stages",
    "cpu_seconds",
]


class Sizes(NamedTuple):
    """A dataset's rows, training rows per split (before subsampling) and input columns, in
    the order the search names them x1, x2, ..."""

    rows: int
    train: int
    inputs: tuple[str, ...]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=10, help="train/test splits per dataset")
    parser.add_argument(
        "--datasets",
        default=",".join(regression_data.LOADERS),
        help=f"comma-separated, from {', '.join(regression_data.LOADERS)}",
    )
    parser.add_argument(
        "--methods",
        default=",".join(regression_methods.METHODS),
        help=f"comma-separated, from {', '.join(regression_methods.METHODS)}",
    )
    parser.add_argument("--depth", type=int, default=10, help="the kernel search's depth")
    parser.add_argument("--max-order", type=int, default=None, help="the additive GP's order")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes per search")
    parser.add_argument("--max-train", type=int, default=500, help="training rows at most")
    parser.add_argument("--seed", type=int, default=0, help="seed of the splits and searches")
    parser.add_argument("--out", type=Path, default=None, help="write the Markdown here")
    parser.add_argument("--csv", type=Path, default=None, help="keep one row per fit here")
    parser.add_argument(
        "--also",
        type=Path,
        action="append",
        default=[],
        help="rows of earlier runs (a CSV of this script's, read only) shown beside --csv's",
    )
    parser.add_argument(
        "--models",
        type=Path,
        default=None,
        help="keep each abcd fit's model (JSON, with the best model of every level) in this"
        " folder, as DATASET-SPLIT-METHOD.json",
    )
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="fit nothing: write the page from the rows already in --csv (the table's splits"
        " column says how many each method has)",
    )
    args = parser.parse_args(argv)
    for name, known in (
        ("datasets", regression_data.LOADERS),
        ("methods", regression_methods.METHODS),
    ):
        chosen = [v for v in getattr(args, name).split(",") if v]
        unknown = [v for v in chosen if v not in known]
        if unknown or not chosen:
            parser.error(f"unknown {name}: {', '.join(unknown) or '(none)'}")
        setattr(args, name, chosen)
    if args.splits < 1 or args.max_train < 10:
        parser.error("--splits must be at least 1 and --max-train at least 10")
    return args


def _key(row: dict[str, str]) -> tuple[str, ...]:
    return tuple(str(row[f]) for f in ("dataset", "split", "method", "depth", "max_train", "seed"))


def read_rows(path: Path | None) -> dict[tuple[str, ...], dict[str, str]]:
    if path is None or not path.exists():
        return {}
    with path.open(newline="") as f:
        return {_key(row): row for row in csv.DictReader(f)}


def append_row(path: Path | None, row: dict[str, str]) -> None:
    if path is None:
        return
    new = not path.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, FIELDS)
        if new:
            writer.writeheader()
        writer.writerow(row)


def run(args: argparse.Namespace) -> tuple[list[dict[str, str]], dict[str, Sizes]]:
    """Every (dataset, split, method) row, from ``--csv`` when already there; and per dataset
    its rows, training rows before subsampling and input columns."""
    done = read_rows(args.csv)
    for path in args.also:
        done = {**read_rows(path), **done}
    options = regression_methods.Options(args.depth, args.jobs, args.seed, args.max_order)
    rows, sizes = [], {}
    for name in args.datasets:
        data = regression_data.load(name)
        for index in range(args.splits):
            split = regression_data.split(data, index, args.seed, args.max_train)
            sizes[name] = Sizes(data.n, split.n_train_all, tuple(map(str, data.x.columns)))
            for method in args.methods:
                row = {
                    "dataset": name,
                    "split": str(index),
                    "method": method,
                    "depth": str(args.depth),
                    "max_train": str(args.max_train),
                    "seed": str(args.seed),
                }
                if _key(row) in done:
                    rows.append(done[_key(row)])
                    continue
                if args.report_only:
                    continue
                p = regression_methods.METHODS[method](split, options)
                mse, nll = regression_methods.scores(split.y_test, p)
                row.update(
                    n_train=str(len(split.y_train)),
                    n_test=str(len(split.y_test)),
                    mse=f"{mse:.6g}",
                    nll=f"{nll:.6g}",
                    seconds=f"{p.seconds:.3f}",
                    chosen=p.chosen,
                    screen_seconds="" if p.screen_seconds is None else f"{p.screen_seconds:.3f}",
                    story=p.story,
                    stages=p.stages,
                    cpu_seconds="" if p.cpu_seconds is None else f"{p.cpu_seconds:.3f}",
                )
                append_row(args.csv, row)
                if args.models is not None and p.model is not None:
                    args.models.mkdir(parents=True, exist_ok=True)
                    path = args.models / f"{name}-{index}-{method}.json"
                    write_output(path, json.dumps(p.model, indent=1))
                rows.append(row)
                print(
                    f"{name} split {index} {method}: MSE {mse:.3f} NLL {nll:.3f}"
                    f" ({p.seconds:.1f} s) {p.chosen}",
                    flush=True,
                )
    return rows, sizes


def _mean_se(values: list[float]) -> str:
    mean = statistics.fmean(values)
    if len(values) < 2:
        return f"{mean:.3f}"
    se = statistics.stdev(values) / math.sqrt(len(values))
    return f"{mean:.3f} ± {se:.3f}"


def _story(row: dict[str, str]) -> str:
    """A row's story (inputs used; interactions), from its chosen structure when the row is
    older than the story column."""
    if row.get("story"):
        return re.sub(r"\s*\|\s*", "; ", row["story"]).strip()  # rows of the first separator
    from abcd_cli.kernels.text import parse_kernel

    names = sorted(set(re.findall(r"x\d+", row["chosen"])), key=lambda n: int(n[1:]))
    width = max((int(n[1:]) for n in names), default=1)
    every = [f"x{i + 1}" for i in range(width)]
    return regression_methods.story(parse_kernel(row["chosen"], every), every)


def table(rows: list[dict[str, str]], args: argparse.Namespace) -> list[str]:
    """One row per dataset and method: MSE and NLL (mean ± standard error over the splits),
    the median wall time of one fit and of its screen, its median CPU time (user + system,
    workers included: rows that kept it), abcd's most frequent choice, and the
    most frequent story (the inputs the chosen kernel uses | the pairs it multiplies) with
    the splits that tell it."""
    lines = [
        "| dataset | method | MSE | NLL per test point | median seconds per fit |"
        " of which screen | median CPU seconds | splits | most frequent choice |"
        " most frequent story |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for name in args.datasets:
        for method in args.methods:
            mine = [r for r in rows if r["dataset"] == name and r["method"] == method]
            if not mine:
                continue
            mse = [float(r["mse"]) for r in mine]
            nll = [float(r["nll"]) for r in mine]
            seconds = statistics.median(float(r["seconds"]) for r in mine)
            choice = told = ""
            if method in regression_methods.ABCD_METHODS:
                text, count = Counter(r["chosen"] for r in mine).most_common(1)[0]
                choice = f"`{text}` ({count} of {len(mine)})"
            if method in regression_methods.ABCD_METHODS and method != "additive":
                story, count = Counter(_story(r) for r in mine).most_common(1)[0]
                told = f"`{story}` ({count} of {len(mine)})"
            screens = [float(r["screen_seconds"]) for r in mine if r.get("screen_seconds")]
            screen = f"{statistics.median(screens):.1f}" if screens else ""
            cpus = [float(r["cpu_seconds"]) for r in mine if r.get("cpu_seconds")]
            cpu = f"{statistics.median(cpus):.1f}" if cpus else ""
            lines.append(
                f"| {name} | {regression_methods.TITLES[method]} | {_mean_se(mse)} |"
                f" {_mean_se(nll)} | {seconds:.1f} | {screen} | {cpu} | {len(mine)} |"
                f" {choice} | {told} |"
            )
    return lines


def against_ard(rows: list[dict[str, str]], args: argparse.Namespace) -> list[str]:
    """The issue's target, split by split: each abcd method's MSE minus the ARD GP's on the
    splits both have (mean ± standard error of the differences) and on how many it is lower."""
    lines = [
        "| dataset | method | MSE minus the ARD GP's | lower on | splits |",
        "|---|---|---:|---:|---:|",
    ]
    for name in args.datasets:
        ard = {
            r["split"]: float(r["mse"])
            for r in rows
            if r["dataset"] == name and r["method"] == "sklearn-ard"
        }
        for method in args.methods:
            if method not in regression_methods.ABCD_METHODS:
                continue
            diffs = [
                float(r["mse"]) - ard[r["split"]]
                for r in rows
                if r["dataset"] == name and r["method"] == method and r["split"] in ard
            ]
            if diffs:
                lines.append(
                    f"| {name} | {regression_methods.TITLES[method]} | {_mean_se(diffs)} |"
                    f" {sum(d < 0 for d in diffs)} | {len(diffs)} |"
                )
    return lines


def stage_costs(rows: list[dict[str, str]], args: argparse.Namespace) -> list[str]:
    """Per dataset and method with stages (the coordinate-wise search): each stage's median
    seconds and median fits over the splits (a stage a split skipped counts as 0)."""
    lines = [
        "| dataset | method | stage | median seconds | median fits |",
        "|---|---|---|---:|---:|",
    ]
    for name in args.datasets:
        for method in args.methods:
            mine = [r for r in rows if r["dataset"] == name and r["method"] == method]
            parsed = [
                {
                    part.split()[0]: (float(part.split()[1]), int(part.rsplit("/", 1)[1]))
                    for part in r["stages"].split("; ")
                }
                for r in mine
                if r.get("stages")
            ]
            for stage in dict.fromkeys(k for costs in parsed for k in costs):
                seconds = statistics.median(c.get(stage, (0.0, 0))[0] for c in parsed)
                fits = statistics.median(c.get(stage, (0.0, 0))[1] for c in parsed)
                lines.append(
                    f"| {name} | {regression_methods.TITLES[method]} | {stage} |"
                    f" {seconds:.1f} | {fits:g} |"
                )
    return lines if len(lines) > 2 else []


def this_command(argv: list[str]) -> str:
    return python_command("benchmarks.several_inputs.bench_regression", argv)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    rows, sizes = run(args)
    described = "; ".join(
        f"{name}, {s.rows} rows, {len(s.inputs)} inputs ("
        + ", ".join(f"x{i + 1} {column}" for i, column in enumerate(s.inputs))
        + f"), {s.train} training rows per split"
        + (f" subsampled to {args.max_train}" if s.train > args.max_train else "")
        for name, s in sizes.items()
    )
    text = "\n".join(
        [
            "# Regression on data of several inputs (thesis table 3.3 style)",
            "",
            f"Made by `{this_command(argv)}` on {dt.date.today()}.",
            f"- {machine_line()}.",
            f"- Data: {described}; sources in `benchmarks/several_inputs/regression_data.py`.",
            f"- {args.splits} splits per dataset: rows shuffled with"
            f" `default_rng(({args.seed}, split))`, the last 10% (rounded up) held out, the"
            f" first {args.max_train} of the rest at most used for training. Inputs and y"
            " standardised with the training rows' means and sds; MSE and NLL are in units of"
            " y's training sd, averaged over the test points of a split, then over the"
            " splits (± one standard error over the splits).",
            f"- abcd: `abcd_cli.search` at depth {args.depth}, seed {args.seed}, {args.jobs}"
            " worker(s), every other setting its default (the kernel search and the SE-and-RQ"
            " search: `screen=False`, the full grammar on every input; the SE-and-RQ search:"
            ' `bases=("SE", "RQ")`; the screened search: `screen=True`, issue 66, opt-in; the'
            ' coordinate-wise search: `table_search="coordinate"`, issue 66).'
            " Story: the inputs the chosen kernel reads; the pairs its terms multiply"
            " (a change along an input counts as a product with it); the additive GP is"
            ' `language="additive"`'
            + (f" with max_order {args.max_order}" if args.max_order else " of every order")
            + ". scikit-learn: C × RBF(ARD) + WhiteKernel, 5 starts. Linear regression:"
            " least squares with an intercept, Gaussian NLL with the residual variance"
            " RSS / (n − D − 1).",
            "",
            *table(rows, args),
            "",
            "Against scikit-learn's ARD GP, split by split (negative: abcd's MSE is lower):",
            "",
            *against_ard(rows, args),
            "",
            *(
                ["Each stage's cost (the coordinate-wise search's `stages`):", "", *costs, ""]
                if (costs := stage_costs(rows, args))
                else []
            ),
            "The same comparison with abcd as a scikit-learn estimator (`AbcdRegressor` beside"
            " the ARD GP in `cross_val_score`): [estimator.md](estimator.md).",
            "",
        ]
    )
    publish(text, args.out)


if __name__ == "__main__":
    main()
