"""One command's wall time, peak memory and timed output lines.

Peak memory two ways: ``largest_mib``, the peak resident set of the largest single process in
the command's tree (``os.wait4``'s ``ru_maxrss``: the command's own peak or that of any
descendant it waited for, as a process pool's workers are; exact, not sampled), and, when
psutil is installed, ``tree_mib``, the largest sum of the resident sets of the command and
all its descendants, sampled every ``SAMPLE_SECONDS``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

SAMPLE_SECONDS = 0.5


@dataclass
class Measured:
    """What running one command gave; ``lines`` are (seconds since the start, text) of its
    merged stdout and stderr."""

    returncode: int
    seconds: float
    largest_mib: float
    tree_mib: float | None
    timed_out: bool
    lines: list[tuple[float, str]] = field(default_factory=list)

    def first_line_with(self, text: str) -> float | None:
        """When the first line containing ``text`` came (seconds), or None."""
        return next((t for t, line in self.lines if text in line), None)


def _tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and its descendants now (0 when it is gone)."""
    import psutil

    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for p in procs:
        with contextlib.suppress(psutil.Error):
            total += p.memory_info().rss
    return total


def _have_psutil() -> bool:
    try:
        import psutil  # noqa: F401
    except ImportError:
        return False
    return True


def run(
    command: Sequence[str],
    log: Path,
    time_limit: float = 0.0,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> Measured:
    """Run ``command`` in its own process group with stdout and stderr into ``log`` (each line
    stamped with its time); after ``time_limit`` seconds (0: none) the group gets SIGTERM, and
    SIGKILL 30 s later."""
    lines: list[tuple[float, str]] = []
    peak = [0]
    done = threading.Event()
    timed_out = threading.Event()
    start = time.perf_counter()
    proc = subprocess.Popen(
        list(command),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        bufsize=1,
        cwd=cwd,
        env=env,
        start_new_session=True,
    )

    def read() -> None:
        assert proc.stdout is not None
        with log.open("w", encoding="utf-8") as out:
            out.write(f"$ {' '.join(command)}\n")
            for raw in proc.stdout:
                t = time.perf_counter() - start
                line = raw.rstrip("\n")
                lines.append((t, line))
                out.write(f"[{t:9.1f} s] {line}\n")
                out.flush()

    def sample() -> None:
        while not done.wait(SAMPLE_SECONDS):
            peak[0] = max(peak[0], _tree_rss(proc.pid))

    def stop() -> None:
        if done.wait(time_limit):
            return
        timed_out.set()
        _signal_group(proc.pid, signal.SIGTERM)
        if not done.wait(30.0):
            _signal_group(proc.pid, signal.SIGKILL)

    sampling = _have_psutil()
    threads = [threading.Thread(target=read, daemon=True)]
    if sampling:
        threads.append(threading.Thread(target=sample, daemon=True))
    if time_limit > 0:
        threads.append(threading.Thread(target=stop, daemon=True))
    for t in threads:
        t.start()
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    except BaseException:
        _signal_group(proc.pid, signal.SIGTERM)
        proc.wait()
        raise
    finally:
        done.set()
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    threads[0].join()
    return Measured(
        returncode=proc.returncode,
        seconds=seconds,
        largest_mib=usage.ru_maxrss / 1024.0,  # KiB on Linux
        tree_mib=peak[0] / 2**20 if sampling and peak[0] else None,
        timed_out=timed_out.is_set(),
        lines=lines,
    )


def _signal_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)
