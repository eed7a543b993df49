"""The search's progress on stderr, drawn from its events (``kernel_search.events``).

On a terminal, one live line per level, rewritten in place as fits arrive::

    level 3/10: optimising finalists 4/12  1m05s  best BIC [1234.56, 1240.10]

and, when the level ends, its plain line (which ends with how many candidates its BIC intervals
pruned). Elsewhere (a file, a pipe) only the plain lines: one per finished level and per resumption.
"""

from __future__ import annotations

from typing import TextIO

from abcd_cli.kernel_search.events import STAGES, Events, SearchEvent, format_interval, plain_line

#: Erase the terminal line the cursor is on and go back to its start.
CLEAR = "\r\x1b[2K"


def clock(seconds: float) -> str:
    """42s, 3m07s, 1h02m."""
    s = int(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def live_text(event: SearchEvent) -> str:
    """The live line for a "stage" or "fit" event."""
    stage = STAGES.get(event.stage, event.stage)
    where = "posterior" if event.stage == "weigh" else f"level {event.level}/{event.depth}"
    text = f"{event.prefix}{where}: {stage} {event.done}/{event.total}  {clock(event.seconds)}"
    if event.best is not None:
        text += f"  best BIC {format_interval(*event.best)}"
    return text


class LiveLine:
    """Events drawn on a terminal: the current level's line rewritten in place."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.open = False  # a live line is on screen without its newline

    def __call__(self, event: SearchEvent) -> None:
        line = plain_line(event)
        if line is None:
            self.stream.write(CLEAR + live_text(event))
            self.open = True
        else:
            self.stream.write((CLEAR if self.open else "") + line + "\n")
            self.open = False
        self.stream.flush()

    def close(self) -> None:
        """End a live line left open (an interrupt or an error mid-level), keeping it."""
        if self.open:
            self.stream.write("\n")
            self.stream.flush()
            self.open = False


class PlainLines:
    """Events written where nothing can be redrawn: each finished level's line and resumptions."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def __call__(self, event: SearchEvent) -> None:
        line = plain_line(event)
        if line is not None:
            self.stream.write(line + "\n")
            self.stream.flush()


def display(stream: TextIO, quiet: bool = False) -> Events | None:
    """The progress display for ``stream``: None when ``quiet``, a live line on a terminal,
    plain lines elsewhere."""
    if quiet:
        return None
    isatty = getattr(stream, "isatty", None)
    return LiveLine(stream) if isatty is not None and isatty() else PlainLines(stream)
