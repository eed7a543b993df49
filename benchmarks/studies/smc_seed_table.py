"""The sampler's runs at several seeds, compared (``smc_forecasts --seeds``): the facts each
seed states, the TV between seeds' weights and the table of issue 64's targets.

A run's facts are its posterior's features of probability at least ``FACT``
(``fitted.posterior_features``); two runs state the same facts when these pair up one to one
(``posterior_stability.same``: kind and inputs, periods within 5%, change times within 5% of
the data's range), of every kind and of the kinds the report's target names
(``report_certainty.TARGET_KINDS``). The TV between two runs is
``agreement.total_variation`` of their weights over the same classes the halves are compared
by: the structure (the tree without values) and the kinds of findings (the set of (kind,
inputs) a structure holds); for three seeds, the largest of the three pairs'.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import combinations

import numpy as np

from abcd_cli.kernel_search.agreement import total_variation
from benchmarks.accuracy.peers.scores import coverage_verdict
from benchmarks.studies.posterior_stability import same
from benchmarks.studies.report_certainty import TARGET_KINDS, shown

#: a feature is a fact at this probability or more (the issue's bar)
FACT = 0.9
#: the issue's bound on two runs' TV
AGREED_TV = 0.2


def kinds_key(kinds: frozenset[tuple[str, tuple[int, ...]]]) -> str:
    """A kinds-of-findings class as text for the CSV: 'change 0; periodic 0' ('none')."""
    return "; ".join(f"{k} {','.join(map(str, d))}" for k, d in sorted(kinds)) or "none"


def seeds_tv(by_seed: Sequence[dict[str, float]]) -> float:
    """The largest TV between any two seeds' weights over the same classes (0 for one)."""
    return max((total_variation(p, q) for p, q in combinations(by_seed, 2)), default=0.0)


def facts_of(features: list[dict]) -> list[dict]:
    """The features of probability at least ``FACT``."""
    return [f for f in features if f["probability"] >= FACT]


def same_facts(by_seed: Sequence[list[dict]], width: float, kinds: tuple[str, ...] = ()) -> bool:
    """Whether every seed's facts (only those of ``kinds`` when given) pair up with the first
    seed's."""
    chosen = [[f for f in facts if not kinds or f["kind"] in kinds] for facts in by_seed]
    return all(same(chosen[0], other, width) for other in chosen[1:])


def ratio_median(values: Sequence[float]) -> float:
    """The median, NaN for none."""
    return float(np.median(values)) if values else float("nan")


def series_line(
    series: str, runs: list[dict[str, str]], greedy: dict[str, float], width: float
) -> tuple[str, dict[str, object]]:
    """One series' row (its runs at each seed, ``greedy``'s covered, n_test, rmse, seconds)
    and what the pooled line adds up."""
    facts = [json.loads(r["facts"]) for r in runs]
    by_kinds = [json.loads(r["by_kinds"]) for r in runs]
    by_structure = [json.loads(r["by_structure"]) for r in runs]
    agree = same_facts(facts, width) if len(runs) > 1 else None
    agree_named = same_facts(facts, width, TARGET_KINDS) if len(runs) > 1 else None
    covered = [int(r["covered"]) for r in runs]
    n = int(runs[0]["n_test"])
    ratios = [float(r["rmse"]) / greedy["rmse"] for r in runs] if greedy else []
    walls = [float(r["wall_seconds"]) for r in runs]
    cpus = [float(r["cpu_seconds"]) for r in runs]
    word = {None: "-", True: "yes", False: "no"}
    cells = [
        series,
        ", ".join(r["seed"] for r in runs),
        " / ".join(f"{c}/{n}" for c in covered),
        f"{greedy['covered']:.0f}/{n}" if greedy else "",
        " / ".join(f"{x:.2f}" for x in ratios),
        " / ".join(f"{w:.0f}" for w in walls),
        " / ".join(f"{c:.0f}" for c in cpus),
        f"{greedy['seconds']:.0f}" if greedy else "",
        word[agree],
        word[agree_named],
        f"{seeds_tv(by_structure):.2f}",
        f"{seeds_tv(by_kinds):.2f}",
        " / ".join(f"{float(r['halves_structures_tv']):.2f}" for r in runs),
        " / ".join(f"{float(r['halves_kinds_tv']):.2f}" for r in runs),
        " · ".join(f"s{r['seed']}: {shown(f)}" for r, f in zip(runs, facts, strict=True)),
    ]
    tally = {
        "covered": covered,
        "n": n,
        "right": [coverage_verdict(c, n) == "about right" for c in covered],
        "ratios": ratios,
        "time_ratios": [w / greedy["seconds"] for w in walls] if greedy else [],
        "agree": agree,
        "agree_named": agree_named,
        "tv_kinds": seeds_tv(by_kinds) if len(runs) > 1 else None,
        "walls": walls,
    }
    return "| " + " | ".join(cells) + " |", tally


def pooled_lines(tallies: list[dict[str, object]], seeds: Sequence[int]) -> list[str]:
    """The targets' lines over the series with all ``seeds``' runs: per seed, the pooled
    coverage, the series about right, the median RMSE and time ratios; over seeds, the series
    with the same facts and with the TV by kinds within ``AGREED_TV``."""
    lines = [
        "| seed | pooled coverage (target 90-97%) | series about right | median RMSE ratio to"
        " greedy (target ≤ 1.05) | median wall time ratio to greedy (target ≤ 1.5) |",
        "|---|---|---|---|---|",
    ]
    for i, seed in enumerate(seeds):
        own = [(t, i) for t in tallies if len(t["covered"]) > i]
        if own:
            lines.append(f"| {seed} | {pooled_cells(own)} |")
    every = [(t, i) for t in tallies for i in range(len(t["covered"]))]
    if len(seeds) > 1 and every:
        lines.append(f"| all, by run | {pooled_cells(every)} |")
    full = [t for t in tallies if t["agree"] is not None and len(t["covered"]) == len(seeds)]
    agree = sum(bool(t["agree"]) for t in full)
    named = sum(bool(t["agree_named"]) for t in full)
    within = sum(t["tv_kinds"] <= AGREED_TV for t in full)
    lines += [
        "",
        f"Over the {len(full)} series with all {len(seeds)} seeds: the same facts (probability"
        f" ≥ {FACT}) on **{agree} of {len(full)}** (of the kinds {', '.join(TARGET_KINDS)}:"
        f" **{named} of {len(full)}**; target ≥ 10 of 13); the seeds' TV by kinds of findings"
        f" within {AGREED_TV} on **{within} of {len(full)}**.",
    ]
    return lines


def pooled_cells(runs: list[tuple[dict[str, object], int]]) -> str:
    """The pooled coverage, the runs about right, the median RMSE and wall time ratios of the
    ``runs`` (each a series' tally and the index of its seed)."""
    covered = sum(t["covered"][i] for t, i in runs)
    n = sum(t["n"] for t, _ in runs)
    right = sum(t["right"][i] for t, i in runs)
    ratios = [t["ratios"][i] for t, i in runs if t["ratios"]]
    times = [t["time_ratios"][i] for t, i in runs if t["time_ratios"]]
    return (
        f"{covered}/{n} = {covered / n:.1%} | {right} of {len(runs)}"
        f" | {ratio_median(ratios):.3f} | {ratio_median(times):.2f}"
    )


HEADER = (
    "| series | seeds | smc covered | greedy covered | RMSE ratio to greedy | smc wall s"
    " | smc CPU s | greedy wall s | same facts | same facts (target kinds) | seeds' TV by"
    " structure | seeds' TV by kinds | halves' TV by structure | halves' TV by kinds"
    " | facts (probability ≥ 0.9) |"
)
