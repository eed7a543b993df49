"""Two versions of abcd side by side: the same `abcd report` on the same series, run at the same
time (one process each, ``--jobs 1``), so both see the same machine load.

Used to check that a change of structure changed no result and cost no time: for each series it
prints the chosen structure, the BIC and the wall time of each version, and how far apart their
JSON reports are (numbers: the largest relative difference; text: every changed passage).

    python -m benchmarks.studies.side_by_side OLD_CHECKOUT NEW_CHECKOUT --out DIR [SERIES ...]

OLD_CHECKOUT and NEW_CHECKOUT are source trees (e.g. `git worktree add /tmp/old COMMIT`); each
runs with this interpreter and its own tree first on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.common import DATASETS

SERIES = ("01-airline", "07-call-centre", "08-radio")
#: Keys whose values differ from run to run whatever the code.
VOLATILE = frozenset({"elapsed_seconds", "version", "generated", "date", "created"})


def start_report(tree: Path, data: Path, out: Path) -> subprocess.Popen:
    """`abcd report DATA --jobs 1 -o OUT.json` with the package of source tree ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, "-m", "abcd_cli", "report", str(data), "--jobs", "1", "--quiet"]
    return subprocess.Popen([*cmd, "-o", str(out)], cwd=out.parent, env=env)


def wait_all(procs: dict[str, subprocess.Popen], began: float, name: str) -> dict[str, float]:
    """Each process's own wall time, from ``began`` to its end; exits if one failed."""
    seconds: dict[str, float] = {}
    while len(seconds) < len(procs):
        for key, proc in procs.items():
            if key not in seconds and proc.poll() is not None:
                if proc.returncode != 0:
                    sys.exit(f"{key} failed on {name}")
                seconds[key] = time.perf_counter() - began
        time.sleep(0.2)
    return seconds


def leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(path, value) of every leaf of a JSON document, volatile keys left out."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in VOLATILE:
                yield from leaves(item, f"{path}/{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from leaves(item, f"{path}[{i}]")
    else:
        yield path, value


def compare(old: dict, new: dict) -> tuple[int, float, list[str]]:
    """Numbers that differ, their largest relative difference, and each changed text passage."""
    a, b = dict(leaves(old)), dict(leaves(new))
    n_numbers, worst, passages = 0, 0.0, []
    for key in sorted(set(a) | set(b)):
        x, y = a.get(key), b.get(key)
        if x == y:
            continue
        if isinstance(x, float) and isinstance(y, float):
            n_numbers += 1
            worst = max(worst, abs(x - y) / max(abs(x), abs(y)))
        elif isinstance(x, str) and isinstance(y, str):
            ops = difflib.SequenceMatcher(None, x, y).get_opcodes()
            passages += [
                f"{key}: {x[max(0, i1 - 30) : i2 + 10]!r} → {y[max(0, j1 - 30) : j2 + 10]!r}"
                for op, i1, i2, j1, j2 in ops
                if op != "equal"
            ]
        else:
            passages.append(f"{key}: {x!r} → {y!r}")
    return n_numbers, worst, passages


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--out", type=Path, required=True, help="folder for the JSON reports")
    parser.add_argument("series", nargs="*", default=list(SERIES))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    rows, notes = [], []
    for name in args.series:
        outs = {k: (args.out / f"{name}.{k}.json").resolve() for k in ("old", "new")}
        began = time.perf_counter()
        procs = {
            k: start_report(tree.resolve(), DATASETS / f"{name}.csv", outs[k])
            for k, tree in (("old", args.old), ("new", args.new))
        }
        seconds = wait_all(procs, began, name)
        docs = {k: json.loads(path.read_text(encoding="utf-8")) for k, path in outs.items()}
        for k in ("old", "new"):
            model = docs[k]["model"]
            rows.append(
                f"| {name} | {k} | `{model['structure']}` | {model['bic']!r}"
                f" | {model['elapsed_seconds']:.1f} | {seconds[k]:.1f} |"
            )
        n_numbers, worst, passages = compare(docs["old"], docs["new"])
        notes.append(
            f"- {name}: {n_numbers} numbers differ (largest relative difference {worst:.1e});"
            f" {len(passages)} text passages differ"
        )
        notes += [f"  - {p}" for p in passages]
    print("| series | version | structure | BIC | search (s) | whole report (s) |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    print("\n".join(notes))


if __name__ == "__main__":
    main()
