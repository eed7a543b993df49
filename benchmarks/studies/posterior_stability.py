"""Are the features the posterior finds probable the same from one seed to the next? (Issue 52's
stability target: over seeds 0, 1 and 2, the features of probability ≥ 0.5 the same on at least
10 of 13 series; the greedy winners' baseline is ``feature_stability``.)

For each extrapolation training file, ``abcd_cli.search(..., method="posterior", seed=k)`` with
the default settings (one worker process per core). Seed 0's model files are the peers
benchmark's (``benchmarks/accuracy/outputs/peers/models/``, made by its ``abcd-posterior``
runs); seeds 1 and 2 are searched here and kept in ``outputs/posterior_models/seedK/``. The
model files (about 300 KB each) stay out of the repository; what the table reads of each, its
structures' weights and its features with their probabilities (``decompose/features.py``,
recomputed from the model file by the code of now), is
kept in ``outputs/posterior_features/seedK/SERIES.json``, and a rerun skips the series whose
summary is there. Two seeds state the same features when the features of
probability ≥ 0.5 pair up one to one: the same kind on the same inputs, and for a period or a
change time, values within the tolerances by which the features were grouped (periods within 5%,
change times within 5% of the data's range).

    .venv/bin/python -m benchmarks.studies.posterior_stability [SERIES ...] [--table-only]
"""

from __future__ import annotations

import argparse
import json
import math
import warnings
from pathlib import Path

import abcd_cli
from abcd_cli.data.reader import load_series
from abcd_cli.decompose.features import CHANGE_TOLERANCE, PERIOD_TOLERANCE
from abcd_cli.fitted import posterior_features
from benchmarks.accuracy.peers.abcd_peer import MODELS as SEED0
from benchmarks.accuracy.runs import all_series, split_files
from benchmarks.common import machine_line, publish, python_command
from benchmarks.studies import OUTPUTS

SEEDS = (0, 1, 2)
MODELS = OUTPUTS / "posterior_models"
SUMMARIES = OUTPUTS / "posterior_features"
TABLE = OUTPUTS / "posterior_stability.md"
#: a feature is stated when its probability is at least this
STATED = 0.5


def model_path(series: str, seed: int) -> Path:
    """Where seed ``seed``'s model file of the series' extrapolation training file is kept."""
    if seed == 0:
        return SEED0 / f"{series}-extrap.json"
    return MODELS / f"seed{seed}" / f"{series}.json"


def summary_path(series: str, seed: int) -> Path:
    return SUMMARIES / f"seed{seed}" / f"{series}.json"


def search(series: str, seed: int) -> None:
    """Search the training file with the posterior and seed ``seed`` (unless its model file
    is there), keep the model file and its summary."""
    path = model_path(series, seed)
    if not path.exists() and seed != 0:
        train_path, _ = split_files(series, "extrap")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", abcd_cli.AbcdWarning)
            found = abcd_cli.search(
                abcd_cli.load(str(train_path)), method="posterior", seed=seed, jobs=0
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        found.save(path)
        print(f"{series} seed {seed}: {found.structure}", flush=True)
    summarise(series, seed)


def summarise(series: str, seed: int) -> None:
    """Write the summary of a model file (its structures' weights and its features), when the
    model file is there."""
    path = model_path(series, seed)
    if not path.exists():
        return
    found = abcd_cli.read_model(path)
    posterior = found.document["posterior"]
    summary = {
        "weights": [
            [s["weight"], s["kernel"]] for s in posterior["structures"] if s["weight"] >= 0.01
        ],
        # from the code of now, not the file's: every seed's features by the same rules
        "features": posterior_features(found.model, found.posterior, found.x_names),
    }
    out = summary_path(series, seed)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=1) + "\n")


def stated(path: Path) -> list[dict]:
    """The features of probability ≥ STATED in a summary."""
    return [f for f in json.loads(path.read_text())["features"] if f["probability"] >= STATED]


def close(a: dict, b: dict, width: float) -> bool:
    """The same feature: kind and inputs, and values within the grouping's tolerance."""
    if (a["kind"], a["inputs"]) != (b["kind"], b["inputs"]):
        return False
    if a.get("value") is None or b.get("value") is None:
        return a.get("value") is None and b.get("value") is None
    if a["kind"] == "periodic":
        return abs(math.log(a["value"] / b["value"])) <= PERIOD_TOLERANCE
    return abs(a["value"] - b["value"]) <= CHANGE_TOLERANCE * width


def same(a: list[dict], b: list[dict], width: float) -> bool:
    """Whether the features ``a`` and ``b`` pair up one to one (greedily, in order)."""
    if len(a) != len(b):
        return False
    left = list(b)
    for f in a:
        match = next((g for g in left if close(f, g, width)), None)
        if match is None:
            return False
        left.remove(match)
    return True


def shown(features: list[dict]) -> str:
    """'periodic 1.00 (0.97); linear trend (0.62)': each feature, its value and probability."""
    parts = []
    for f in features:
        value = (
            f" {f['value']:.4g} [{f['interval'][0]:.4g}, {f['interval'][1]:.4g}]"
            if "value" in f
            else ""
        )
        parts.append(f"{f['kind']}{value} ({f['probability']:.2f})")
    return "; ".join(parts) or "none"


def table() -> str:
    """The stability table of the series whose three model files exist."""
    rows, agree, counted = [], 0, 0
    for series in all_series():
        paths = [summary_path(series, seed) for seed in SEEDS]
        if not all(p.exists() for p in paths):
            continue
        train = load_series(split_files(series, "extrap")[0])
        width = float(train.x.max() - train.x.min())
        by_seed = [stated(p) for p in paths]
        ok = all(same(by_seed[0], other, width) for other in by_seed[1:])
        agree += ok
        counted += 1
        cells = " | ".join(shown(f) for f in by_seed)
        rows.append(f"| {series} | {'yes' if ok else 'no'} | {cells} |")
    command = python_command("benchmarks.studies.posterior_stability", ["--table-only"])
    return (
        "\n".join(
            [
                "# The posterior's probable features over seeds 0, 1 and 2",
                "",
                f"Made by `{command}` ({machine_line()}) from the model files of"
                " `abcd search --method posterior` on each extrapolation training file. A feature"
                f" is listed when its probability is at least {STATED}; [a, b] is its central 95%"
                " interval over the posterior.",
                "",
                f"The same probable features on all three seeds: **{agree} of {counted}** series"
                " (the greedy winners' features: 1 of 13, feature_stability.md).",
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
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--table-only", action="store_true")
    args = parser.parse_args(argv)
    for series in all_series():  # seed 0: the peers benchmark's model files
        summarise(series, 0)
    if not args.table_only:
        for series in args.series or all_series():  # series by series: each row complete
            for seed in args.seeds:
                search(series, seed)
            publish(table(), TABLE)
    publish(table(), TABLE)


if __name__ == "__main__":
    main()
