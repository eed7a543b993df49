"""The sequential Monte Carlo sampler (``--method smc``) on the 13 extrapolation splits at
several seeds, beside the greedy search (issue 64, part 4's measurement).

For each training file and seed, ``abcd_cli.search(train, method="smc", seed=S, jobs=1)``
with the sampler's default settings (``SMCSettings``: 16 particles in two halves, 10 data
steps from 10 points, 5 structure and 10 parameter moves per particle and step) or those
given by ``--particles``, ``--steps``, ``--structure-moves`` and ``--parameter-moves``, timed
by wall clock and this process's CPU. Its forecast of the test file is the weighted mixture of
its particles' predictive normals (``FoundModel.posterior_mixture``, as ``predict`` mixes
them), scored as in ``laplace_mixture`` (coverage of the mixture's 95% band, width factor,
RMSE, MLPD, CRPS). Beside the scores each row keeps the run's facts (its posterior's features
of probability ≥ 0.9), its weights by structure and by kinds of findings, and the TV between
its two halves (``agreement``); ``smc_seed_table`` compares the seeds. The greedy search's
numbers are the peers benchmark's ``abcd`` rows (``accuracy/outputs/peers/results.csv``: the
same splits, default settings, seed 0, one worker process per core; its CPU time was not
recorded).

One row per (series, seed, settings) goes to ``smc_forecasts.csv`` as each run finishes (a
rerun skips the rows already there) and the table ``smc_forecasts.md`` is rewritten after
each; settings other than the defaults write ``smc_forecasts_p64_t10_s5_m10.csv`` and ``.md``
(particles, data steps, structure and parameter moves), so each budget keeps its own table.

    OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.studies.smc_forecasts [SERIES ...]
        [--seeds 0 1 2] [--particles 16] [--steps 10] [--structure-moves 5]
        [--parameter-moves 10] [--table-only]
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

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

GREEDY = ACCURACY / "peers" / "results.csv"
FIELDS = ["series", "seed", "settings", "n_test", "covered", "width_factor", "rmse", "mlpd", "crps"]
FIELDS += ["wall_seconds", "cpu_seconds", "load_avg", "halves_structures_tv", "halves_kinds_tv"]
FIELDS += ["facts", "by_structure", "by_kinds", "weights", "structure"]


@dataclass(frozen=True)
class Budget:
    """The sampler's settings a run is made with (``SearchSettings``' fields of the same
    names; the defaults are the sampler's). Its cost per data step grows as particles ×
    (structure moves + parameter moves)."""

    particles: int = 16
    steps: int = 10
    structure_moves: int = 5
    parameter_moves: int = 10

    @property
    def label(self) -> str:
        """'p16 t10 s5 m10': the CSV's ``settings`` cell."""
        return f"p{self.particles} t{self.steps} s{self.structure_moves} m{self.parameter_moves}"

    @property
    def keywords(self) -> dict[str, int]:
        """The ``abcd_cli.search`` keywords."""
        return {
            "particles": self.particles,
            "data_steps": self.steps,
            "structure_moves": self.structure_moves,
            "parameter_moves": self.parameter_moves,
        }

    def outputs(self) -> tuple[Path, Path]:
        """The CSV and the table: ``smc_forecasts.csv``/``.md`` at the defaults, else named by
        the settings (``smc_forecasts_p64_t10_s5_m10.csv``)."""
        stem = (
            "smc_forecasts" if self == Budget() else f"smc_forecasts_{self.label.replace(' ', '_')}"
        )
        return OUTPUTS / f"{stem}.csv", OUTPUTS / f"{stem}.md"

    def described(self) -> str:
        """The settings in words, for the table's header."""
        words = (
            f"{self.particles} particles (two halves of {self.particles // 2}), {self.steps}"
            f" data steps from 10 points, {self.structure_moves} structure and"
            f" {self.parameter_moves} parameter moves per particle and step"
        )
        if self == Budget():
            return f"The sampler's default settings: {words}"
        factor = self.cost() / Budget().cost()
        return f"The sampler's settings: {words} ({factor:.3g} times the defaults' moves)"

    def cost(self) -> int:
        """Moves per data step: particles × (structure + parameter moves)."""
        return self.particles * (self.structure_moves + self.parameter_moves)


def row_settings(row: dict[str, str]) -> str:
    """A CSV row's ``settings`` label (rows written before the column: the defaults')."""
    return row.get("settings") or Budget().label


def study_run(series: str, seed: int, budget: Budget = Budget()) -> dict[str, object]:
    """The sampler's row for one series and seed at the ``budget``'s settings."""
    train_path, test_path = split_files(series, "extrap")
    test = load_series(test_path)
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abcd_cli.AbcdWarning)
        found = abcd_cli.search(
            abcd_cli.load(str(train_path)), method="smc", seed=seed, jobs=1, **budget.keywords
        )
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
        "settings": budget.label,
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


def table(
    rows: list[dict[str, str]], seeds: list[int], command: str, budget: Budget = Budget()
) -> str:
    """The per-series rows of the ``budget``'s runs and the targets' pooled lines."""
    greedy = greedy_rows()
    lines, tallies = [], []
    rows = [r for r in rows if row_settings(r) == budget.label]
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
                f" when the runs finished); rows in `{budget.outputs()[0].name}`."
                f" {budget.described()}, serial (`jobs=1`). The"
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
    parser.add_argument("--particles", type=int, default=Budget.particles)
    parser.add_argument("--steps", type=int, default=Budget.steps)
    parser.add_argument("--structure-moves", type=int, default=Budget.structure_moves)
    parser.add_argument("--parameter-moves", type=int, default=Budget.parameter_moves)
    parser.add_argument("--table-only", action="store_true")
    args = parser.parse_args(argv)
    budget = Budget(args.particles, args.steps, args.structure_moves, args.parameter_moves)
    csv_path, table_path = budget.outputs()
    given = [] if budget == Budget() else budget_arguments(budget)
    command = python_command(
        "benchmarks.studies.smc_forecasts", ["--seeds", *map(str, args.seeds), *given]
    )
    done = {(r["series"], int(r["seed"]), row_settings(r)) for r in read_rows(csv_path)}
    for series in [] if args.table_only else args.series or all_series():
        for seed in args.seeds:
            if (series, seed, budget.label) in done:
                continue
            row = study_run(series, seed, budget)
            append_row(csv_path, row, FIELDS)
            print(f"{series} seed {seed}: {row['covered']}/{row['n_test']}", flush=True)
            publish(table(read_rows(csv_path), args.seeds, command, budget), table_path)
    if read_rows(csv_path):
        publish(table(read_rows(csv_path), args.seeds, command, budget), table_path)


def budget_arguments(budget: Budget) -> list[str]:
    """The command line's options that give the ``budget``."""
    return [
        "--particles",
        str(budget.particles),
        "--steps",
        str(budget.steps),
        "--structure-moves",
        str(budget.structure_moves),
        "--parameter-moves",
        str(budget.parameter_moves),
    ]


if __name__ == "__main__":
    main()
