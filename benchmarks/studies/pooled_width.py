"""Issue 62: can a width factor borrowed from other series reach the coverage target, and what
does it cost an honest band?

Reads the calibration study's stored raws (``calibration_raw/``: each extrapolation split's
backtest errors z, standardised by the forecast's own spread, and its test points' band; the
well-specified draws' backtests) and runs nothing. Every rule gives one factor f ≥ 1 per band
(``calibration.BANDS`` bands over the backtest's horizon, or one for all horizons) and widens
the test band about its mean by f:

- ``own, by band``: the product's calibration (``calibration.METHOD``, floor 1);
- ``own, one factor``: f = q₀.₉₅(|z|) / z₀.₉₇₅ over all of the series' own backtest errors;
- ``pooled``: the same quantile over every *other* series' errors (leave one series out), the
  rule a series never seen would get from a prior pooled over many series;
- ``own or pooled``: max(own by band, pooled).

"needed" is the factor that would put 95% of the series' test points inside its band,
q₀.₉₅(|y − m̄| / half-width): what an oracle would choose. On the well-specified draws (a
structure fitted to draws from itself, whose band is honest) the pooled factor is the one
pooled over all 13 splits, since a new series would get it.

    .venv/bin/python -m benchmarks.studies.pooled_width \\
        --out benchmarks/studies/outputs/pooled_width.md
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from abcd_cli.calibration import BANDS, FLOOR, METHOD, Z95, Calibration, band_factor, calibrate
from benchmarks.common import publish, python_command
from benchmarks.studies.calibration import RAW, about_right, coverage


def one_factor(z: np.ndarray) -> float:
    """q₀.₉₅(|z|) / z₀.₉₇₅: the factor that puts 95% of the errors z inside the band."""
    return float(np.quantile(np.abs(z), 0.95) / Z95)


def flat(factor: float) -> Calibration:
    """One factor (floored at 1) at every horizon."""
    return Calibration(edges=(np.inf,), factors=(max(factor, FLOOR),))


def raised(c: Calibration, factor: float) -> Calibration:
    """Each band's factor raised to at least ``factor``."""
    return Calibration(edges=c.edges, factors=tuple(max(f, factor) for f in c.factors))


def needed(raw: dict) -> float:
    """The factor putting 95% of the test points inside the band."""
    t = {k: np.array(v) for k, v in raw["test"].items()}
    half = (t["high"] - t["low"]) / 2
    return float(np.quantile(np.abs(t["y"] - t["mean"]) / half, 0.95))


def pooled_factor(raws: list[dict], leave_out: str = "") -> float:
    """``one_factor`` of every split's backtest errors but ``leave_out``'s."""
    return one_factor(np.concatenate([r["backtest"]["z"] for r in raws if r["name"] != leave_out]))


def by_band(b: dict, pooled: float) -> Calibration:
    return calibrate(np.array(b["h"]), np.array(b["z"]), b["horizon"], b["origins"])


def one_band(method: str) -> Callable[[dict, float], Calibration]:
    def rule(b: dict, pooled: float) -> Calibration:
        return flat(band_factor(np.array(b["z"]), method, FLOOR, b["origins"]))

    return rule


#: Rule → its calibration from a backtest (``h``, ``z``, ``horizon``, ``origins``) and the
#: factor pooled over the other series.
RULES: dict[str, Callable[[dict, float], Calibration]] = {
    "none": lambda b, pooled: Calibration(reason="none"),
    f"own, {BANDS} bands ({METHOD}; the product's)": by_band,
    "own, one band (scale)": one_band("scale"),
    "own, one band (conformal)": one_band("conformal"),
    "pooled": lambda b, pooled: flat(pooled),
    f"own {BANDS} bands or pooled": lambda b, pooled: raised(by_band(b, pooled), pooled),
    "own one band (conformal) or pooled": lambda b, pooled: raised(
        one_band("conformal")(b, pooled), pooled
    ),
}


def changes(c: Calibration) -> float:
    """The largest |factor − 1| of a calibration (0 without one)."""
    return max((abs(f - 1) for f in c.factors), default=0.0)


def table(raws: list[dict], draws: list[dict]) -> str:
    pooled_all = pooled_factor(raws)
    pooled = {r["name"]: pooled_factor(raws, r["name"]) for r in raws}
    names = [r["name"].split("-", 1)[1] for r in raws]
    lines = [
        "| rule | pooled 95% coverage | series about right | well specified: median and"
        " largest change, draws within 15% | " + " | ".join(names) + " |",
        "|---|---|---|---|" + "---|" * len(raws),
    ]
    for label, rule in RULES.items():
        inside_all = n_all = right = 0
        cells = []
        for raw in raws:
            inside, n = coverage(raw, rule(raw["backtest"], pooled[raw["name"]]))
            inside_all, n_all = inside_all + inside, n_all + n
            right += about_right(inside, n)
            cells.append(f"{100 * inside / n:.0f}")
        honest = [changes(rule(d, pooled_all)) for d in draws]
        lines.append(
            f"| {label} | {100 * inside_all / n_all:.1f}% | {right} of {len(raws)} | "
            f"{np.median(honest):.2f}, {max(honest):.2f}, "
            f"{sum(c < 0.15 for c in honest)} of {len(honest)} | " + " | ".join(cells) + " |"
        )
    lines += [
        "",
        "Factors: what 95% of each split's test points needed, and what the rules gave (the"
        " product's largest band)",
        "",
        f"| series | needed | own, {BANDS} bands | own, one band (conformal) | pooled (others) |",
        "|---|---|---|---|---|",
    ]
    for raw in raws:
        b, name = raw["backtest"], raw["name"]
        lines.append(
            f"| {name} | {needed(raw):.2f} | {max(by_band(b, 0).factors):.2f} | "
            f"{one_band('conformal')(b, 0).factors[0]:.2f} | {pooled[name]:.2f} |"
        )
    lines += ["", f"Pooled over all {len(raws)} splits (a new series' factor): {pooled_all:.2f}."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    raws = [json.loads(p.read_text()) for p in sorted(RAW.glob("[0-9]*.json"))]
    draws = [json.loads(p.read_text()) for p in sorted(RAW.glob("draw-*.json"))]
    shown = sys.argv[1:] if argv is None else argv
    text = "\n".join(
        [
            "# A width factor pooled over other series (issue 62)",
            "",
            "    " + python_command("benchmarks.studies.pooled_width", shown),
            "",
            "Reads benchmarks/studies/outputs/calibration_raw/ (made by"
            " benchmarks.studies.calibration at depth 2, one restart); runs no search.",
            "",
            table(raws, draws),
            "",
        ]
    )
    publish(text, args.out)


if __name__ == "__main__":
    main()
