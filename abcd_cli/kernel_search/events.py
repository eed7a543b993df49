"""What a running search tells its watcher: one ``SearchEvent`` at each stage of a level, after
each fit, at the end of each level (with its record) and when it resumes from a checkpoint.

The events are facts; their lines are worded here: ``plain_line``, one per finished level and
per resumption, which ``as_lines`` hands to the Python API's ``progress`` callback, and
``live_text``, the line a live display rewrites as fits arrive. The displays that show them are
the command line's (``abcd_cli/cli/progress.py``: a terminal, or plain lines elsewhere) and a
Jupyter notebook's (``abcd_cli/notebook_progress.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from abcd_cli.kernel_search.records import LevelRecord

#: What a stage of a level does (``SearchEvent.stage``).
STAGES = {
    "screen": "screening",
    "converge": "optimising finalists",
    "refine": "on all the data",
    "finish": "converging the kept",
    "weigh": "weighing structures",
    "polish": "polishing the chosen model on all the data",
}


@dataclass(frozen=True)
class SearchEvent:
    """``kind``: "stage" (a stage of fits begins: ``total`` of them), "fit" (``done`` of
    ``total`` fitted), "level" (the level ended: ``record`` is its record), "resumed" (the
    search continues from its checkpoint after ``level``) or "posterior" (``total`` structures
    were weighed; ``chosen`` is the most probable one and its weight) or "data step" (the
    sampler finished data step ``level`` of ``depth``, on ``done`` of the ``total`` points;
    ``chosen`` is its most probable structure and weight; a sampler's "resumed" has the stage
    "sampler"). The stage "weigh" weighs the structures of the posterior, after the last level.

    ``level`` is the level being searched (0 first), ``depth`` the last one; ``seconds`` the
    time since the level began; ``best`` the lowest BIC interval on all the data known so far
    (low, high), None before any; ``seed`` the search's seed when several are run."""

    kind: str
    level: int = 0
    depth: int = 0
    stage: str = ""
    done: int = 0
    total: int = 0
    seconds: float = 0.0
    best: tuple[float, float] | None = None
    record: LevelRecord | None = None
    seed: int | None = None
    chosen: tuple[str, float] | None = None

    @property
    def prefix(self) -> str:
        """ "seed K: " when several searches are run, else ""."""
        return "" if self.seed is None else f"seed {self.seed}: "


Events = Callable[[SearchEvent], None]


def plain_line(event: SearchEvent) -> str | None:
    """The line a finished level or a resumption prints where nothing is redrawn; None
    otherwise."""
    if event.kind == "resumed":
        after = "data step" if event.stage == "sampler" else "level"
        return f"{event.prefix}resumed after {after} {event.level}"
    if event.kind == "data step" and event.chosen is not None:
        structure, weight = event.chosen
        return (
            f"{event.prefix}data step {event.level}/{event.depth}: {event.done} of {event.total}"
            f" points  [{event.seconds:.1f}s]; most probable {structure} ({weight:.2f})"
        )
    if event.kind == "level" and event.record is not None:
        return event.prefix + level_line(event.record, event.depth)
    if event.kind == "posterior" and event.chosen is not None:
        structure, weight = event.chosen
        return (
            f"{event.prefix}posterior: {event.total} structures weighed  [{event.seconds:.1f}s];"
            f" most probable {structure} ({weight:.2f})"
        )
    return None


def level_line(record: LevelRecord, depth: int) -> str:
    """A finished level: its candidates, its best structure and BIC interval, the time since
    the search began and how many candidates the BIC intervals pruned."""
    r = record
    if r.failed_level:
        return f"level {r.level}: every candidate failed"
    assert r.bic is not None and r.bic_low is not None
    return (
        f"level {r.level}/{depth}: {r.candidates} fitted ({r.failed} failed, {r.rejected}"
        f" rejected); best {r.structure}  BIC {format_interval(r.bic_low, r.bic)}"
        f"  [{r.elapsed_seconds or 0.0:.1f}s]; {r.pruned} pruned"
    )


def as_lines(say: Callable[[str], None]) -> Events:
    """An event handler that passes ``plain_line`` of each event to ``say``."""

    def handle(event: SearchEvent) -> None:
        line = plain_line(event)
        if line is not None:
            say(line)

    return handle


def clock(seconds: float) -> str:
    """42s, 3m07s, 1h02m."""
    s = int(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def live_text(event: SearchEvent) -> str:
    """The live line for a "stage" or "fit" event: the level, the stage and its fits done, the
    time since the level began and the best BIC so far."""
    stage = STAGES.get(event.stage, event.stage)
    where = {"weigh": "posterior", "polish": "finish"}.get(
        event.stage, f"level {event.level}/{event.depth}"
    )
    text = f"{event.prefix}{where}: {stage} {event.done}/{event.total}  {clock(event.seconds)}"
    if event.best is not None:
        text += f"  best BIC {format_interval(*event.best)}"
    return text


def format_interval(low: float, high: float) -> str:
    """A BIC interval for a progress line: one number when it has no width."""
    if high - low < 0.005:
        return f"{high:.2f}"
    return f"[{low:.2f}, {high:.2f}]"
