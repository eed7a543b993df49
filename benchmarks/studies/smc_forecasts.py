"""The sequential Monte Carlo sampler (``--method smc``) on the 13 extrapolation splits at
several seeds, beside the greedy search (issue 64, part 4's measurement).

For each training file and seed, ``abcd_cli.search(train, method="smc", seed=S, jobs=1)``
with the sampler's default settings (``SMCSettings``: 16 particles in two halves, 10 data
steps from 10 points, 5 structure and 10 parameter moves per particle and step), timed by
wall clock and this process's CPU. Its forecast of the test file is the weighted mixture of
its particles' predictive normals (``FoundModel.posterior_mixture``, as ``predict`` mixes
them), scored as in ``laplace_mixture`` (coverage of the mixture's 95% band, width factor,
RMSE, MLPD, CRPS). Beside the scores each row keeps the run's facts (its posterior's features
of probability ≥ 0.9), its weights by structure and by kinds of findings, and the TV between
its two halves (``agreement``); ``smc_seed_table`` compares the seeds. The greedy search's
numbers are the peers benchmark's ``abcd`` rows (``accuracy/outputs/peers/results.csv``: the
same splits, default settings, seed 0, one worker process per core; its CPU time was not
recorded).

One row per (series, seed) goes to ``smc_forecasts.csv`` as each run finishes (a rerun skips
the pairs already there) and the table ``smc_forecasts.md`` is rewritten after each.

    OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.studies.smc_forecasts [SERIES ...]
        [--seeds 0 1 2] [--table-only]
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np

import abcd_cli
from abcd_cli.data.reader import load_series
from abcd_cli.fitted import posterior_features
from abcd_cli.kernel_search.agreement import kinds_of, structure_of, weight_by
from benchmarks.accuracy import OUTPUTS as ACCURACY
from benchmarks.accuracy.runs import all_series, append_row, split_files
from benchmarks.common import load_average, machine_line, publish, python_command
from benchmarks.studies import OUTPUTS
from benchmarks.studies.laplace_mixture import read_rows, scores
from benchmarks.studies.smc_seed_table import (
    HEADER,
    facts_of,
    kinds_key,
    pooled_lines,
    series_line,
)

CSV = OUTPUTS / "smc_forecasts.csv"
TABLE = OUTPUTS / "smc_forecasts.md"
GREEDY = ACCURACY / "peers" / "results.csv"
FIELDS = ["series", "seed", "n_test", "covered", "width_factor", "rmse", "mlpd", "crps"]
FIELDS += ["wall_seconds", "cpu_seconds", "load_avg", "halves_structures_tv", "halves_kinds_tv"]
FIELDS += ["facts", "by_structure", "by_kinds", "weights", "structure"]


def study_run(series: str, seed: int) -> dict[str, object]:
    """The sampler's row for one series and seed."""
    train_path, test_path = split_files(series, "extrap")
    test = load_series(test_path)
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abcd_cli.AbcdWarning)
        found = abcd_cli.search(abcd_cli.load(str(train_path)), method="smc", seed=seed, jobs=1)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    models, weights = found.posterior_mixture()
    predicted = [m.predict(test.x) for m in models]
    means = np.array([p[0] for p in predicted])
    sds = np.array([p[1] for p in predicted])
    posterior = found.posterior
    kernels = [s.kernel for s in posterior.structures]
    halves = posterior.halves
    return {
        "series": series,
        "seed": seed,
        "n_test": test.y.size,
        **scores(means, sds, weights, test.y),
        "wall_seconds": f"{wall:.1f}",
        "cpu_seconds": f"{cpu:.1f}",
        "load_avg": load_average(),
        "halves_structures_tv": f"{halves.structures_tv:.4f}",
        "halves_kinds_tv": f"{halves.kinds_tv:.4f}",
        "facts": json.dumps(facts_of(posterior_features(found.model, posterior, found.x_names))),
        "by_structure": json.dumps(weight_by(kernels, posterior.weights, structure_of)),
        "by_kinds": json.dumps(
            {kinds_key(k): w for k, w in weight_by(kernels, posterior.weights, kinds_of).items()}
        ),
        "weights": "; ".join(
            f"{structure_of(k)} {w:.2f}"
            for k, w in zip(kernels[:3], posterior.weights[:3], strict=True)
        ),
        "structure": found.model.structure,
    }


def greedy_rows() -> dict[str, dict[str, float]]:
    """The peers benchmark's greedy ``abcd`` extrapolation rows: covered, rmse, seconds."""
    out = {}
    for r in read_rows(GREEDY):
        if (r["method"], r["task"], r["status"]) == ("abcd", "extrap", "ok"):
            out[r["series"]] = {k: float(r[k]) for k in ("covered", "rmse", "seconds")}
    return out


def table(rows: list[dict[str, str]], seeds: list[int], command: str) -> str:
    """The per-series rows and the targets' pooled lines."""
    greedy = greedy_rows()
    lines, tallies = [], []
    for series in all_series():
        runs = sorted(
            (r for r in rows if r["series"] == series and int(r["seed"]) in seeds),
            key=lambda r: int(r["seed"]),
        )
        if not runs:
            continue
        train = load_series(split_files(series, "extrap")[0])
        width = float(train.x.max() - train.x.min())
        line, tally = series_line(series, runs, greedy.get(series, {}), width)
        lines.append(line)
        tallies.append(tally)
    loads = sorted({r["load_avg"].split(",")[0] for r in rows}, key=float)
    return (
        "\n".join(
            [
                "# The sampler (`--method smc`) on the extrapolation splits, seeds"
                f" {', '.join(map(str, seeds))}, beside the greedy search",
                "",
                f"Made by `{command}` ({machine_line()}; 1-minute load {loads[0]}-{loads[-1]}"
                " when the runs finished); rows in `smc_forecasts.csv`. The sampler's default"
                " settings: 16 particles (two halves of 8), 10 data steps from 10 points, 5"
                " structure and 10 parameter moves per particle and step, serial (`jobs=1`). The"
                " greedy search's covered points, RMSE and wall seconds are the peers benchmark's"
                " `abcd` rows (seed 0, default settings, one worker per core; CPU not recorded).",
                "Cells with ' / ' hold one value per seed; a fact is a feature of probability"
                " ≥ 0.9 (the report states none while the halves' TV by structure is above 0.2).",
                "",
                *pooled_lines(tallies, seeds),
                "",
                HEADER,
                "|" + "---|" * HEADER.count(" | ") + "---|",
                *lines,
            ]
        )
        + "\n"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("series", nargs="*")
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--table-only", action="store_true")
    args = parser.parse_args(argv)
    command = python_command("benchmarks.studies.smc_forecasts", ["--seeds", *map(str, args.seeds)])
    done = {(r["series"], int(r["seed"])) for r in read_rows(CSV)}
    for series in [] if args.table_only else args.series or all_series():
        for seed in args.seeds:
            if (series, seed) in done:
                continue
            row = study_run(series, seed)
            append_row(CSV, row, FIELDS)
            print(f"{series} seed {seed}: {row['covered']}/{row['n_test']}", flush=True)
            publish(table(read_rows(CSV), args.seeds, command), TABLE)
    publish(table(read_rows(CSV), args.seeds, command), TABLE)


if __name__ == "__main__":
    main()
