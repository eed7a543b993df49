"""How much the seed moves a method: its runs with every seed (``results.csv`` and
``other_seeds.csv``), and what a user could make of them without the test data: the lowest
training BIC of the seeds (what ``abcd search --seeds K`` keeps), or the mixture of every seed's
model weighted by evidence or equally (what ``abcd predict --average-seeds`` forecasts with),
and how often each of these meets the targets over every smaller set of the seeds."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from abcd_cli.data.reader import load_series
from abcd_cli.errors import InputError
from abcd_cli.prediction import evidence_weights, mixture_moments
from benchmarks.accuracy.figures import stored_model
from benchmarks.accuracy.runs import COUNTERPART, SEEDS_CSV, Key, split_files, test_scores
from benchmarks.accuracy.tables import (
    TARGET_MEDIAN,
    TARGET_WINS,
    Grid,
    column,
    fmt,
    in_published_place,
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
#: the choices a user can make among the seeds' models without the test data, by row name:
#: the lowest training BIC (``abcd search --seeds K``), or the mixture of the models weighted
#: as ``abcd predict --average-seeds --seed-weights evidence|equal``
CHOICES = {
    "bic": "lower training BIC of the seeds",
    "evidence": "the seeds' models averaged, weighted by evidence",
    "equal": "the seeds' models averaged, equally weighted",
}


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

    Per series, each seed's training BIC and test RMSE, the test RMSE of the seeds' models
    averaged (weighted by evidence, and equally) and how many seeds are no worse than the
    published counterpart (``single_seed_line`` sums these over the series). Then, for each
    seed and for the choices a user could make without the test data (on each series, the seed
    whose model has the lower training BIC; or a mixture of every seed's model), the runs no
    worse than the published counterpart and the median standardised RMSE, standardised
    against the same other columns as the main table; and, with three seeds or more, how often
    each choice meets the targets with fewer seeds (``subset_section``)."""
    seeds = runs_by_seed([*seed_rows.values(), *rows.values()], task, method)  # main rows win
    if len(seeds) < 2:
        return []
    ref = COUNTERPART[method]
    has_ref = any(cells.get(ref) is not None for cells in grid.values())
    complete = {s: SeedRuns.load(every_seed_ran(seeds, s), task) for s in grid}
    variants = variant_rmses(seeds, complete, grid)
    header, body, seed_wins, seed_runs = per_series_table(seeds, complete, variants, grid, ref)
    if not has_ref:  # no published counterpart: without its columns (the second and the last)
        header, body = header[:1] + header[2:-1], [line[:1] + line[2:-1] for line in body]
    agree, compared = bic_rmse_agreement(complete)
    return [
        f"### How much the seed moves `{method}` (training BIC and test RMSE per seed)",
        "",
        "The same searches with other seeds (the seed draws the random restarts of every fit),"
        f" from `{SEEDS_CSV}`; ✓: no worse than the published {ref}.",
        "",
        *md_table(header, body),
        "",
        *choices_table(variants, grid, method, has_ref),
        "",
        choices_text(method, ref, paper_basis=has_ref),
        "",
        f"On {agree} of the {compared} series where the seeds' models differ in training BIC (by"
        f" more than {SAME_BIC}), the lowest BIC went with the lowest test RMSE.",
        *([single_seed_line(seed_wins, seed_runs, len(seeds), len(grid), ref)] if has_ref else []),
        *(subset_section(complete, grid, task, method) if has_ref else []),
    ]


def variant_rmses(
    seeds: Seeds, complete: dict[str, SeedRuns], grid: Grid
) -> dict[str, dict[str, float | None]]:
    """Test RMSE per series of each seed's run (``seed K``) and of each choice among the seeds
    (named as in ``CHOICES``), in that order."""
    variants: dict[str, dict[str, float | None]] = {
        f"seed {k}": {s: our_rmse(seeds[k].get(s)) for s in grid} for k in sorted(seeds)
    }
    for choice, name in CHOICES.items():
        variants[name] = {s: runs.rmse(choice) for s, runs in complete.items()}
    return variants


def per_series_table(
    seeds: Seeds,
    complete: dict[str, SeedRuns],
    variants: dict[str, dict[str, float | None]],
    grid: Grid,
    ref: str,
) -> tuple[list[str], list[list[str]], int, int]:
    """The table of each series' runs by seed, with the reference's column first and the count
    of seeds no worse than it last; and over every series, the runs no worse than the reference
    and the runs that ran."""
    order = sorted(seeds)
    body = []
    seed_wins = seed_runs = 0  # runs (series and seed) that ran; of them, no worse than ref
    for s in grid:
        line = [s, fmt(grid[s].get(ref))]
        wins = 0
        for k in order:
            r = seeds[k].get(s)
            rmse = our_rmse(r)
            ok = no_worse(rmse, grid[s].get(ref))
            wins += ok
            seed_runs += rmse is not None
            line += [our_cell(r, "bic", ".2f"), our_cell(r, "rmse", ".5g") + (" ✓" if ok else "")]
        chosen = complete[s].lowest_bic()
        line.append("—" if chosen is None else chosen["seed"])
        for choice in ("evidence", "equal"):
            rmse = variants[CHOICES[choice]][s]
            line.append(fmt(rmse, ".5g") + (" ✓" if no_worse(rmse, grid[s].get(ref)) else ""))
        line.append(f"{wins} of {len(order)}")
        seed_wins += wins
        body.append(line)
    header = ["series", f"ref {ref}"]
    for k in order:
        header += [f"seed {k} BIC", f"seed {k} RMSE"]
    header += ["lower BIC: seed", "evidence-weighted RMSE", "equal-weight RMSE"]
    header += [f"seeds no worse than {ref}"]
    return header, body, seed_wins, seed_runs


def choices_table(
    variants: dict[str, dict[str, float | None]], grid: Grid, method: str, has_ref: bool
) -> list[str]:
    """Per seed and per choice among the seeds: the series run, those no worse than the
    published counterpart and the median standardised RMSE (also on the paper's basis when
    the counterpart was published)."""
    ref = COUNTERPART[method]
    summary = []
    for name, rmse in variants.items():
        ran = sum(v is not None for v in rmse.values())
        wins, median = wins_and_median(rmse, grid, method)
        line = [name, str(ran), f"{wins} of {ran}" if has_ref else "—", fmt(median, ".2f")]
        if has_ref:
            paper = in_published_place({s: {**grid[s], method: rmse[s]} for s in grid}, method)
            line.append(fmt(paper, ".2f"))
        summary.append(line)
    header = ["runs", "series run", f"RMSE no worse than {ref}", "median standardised"]
    header += ["median, the paper's basis"] if has_ref else []
    return md_table(header, summary)


def choices_text(method: str, ref: str, paper_basis: bool) -> str:
    """What the choices among the seeds are and how their medians are standardised."""
    return (
        'The last three rows are choices made without the test data. "Lower training BIC"'
        " takes, on each series, the seed whose model has the lower training BIC, as `abcd"
        ' search --seeds K` does. "Averaged" forecasts with the mixture of every seed\'s model,'
        " as `abcd predict --average-seeds` does: weighted by evidence, each model's weight is"
        " exp(−BIC/2) over the sum of these (the default); equally weighted, the predictive mean"
        " is the mean of the models' means, so its RMSE is never above the seeds' average RMSE."
        " Medians standardise against the same other columns as the table above"
        + (
            "; on the paper's basis, against the eight other published methods only, with"
            f" `{method}` in the place of {ref} (as the line under the targets)."
            if paper_basis
            else "."
        )
    )


def single_seed_line(wins: int, runs: int, n_seeds: int, n_series: int, ref: str) -> str:
    """How often one search, whatever its seed, is no worse than the published counterpart:
    ``wins`` of the ``runs`` that ran (of ``n_seeds`` × ``n_series``), and so the count one
    seed reaches on average."""
    return (
        f"Of the {runs} runs that ran ({n_seeds} seeds × {n_series} series), {wins} are no worse"
        f" than the published {ref} ({wins / max(runs, 1):.0%}): one search with any one of"
        f" these seeds is no worse on {wins / n_seeds:.1f} of {n_series} series on average. The"
        " published number is itself one run of the original system."
    )


def wins_and_median(
    rmse: dict[str, float | None], grid: Grid, method: str
) -> tuple[int, float | None]:
    """Series where ``rmse`` is no worse than ``method``'s published counterpart, and its median
    standardised RMSE with ``rmse`` in ``method``'s column of ``grid``."""
    ref = COUNTERPART[method]
    wins = sum(no_worse(v, grid[s].get(ref)) for s, v in rmse.items())
    std = standardise({s: {**grid[s], method: rmse[s]} for s in grid})
    return wins, median_or_none(column(std, method))


def subset_section(complete: dict[str, SeedRuns], grid: Grid, task: str, method: str) -> list[str]:
    """How often each choice among the seeds meets the issue's targets when only some of the
    seeds had been run: over every set of k seeds (2 ≤ k < all), the sets whose choice is no
    worse than the published counterpart on ``TARGET_WINS`` series or more, the sets whose median
    standardised RMSE is within ``TARGET_MEDIAN``, and the sets with both. Only when every seed
    ran on every series."""
    n_seeds = {len(runs.runs) for runs in complete.values()}
    if len(n_seeds) != 1 or (k_all := n_seeds.pop()) < 3 or task not in TARGET_MEDIAN:
        return []
    target = TARGET_MEDIAN[task]
    body = []
    for k in range(2, k_all):
        sets = list(combinations(range(k_all), k))
        for choice, name in CHOICES.items():
            counts = [0, 0, 0]
            for subset in sets:
                rmse = {s: runs.rmse(choice, subset) for s, runs in complete.items()}
                wins, median = wins_and_median(rmse, grid, method)
                reach, low = wins >= TARGET_WINS, median is not None and median <= target
                counts = [counts[0] + reach, counts[1] + low, counts[2] + (reach and low)]
            body.append([str(k), str(len(sets)), name, *(str(c) for c in counts)])
    header = [
        "seeds per set",
        "sets",
        "choice",
        f"no worse than {COUNTERPART[method]} on ≥ {TARGET_WINS}",
        f"median ≤ {target:.2f}",
        "both",
    ]
    return [
        "",
        f"How often each choice meets the targets with fewer seeds: of every set of k of the"
        f" {k_all} seeds, how many reach each target (the median unrounded, as the verdict"
        " above). A choice that meets a target with most sets does not depend on a lucky draw"
        " of seeds.",
        "",
        *md_table(header, body),
    ]


@dataclass(frozen=True)
class SeedRuns:
    """One series' runs, one per seed, and each run's forecast at the test x (its model rebuilt
    from the kernel, no refitting), computed once for every choice among them."""

    runs: list[dict[str, str]]
    y: np.ndarray | None  # the test y; None when a model or the test file could not be read
    means: np.ndarray  # row k: run k's predictive mean at the test x
    sds: np.ndarray  # row k: its predictive standard deviation, noise included

    @classmethod
    def load(cls, runs: list[dict[str, str]], task: str) -> SeedRuns:
        empty = np.empty((0, 0))
        if not runs:
            return cls(runs, None, empty, empty)
        try:
            test = load_series(split_files(runs[0]["series"], task)[1])
            moments = [stored_model(r)[0].predict(test.x) for r in runs]
        except (InputError, ValueError, np.linalg.LinAlgError):
            return cls(runs, None, empty, empty)
        return cls(
            runs, test.y, np.array([m for m, _ in moments]), np.array([s for _, s in moments])
        )

    def lowest_bic(self, subset: Sequence[int] | None = None) -> dict[str, str] | None:
        runs = self.runs if subset is None else [self.runs[i] for i in subset]
        return min(runs, key=lambda r: float(r["bic"])) if runs else None

    def rmse(self, choice: str, subset: Sequence[int] | None = None) -> float | None:
        """Test RMSE of a choice (a key of ``CHOICES``) among the runs ``subset`` (indices; all
        when None): the lowest-BIC run's, or the mixture's of their models as ``abcd predict
        --average-seeds`` forecasts; None without runs or forecasts."""
        if choice == "bic":
            return our_rmse(self.lowest_bic(subset))
        if self.y is None:
            return None
        rows = list(range(len(self.runs))) if subset is None else list(subset)
        weights = None
        if choice == "evidence":
            weights = evidence_weights([float(self.runs[i]["bic"]) for i in rows])
        mean, sd = mixture_moments(self.means[rows], self.sds[rows], weights)
        return test_scores(self.y, mean, sd)[0]


def every_seed_ran(seeds: Seeds, series: str) -> list[dict[str, str]]:
    """The runs of ``series``, one per seed, when every seed's run succeeded; else []."""
    runs = [seeds[k].get(series) for k in sorted(seeds)]
    done = [r for r in runs if r is not None and our_rmse(r) is not None]
    return done if len(done) == len(runs) else []


def bic_rmse_agreement(complete: dict[str, SeedRuns]) -> tuple[int, int]:
    """On how many series (of those where every seed's run succeeded and their training BICs
    are not all within ``SAME_BIC``) the run with the lowest BIC also has the lowest RMSE."""
    agree = compared = 0
    for runs in complete.values():
        done = [(float(r["bic"]), our_rmse(r) or 0.0) for r in runs.runs]
        if not done or max(b for b, _ in done) - min(b for b, _ in done) <= SAME_BIC:
            continue
        compared += 1
        agree += min(done)[1] == min(rmse for _, rmse in done)
    return agree, compared
