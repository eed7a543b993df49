"""abcd_cli.kernel_search.checkpoint_lock: one search at a time on a checkpoint. A second
holder in another process is refused at once and named, the lock of a killed process blocks
nothing, a file of someone else's at the lock path is left alone, and the lock file goes when
its holder lets go.

The other holder is a child process that takes the lock and lets go when its standard input
closes (or when it is killed), so none outlives its test.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from abcd_cli.errors import InputError
from abcd_cli.kernel_search.checkpoint_lock import (
    HEADER,
    hold_checkpoints,
    lock_path,
    running_search,
)

pytestmark = pytest.mark.timeout(120)
ROOT = Path(__file__).resolve().parents[2]
HOLDER = """
import sys
from pathlib import Path
from abcd_cli.kernel_search.checkpoint_lock import hold_checkpoints
with hold_checkpoints([Path(sys.argv[1])]):
    print("held", flush=True)
    sys.stdin.read()  # until the test closes it
"""


@contextmanager
def other_search(checkpoint: Path) -> Iterator[subprocess.Popen]:
    """A process holding the lock of ``checkpoint`` for the block."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(checkpoint)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield holder
    finally:
        if holder.poll() is None:
            holder.kill()
        holder.wait(timeout=30)


def test_a_second_search_is_refused_at_once_naming_the_first(tmp_path: Path) -> None:
    checkpoint = tmp_path / "s.json"
    with other_search(checkpoint) as holder:
        assert running_search(checkpoint) == f" (process {holder.pid})"
        with pytest.raises(InputError) as err, hold_checkpoints([checkpoint]):
            pass
    message = str(err.value)
    assert f"(process {holder.pid})" in message and "--checkpoint" in message
    assert running_search(checkpoint) is None
    with hold_checkpoints([checkpoint]):  # the first has ended: free again
        assert running_search(checkpoint) == f" (process {os.getpid()})"


def test_the_lock_of_a_killed_search_blocks_nothing(tmp_path: Path) -> None:
    checkpoint = tmp_path / "s.json"
    with other_search(checkpoint) as holder:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=30)
        assert lock_path(checkpoint).exists()  # left behind, but unlocked
        assert running_search(checkpoint) is None
        with hold_checkpoints([checkpoint]):
            assert lock_path(checkpoint).read_text() == f"{HEADER}\n{os.getpid()}\n"
    assert not lock_path(checkpoint).exists()


def test_a_lock_is_counted_within_one_process_and_its_file_removed(tmp_path: Path) -> None:
    checkpoint = tmp_path / "s.json"
    with hold_checkpoints([checkpoint]):
        with hold_checkpoints([checkpoint]):  # the command line, then the search it calls
            pass
        assert running_search(checkpoint) is not None
        assert lock_path(checkpoint).exists()
    assert not lock_path(checkpoint).exists()


def test_a_file_of_someone_else_s_at_the_lock_path_is_left_alone(tmp_path: Path) -> None:
    checkpoint = tmp_path / "s.json"
    lock_path(checkpoint).write_text("my shopping list\n")
    with pytest.raises(InputError, match="not an abcd lock"), hold_checkpoints([checkpoint]):
        pass
    assert lock_path(checkpoint).read_text() == "my shopping list\n"


def test_several_checkpoints_are_all_or_nothing(tmp_path: Path) -> None:
    first, second = tmp_path / "a.seed0.json", tmp_path / "a.seed1.json"
    with other_search(second), pytest.raises(InputError), hold_checkpoints([first, second]):
        pass
    assert not lock_path(first).exists()  # taken and let go
