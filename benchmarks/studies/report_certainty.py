"""Does the report state the same findings as facts whatever the seed? (Issue 53's target: on
airline, radio and call-centre with seeds 0, 1 and 2, the findings the executive summary states as
facts (periods within 5%, a linear trend, a change) are the same for the three seeds, and a
finding whose probability is below 0.9 is never worded as a fact.)

Each series' whole file is searched with ``abcd_cli.search(..., method="posterior", seed=k)``
and the default settings; the model files (about 300 KB each) stay out of the repository in
``outputs/certainty_models/``. What the report states of each, the JSON report's
``summary.findings``, is kept in ``outputs/certainty_findings/SERIES-seedK.json``; a rerun skips
the searches whose model file is there and rewrites the findings from the report code of now.

``--seeds-per-run K`` (K > 1) asks the same of the joint posterior over several searches'
pools (``kernel_search.joint``): each run is ``method="posterior", seeds=K`` with SEED 0, K and
2K (so 3K searches), its files named ``SERIES-seedsA-B``; the table goes to
``outputs/report_certainty_seedsK.md``, with every finding the summary states (not only the
facts) and what each run cost: its searches, its joint pool and its weighing.

    .venv/bin/python -m benchmarks.studies.report_certainty [SERIES ...] [--table-only]
        [--seeds-per-run K]
"""

from __future__ import annotations

import argparse
import json
import math
import time
import warnings
from pathlib import Path

import abcd_cli
from abcd_cli.kernel_search.events import SearchEvent
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
#: The kinds of finding the issue's target names (periods, a linear trend, a change); the
#: report also states smooth parts and changing noise, counted in the first tally only.
TARGET_KINDS = ("periodic", "linear trend", "change")


def of_target_kinds(findings: list[dict]) -> list[dict]:
    """The findings of the kinds the target names."""
    return [f for f in findings if f["kind"] in TARGET_KINDS]


def agreement_line(agree: int, named: int, counted: int, weak: int, over: str) -> str:
    """The tallies: the same facts over the three ``over``, of every kind and of the target's
    kinds, and the facts below the bar."""
    return (
        f"The same facts on all three {over}: **{agree} of {counted}** series; of the kinds the"
        f" target names ({', '.join(TARGET_KINDS)}): **{named} of {counted}**. Facts of"
        f" probability below {FACT}: **{weak}**."
    )


def run_name(series: str, seed: int, k: int = 1) -> str:
    """``SERIES-seedS`` for one search, ``SERIES-seedsS-T`` for a run of seeds S..T."""
    return f"{series}-seed{seed}" if k == 1 else f"{series}-seeds{seed}-{seed + k - 1}"


def model_path(series: str, seed: int, k: int = 1) -> Path:
    return MODELS / f"{run_name(series, seed, k)}.json"


def findings_path(series: str, seed: int, k: int = 1) -> Path:
    return FINDINGS / f"{run_name(series, seed, k)}.json"


def cost_path(series: str, seed: int, k: int) -> Path:
    """A joint run's cost: its searches' and its weighing's seconds, its pools' sizes."""
    return FINDINGS / f"{run_name(series, seed, k)}.cost.json"


def run_seeds(k: int) -> list[int]:
    """The first seed of each of the three runs: 0, 1, 2 for single searches; 0, K, 2K."""
    return [i * k for i in range(len(SEEDS))]


def search(series: str, seed: int, k: int = 1) -> None:
    """Search the series with the posterior (unless its model file is there); with ``k`` > 1
    the joint posterior of seeds seed..seed+k-1, checkpointed beside the model file so that an
    interrupted run resumes, and its cost recorded."""
    path = model_path(series, seed, k)
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    weighing: dict[str, float] = {}

    def on_event(event: SearchEvent) -> None:
        now = time.perf_counter()
        if event.kind == "stage" and event.stage == "weigh":
            weighing["start"] = now
            weighing["structures"] = event.total
        elif event.kind == "posterior" and "start" in weighing:
            weighing["seconds"] = now - weighing["start"]

    joint = {"seeds": k, "on_event": on_event, "resume": True} if k > 1 else {}
    if k > 1:
        joint["checkpoint"] = MODELS / f"{run_name(series, seed, k)}.ckpt.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abcd_cli.AbcdWarning)
        found = abcd_cli.search(
            abcd_cli.load(str(DATASETS / f"{series}.csv")),
            method="posterior",
            seed=seed,
            jobs=0,
            **joint,
        )
    found.save(path)
    if k > 1:
        found.discard_checkpoints()
        document = found.to_dict()
        cost = {
            "elapsed_seconds": document["elapsed_seconds"],
            "weighing_seconds_this_run": weighing.get("seconds"),
            "joint_pool": weighing.get("structures"),
            "seed_bics": [m["bic"] for m in document["seed_models"]],
        }
        cost_path(series, seed, k).write_text(json.dumps(cost, indent=1) + "\n")
    print(f"{run_name(series, seed, k)}: {found.structure}", flush=True)


def record_findings(series: str, seed: int, k: int = 1) -> None:
    """Write what the JSON report's summary states of the model file, when it is there."""
    path = model_path(series, seed, k)
    if not path.exists():
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abcd_cli.AbcdWarning)
        content = abcd_cli.report(str(path))
    out = findings_path(series, seed, k)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(content["summary"]["findings"], indent=1) + "\n")
    cost = cost_path(series, seed, k)
    if k > 1 and cost.exists():
        record = json.loads(cost.read_text())
        record.update(beyond_pool(json.loads(path.read_text())))
        cost.write_text(json.dumps(record, indent=1) + "\n")


def beyond_pool(document: dict) -> dict[str, float]:
    """What weighing only the ``pool`` lowest BICs of the joint pool would have lost: the
    posterior's weight on the other structures, and the most probable one's rank by BIC."""
    structures = document["posterior"]["structures"]
    pool = document["settings"]["pool"]
    by_bic = sorted(range(len(structures)), key=lambda i: structures[i]["bic"])
    beyond = sum(structures[i]["weight"] for i in by_bic[pool:])
    return {"weight_beyond_pool": beyond, "most_probable_bic_rank": by_bic.index(0) + 1}


def facts(path: Path) -> list[dict]:
    """The findings the summary words as facts."""
    return [f for f in json.loads(path.read_text()) if f["wording"] == "fact"]


def stated(path: Path) -> list[dict]:
    """The findings the summary states at all (facts, likely, uncertain)."""
    return [f for f in json.loads(path.read_text()) if f["wording"] != "omitted"]


def shown(findings: list[dict]) -> str:
    """'periodic 1.00 (0.98); linear trend (0.95)'."""
    parts = []
    for f in findings:
        value = f" {f['value']:.4g}" if f.get("value") is not None else ""
        parts.append(f"{f['kind']}{value} ({f['probability']:.2f})")
    return "; ".join(parts) or "none"


def compared(series: str, paths: list[Path]) -> tuple[list[list[dict]], bool, bool, int]:
    """The facts of each run's findings file, whether they are the same in all runs (of every
    kind, and of the target's kinds), and how many facts are below ``FACT``."""
    x = abcd_cli.load(str(DATASETS / f"{series}.csv")).x
    width = float(max(x) - min(x))
    by_run = [facts(p) for p in paths]
    kinds = [of_target_kinds(f) for f in by_run]
    return (
        by_run,
        all(same(by_run[0], other, width) for other in by_run[1:]),
        all(same(kinds[0], other, width) for other in kinds[1:]),
        sum(f["probability"] < FACT for run in by_run for f in run),
    )


def table(k: int = 1) -> str:
    """One row per series whose three findings files exist (of runs of ``k`` seeds each)."""
    if k > 1:
        return joint_table(k)
    rows, agree, named, counted, weak = [], 0, 0, 0, 0
    for series in SERIES:
        paths = [findings_path(series, seed) for seed in SEEDS]
        if not all(p.exists() for p in paths):
            continue
        by_seed, ok, same_named, below = compared(series, paths)
        agree += ok
        named += same_named
        weak += below
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
                agreement_line(agree, named, counted, weak, "seeds"),
                "",
                "| series | same on all three | seed 0 | seed 1 | seed 2 |",
                "|---|---|---|---|---|",
                *rows,
            ]
        )
        + "\n"
    )


def stated_shown(findings: list[dict]) -> str:
    """'periodic 1.002 (1.00, fact); periodic 4.329 (0.62, likely)'."""
    parts = []
    for f in findings:
        value = f" {f['value']:.4g}" if f.get("value") is not None else ""
        parts.append(f"{f['kind']}{value} ({f['probability']:.2f}, {f['wording']})")
    return "; ".join(parts) or "none"


def joint_table(k: int) -> str:
    """The facts of the three runs of ``k`` seeds each, every finding they state, and what
    each run cost."""
    firsts = run_seeds(k)
    names = [f"seeds {s}-{s + k - 1}" for s in firsts]
    rows, all_rows, cost_rows, agree, named, counted, weak = [], [], [], 0, 0, 0, 0
    for series in SERIES:
        paths = [findings_path(series, seed, k) for seed in firsts]
        if not all(p.exists() for p in paths):
            continue
        by_run, ok, same_named, below = compared(series, paths)
        agree += ok
        named += same_named
        weak += below
        counted += 1
        rows.append(f"| {series} | {'yes' if ok else 'no'} | " + " | ".join(map(shown, by_run)))
        rows[-1] += " |"
        all_rows.append(
            f"| {series} | " + " | ".join(stated_shown(stated(p)) for p in paths) + " |"
        )
        for seed, name in zip(firsts, names, strict=True):
            path = cost_path(series, seed, k)
            if path.exists():
                c = json.loads(path.read_text())
                weighing = c["weighing_seconds_this_run"]
                cost_rows.append(
                    f"| {series} | {name} | {c['joint_pool']} |"
                    f" {', '.join(f'{b:.1f}' for b in c['seed_bics'])} |"
                    f" {c['elapsed_seconds']:.0f} |"
                    f" {'' if weighing is None else f'{weighing:.0f}'} |"
                    f" {c.get('weight_beyond_pool', math.nan):.2f} |"
                    f" {c.get('most_probable_bic_rank', '')} |"
                )
    command = python_command(
        "benchmarks.studies.report_certainty", ["--table-only", "--seeds-per-run", str(k)]
    )
    return (
        "\n".join(
            [
                f"# The findings the report states as facts, over three runs of {k} seeds",
                "",
                f"Made by `{command}` ({machine_line()}) from the model files of"
                f" `abcd search --method posterior --seeds {k}` with `--seed`"
                f" {', '.join(map(str, firsts))} on each whole series: each run weighs the"
                f" structures of its {k} searches' pools jointly. A finding is listed when the"
                " executive summary words it as a fact; its posterior probability follows it.",
                "",
                agreement_line(agree, named, counted, weak, "runs"),
                "",
                f"| series | same on all three | {' | '.join(names)} |",
                "|---|---|---|---|---|",
                *rows,
                "",
                "Every finding the summary states (fact, likely or uncertain), with its"
                " probability:",
                "",
                f"| series | {' | '.join(names)} |",
                "|---|---|---|---|",
                *all_rows,
                "",
                "What each run cost: the distinct structures of its searches' pools (all"
                " weighed), each search's lowest BIC, the run's seconds in all (searches and"
                " weighing, as the model file records them) and the weighing's own; and what"
                " weighing only the joint pool's `--pool` (20) lowest BICs would have lost: the"
                " posterior's weight on the other structures, and the most probable structure's"
                " rank by BIC:",
                "",
                "| series | run | joint pool | seeds' lowest BICs | seconds | weighing seconds"
                " | weight beyond the 20 lowest BICs | most probable's BIC rank |",
                "|---|---|---|---|---|---|---|---|",
                *cost_rows,
            ]
        )
        + "\n"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("series", nargs="*")
    parser.add_argument("--table-only", action="store_true")
    parser.add_argument("--search-only", action="store_true")
    parser.add_argument("--seeds-per-run", type=int, default=1, metavar="K")
    args = parser.parse_args(argv)
    k = args.seeds_per_run
    for series in args.series or SERIES:
        for seed in SEEDS if k == 1 else run_seeds(k):
            if not args.table_only:
                search(series, seed, k)
            if not args.search_only:
                record_findings(series, seed, k)
    if not args.search_only:
        publish(table(k), TABLE if k == 1 else OUTPUTS / f"report_certainty_seeds{k}.md")


if __name__ == "__main__":
    main()
