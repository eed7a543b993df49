"""Does the report state the same findings as facts whatever the seed? (Issue 53's target: on
airline, radio and call-centre with seeds 0, 1 and 2, the findings the executive summary states as
facts (periods within 5%, a linear trend, a change) are the same for the three seeds, and a
finding whose probability is below 0.9 is never worded as a fact.)

Each series' whole file is searched with ``abcd_cli.search(..., method="posterior", seed=k)``
and the default settings; the model files (about 300 KB each) stay out of the repository in
``outputs/certainty_models/``. What the report states of each, the JSON report's
``summary.findings``, is kept in ``outputs/certainty_findings/SERIES-seedK.json``; a rerun skips
the searches whose model file is there and rewrites the findings from the report code of now.

    .venv/bin/python -m benchmarks.studies.report_certainty [SERIES ...] [--table-only]
"""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path

import abcd_cli
from benchmarks.common import DATASETS, machine_line, publish, python_command
from benchmarks.studies import OUTPUTS
from benchmarks.studies.posterior_stability import same

SERIES = ("01-airline", "08-radio", "07-call-centre")
SEEDS = (0, 1, 2)
MODELS = OUTPUTS / "certainty_models"
FINDINGS = OUTPUTS / "certainty_findings"
TABLE = OUTPUTS / "report_certainty.md"
#: a finding worded as a fact must have at least this probability (the issue's bar)
FACT = 0.9


def model_path(series: str, seed: int) -> Path:
    return MODELS / f"{series}-seed{seed}.json"


def findings_path(series: str, seed: int) -> Path:
    return FINDINGS / f"{series}-seed{seed}.json"


def search(series: str, seed: int) -> None:
    """Search the series with the posterior (unless its model file is there)."""
    path = model_path(series, seed)
    if path.exists():
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abcd_cli.AbcdWarning)
        found = abcd_cli.search(
            abcd_cli.load(str(DATASETS / f"{series}.csv")), method="posterior", seed=seed, jobs=0
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    found.save(path)
    print(f"{series} seed {seed}: {found.structure}", flush=True)


def record_findings(series: str, seed: int) -> None:
    """Write what the JSON report's summary states of the model file, when it is there."""
    path = model_path(series, seed)
    if not path.exists():
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abcd_cli.AbcdWarning)
        content = abcd_cli.report(str(path))
    out = findings_path(series, seed)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(content["summary"]["findings"], indent=1) + "\n")


def facts(path: Path) -> list[dict]:
    """The findings the summary words as facts."""
    return [f for f in json.loads(path.read_text()) if f["wording"] == "fact"]


def shown(findings: list[dict]) -> str:
    """'periodic 1.00 (0.98); linear trend (0.95)'."""
    parts = []
    for f in findings:
        value = f" {f['value']:.4g}" if f.get("value") is not None else ""
        parts.append(f"{f['kind']}{value} ({f['probability']:.2f})")
    return "; ".join(parts) or "none"


def table() -> str:
    """One row per series whose three findings files exist."""
    rows, agree, counted, weak = [], 0, 0, 0
    for series in SERIES:
        paths = [findings_path(series, seed) for seed in SEEDS]
        if not all(p.exists() for p in paths):
            continue
        x = abcd_cli.load(str(DATASETS / f"{series}.csv")).x
        width = float(max(x) - min(x))
        by_seed = [facts(p) for p in paths]
        weak += sum(f["probability"] < FACT for seed in by_seed for f in seed)
        ok = all(same(by_seed[0], other, width) for other in by_seed[1:])
        agree += ok
        counted += 1
        rows.append(
            f"| {series} | {'yes' if ok else 'no'} | "
            + " | ".join(shown(f) for f in by_seed)
            + " |"
        )
    command = python_command("benchmarks.studies.report_certainty", ["--table-only"])
    return (
        "\n".join(
            [
                "# The findings the report states as facts, over seeds 0, 1 and 2",
                "",
                f"Made by `{command}` ({machine_line()}) from the model files of"
                " `abcd search --method posterior` on each whole series. A finding is listed when"
                " the executive summary words it as a fact; its posterior probability follows it.",
                "",
                f"The same facts on all three seeds: **{agree} of {counted}** series. Facts of"
                f" probability below {FACT}: **{weak}**.",
                "",
                "| series | same on all three | seed 0 | seed 1 | seed 2 |",
                "|---|---|---|---|---|",
                *rows,
            ]
        )
        + "\n"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("series", nargs="*")
    parser.add_argument("--table-only", action="store_true")
    parser.add_argument("--search-only", action="store_true")
    args = parser.parse_args(argv)
    for series in args.series or SERIES:
        for seed in SEEDS:
            if not args.table_only:
                search(series, seed)
            if not args.search_only:
                record_findings(series, seed)
    if not args.search_only:
        publish(table(), TABLE)


if __name__ == "__main__":
    main()
