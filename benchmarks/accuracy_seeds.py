"""How much the seed moves a method: its runs with every seed (``results.csv`` and
``other_seeds.csv``), and what a user could make of them without the test data: the lowest
training BIC of the seeds (what ``abcd search --seeds K`` keeps), or the mixture of every seed's
model weighted by evidence or equally (what ``abcd predict --average-seeds`` forecasts with)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from accuracy_figures import stored_model
from accuracy_runs import COUNTERPART, SEEDS_CSV, Key, split_files, test_scores
from accuracy_tables import (
    Grid,
    column,
    fmt,
    md_table,
    median_or_none,
    no_worse,
    our_cell,
    our_rmse,
    standardise,
)

from abcd_cli.data import load_series
from abcd_cli.errors import InputError
from abcd_cli.predict import evidence_weights, predictive_table

Seeds = dict[int, dict[str, dict[str, str]]]  # seed -> series -> row
#: training BICs closer than this count as the same model (seed comparison)
SAME_BIC = 0.01
#: the weightings of ``abcd predict --average-seeds`` (``--seed-weights``), by row name
WEIGHTINGS = {"evidence": "weighted by evidence", "equal": "equally weighted"}


def runs_by_seed(rows: Iterable[dict[str, str]], task: str, method: str) -> Seeds:
    """The ``method`` runs of ``task``: seed → series → row (a later row of a run wins)."""
    out: Seeds = {}
    for r in rows:
        if r["task"] == task and r["method"] == method:
            out.setdefault(int(r["seed"]), {})[r["series"]] = r
    return out


def seed_section(
    rows: dict[Key, dict[str, str]],
    seed_rows: dict[tuple[str, ...], dict[str, str]],
    task: str,
    grid: Grid,
    method: str = "abcd",
) -> list[str]:
    """The ``method`` runs of ``task`` repeated with other seeds (``other_seeds.csv``).

    Per series, each seed's training BIC and test RMSE, and the test RMSE of the seeds' models
    averaged (weighted by evidence, and equally); then, for each seed and for the choices a
    user could make without the test data (on each series, the seed whose model has the lower
    training BIC; or a mixture of every seed's model), the runs no worse than the published
    counterpart and the median standardised RMSE, standardised against the same other columns
    as the main table."""
    seeds = runs_by_seed([*seed_rows.values(), *rows.values()], task, method)  # main rows win
    if len(seeds) < 2:
        return []
    ref = COUNTERPART[method]
    has_ref = any(cells.get(ref) is not None for cells in grid.values())
    order = sorted(seeds)

    complete = {s: every_seed_ran(seeds, s) for s in grid}
    chosen_by_bic = {
        s: min(runs, key=lambda r: float(r["bic"])) if runs else None
        for s, runs in complete.items()
    }
    variants: dict[str, dict[str, float | None]] = {
        f"seed {k}": {s: our_rmse(seeds[k].get(s)) for s in grid} for k in order
    }
    variants["lower training BIC of the seeds"] = {s: our_rmse(chosen_by_bic[s]) for s in grid}
    averaged = {
        how: {s: averaged_rmse(runs, task, how) for s, runs in complete.items()}
        for how in WEIGHTINGS
    }
    for how, name in WEIGHTINGS.items():
        variants[f"the seeds' models averaged, {name}"] = averaged[how]

    body = []
    for s in grid:
        line = [s, fmt(grid[s].get(ref))] if has_ref else [s]
        for k in order:
            r = seeds[k].get(s)
            ok = no_worse(our_rmse(r), grid[s].get(ref))
            line += [our_cell(r, "bic", ".2f"), our_cell(r, "rmse", ".5g") + (" ✓" if ok else "")]
        chosen = chosen_by_bic[s]
        line.append("—" if chosen is None else chosen["seed"])
        for how in WEIGHTINGS:
            rmse = averaged[how][s]
            line.append(fmt(rmse, ".5g") + (" ✓" if no_worse(rmse, grid[s].get(ref)) else ""))
        body.append(line)
    header = ["series", *([f"ref {ref}"] if has_ref else [])]
    for k in order:
        header += [f"seed {k} BIC", f"seed {k} RMSE"]
    header += ["lower BIC: seed", "evidence-weighted RMSE", "equal-weight RMSE"]

    summary = []
    for name, rmse in variants.items():
        std = standardise({s: {**grid[s], method: rmse[s]} for s in grid})
        ran = sum(v is not None for v in rmse.values())
        wins = sum(no_worse(v, grid[s].get(ref)) for s, v in rmse.items())
        summary.append(
            [
                name,
                str(ran),
                f"{wins} of {ran}" if has_ref else "—",
                fmt(median_or_none(column(std, method)), ".2f"),
            ]
        )
    summary_header = ["runs", "series run", f"RMSE no worse than {ref}", "median standardised"]
    agree, compared = bic_rmse_agreement(seeds, list(grid))
    return [
        f"### How much the seed moves `{method}` (training BIC and test RMSE per seed)",
        "",
        "The same searches with other seeds (the seed draws the random restarts of every fit),"
        f" from `{SEEDS_CSV}`; ✓: no worse than the published {ref}.",
        "",
        *md_table(header, body),
        "",
        *md_table(summary_header, summary),
        "",
        'The last three rows are choices made without the test data. "Lower training BIC"'
        " takes, on each series, the seed whose model has the lower training BIC, as `abcd"
        ' search --seeds K` does. "Averaged" forecasts with the mixture of every seed\'s model,'
        " as `abcd predict --average-seeds` does: weighted by evidence, each model's weight is"
        " exp(−BIC/2) over the sum of these (the default); equally weighted, the predictive mean"
        " is the mean of the models' means, so its RMSE is never above the seeds' average RMSE."
        " Medians standardise against the same other columns as the table above.",
        "",
        f"On {agree} of the {compared} series where the seeds' models differ in training BIC (by"
        f" more than {SAME_BIC}), the lowest BIC went with the lowest test RMSE.",
    ]


def averaged_rmse(runs: list[dict[str, str]], task: str, weighting: str) -> float | None:
    """Test RMSE of the mixture of the runs' models, rebuilt from their kernels (no refitting),
    weighted by their training BICs' evidence or equally (``weighting``: a key of
    ``WEIGHTINGS``) and predicted as ``abcd predict --average-seeds`` does; None without runs
    or when a model cannot be rebuilt."""
    if not runs:
        return None
    try:
        models = [stored_model(r)[0] for r in runs]
        test = load_series(split_files(runs[0]["series"], task)[1])
        weights = None
        if weighting == "evidence":
            weights = evidence_weights([float(r["bic"]) for r in runs])
        table = predictive_table(models, test.x, weights)
    except (InputError, ValueError, np.linalg.LinAlgError):
        return None
    return test_scores(test.y, table["mean"], table["sd"])[0]


def every_seed_ran(seeds: Seeds, series: str) -> list[dict[str, str]]:
    """The runs of ``series``, one per seed, when every seed's run succeeded; else []."""
    runs = [seeds[k].get(series) for k in sorted(seeds)]
    done = [r for r in runs if r is not None and our_rmse(r) is not None]
    return done if len(done) == len(runs) else []


def bic_rmse_agreement(seeds: Seeds, series: list[str]) -> tuple[int, int]:
    """On how many series (of those where every seed's run succeeded and their training BICs
    are not all within ``SAME_BIC``) the run with the lowest BIC also has the lowest RMSE."""
    agree = compared = 0
    for s in series:
        done = [(float(r["bic"]), our_rmse(r) or 0.0) for r in every_seed_ran(seeds, s)]
        if not done or max(b for b, _ in done) - min(b for b, _ in done) <= SAME_BIC:
            continue
        compared += 1
        agree += min(done)[1] == min(rmse for _, rmse in done)
    return agree, compared
