"""Workers that end with their parent: a process-pool worker blocked on its task queue outlived
a parent killed by SIGKILL (its own copy of the queue's pipe kept it waiting), holding its
memory for as long as the machine ran.

:func:`die_with_parent`, called in a worker as it starts, makes sure it does not:

* on Linux the kernel sends the worker SIGKILL when its parent ends (``prctl(PR_SET_PDEATHSIG)``).
  The kernel ties this to the parent's *thread* that forked the worker, so it is asked for only
  when that thread is the parent's main thread, which lives as long as the process;
* everywhere, a daemon thread checks every ``WATCH_INTERVAL`` seconds whether the worker's
  parent is still the process that started it (``os.getppid()`` changes when it ends), and
  kills the worker if not.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading

#: prctl's option to set the signal a process gets when its parent ends (linux/prctl.h).
PR_SET_PDEATHSIG = 1
#: Seconds between the watchdog's checks that the parent is alive.
WATCH_INTERVAL = 1.0


def die_with_parent(parent: int, parent_main_thread: int | None = None) -> None:
    """End this process when process ``parent`` ends (see the module docstring).
    ``parent_main_thread``: the ident of the parent's main thread; a process forked by that
    thread keeps its ident, and only then is the kernel's signal asked for."""
    if parent_main_thread is not None and threading.get_ident() == parent_main_thread:
        _kill_on_parent_death()
    if os.getppid() != parent:  # the parent ended before this process could watch it
        _die()
    watcher = threading.Thread(target=_watch, args=(parent,), name="abcd-parent-watch", daemon=True)
    watcher.start()


def _kill_on_parent_death() -> bool:
    """Ask the Linux kernel for SIGKILL when the forking thread ends; False elsewhere or if
    refused (the watchdog still stands)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    """Kill this process once its parent is no longer ``parent``."""
    while os.getppid() == parent:
        threading.Event().wait(WATCH_INTERVAL)
    _die()


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)
