"""A mid-size search with each engine: the weekly Mauna Loa CO₂ record (statsmodels' ``co2``,
2,225 weeks from 1958 to 2001 once the missing weeks are dropped), ``abcd search --depth 3``
with ``--engine statespace`` and ``--engine skc`` (what ``auto`` chooses from 2,000 points), each
in a process of its own: wall time, the chosen structure and its BIC or BIC interval.
Run from the project root::

    .venv/bin/python -m benchmarks.engines.bench_statespace_search [--depth 3] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.common import machine_line, publish, python_command

ENGINES = ("statespace", "skc")


def co2_weekly(path: Path) -> int:
    """Write the weekly CO₂ series (x in decimal years) to ``path``; its length."""
    from statsmodels.datasets import co2

    data = co2.load_pandas().data.dropna()
    index = data.index
    years = index.year + (index.day_of_year - 1) / 365.25
    frame = pd.DataFrame({"year": np.round(years, 4), "co2": data["co2"].to_numpy()})
    frame.to_csv(path, index=False)
    return len(frame)


def run(data: Path, engine: str, depth: int, folder: Path) -> str:
    """One search in its own process; its table row."""
    out = folder / f"{engine}.json"
    command = [sys.executable, "-m", "abcd_cli", "search", str(data), "--engine", engine]
    command += ["--depth", str(depth), "--quiet", "--json", str(out)]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    seconds = time.perf_counter() - start
    doc = json.loads(out.read_text())
    low, high = doc.get("bic_interval") or (doc["bic"], doc["bic"])
    interval = f"{doc['bic']:.1f}" if high - low < 0.05 else f"[{low:.1f}, {high:.1f}]"
    return f"| {engine} | {seconds:.0f} | `{doc['structure']}` | {interval} |"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument(
        "--out", type=Path, default=Path("benchmarks/engines/outputs/statespace_search.md")
    )
    args = parser.parse_args(argv)
    command = python_command(
        "benchmarks.engines.bench_statespace_search",
        ["--depth", str(args.depth), "--out", str(args.out)],
    )
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = folder / "co2_weekly.csv"
        n = co2_weekly(data)
        rows = []
        for engine in ENGINES:
            rows.append(run(data, engine, args.depth, folder))
            print(rows[-1], flush=True)
    text = "\n".join(
        [
            "# A mid-size search with the state-space engine and with skc",
            "",
            f"Made by `{command}` on {dt.date.today()} ({machine_line()}).",
            f"The weekly CO₂ record ({n:,} points), `abcd search --depth {args.depth}` with each"
            " engine in a process of its own, one after the other: wall time, the chosen"
            " structure and its BIC (an interval for skc, whose bounds may differ).",
            "",
            "| engine | seconds | structure | BIC |",
            "|---|---:|---|---:|",
            *rows,
            "",
        ]
    )
    publish(text, args.out)


if __name__ == "__main__":
    main()
