"""One level of a finished skc search run again from its recorded parent, each stage's ranking
printed, and the level's full-data models scored exactly (one dense Cholesky each).

Reads a model JSON that ``abcd report --json`` wrote for an skc search (its data, settings and
trace). The state before level ``LEVEL`` is rebuilt from the trace: the parent is the recorded
best of level ``LEVEL − 1`` (its kernel as the trace wrote it: every digit, or six in model
files written before 2026-11-29, which cannot reproduce the run's level:
``outputs/text_roundtrip.md``), and the structures seen are the children of every level's kept
models before it (the trace's finalists), so the level fits the same candidates as the run did
(the count is printed beside the trace's). The search's own ``step`` then runs the level on a
serial executor (so that ``--profile`` sees all the CPU), and the script prints:

* stage 3's ranking on the refinement subset: each refined model's BIC interval there, and which
  the buffer (``buffer.keep``) sends to all the data (``LevelStages._expanded``);
* the full-data models' intervals before and after the finalists' narrowing
  (``finalists.narrowed``), and which the buffer keeps;
* each full-data model's exact BIC = 2·NLL + p·log N (``interval_ends.dense_parts``).

``--extra KERNEL`` (user units, repeatable) scores further kernels exactly as well, e.g. another
run's choice; ``--parent KERNEL`` (user units, same structure) starts the level from that kernel
instead of the trace's (e.g. another value the trace's six digits stood for, in model files
written before the trace kept kernels in full). ``--polish ITER`` continues each full-data
model's fit on all the data for up to ITER more L-BFGS iterations of the search's objective
(from the search's optimum: did its fit stop short?) and scores the result the same ways.
``--polish-bound cglb`` (repeatable) polishes with skc's CGLB objective instead of (or besides)
the Titsias bound, and ``--polish-at 25,50`` records the path of one such run: at each listed
iteration, the fit's BIC by the Titsias bound, by CGLB and exactly, and the optimiser's
evaluations, wall and CPU seconds so far (``polish_path``; the iterates of a run of 50
iterations are those of a run of 25 up to 25).

    OMP_NUM_THREADS=1 nice -n 5 .venv/bin/python -m benchmarks.studies.level_split \\
        /tmp/seattle/work/runs/default/seattle-temps.model.json 5 [--profile out.prof] \\
        [--polish-at 25,50 --polish-bound cglb]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from abcd_cli.engines.sparse import BOUNDS
from abcd_cli.execution.pool import SerialExecutor
from abcd_cli.kernel_search import greedy
from abcd_cli.kernel_search.buffer import keep
from abcd_cli.kernel_search.candidate import fit_candidate
from abcd_cli.kernel_search.greedy import Search
from abcd_cli.kernel_search.scoring import Scored
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernel_search.stages import LevelStages
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.algebra import count_params, structure_key
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import bic
from benchmarks.studies.interval_ends import dense_parts
from benchmarks.studies.polish_path import polish_path, shown_path


def search_of(doc: dict, **changes: object) -> Search:
    """A serial search over a model file's data with its settings, ``changes`` replacing some."""
    settings = SearchSettings(**dict(doc["settings"], bases=tuple(doc["settings"]["bases"])))
    x, y = np.asarray(doc["data"]["x"], dtype=float), np.asarray(doc["data"]["y"], dtype=float)
    return Search(x, y, replace(settings, **changes), executor=SerialExecutor())


def rebuilt(search: Search, trace: list[dict], level: int, parent_text: str | None = None) -> None:
    """Set ``search``'s state to the one after level ``level − 1`` of ``trace``; ``parent_text``
    (user units) in place of that level's recorded kernel when given."""
    data = search.data
    seen: set[str] = set()
    for family in search._candidates():  # level 0's start kernels (search.level is −1)
        seen.update(structure_key(k) for k in family)
    for record in trace[: level - 1]:
        for finalist in record["finalists"]:
            kept = parse_kernel(str(finalist["structure"]))
            seen.update(structure_key(k) for k in search._children(kept))
    before = trace[level - 1]
    parent = data.scaling.kernel_in(parse_kernel(parent_text or before["kernel"]))
    nll = 0.5 * (before["bic"] - count_params(parent) * math.log(data.n))  # BIC's upper end
    scored = Scored(parent, nll, before["bic"], before["bic_low"])
    search.level, search.parents, search.best, search.seen = level - 1, [scored], scored, seen


def shown(label: str, ranked: Sequence[Scored], search: Search) -> None:
    """Print ``ranked`` (best first) with their BIC intervals and what the buffer keeps."""
    level, settings = search.level + 1, search.settings
    kept = keep(list(ranked), settings.beam_at(level), settings.buffer).models
    print(f"{label}:")
    for c in ranked:
        mark = "kept" if any(c is k for k in kept) else "    "
        text = search.data.text(c.kernel, params=False)
        print(f"  {mark} [{c.low:12.2f}, {c.bic:12.2f}] ({c.width:8.2f} wide) {text}")


def instrumented(search: Search, full: list[Scored]) -> Callable[[], None]:
    """Wrap the stages' subset ranking and the finalists' narrowing to print them; the
    full-data models are appended to ``full``. Returns the function undoing the wrapping."""
    expanded, narrowed = LevelStages._expanded, greedy.narrowed

    def expanded_shown(self: LevelStages, refined: dict, n: int) -> list[int]:
        chosen = expanded(self, refined, n)
        scorer = self.data.scorer
        ranked = sorted(
            (
                scorer.scored(r.kernel, r.nll, n, r.bounds)
                for r in refined.values()
                if r.status == "ok"
            ),
            key=lambda c: c.bic,
        )
        shown(f"stage 3 on the refinement subset ({n} points)", ranked, search)
        return chosen

    def narrowed_shown(scored: list[Scored], *args: object) -> list[Scored]:
        shown("all the data, skc's scores", scored, search)
        out = narrowed(scored, *args)  # type: ignore[arg-type]
        shown("all the data, after the finalists' intervals", out, search)
        full.extend(out)
        return out

    LevelStages._expanded = expanded_shown  # type: ignore[method-assign]
    greedy.narrowed = narrowed_shown  # type: ignore[assignment]

    def undo() -> None:
        LevelStages._expanded = expanded  # type: ignore[method-assign]
        greedy.narrowed = narrowed

    return undo


def exact_bic(search: Search, kernel: Kernel) -> float:
    """BIC = 2·NLL + p·log N in the user's units, the NLL by one dense Cholesky."""
    data = search.data
    parts = dense_parts(kernel, data.X, data.Y, data.constant_mean)
    nll = data.scaling.nll_out(parts.nll, data.n - data.constant_mean)
    return bic(nll, count_params(kernel), data.n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="a model JSON written by abcd report --json (skc)")
    parser.add_argument("level", type=int, help="the level to run again (1 or more)")
    parser.add_argument("--buffer", type=int, help="the buffer's size (default: the run's)")
    parser.add_argument("--profile", help="write cProfile's statistics of the level here")
    parser.add_argument("--extra", action="append", default=[], help="a kernel to score too")
    parser.add_argument("--parent", help="the parent kernel (user units) instead of the trace's")
    parser.add_argument("--polish", type=int, default=0, help="more iterations on all the data")
    parser.add_argument(
        "--polish-bound", action="append", choices=BOUNDS, help="the polishing objective(s)"
    )
    parser.add_argument("--polish-at", help="iterations at which to score a polish run: 25,50")
    parser.add_argument(
        "--polish-scale", type=float, default=1.0, help="with --polish-at: first step's length"
    )
    parser.add_argument(
        "--polish-model", type=int, help="with --polish-at: only the K-th full-data model (1-)"
    )
    args = parser.parse_args()
    with open(args.model) as file:
        doc = json.load(file)
    search = search_of(doc, **({"buffer": args.buffer} if args.buffer else {}))
    rebuilt(search, doc["trace"], args.level, args.parent)
    full: list[Scored] = []
    undo = instrumented(search, full)
    profiler = cProfile.Profile() if args.profile else None
    started, cpu = time.perf_counter(), time.process_time()
    if profiler:
        profiler.enable()
    search.step()
    if profiler:
        profiler.disable()
        profiler.dump_stats(args.profile)
    undo()
    record = search.trace[-1]
    print(
        f"level {record.level}: {record.candidates} candidates (the run:"
        f" {doc['trace'][args.level]['candidates']}), best {record.structure}, kept"
        f" {record.kept}; {time.perf_counter() - started:.0f} s wall,"
        f" {time.process_time() - cpu:.0f} s CPU"
    )
    print("exact BIC (dense Cholesky):")
    # with --polish-at, the path's iteration 0 gives the full-data models' exact BICs
    kernels = [(search.data.text(c.kernel, params=False), c.kernel) for c in full]
    kernels = [] if args.polish_at else kernels
    kernels += [(text, search.data.scaling.kernel_in(parse_kernel(text))) for text in args.extra]
    for text, kernel in kernels:
        print(f"  {exact_bic(search, kernel):12.2f} {text}", flush=True)
    data = search.data
    if args.polish_at:
        at = sorted({int(i) for i in args.polish_at.split(",")})
        for bound in args.polish_bound or [search.engine.bound]:
            for c in full if args.polish_model is None else full[args.polish_model - 1 :][:1]:
                engine = replace(search.engine, bound=bound)
                points = polish_path(search, c.kernel, engine, at, exact_bic, args.polish_scale)
                shown_path(data.text(c.kernel, params=False), bound, points)
        return
    for c in full[: len(full) if args.polish else 0]:
        task = data.task(c.kernel, "all", search.settings, search.engine, 1, args.polish)
        more = fit_candidate(task)
        if more.status != "ok" or more.bounds is None:
            print(f"  polishing failed: {more.status}")
            continue
        interval = search.engine.likelihood_interval(
            more.kernel, data.X, data.Y, data.constant_mean
        )
        polished = data.scorer.scored(more.kernel, interval.high, data.n, interval)
        print(
            f"  polished ({more.evaluations} evaluations):"
            f" [{polished.low:.2f}, {polished.bic:.2f}],"
            f" exact {exact_bic(search, more.kernel):.2f} {data.text(c.kernel, params=False)}",
            flush=True,
        )


if __name__ == "__main__":
    main()
