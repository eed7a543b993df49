"""abcd_cli.files: how an output is written. Regular files are replaced atomically and keep
their permissions, links are followed, FIFOs and devices are written in place (never
replaced), folders, sockets and read-only files are refused, ``-`` is standard output, and the
part file of a write killed half-way is removed by the next write to the same path."""

from __future__ import annotations

import contextlib
import io
import os
import socket
import stat
import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest

from abcd_cli.errors import InputError
from abcd_cli.files import (
    PART_SUFFIX,
    StandardOutputError,
    hold_stream,
    release_streams,
    remove_stale_parts,
    write_output,
)


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


class ShortWriter(io.RawIOBase):
    """A byte stream that takes at most ``chunk`` bytes per write and nothing once it holds
    ``room`` bytes (a disk that fills)."""

    def __init__(self, chunk: int, room: int) -> None:
        self.chunk, self.room, self.taken = chunk, room, bytearray()

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        n = min(len(data), self.chunk, self.room - len(self.taken))
        self.taken += bytes(data[:n])
        return n


def standard_output(monkeypatch: pytest.MonkeyPatch, raw: io.RawIOBase) -> None:
    """Standard output whose bytes go to ``raw`` without a buffer in between."""
    monkeypatch.setattr(sys, "stdout", types.SimpleNamespace(buffer=raw, flush=lambda: None))


def test_standard_output_takes_every_byte_of_partial_writes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    raw = ShortWriter(chunk=7, room=10_000)
    payload = bytes(range(256)) * 10
    with monkeypatch.context() as patch:
        standard_output(patch, raw)
        write_output("-", payload)
    assert bytes(raw.taken) == payload


def test_standard_output_that_stops_taking_data_is_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    raw = ShortWriter(chunk=64, room=100)
    with monkeypatch.context() as patch, pytest.raises(StandardOutputError) as caught:
        standard_output(patch, raw)
        write_output("-", b"x" * 1000, "the table")
    assert caught.value.message == (
        "could not write the table to standard output: the write stopped after 100 of 1000 bytes"
    )
    assert caught.value.exit_code == 2


class ChunkedText(io.StringIO):
    """A text stream without bytes underneath that takes five characters per write."""

    def write(self, text: str) -> int:
        return super().write(text[:5])


def test_text_standard_output_takes_every_character(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = ChunkedText()
    monkeypatch.setattr(sys, "stdout", stream)
    write_output("-", "ü and more text\n" * 20)
    monkeypatch.undo()
    assert stream.getvalue() == "ü and more text\n" * 20


def test_standard_output_on_a_full_device_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    full = open("/dev/full", "w")  # noqa: SIM115 (closed below, its failed bytes dropped)
    try:
        monkeypatch.setattr(sys, "stdout", full)
        with pytest.raises(StandardOutputError, match="the report to standard output: no space"):
            write_output("-", "{}" * 10_000, "the report")
    finally:
        monkeypatch.undo()
        with contextlib.suppress(OSError):
            full.close()


def test_standard_output_on_a_closed_pipe_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the output is written
    pipe = open(write_end, "w")  # noqa: SIM115 (closed below, its failed bytes dropped)
    try:
        monkeypatch.setattr(sys, "stdout", pipe)
        with pytest.raises(StandardOutputError, match="the program reading it closed the pipe"):
            write_output("-", "x" * 100)
    finally:
        monkeypatch.undo()
        with contextlib.suppress(OSError):
            pipe.close()


def test_held_fifo_is_refused_at_once_without_a_reader(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="no process is reading this FIFO"):
        hold_stream(fifo)


def test_held_fifo_gives_its_reader_the_whole_output(tmp_path: Path) -> None:
    """The reader is there before the check; holding the FIFO open from the check until the
    write means it reads the output, not the end of an empty probe."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: chunks.append(fifo.read_bytes()))
    reader.start()
    try:
        for _ in range(200):  # until the reader has opened its end
            try:
                hold_stream(fifo)
                break
            except InputError:
                threading.Event().wait(0.05)
        write_output(fifo, b"whole output")
    finally:
        release_streams()
    reader.join(10)
    assert chunks == [b"whole output"]


def test_released_fifo_ends_its_reader(tmp_path: Path) -> None:
    """A command that fails after the check closes the FIFO: its reader sees an empty end
    rather than waiting forever."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: chunks.append(fifo.read_bytes()))
    reader.start()
    for _ in range(200):
        try:
            hold_stream(fifo)
            break
        except InputError:
            threading.Event().wait(0.05)
    release_streams()
    reader.join(10)
    assert chunks == [b""] and not reader.is_alive()


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
