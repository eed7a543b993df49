"""abcd_cli.files: how an output is written. Regular files are replaced atomically and keep
their permissions, links are followed, FIFOs and devices are written in place (never
replaced), folders, sockets and read-only files are refused, ``-`` is standard output, and the
part file of a write killed half-way is removed by the next write to the same path."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from abcd_cli.errors import InputError
from abcd_cli.files import PART_SUFFIX, remove_stale_parts, write_output


def parts(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(PART_SUFFIX))


def test_new_file_gets_an_ordinary_mode(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    write_output(target, "{}")
    umask = os.umask(0)
    os.umask(umask)
    assert target.read_text() == "{}"
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    assert parts(tmp_path) == []


def test_existing_file_is_replaced_and_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    target.write_text("old")
    target.chmod(0o640)
    inode = target.stat().st_ino
    write_output(target, b"new bytes")
    assert target.read_bytes() == b"new bytes"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert target.stat().st_ino != inode  # a new file renamed over the old one


def test_read_only_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "kept.csv"
    target.write_text("mine")
    target.chmod(0o444)
    with pytest.raises(InputError, match="read-only"):
        write_output(target, "x")
    assert target.read_text() == "mine"


def test_link_is_followed_and_kept(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target.name)
    write_output(link, "new")
    assert link.is_symlink() and os.readlink(link) == "real.json"
    assert target.read_text() == "new"


def test_dangling_link_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "link.json"
    link.symlink_to("made.json")
    write_output(link, "new")
    assert link.is_symlink() and (tmp_path / "made.json").read_text() == "new"


def test_fifo_nobody_reads_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="no process is reading"):
        write_output(fifo, "data")
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_fifo_with_a_reader_is_written_in_place(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    payload = b"x" * 300_000  # more than a pipe's buffer: the writer must wait for the reader
    for _ in range(100):  # until the reader has opened its end
        try:
            write_output(fifo, payload)
            break
        except InputError:
            threading.Event().wait(0.05)
    reader.join(10)
    assert received == [payload]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_character_device_is_written_in_place() -> None:
    before = os.stat("/dev/null")
    write_output("/dev/null", "discarded")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino


def test_full_device_is_an_error_and_stays_a_device(tmp_path: Path) -> None:
    """A copy of /dev/full made here (as root), so that a regression cannot replace the
    machine's own."""
    device = tmp_path / "full"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except OSError:
        pytest.skip("cannot make a device node here (not root)")
    with pytest.raises(InputError, match=f"cannot write {device}"):
        write_output(device, "data")
    assert stat.S_ISCHR(device.stat().st_mode)


def test_folder_and_socket_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="it is a folder"):
        write_output(tmp_path, "x")
    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        with pytest.raises(InputError, match="it is a socket"):
            write_output(path, "x")
    finally:
        server.close()
    assert stat.S_ISSOCK(path.stat().st_mode)


def test_missing_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        write_output(tmp_path / "no" / "out.json", "x")


def test_dash_is_standard_output(capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    write_output("-", b"\x00binary\n")
    write_output("-", "text ü\n")
    assert capfdbinary.readouterr().out == b"\x00binary\ntext \xc3\xbc\n"


def test_failed_write_leaves_the_target_and_no_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.json"
    target.write_text("old")

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(InputError, match="No space left"):
        write_output(target, "new")
    assert target.read_text() == "old"
    assert parts(tmp_path) == []


KILLED_WRITE = """
import os, signal, sys
from abcd_cli import files
os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL)  # dies between write and rename
files.write_output(sys.argv[1], "half")
"""


def test_part_of_a_killed_write_is_removed_by_the_next(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old")
    done = subprocess.run([sys.executable, "-c", KILLED_WRITE, str(target)], check=False)
    assert done.returncode == -9
    assert len(parts(tmp_path)) == 1 and target.read_text() == "old"
    write_output(target, "new")
    assert parts(tmp_path) == [] and target.read_text() == "new"


def test_parts_of_live_writers_and_other_files_are_kept(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    alive = tmp_path / f".out.json.1.0123abcd{PART_SUFFIX}"  # pid 1 always exists
    other = tmp_path / f".other.json.999999999.0123abcd{PART_SUFFIX}"
    user = tmp_path / ".out.json.notes.part"
    for path in (alive, other, user):
        path.write_text("keep")
    assert remove_stale_parts(target) == []
    assert all(path.exists() for path in (alive, other, user))
