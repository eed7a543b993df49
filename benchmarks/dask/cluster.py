"""A real Dask cluster on this machine, started as the README says: ``dask scheduler`` and
``dask worker ADDRESS --nthreads 1`` processes (the workers' profiler off), on the loopback
interface only."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from abcd_cli.kernel_search.candidate import Candidate, FitTask
from benchmarks.common import ROOT


def noop_fit(task: FitTask) -> Candidate:
    """No fitting at all: what remains is the executor's cost per task (a module function,
    so that workers import it by name)."""
    return Candidate(task.kernel, 0.0, "ok")


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _dask(*args: str) -> list[str]:
    """The ``dask`` command of this interpreter's environment."""
    return [sys.executable, "-m", "dask", *args]


@contextmanager
def local_processes(
    workers: int, log_dir: Path | None = None, worker_options: Sequence[str] = ()
) -> Iterator[str]:
    """Start a scheduler and ``workers`` single-threaded worker processes (each with
    ``worker_options`` added to its command line); yield the scheduler's address; stop them
    (by their process ids) on the way out."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    logs = Path(log_dir or tempfile.mkdtemp(prefix="abcd-dask-"))
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(
            os.pathsep
        ),
        DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED="False",  # as the README starts workers
        OPENBLAS_NUM_THREADS="1",
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
    )
    commands = [
        _dask(
            "scheduler",
            *("--host", "127.0.0.1", "--port", str(port)),
            *("--no-dashboard", "--dashboard-address", "127.0.0.1:0"),
        ),
        *(
            _dask(
                "worker",
                *(address, "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard"),
                *worker_options,
            )
            for _ in range(workers)
        ),
    ]
    processes: list[subprocess.Popen] = []
    try:
        for i, command in enumerate(commands):
            log = (logs / f"{'scheduler' if i == 0 else f'worker-{i}'}.log").open("w")
            processes.append(subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=log))
            if i == 0:
                _wait_for_port(port, processes[0])
        yield address
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in reversed(processes):
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_for_port(port: int, process: subprocess.Popen, timeout: float = 60.0) -> None:
    """Until the scheduler listens (RuntimeError if it exits or takes too long)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the dask scheduler exited with code {process.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError(f"the dask scheduler did not listen on port {port} in {timeout:.0f} s")
