"""abcd_cli.execution.cluster: an address where no Dask scheduler answers (a port that accepts
and stays silent, one that answers HTTP, one that refuses) ends the command within the
scheduler time-out with one ``Error: no Dask scheduler answered at ...`` line and exit code 2.

Each false scheduler is a socket server on the loopback interface in a thread of the test,
which stops by itself after a few seconds whatever happens.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from click.testing import CliRunner

from abcd_cli.cli.main import main
from abcd_cli.errors import InputError
from abcd_cli.execution import cluster
from tests.cli.test_failures_and_interrupts import series, write_csv

pytestmark = pytest.mark.timeout(120)
SMALL = ["--depth", "1", "--restarts", "1", "--quiet"]
LIFETIME = 20.0  # seconds a false scheduler lives at most


def stay_silent(conn: socket.socket) -> None:
    """Accept and say nothing (the connection is closed when the server stops)."""


def answer_http(conn: socket.socket) -> None:
    """Answer whatever comes as a web server would."""
    conn.settimeout(2.0)
    try:
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 11\r\n\r\nBad Request")
    except OSError:
        pass


@contextmanager
def false_scheduler(answer: Callable[[socket.socket], None]) -> Iterator[str]:
    """The address of a loopback server that accepts connections and gives each to
    ``answer``; it stops when the block ends or after ``LIFETIME`` seconds."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.settimeout(0.2)
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        end = time.monotonic() + LIFETIME
        while not stop.is_set() and time.monotonic() < end:
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            held.append(conn)
            answer(conn)
        for conn in held:
            conn.close()
        server.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(LIFETIME)


def closed_port() -> str:
    """An address on the loopback interface where nothing listens."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"tcp://127.0.0.1:{s.getsockname()[1]}"


@pytest.mark.parametrize("answer", [stay_silent, answer_http], ids=["silent", "http"])
def test_a_port_where_no_scheduler_answers_is_one_line_and_exit_2(
    answer, tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv(cluster.TIMEOUT_VARIABLE, "2")
    data = write_csv(tmp_path / "data.csv", *series(30))
    with false_scheduler(answer) as address:
        result = CliRunner().invoke(main, ["search", str(data), *SMALL, "--scheduler", address])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith(f"Error: no Dask scheduler answered at {address}: ")
    assert "unexpected failure" not in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv"]


def test_a_silent_port_names_the_time_out_and_how_to_change_it(monkeypatch) -> None:
    with false_scheduler(stay_silent) as address, pytest.raises(cluster.NoScheduler) as err:
        cluster.ask_scheduler(address, 1.0)
    assert "within 1 s" in str(err.value) and cluster.TIMEOUT_VARIABLE in str(err.value)


def test_a_refused_port_is_no_scheduler(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(cluster.TIMEOUT_VARIABLE, "1")
    data = write_csv(tmp_path / "data.csv", *series(30))
    address = closed_port()
    result = CliRunner().invoke(main, ["search", str(data), *SMALL, "--scheduler", address])
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"Error: no Dask scheduler answered at {address}: ")


@pytest.mark.parametrize("value", ["soon", "0", "-3", "nan", "1e9"])
def test_a_bad_time_out_is_refused(value, monkeypatch) -> None:
    monkeypatch.setenv(cluster.TIMEOUT_VARIABLE, value)
    with pytest.raises(InputError, match=cluster.TIMEOUT_VARIABLE):
        cluster.scheduler_timeout()


def test_the_time_out_is_ten_seconds_unless_set(monkeypatch) -> None:
    monkeypatch.delenv(cluster.TIMEOUT_VARIABLE, raising=False)
    assert cluster.scheduler_timeout() == cluster.CONNECT_TIMEOUT
    monkeypatch.setenv(cluster.TIMEOUT_VARIABLE, "2.5")
    assert cluster.scheduler_timeout() == 2.5
