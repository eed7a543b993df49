"""The search's progress on stderr, drawn from its events (``kernel_search.events``).

On a terminal, one live line per level, rewritten in place as fits arrive::

    level 3/10: optimising finalists 4/12  1m05s  best BIC [1234.56, 1240.10]

and, when the level ends, its plain line (which ends with how many candidates its BIC intervals
pruned). Elsewhere (a file, a pipe) only the plain lines: one per finished level and per resumption.
Both lines are worded in ``kernel_search.events``; a Jupyter notebook shows the same text through
``abcd_cli.notebook_progress``.
"""

from __future__ import annotations

from typing import TextIO

from abcd_cli.kernel_search.events import Events, SearchEvent, live_text, plain_line

#: Erase the terminal line the cursor is on and go back to its start.
CLEAR = "\r\x1b[2K"


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
