"""Reaching a Dask cluster for the search: the scheduler's address checked before anything
runs, a local cluster of single-threaded worker processes started, or a running one connected
to once it has said, within the scheduler time-out, that it is a Dask scheduler (else one
``NoScheduler`` line), and a :class:`~abcd_cli.execution.dask.DaskExecutor` on it (which first
checks that every worker runs this process's code). Dask's own log lines are silenced: what
matters reaches the user as one ``ClusterError`` line.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import re
import threading
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

from abcd_cli.errors import InputError
from abcd_cli.execution.dask import DaskExecutor, require_distributed

#: Seconds a scheduler has, from the first connection attempt, to answer who it is (Dask's own
#: connect timeout does not cover its handshake: a port that accepts and stays silent hung the
#: client without end). ``ABCD_SCHEDULER_TIMEOUT`` (seconds) changes it.
CONNECT_TIMEOUT = 10.0
TIMEOUT_VARIABLE = "ABCD_SCHEDULER_TIMEOUT"
#: The workers' statistical profiler wakes every 10 ms, in the worker process beside the fit:
#: with it on, a measured search took about 3% longer (benchmarks/dask/outputs/dask_notes.md).
#: Off on the clusters abcd starts; the README starts workers with it off.
PROFILER = "distributed.worker.profile.enabled"


def connect(scheduler: str, jobs: int | None, on_lost: Callable[[Any], Any] | None) -> Executor:
    """A DaskExecutor on a new local cluster (``scheduler`` = "local": ``jobs`` single-threaded
    worker processes, 0 or None: one per core) or on the running cluster at ``scheduler``."""
    require_distributed()
    from distributed import Client

    quiet_logs()
    if scheduler == "local":
        import os

        import dask

        n = jobs or os.cpu_count() or 1
        with dask.config.set({PROFILER: False}):  # the workers' nannies pass it on
            cluster = _local_cluster(n)
        client = Client(cluster)
        owned: tuple[Any, ...] = (client, cluster)
    else:
        check_address(scheduler)
        timeout = scheduler_timeout()
        ask_scheduler(scheduler, timeout)
        try:
            client = Client(scheduler, timeout=timeout)
        except (OSError, TimeoutError) as exc:
            raise NoScheduler(scheduler, _reason(exc)) from None
        except (ValueError, TypeError) as exc:  # what distributed makes of the address
            detail = " ".join(str(exc).split())[:200] or type(exc).__name__
            raise InputError(
                f"cannot use the Dask scheduler address {scheduler!r}: {detail}"
            ) from None
        owned = (client,)
    try:
        return DaskExecutor(client, on_lost, owned)
    except BaseException:
        for thing in owned:
            thing.close()
        raise


class NoScheduler(InputError):
    """Nothing at a scheduler's address answered as a Dask scheduler in time (exit code 2:
    the address or the cluster is the user's to fix)."""

    def __init__(self, address: str, reason: str) -> None:
        super().__init__(f"no Dask scheduler answered at {address}: {reason}")


def scheduler_timeout() -> float:
    """The seconds a scheduler has to answer: ``ABCD_SCHEDULER_TIMEOUT`` if set, else
    ``CONNECT_TIMEOUT``; InputError for a value that is not a positive number of seconds."""
    text = os.environ.get(TIMEOUT_VARIABLE, "").strip()
    if not text:
        return CONNECT_TIMEOUT
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds <= 86400:  # nan fails too
        raise InputError(
            f"{TIMEOUT_VARIABLE} takes seconds from 0 to 86400, not {text[:30]!r}: set it to"
            f" a number such as 30, or unset it for {CONNECT_TIMEOUT:.0f} s"
        )
    return seconds


def ask_scheduler(address: str, timeout: float) -> None:
    """Connect to ``address`` and ask who answers (Dask's ``identity``), the whole exchange
    within ``timeout`` seconds; ``NoScheduler`` unless a Dask scheduler answers. Run on a
    thread of its own, so that a caller with a running event loop (a notebook) can call it."""
    outcome: list[str] = []

    def run() -> None:
        try:
            outcome.append(asyncio.run(asyncio.wait_for(_identity(address, timeout), timeout)))
        except (TimeoutError, asyncio.TimeoutError):
            outcome.append(
                f"no answer within {timeout:g} s (set {TIMEOUT_VARIABLE} to wait longer)"
            )
        except OSError as exc:
            outcome.append(_reason(exc))
        except Exception as exc:  # noqa: BLE001 - garbage on the line: any error of the reader
            outcome.append(f"what answered does not speak Dask's protocol ({type(exc).__name__})")

    asker = threading.Thread(target=run, name="abcd-ask-scheduler", daemon=True)
    asker.start()
    asker.join(timeout + 5.0)  # the loop's own deadline ends it first
    reason = outcome[0] if outcome else f"no answer within {timeout:g} s"
    if reason:
        raise NoScheduler(address, reason)


async def _identity(address: str, timeout: float) -> str:
    """'' when a Dask scheduler at ``address`` says who it is; what answered otherwise."""
    from distributed.comm import connect

    comm = await connect(address, timeout=timeout)
    try:
        await comm.write({"op": "identity", "reply": True})
        answer = await comm.read()
    finally:
        comm.abort()
    kind = answer.get("type") if isinstance(answer, dict) else None
    if isinstance(kind, str) and kind.endswith("Scheduler"):
        return ""
    if kind in ("Worker", "Nanny"):
        return f"it is a Dask {kind.lower()}; give the scheduler's address"
    return "what answered is not a Dask scheduler"


def _reason(exc: BaseException) -> str:
    """An exception as a short clause of one line."""
    text = " ".join(str(exc).split())[:200]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _local_cluster(n: int) -> Any:
    """A LocalCluster of ``n`` single-threaded worker processes on the loopback interface."""
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=n,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",  # nothing listens beyond this machine
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # its HTTP server too
        silence_logs=logging.CRITICAL,  # our one-line errors say what matters
    )


def quiet_logs() -> None:
    """Silence Dask's own log lines in this process (its loggers set their levels one by
    one): what matters reaches the user as one ``ClusterError`` line."""
    for name in [*logging.root.manager.loggerDict, "distributed", "distributed.client"]:
        if name == "distributed" or name.startswith("distributed."):
            logging.getLogger(name).setLevel(logging.CRITICAL)


#: The address schemes a client can reach a scheduler by (inproc is within one process; ucx
#: needs a package of its own).
SCHEMES = ("tcp", "tls", "ws", "wss")
_HOST_NAME = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?", re.ASCII)


def check_address(scheduler: str) -> None:
    """InputError, naming the address and what is wrong with it, unless ``scheduler`` is
    ``[SCHEME://]HOST:PORT`` with a known scheme, a host name, IPv4 or [IPv6] address and a
    port from 1 to 65535. Whether it answers is found out when connecting."""
    reason = _address_problem(scheduler)
    if reason:
        shown = scheduler if len(scheduler) <= 80 else scheduler[:77] + "..."
        raise InputError(
            f"--scheduler takes 'local' or a scheduler's address such as tcp://host:8786,"
            f" not {shown!r}: {reason}"
        )


def _address_problem(scheduler: str) -> str:
    """What is wrong with a scheduler's address ('' if nothing)."""
    if not scheduler.strip():
        return "it is empty"
    if any(c.isspace() or not c.isprintable() for c in scheduler):
        return "it holds spaces or control characters"
    scheme, sep, rest = scheduler.partition("://")
    if not sep:
        rest = scheduler
    elif scheme not in SCHEMES:
        return f"unknown scheme {scheme[:20]!r} (use {', '.join(SCHEMES)})"
    if rest.startswith("["):  # [IPv6]:PORT
        close = rest.find("]")
        if close < 0:
            return "the IPv6 address lacks its closing bracket, as in tcp://[::1]:8786"
        host, port = rest[: close + 1], rest[close + 1 :]
        if not port.startswith(":"):
            return "it needs a port after the IPv6 address, as in tcp://[::1]:8786"
        port = port[1:]
    else:
        host, colon, port = rest.rpartition(":")
        if not colon or not host:
            return "it needs a host and a port, HOST:PORT"
    if not re.fullmatch(r"[0-9]{1,5}", port) or not 1 <= int(port) <= 65535:
        return f"the port must be a number from 1 to 65535, not {port[:20]!r}"
    if host.startswith("["):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return f"{host[:50]!r} is not an IPv6 address"
    elif ":" in host:
        return "an IPv6 address goes in brackets, as in tcp://[::1]:8786"
    elif re.fullmatch(r"[0-9.]+", host):
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            return f"{host[:50]!r} is not an IPv4 address"
    elif not _HOST_NAME.fullmatch(host):
        return f"{host[:50]!r} is not a host name or IP address"
    return ""
