"""How much the seed moves a method: its runs with every seed (``results.csv`` and
``other_seeds.csv``), and the choice a user could make without the test data, the lowest
training BIC of the seeds (what ``abcd search --seeds K`` keeps)."""

from __future__ import annotations

from collections.abc import Iterable

from accuracy_runs import COUNTERPART, SEEDS_CSV, Key
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

Seeds = dict[int, dict[str, dict[str, str]]]  # seed -> series -> row
#: training BICs closer than this count as the same model (seed comparison)
SAME_BIC = 0.01


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

    Per series, each seed's training BIC and test RMSE; then, for each seed and for the choice
    a user could make without the test data (on each series, the seed whose model has the lower
    training BIC), the runs no worse than the published counterpart and the median standardised
    RMSE, standardised against the same other columns as the main table."""
    seeds = runs_by_seed([*seed_rows.values(), *rows.values()], task, method)  # main rows win
    if len(seeds) < 2:
        return []
    ref = COUNTERPART[method]
    has_ref = any(cells.get(ref) is not None for cells in grid.values())
    order = sorted(seeds)

    def lower_bic(s: str) -> dict[str, str] | None:
        runs = every_seed_ran(seeds, s)
        return min(runs, key=lambda r: float(r["bic"])) if runs else None

    variants: dict[str, dict[str, dict[str, str] | None]] = {
        f"seed {k}": {s: seeds[k].get(s) for s in grid} for k in order
    }
    variants["lower training BIC of the seeds"] = {s: lower_bic(s) for s in grid}

    body = []
    for s in grid:
        line = [s, fmt(grid[s].get(ref))] if has_ref else [s]
        for k in order:
            r = seeds[k].get(s)
            ok = no_worse(our_rmse(r), grid[s].get(ref))
            line += [our_cell(r, "bic", ".2f"), our_cell(r, "rmse", ".5g") + (" ✓" if ok else "")]
        chosen = variants["lower training BIC of the seeds"][s]
        line.append("—" if chosen is None else chosen["seed"])
        body.append(line)
    header = ["series", *([f"ref {ref}"] if has_ref else [])]
    for k in order:
        header += [f"seed {k} BIC", f"seed {k} RMSE"]
    header.append("lower BIC: seed")

    summary = []
    for name, chosen_rows in variants.items():
        rmse = {s: our_rmse(r) for s, r in chosen_rows.items()}
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
        "The last row takes, on each series, the seed whose model has the lower training BIC:"
        " a choice made without the test data, as a search that tried every seed would make it."
        " Medians standardise against the same other columns as the table above.",
        "",
        f"On {agree} of the {compared} series where the seeds' models differ in training BIC (by"
        f" more than {SAME_BIC}), the lowest BIC went with the lowest test RMSE.",
    ]


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
