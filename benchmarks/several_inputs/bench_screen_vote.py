"""How often a table's screen gives the same verdict from split to split (issue 66): one fit of
the additive GP on all the training rows against the vote of F fits on random subsamples.

For each dataset and split of the regression benchmark (``regression_data.split``), the screen's
fit on all the rows and ``--fits`` fits on subsamples of ``--share`` of the rows
(``resampled_screen.subsample_rows``) are run once, and each fit's shares and CPU seconds kept
as a line of ``--jsonl`` (resumed: a split already there is not fitted again). The table then
reads, for each number of fits F (the first F), per-fit bar and level, the verdict of
``resampled_screen.decide_by_vote`` (inputs by the vote, pairs by the fit on all the rows) and
of one fit alone (``screening.decide``), and counts the splits that give the most frequent one.

    python -m benchmarks.several_inputs.bench_screen_vote --datasets diabetes,auto-mpg,grunfeld \
        --splits 10 --fits 10 --share 0.5 --jsonl screen_vote.jsonl --out screen_vote.md
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from abcd_cli.kernel_search import resampled_screen
from abcd_cli.kernel_search.candidate import entropy
from abcd_cli.kernel_search.resampled_screen import decide_by_vote, subsample_rows
from abcd_cli.kernel_search.screening import (
    INPUT_SHARE,
    Shares,
    additive_start,
    decide,
    fit_shares,
    screen_rows,
)
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernel_search.table_plan import SCREEN_FLOOR
from benchmarks.several_inputs import regression_data

#: The numbers of fits, per-fit bars and levels the table compares.
FIT_COUNTS = (5, 10)
BARS = (SCREEN_FLOOR, INPUT_SHARE)
LEVELS = (0.2, 0.3, 0.4, 0.5)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default="diabetes,auto-mpg,grunfeld")
    parser.add_argument("--splits", type=int, default=10)
    parser.add_argument("--fits", type=int, default=10)
    parser.add_argument("--share", type=float, default=resampled_screen.SUBSAMPLE_SHARE)
    parser.add_argument("--max-train", type=int, default=500)
    parser.add_argument("--jsonl", type=Path, required=True, help="each split's fits (resumed)")
    parser.add_argument("--out", type=Path, help="the table (Markdown); printed without it")
    args = parser.parse_args(argv)
    if args.splits < 1 or args.fits < max(FIT_COUNTS) or not 0 < args.share <= 1:
        parser.error(f"need --splits >= 1, --fits >= {max(FIT_COUNTS)}, 0 < --share <= 1")
    return args


def _record(shares: Shares, cpu: float) -> dict[str, object]:
    pairs = [[a, b, v] for (a, b), v in shares.pairs.items()]
    return {"inputs": shares.inputs, "pairs": pairs, "orders": shares.orders, "cpu": cpu}


def shares_of(record: dict) -> Shares:
    """The shares a line of ``--jsonl`` holds for one fit."""
    pairs = {(int(a), int(b)): float(v) for a, b, v in record["pairs"]}
    return Shares(tuple(record["inputs"]), pairs, tuple(record["orders"]))


def fit_split(name: str, index: int, args: argparse.Namespace) -> dict[str, object]:
    """One split's fit on all the rows and its ``--fits`` fits on subsamples."""
    resampled_screen.SUBSAMPLE_SHARE = args.share
    split = regression_data.split(regression_data.load(name), index, 0, args.max_train)
    X, y = split.x_train, split.y_train
    settings = SearchSettings()
    stream = entropy(0, additive_start(X.shape[1]))
    fits = []
    for f in [None, *range(args.fits)]:
        rows = screen_rows(len(y)) if f is None else subsample_rows(len(y), 0, f, X.shape[1])
        started = time.process_time()
        shares, _ = fit_shares(
            X[rows], y[rows], stream if f is None else (*stream, 2, f), settings.restarts,
            settings.max_iter,
        )  # fmt: skip
        fits.append(_record(shares, time.process_time() - started))
    return {"dataset": name, "split": index, "share": args.share, "one": fits[0], "fits": fits[1:]}


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def _row(name: str, screen: str, bar: float, level: str, verdicts: list[tuple], cpu: float) -> str:
    ((verdict, count),) = Counter(verdicts).most_common(1)
    inputs = " ".join(f"x{d + 1}" for d in verdict[0])
    pairs = " ".join(f"x{a + 1}*x{b + 1}" for a, b in verdict[1])
    return (
        f"| {name} | {screen} | {bar:.3f} | {level} | {count} of {len(verdicts)} |"
        f" {inputs}; {pairs} | {cpu:.1f} |"
    )


def table(lines: list[dict]) -> list[str]:
    """Per dataset: the splits whose verdict is the most frequent one, for one fit and for
    each vote, with the median CPU seconds of the fits."""
    out = [
        "| dataset | screen | per-fit bar | level | same verdict | most frequent verdict"
        " (inputs; pairs) | median CPU s |",
        "|---|---|---:|---:|---:|---|---:|",
    ]
    for name in dict.fromkeys(str(line["dataset"]) for line in lines):
        runs = [line for line in lines if line["dataset"] == name]
        whole = [shares_of(line["one"]) for line in runs]
        for bar in BARS:
            ones = [(v.inputs, v.pairs) for v in (decide(s, (), bar) for s in whole)]
            cpu = _median([float(line["one"]["cpu"]) for line in runs])
            out.append(_row(name, "one fit on all the rows", bar, "", ones, cpu))
            for count in FIT_COUNTS:
                cpu = _median(
                    [
                        sum(float(f["cpu"]) for f in [line["one"], *line["fits"][:count]])
                        for line in runs
                    ]
                )
                for level in LEVELS:
                    voted = []
                    for line, on_all in zip(runs, whole, strict=True):
                        fits = [shares_of(f) for f in line["fits"][:count]]
                        v = decide_by_vote(on_all, fits, (), bar, 0, level)
                        voted.append((v.inputs, v.pairs))
                    screen = f"vote of {count} fits on subsamples"
                    out.append(_row(name, screen, bar, str(level), voted, cpu))
    return out


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    done = (
        [json.loads(x) for x in args.jsonl.read_text().splitlines() if x.strip()]
        if args.jsonl.exists()
        else []
    )
    have = {(str(x["dataset"]), int(x["split"])) for x in done}
    for name in args.datasets.split(","):
        for index in range(args.splits):
            if (name, index) not in have:
                line = fit_split(name, index, args)
                with args.jsonl.open("a") as handle:
                    handle.write(json.dumps(line) + "\n")
                done.append(line)
    text = "\n".join(table(done)) + "\n"
    if args.out:
        args.out.write_text(text)
    else:
        print(text, end="")


if __name__ == "__main__":
    main()
