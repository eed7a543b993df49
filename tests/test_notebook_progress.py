"""A search's progress in a Jupyter notebook: the kernel is recognised, the command line's
terminal text is shown in one output updated in place, and ``abcd_cli.search(progress=True)``
uses it there (and only there). The notebook is simulated: fake ``ipykernel`` and ``IPython``
modules put in ``sys.modules``, their ``display`` recording what it is given."""

from __future__ import annotations

import io
import re
import sys
import types
from typing import Any

import numpy as np
import pytest

import abcd_cli
from abcd_cli.cli.progress import CLEAR, LiveLine, PlainLines, display
from abcd_cli.kernel_search.events import SearchEvent, live_text, plain_line
from abcd_cli.kernel_search.records import LevelRecord
from abcd_cli.notebook_progress import (
    MIN_INTERVAL,
    NotebookProgress,
    in_notebook,
    notebook_display,
    notebook_reporters,
)

LEVEL_0 = LevelRecord(0, 1, 0, 0, "WN", "WN(...)", 80.0, 80.0, 0.0, 1, 0, elapsed_seconds=0.2)
LEVEL_1 = LevelRecord(
    1, 12, 1, 2, "SE + WN", "SE(...) + WN(...)", 12.5, 10.0, 2.5, 2, 4, elapsed_seconds=65.04
)
#: A resumed search's level 1 and the start of its level 2, as the search reports them.
EVENTS = [
    SearchEvent("resumed", level=0),
    SearchEvent("stage", level=1, depth=3, stage="screen", total=2),
    SearchEvent("fit", level=1, depth=3, stage="screen", done=1, total=2, seconds=3.0),
    SearchEvent(
        "fit", level=1, depth=3, stage="refine", done=2, total=2, seconds=65, best=(10.0, 12.5)
    ),
    SearchEvent("level", level=1, depth=3, record=LEVEL_1),
    SearchEvent("stage", level=2, depth=3, stage="screen", total=5, best=(10.0, 12.5)),
    SearchEvent("fit", level=2, depth=3, stage="screen", done=1, total=5, seconds=1.5),
]


class Outputs:
    """A notebook's outputs as ``IPython.display.display`` makes them: each call to ``show``
    adds one, and its handle replaces its bundle."""

    def __init__(self) -> None:
        self.bundles: list[dict[str, str]] = []
        self.history: list[str] = []  # every text/plain shown, in order

    def show(self, obj: Any, *, raw: bool = False, display_id: bool = False) -> Handle:
        assert raw and display_id is True, "the bundle must be raw and its output updatable"
        self.bundles.append(obj)
        self.history.append(obj["text/plain"])
        return Handle(self, len(self.bundles) - 1)


class Handle:
    def __init__(self, outputs: Outputs, index: int) -> None:
        self.outputs, self.index = outputs, index

    def update(self, obj: Any, *, raw: bool = False) -> None:
        assert raw
        self.outputs.bundles[self.index] = obj
        self.outputs.history.append(obj["text/plain"])


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def screen(written: str) -> str:
    """What a terminal shows of the text a ``LiveLine`` wrote: each line as left by its last
    clearing."""
    return "\n".join(line.split(CLEAR)[-1] for line in written.split("\n")).rstrip("\n")


class ZMQInteractiveShell:
    """Stands for ipykernel's shell class."""


class TerminalInteractiveShell:
    """Stands for the shell of IPython in a terminal."""


def fake_ipython(
    monkeypatch: pytest.MonkeyPatch, shell: object | None, outputs: Outputs | None = None
) -> None:
    """Modules as a Jupyter kernel has them: ipykernel imported, IPython's running ``shell``,
    and ``IPython.display.display`` adding to ``outputs``."""
    zmqshell = types.ModuleType("ipykernel.zmqshell")
    zmqshell.ZMQInteractiveShell = ZMQInteractiveShell  # type: ignore[attr-defined]
    ipykernel = types.ModuleType("ipykernel")
    ipykernel.zmqshell = zmqshell  # type: ignore[attr-defined]
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: shell  # type: ignore[attr-defined]
    display_module = types.ModuleType("IPython.display")
    display_module.display = (outputs or Outputs()).show  # type: ignore[attr-defined]
    ipython.display = display_module  # type: ignore[attr-defined]
    for name, module in {
        "ipykernel": ipykernel,
        "ipykernel.zmqshell": zmqshell,
        "IPython": ipython,
        "IPython.display": display_module,
    }.items():
        monkeypatch.setitem(sys.modules, name, module)


# ----------------------------------------------------------------------------- the kernel


def test_a_jupyter_kernel_is_recognised_by_its_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_ipython(monkeypatch, ZMQInteractiveShell())
    assert in_notebook()
    assert isinstance(notebook_display(), NotebookProgress)


@pytest.mark.parametrize(
    "shell", [TerminalInteractiveShell(), None], ids=["terminal IPython", "a script"]
)
def test_ipython_in_a_terminal_or_a_script_is_not_a_notebook(
    monkeypatch: pytest.MonkeyPatch, shell: object | None
) -> None:
    fake_ipython(monkeypatch, shell)
    assert not in_notebook()
    assert notebook_display() is None


def test_without_ipykernel_nothing_is_imported_and_it_is_not_a_notebook(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_ipython(monkeypatch, ZMQInteractiveShell())
    monkeypatch.delitem(sys.modules, "ipykernel")
    assert not in_notebook()
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    monkeypatch.setitem(sys.modules, "ipykernel.zmqshell", None)  # its import fails
    assert not in_notebook()


# ----------------------------------------------------------------------------- the display


def test_the_notebook_shows_what_the_terminal_shows_in_one_output() -> None:
    outputs, terminal = Outputs(), Terminal()
    shown, live = NotebookProgress(outputs.show, min_interval=0.0), LiveLine(terminal)
    for event in EVENTS:
        shown(event)
        live(event)
        assert outputs.bundles[-1]["text/plain"] == screen(terminal.getvalue())
    assert len(outputs.bundles) == 1  # one output, updated in place
    assert len(outputs.history) == len(EVENTS)
    assert outputs.bundles[0]["text/plain"].splitlines() == [
        "resumed after level 0",
        plain_line(EVENTS[4]),
        live_text(EVENTS[6]),
    ]
    assert outputs.bundles[0] == {"text/plain": shown.text()}


def test_fits_refresh_it_at_most_every_interval_stages_and_levels_always() -> None:
    outputs, now = Outputs(), [100.0]
    shown = NotebookProgress(outputs.show, clock=lambda: now[0])
    level_0 = SearchEvent("level", level=0, depth=1, record=LEVEL_0)
    stage = SearchEvent("stage", level=1, depth=1, stage="screen", total=3)
    fits = [
        SearchEvent("fit", level=1, depth=1, stage="screen", done=k, total=3, seconds=0.1 * k)
        for k in (1, 2, 3)
    ]
    level_1 = SearchEvent("level", level=1, depth=1, record=LEVEL_1)
    times = [0.0, 0.01, 0.02, 0.02 + MIN_INTERVAL]  # the second fit comes an interval later
    for event, at in zip([level_0, stage, fits[0], fits[1]], times, strict=True):
        now[0] = 100.0 + at
        shown(event)
    assert outputs.history[-1].endswith(live_text(fits[1]))
    assert live_text(fits[0]) not in "\n".join(outputs.history)  # too soon after the stage
    now[0] += MIN_INTERVAL / 2
    shown(fits[2])
    assert outputs.history[-1].endswith(live_text(fits[1]))
    shown(level_1)  # at once, with the level's line in place of the live one
    assert outputs.bundles == [{"text/plain": f"{plain_line(level_0)}\n{plain_line(level_1)}"}]
    assert len(outputs.history) == 4


def test_the_command_lines_display_is_the_same_in_a_notebook(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_ipython(monkeypatch, ZMQInteractiveShell())
    assert isinstance(display(Terminal()), LiveLine)
    assert isinstance(display(io.StringIO()), PlainLines)
    terminal = Terminal()
    live = display(terminal)
    assert live is not None
    for event in EVENTS:
        live(event)
    assert terminal.getvalue().startswith("resumed after level 0\n" + CLEAR + live_text(EVENTS[1]))


# ----------------------------------------------------------------------------- the search


def test_progress_true_in_a_notebook_hands_the_events_to_the_display(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    mine: list[SearchEvent] = []
    fake_ipython(monkeypatch, ZMQInteractiveShell())
    lines, events = notebook_reporters(True, mine.append)
    assert lines is None and events is not None
    events(EVENTS[0])
    assert mine == [EVENTS[0]]
    assert notebook_reporters(True, None)[0] is None
    say = print
    assert notebook_reporters(say, mine.append) == (say, mine.append)  # not True: as given
    fake_ipython(monkeypatch, None)
    assert notebook_reporters(True, mine.append) == (True, mine.append)


def test_a_search_with_progress_in_a_notebook_updates_one_output(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(3)
    x = 2000 + np.arange(36) / 12
    y = 10 + 2 * np.sin(2 * np.pi * x) + 0.3 * rng.standard_normal(x.size)
    outputs = Outputs()
    fake_ipython(monkeypatch, ZMQInteractiveShell(), outputs)
    events: list[SearchEvent] = []
    abcd_cli.search(x=x, y=y, depth=1, restarts=1, progress=True, on_event=events.append)
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""
    levels = [plain_line(e) for e in events if e.kind == "level"]
    assert len(levels) == 2 and levels[0].startswith("level 0/1: ")
    assert outputs.bundles == [{"text/plain": "\n".join(levels)}]
    stages = [live_text(e) for e in events if e.kind == "stage"]
    assert stages and all(any(text in shown for shown in outputs.history) for text in stages)

    fake_ipython(monkeypatch, TerminalInteractiveShell(), outputs)  # elsewhere, as before
    abcd_cli.search(x=x, y=y, depth=1, restarts=1, progress=True)
    assert untimed(capsys.readouterr().err) == untimed("\n".join(levels) + "\n")
    assert len(outputs.bundles) == 1


def untimed(text: str) -> str:
    """Level lines without their times, which differ between two runs."""
    return re.sub(r"\[\d+\.\ds\]", "[...]", text)
