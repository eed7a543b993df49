"""What a running search tells its watcher: one ``SearchEvent`` at each stage of a level, after
each fit, at the end of each level, and for a note (a resumed search, a level that failed).

A display (``abcd_cli/cli/progress.py``) draws them; ``as_lines`` turns them into the plain
lines the Python API's ``progress`` callback receives, one per finished level and per note.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

#: What a stage of a level does (``SearchEvent.stage``).
STAGES = {
    "screen": "screening",
    "converge": "optimising finalists",
    "refine": "on all the data",
    "finish": "converging the kept",
}


@dataclass(frozen=True)
class SearchEvent:
    """``kind``: "stage" (a stage of fits begins: ``total`` of them), "fit" (``done`` of
    ``total`` fitted), "level" (the level ended: ``text`` is its line, ``pruned`` the candidates
    its BIC intervals pruned) or "note" (``text``).

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
    pruned: int = 0
    text: str = ""
    seed: int | None = None

    @property
    def prefix(self) -> str:
        """ "seed K: " when several searches are run, else ""."""
        return "" if self.seed is None else f"seed {self.seed}: "


Events = Callable[[SearchEvent], None]


def plain_line(event: SearchEvent) -> str | None:
    """The line a finished level or a note prints where nothing is redrawn; None otherwise."""
    if event.kind in ("level", "note"):
        return event.prefix + event.text
    return None


def as_lines(say: Callable[[str], None]) -> Events:
    """An event handler that passes ``plain_line`` of each event to ``say``."""

    def handle(event: SearchEvent) -> None:
        line = plain_line(event)
        if line is not None:
            say(line)

    return handle


def format_interval(low: float, high: float) -> str:
    """A BIC interval for a progress line: one number when it has no width."""
    if high - low < 0.005:
        return f"{high:.2f}"
    return f"[{low:.2f}, {high:.2f}]"
