"""Reaching a Dask cluster for the search: the scheduler's address checked before anything
runs, a local cluster of single-threaded worker processes started, or a running one connected
to, and a :class:`~abcd_cli.execution.dask.DaskExecutor` on it (which first checks that every
worker runs this process's code). Dask's own log lines are silenced: what matters reaches the
user as one ``ClusterError`` line.
"""

from __future__ import annotations

import ipaddress
import logging
import re
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

from abcd_cli.errors import InputError
from abcd_cli.execution.dask import ClusterError, DaskExecutor, require_distributed

#: Seconds to wait for a scheduler's answer when connecting to it.
CONNECT_TIMEOUT = 10.0
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
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
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
