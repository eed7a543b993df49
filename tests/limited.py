"""The command line run in a child process whose address space is limited, for the cases that
must end in bounded memory (issue 61).

The limit is 3 GiB of address space (``RLIMIT_AS``), set in the child before it starts Python.
Importing the whole package (numba and llvmlite reserve address space, pandas, pyarrow,
openpyxl) and running a command fits in 2 GiB (measured), so a case that stays within 3 GiB
ends in its one-line error; one that reads or builds without bound ends in a MemoryError (an
"unexpected failure") or is killed, and the test fails. The child's exit, stdout and stderr
are returned; a child that runs past ``timeout`` seconds fails the test too.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

#: The child's address-space limit.
ADDRESS_SPACE = 3 * 2**30
ROOT = Path(__file__).resolve().parents[1]


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def run_limited(
    *args: str, cwd: Path, timeout: float = 120, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``abcd ARGS`` from this checkout in a child limited to :data:`ADDRESS_SPACE`."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "abcd_cli", *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=_limit,
        check=False,
    )


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    """The child's only stderr line, checked to be an ``Error:`` of exit code 2."""
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert len(lines) == 1 and lines[0].startswith("Error: "), proc.stderr[-2000:]
    assert "unexpected failure" not in lines[0]
    return lines[0]
