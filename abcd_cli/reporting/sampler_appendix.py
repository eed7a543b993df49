"""The appendix of a report made by the sampler (``--method smc``, issue 63): the settings the
sampler read (``settings.SAMPLER_SETTINGS``) in a reader's words, and its trace by data step
(``kernel_search.smc_trace``, the model file's ``posterior.steps``) instead of the greedy
search's levels, which it does not have.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from abcd_cli.kernel_search.settings import BUDGET_FIELDS, SAMPLER_SETTINGS
from abcd_cli.kernel_search.smc_budget import plan_text
from abcd_cli.kernel_search.smc_halves import half_sizes
from abcd_cli.reporting.numbers import format_number

#: What each of the sampler's settings is, after its value.
MEANINGS = {
    "method": "sequential Monte Carlo over structures and their parameters",
    "data_steps": "the data added in this many nested steps",
    "first_points": "points in the first data step",
    "structure_moves": "per particle and data step",
    "parameter_moves": "Metropolis steps per particle and data step",
    "prior_mean": "the GP's prior mean",
    "engine": "the engine that computed the likelihoods",
    "budget": "seconds the sampler was asked to finish within",
    "moves_plan": "structure:parameter moves each data step made",
}


def is_sampler(search: Mapping[str, Any]) -> bool:
    """Whether the model file ``search`` was made by the sampler."""
    return search.get("settings", {}).get("method") == "smc"


def sampler_settings(settings: Mapping[str, Any], engine: str) -> list[list[str]]:
    """The settings the sampler read, each with what it is, the ``engine`` the one that ran
    (the setting may say "auto"); a file of an earlier version may hold the greedy search's
    too: they are left out, as the sampler did not read them."""
    rows = []
    for name in (*SAMPLER_SETTINGS, *BUDGET_FIELDS):
        if name not in settings or name == "seed":  # the seed has its own row
            continue
        value = engine if name == "engine" else settings[name]
        if name == "moves_plan":
            value = plan_text(value)
        if name == "particles":
            first, second = half_sizes(int(value))
            meaning = f"in two independent halves of {first} and {second}, each from its own seed"
        else:
            meaning = MEANINGS[name]
        rows.append([name, f"{value} ({meaning})"])
    return rows


def sampler_trace(search: Mapping[str, Any]) -> list[dict[str, str]]:
    """One row per data step of the sampler's trace, its numbers as the table prints them:
    points used of all, each half's effective sample size of its particles, which halves
    resampled, the structure and parameter moves' acceptance, the log evidence estimate so far,
    the most probable structure and its weight."""
    n = int(search.get("n", 0))
    rows = []
    for step in (search.get("posterior") or {}).get("steps", []):
        ess = "; ".join(
            f"{format_number(e, decimals=1)} of {p}"
            for e, p in zip(step["ess"], step["particles"], strict=True)
        )
        log_z = step["log_evidence"]
        rows.append(
            {
                "step": str(step["step"]),
                "points": f"{step['points']} of {n}" if n else str(step["points"]),
                "ess": ess,
                "resampled": _resampled(step["resampled"]),
                "structure_acceptance": _rate(step["structure_acceptance"]),
                "parameter_acceptance": _rate(step["parameter_acceptance"]),
                "log_evidence": "—" if log_z is None else format_number(log_z, decimals=1),
                "structure": step["structure"],
                "weight": format_number(step["weight"], decimals=2),
            }
        )
    return rows


def _resampled(halves: list[bool]) -> str:
    """Which halves resampled, in words."""
    first, second = halves
    if first and second:
        return "both"
    if first or second:
        return "first half" if first else "second half"
    return "no"


def _rate(rate: float | None) -> str:
    """An acceptance rate as a percentage ('—': nothing proposed)."""
    if rate is None or not math.isfinite(rate):
        return "—"
    return f"{rate:.0%}"
