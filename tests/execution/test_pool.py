"""abcd_cli.execution.pool and orphans: the workers of a search end when their parent is
killed with SIGKILL (no handler of the parent runs), by the kernel's parent-death signal or by
the watchdog that checks the parent, and not minutes later.

Each test starts the processes it kills; the search runs on a short series with one restart.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import psutil
import pytest

from tests.cli.test_failures_and_interrupts import write_csv

pytestmark = pytest.mark.timeout(180)
ROOT = Path(__file__).resolve().parents[2]
GRACE = 10.0  # seconds the workers have to end after their parent is killed
SLOW_START = 120.0  # seconds the workers have to appear


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def _children(parent: psutil.Process, count: int) -> list[psutil.Process]:
    """``parent``'s first ``count`` descendants once they are all running."""
    found: list[psutil.Process] = []

    def enough() -> bool:
        found[:] = [p for p in parent.children(recursive=True) if _python(p)]
        return len(found) >= count

    _wait_until(enough, SLOW_START)
    return found


def _python(process: psutil.Process) -> bool:
    """A Python process of ours (Dask also starts a resource tracker, which is one too)."""
    try:
        return "python" in process.name().lower()
    except psutil.Error:
        return False


def _wait_until(condition, seconds: float) -> bool:
    """Poll ``condition`` every 0.1 s for at most ``seconds``; whether it came true."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def _alive(processes: list[psutil.Process]) -> list[psutil.Process]:
    alive = []
    for p in processes:
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                alive.append(p)
        except psutil.NoSuchProcess:
            pass
    return alive


def _kill_parent_and_watch(parent: subprocess.Popen, workers: list[psutil.Process]) -> list:
    """SIGKILL ``parent``; the workers still alive ``GRACE`` seconds later (killed then)."""
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait(timeout=30)
    _wait_until(lambda: not _alive(workers), GRACE)
    left = _alive(workers)
    for p in left:
        p.kill()
    return left


@pytest.mark.parametrize(
    "where", [["--jobs", "2"], ["--jobs", "2", "--scheduler", "local"]], ids=["pool", "dask"]
)
def test_workers_end_when_the_search_is_killed(tmp_path: Path, where: list[str]) -> None:
    x = np.arange(200.0)
    y = np.sin(x / 5) + 0.01 * x + 0.1 * np.random.default_rng(0).normal(size=200)
    data = write_csv(tmp_path / "data.csv", x, y)
    command = [sys.executable, "-m", "abcd_cli", "search", str(data), "--quiet"]
    settings = ["--depth", "10", "--patience", "0", "--restarts", "1", *where]
    search = subprocess.Popen(
        command + settings,
        cwd=tmp_path,
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers = _children(psutil.Process(search.pid), 2)
    if search.poll() is not None or len(workers) < 2:
        search.kill()
        pytest.fail("the search ended, or started no workers, before it could be killed")
    assert _kill_parent_and_watch(search, workers) == []


def test_the_watchdog_ends_a_worker_whose_parent_was_killed(tmp_path: Path) -> None:
    """Without the kernel's signal (a worker forked by another thread, or not on Linux) the
    watchdog alone ends the worker."""
    worker = textwrap.dedent(
        """
        import os, sys, time
        from abcd_cli.execution.orphans import die_with_parent
        die_with_parent(int(sys.argv[1]))  # no main thread's ident: the watchdog only
        print("watching", flush=True)
        time.sleep(600)
        """
    )
    parent = textwrap.dedent(
        f"""
        import os, subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", {worker!r}, str(os.getpid())])
        print(child.pid, flush=True)
        time.sleep(600)
        """
    )
    started = subprocess.Popen(
        [sys.executable, "-c", parent], env=_env(), stdout=subprocess.PIPE, text=True
    )
    try:
        assert started.stdout is not None
        child = psutil.Process(int(started.stdout.readline()))
        assert started.stdout.readline().strip() == "watching"
    except BaseException:
        started.kill()  # and the worker, if any, with its watchdog or by the test's end
        raise
    assert _kill_parent_and_watch(started, [child]) == []
