"""A search's progress in a Jupyter notebook (``abcd_cli.search(progress=True)`` there).

On a terminal, ``abcd search`` keeps each finished level's line and rewrites one live line below
them as fits arrive (``abcd_cli/cli/progress.py``). A notebook's output cannot rewrite a line, and
a line per fit would fill the cell with hundreds of them; so in a notebook the same text, the
finished levels' lines with the live line under them, is one output updated in place
(``IPython.display.display(..., display_id=True)`` and its handle's ``update``). Fits refresh it
at most every ``MIN_INTERVAL`` seconds; a new stage, a finished level and a resumption always do.

tqdm is not used: without ipywidgets its notebook bar falls back to a text bar with a warning, a
widget does not survive in a saved or executed notebook, and a bar of one stage's fits would not
carry the level lines. IPython, which every Jupyter kernel runs on, is all this needs.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, Protocol

from abcd_cli.kernel_search.events import Events, SearchEvent, live_text, plain_line

#: Seconds between two refreshes of the display by fits.
MIN_INTERVAL = 0.2


class Handle(Protocol):
    """What ``IPython.display.display(..., display_id=True)`` returns."""

    def update(self, obj: Any, **kwargs: Any) -> None: ...


#: A search's ``progress`` callback: one line per finished level and resumption.
Lines = Callable[[str], None]
#: Shows a MIME bundle as a new output and returns its handle (``IPython.display.display``).
Show = Callable[..., Handle]


def in_notebook() -> bool:
    """True in a Jupyter kernel (ipykernel's shell, as in Jupyter Notebook and Lab, VS Code's
    notebooks, Colab); False in a terminal, a script or a terminal IPython."""
    if "ipykernel" not in sys.modules:  # a kernel has imported it; nothing else is imported here
        return False
    try:
        from ipykernel.zmqshell import ZMQInteractiveShell
        from IPython import get_ipython
    except ImportError:
        return False
    return isinstance(get_ipython(), ZMQInteractiveShell)


class NotebookProgress:
    """Events drawn in one notebook output: the finished levels' lines, then the live line.

    ``show`` creates the output (``IPython.display.display``), ``clock`` times the refreshes."""

    def __init__(
        self,
        show: Show,
        clock: Callable[[], float] = time.monotonic,
        min_interval: float = MIN_INTERVAL,
    ) -> None:
        self.show = show
        self.clock = clock
        self.min_interval = min_interval
        self.lines: list[str] = []  # the finished levels' and resumptions' lines
        self.live: str | None = None  # the live line, None between levels
        self.handle: Handle | None = None
        self.shown_at = 0.0

    def text(self) -> str:
        """What a terminal shows at this point: the plain lines, then the live line if any."""
        return "\n".join(self.lines + ([self.live] if self.live is not None else []))

    def __call__(self, event: SearchEvent) -> None:
        line = plain_line(event)
        now = self.clock()
        if line is None:
            self.live = live_text(event)
            recent = self.handle is not None and now - self.shown_at < self.min_interval
            if event.kind == "fit" and recent:
                return
        else:
            self.lines.append(line)
            self.live = None
        bundle = {"text/plain": self.text()}
        if self.handle is None:
            self.handle = self.show(bundle, raw=True, display_id=True)
        else:
            self.handle.update(bundle, raw=True)
        self.shown_at = now


def notebook_display() -> NotebookProgress | None:
    """The notebook's progress display, or None outside a Jupyter kernel."""
    if not in_notebook():
        return None
    try:
        from IPython.display import display
    except ImportError:
        return None
    return NotebookProgress(display)


def notebook_reporters(
    progress: Lines | bool | None, on_event: Events | None
) -> tuple[Lines | bool | None, Events | None]:
    """``progress`` and ``on_event`` as a search hands them on: with ``progress=True`` in a
    Jupyter notebook, no lines but the notebook display, beside ``on_event``; else both as
    given."""
    shown = notebook_display() if progress is True else None
    if shown is None:
        return progress, on_event
    if on_event is None:
        return None, shown

    def both(event: SearchEvent) -> None:
        shown(event)
        on_event(event)

    return None, both
