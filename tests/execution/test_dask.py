"""Searching on a Dask cluster: the same result as the serial search, a killed worker survived,
a lost cluster or other code on a worker a one-line error that keeps the checkpoint, and a
missing ``distributed`` package a one-line error naming the install command.

Dask is part of the ``dev`` install (``make install`` brings ``.[dev,dask]``), so these tests
fail rather than skip when it is missing. Each cluster is a ``LocalCluster`` of at most two
single-threaded worker processes, shut down by its fixture.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import dask
import distributed
import numpy as np
import pytest
from click.testing import CliRunner

import abcd_cli
from abcd_cli.batch import search_many
from abcd_cli.cli.main import main
from abcd_cli.data.summary import DataSummary
from abcd_cli.errors import InputError, RunError
from abcd_cli.execution import cluster as abcd_cluster
from abcd_cli.execution import dask as abcd_dask
from abcd_cli.execution.dask import ClusterError, DaskExecutor, chunk_sizes, run_tasks
from abcd_cli.kernel_search.candidate import FitTask, lost_candidate
from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels.text import parse_kernel
from tests.cli.test_failures_and_interrupts import (
    VICTIM,
    die_once_fit,
    echo_or_die,
    json_doc,
    result_doc,
    series,
    write_csv,
)

X, Y = series(60, seed=3)
SETTINGS = SearchSettings(depth=2, restarts=2, seed=4, patience=0)
SMALL = ["--depth", "1", "--restarts", "2", "--seed", "1"]

pytestmark = pytest.mark.timeout(180)  # pytest-timeout (dev extra): no test hangs


def _cluster(n_workers: int) -> distributed.LocalCluster:
    return abcd_cluster._local_cluster(n_workers)


def _two_workers() -> Iterator[distributed.Client]:
    """Two workers; a task is given up after its second dying worker (Dask's default: 4)."""
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        cluster = _cluster(2)
        with distributed.Client(cluster) as c:
            yield c
        cluster.close()


@pytest.fixture(scope="module")
def client() -> Iterator[distributed.Client]:
    """A cluster shared by the tests whose workers all survive."""
    yield from _two_workers()


@pytest.fixture
def killable() -> Iterator[distributed.Client]:
    """A cluster of its own for a test that kills workers: on a busy machine a nanny can take
    minutes to restart one, or not restart it, and the next test would find none."""
    yield from _two_workers()


@pytest.fixture(scope="module")
def serial() -> object:
    return result_doc(run_search(X, Y, SETTINGS))


def test_search_on_a_cluster_equals_the_serial_search(client, serial) -> None:
    found = abcd_cli.search((X, Y), executor=client, **_keywords(SETTINGS))
    assert json.dumps(result_doc(found.search_result)) == json.dumps(serial)
    assert client.status == "running"  # the caller's client is left open


def test_data_goes_to_the_cluster_once_per_search(client) -> None:
    executor = DaskExecutor(client, lost_candidate)
    try:
        run_search(X, Y, SETTINGS, executor)
        # all points and nothing else (no subset below subset_size): X and y, once each
        assert len(executor._data) == 2
        data_keys = [k for k in client.who_has() if str(k).startswith("abcd_data_")]
        assert len(data_keys) == 2
    finally:
        executor.shutdown()


@dataclasses.dataclass(frozen=True)
class TwoArrays:
    a: np.ndarray
    b: np.ndarray


def total(task: TwoArrays) -> float:
    return float(task.a.sum() + task.b.sum())


def test_fits_stay_queued_on_the_scheduler_from_stage_to_stage(client) -> None:
    """Dask queues a task for the next free worker only while its task group is root-ish
    (few dependencies, counted over the group's life; enough tasks, counted since the group
    was last empty); otherwise it sends the task to a worker holding its data. After work on
    six other arrays, and a finished stage on new data, the next stage's very first chunk
    must be queued."""
    executor = DaskExecutor(client, lost_candidate)
    rng = np.random.default_rng(0)
    try:
        for _ in range(3):  # earlier searches' data
            earlier = TwoArrays(rng.normal(size=5), rng.normal(size=5))
            assert len(list(executor.map(total, [earlier] * 6))) == 6
        task = TwoArrays(rng.normal(size=5), rng.normal(size=5))
        first_stage = list(executor.map(total, [task] * (2 * executor.workers + 1)))
        assert first_stage == [total(task)] * (2 * executor.workers + 1)
        held = executor._submit_chunk(total, [task])  # the next stage's first chunk
        distributed.wait(held)  # known to the scheduler, and kept while held

        def rootish(dask_scheduler) -> bool:
            return dask_scheduler.is_rootish(dask_scheduler.tasks[held.key])

        assert client.run_on_scheduler(rootish)
        assert held.result() == [total(task)]
    finally:
        executor.shutdown()


def test_a_killed_worker_does_not_change_the_result(killable, serial, tmp_path: Path) -> None:
    marker = tmp_path / "died"
    executor = DaskExecutor(killable, lost_candidate)
    try:
        fit_fn = functools.partial(die_once_fit, marker=str(marker))
        found = run_search(X, Y, SETTINGS, executor, fit_fn=fit_fn)
    finally:
        executor.shutdown()
    assert marker.exists()  # a worker did die mid-search
    assert json.dumps(result_doc(found)) == json.dumps(serial)


def test_an_skc_search_on_a_cluster_equals_the_serial_search(client) -> None:
    """The long-series engine's fits go to the cluster the same way: the subset screen and the
    full-data refinement with the bounds give the serial search's model, trace and intervals."""
    x, y = series(300, seed=5)
    settings = SearchSettings(
        depth=1, restarts=2, seed=1, engine="skc", inducing=40, subset_size=100
    )
    alone = run_search(x, y, settings)
    assert alone.settings.engine == "skc" and alone.trace[-1].bic_width > 0
    executor = DaskExecutor(client, lost_candidate)
    try:
        found = run_search(x, y, settings, executor)
        # all points and the subset, X and y of each, sent once
        assert len(executor._data) == 4
    finally:
        executor.shutdown()
    assert json.dumps(result_doc(found)) == json.dumps(result_doc(alone))


def _echo_or_die_on_cluster(client, structures: list[str]) -> tuple[list, list, int]:
    """``echo_or_die`` on a task per structure (its number in ``restarts``): the tasks, their
    results and how many the executor gave up."""
    summary = DataSummary.from_data(X, Y)
    tasks = [
        FitTask(parse_kernel(s), X[:, None], Y, summary, summary, i, 1, 10, (0, i))
        for i, s in enumerate(structures)
    ]
    executor = DaskExecutor(client, lost_candidate)
    try:
        results = list(executor.map(echo_or_die, tasks))
    finally:
        executor.shutdown()
    return tasks, results, executor.lost


def test_an_early_fit_gives_its_result_or_none_when_its_workers_died(killable) -> None:
    summary = DataSummary.from_data(X, Y)
    tasks = [
        FitTask(parse_kernel(s), X[:, None], Y, summary, summary, i, 1, 10, (0, i))
        for i, s in enumerate(["SE", VICTIM])
    ]
    executor = DaskExecutor(killable, lost_candidate)
    try:
        assert executor.workers == 2
        fine, killer = (executor.speculate(echo_or_die, task) for task in tasks)
        assert fine.result().nll == 0.0
        assert killer.result() is None
        assert len(executor._data) == 2  # X and y sent once for both
    finally:
        executor.shutdown()


def test_a_local_cluster_s_workers_run_without_the_profiler() -> None:
    executor = abcd_cluster.connect("local", 1, lost_candidate)
    try:
        client = executor.client  # type: ignore[attr-defined]
        answers = client.run(lambda dask_worker: "profile" in dask_worker.periodic_callbacks)
        assert list(answers.values()) == [False]
    finally:
        executor.shutdown()


def test_a_task_whose_workers_keep_dying_is_skipped(killable) -> None:
    tasks, results, lost = _echo_or_die_on_cluster(killable, ["SE", "Lin", VICTIM, "C"])
    assert lost == 1
    assert [r.status for r in results] == ["ok", "ok", "failed", "ok"]
    assert results[2].message == lost_candidate(tasks[2]).message
    assert [r.nll for i, r in enumerate(results) if i != 2] == [0.0, 1.0, 3.0]


def test_a_killer_in_a_chunk_costs_only_its_own_candidate(killable) -> None:
    """Twelve tasks on two workers go in chunks (the first of three); the chunk holding the
    task that kills its worker is sent again one task at a time: only that one is lost."""
    structures = ["SE", VICTIM] + ["Lin", "C", "SE"] * 3 + ["Lin"]
    assert chunk_sizes(len(structures), 2)[0] == 3
    _, results, lost = _echo_or_die_on_cluster(killable, structures)
    assert lost == 1
    assert [r.status for r in results] == ["ok", "failed"] + ["ok"] * 10
    assert [r.nll for r in results if r.status == "ok"] == [0.0, *map(float, range(2, 12))]


@pytest.mark.parametrize("n, workers", [(0, 2), (1, 2), (4, 2), (57, 2), (1000, 8), (5, 128)])
def test_chunks_shrink_to_single_tasks(n: int, workers: int) -> None:
    """Guided self-scheduling: the sizes cover every task once, never grow, end in single
    tasks, and each takes at most half a worker's share of what was left; 57 tasks on two
    workers are 15 chunks, not 57."""
    sizes = chunk_sizes(n, workers)
    assert sum(sizes) == n
    assert sizes == sorted(sizes, reverse=True)
    assert not sizes or sizes[-1] == 1
    left = n
    for size in sizes:
        assert size == 1 or size <= left / (2 * workers)
        left -= size
    if (n, workers) == (57, 2):
        assert len(sizes) == 15


def test_whole_series_on_the_cluster_equal_their_serial_searches(client, tmp_path: Path) -> None:
    settings = SearchSettings(depth=1, restarts=2, seed=2)
    files = [write_csv(tmp_path / f"s{i}.csv", *series(40, seed=i)) for i in range(2)]
    checkpoints = [str(tmp_path / f".s{i}.ckpt.json") for i in range(2)]
    executor = DaskExecutor(client, lost_candidate)
    try:
        got = list(search_many(files, settings, executor, checkpoints))
    finally:
        executor.shutdown()
    for (path, found), i in zip(got, range(2), strict=True):
        assert path == files[i]
        alone = run_search(*series(40, seed=i), settings)
        assert json.dumps(result_doc(found.search_result)) == json.dumps(result_doc(alone))


def fail_on_three(n: int) -> int:
    """A task that raises its own error for 3."""
    if n == 3:
        raise RunError("every candidate failed")
    return n


def test_a_task_s_own_error_reaches_the_caller_as_it_is(client) -> None:
    executor = DaskExecutor(client)
    try:
        results = executor.map(fail_on_three, [1, 2, 3])
        assert [next(results), next(results)] == [1, 2]
        with pytest.raises(RunError, match="every candidate failed") as err:
            next(results)
    finally:
        executor.shutdown()
    assert not isinstance(err.value, ClusterError)


def test_a_failure_of_the_client_itself_is_a_lost_cluster(client, monkeypatch) -> None:
    """What distributed raised once after a two-hour run, from a finished task's result."""

    def broken_result(self, timeout=None):
        raise UnboundLocalError("cannot access local variable 'result'")

    executor = DaskExecutor(client)
    monkeypatch.setattr(distributed.Future, "result", broken_result)
    try:
        with pytest.raises(ClusterError, match="lost the Dask cluster.*UnboundLocalError"):
            list(executor.map(fail_on_three, [1]))
    finally:
        monkeypatch.undo()
        executor.shutdown()


def test_a_worker_with_other_code_is_refused(client, monkeypatch) -> None:
    monkeypatch.setattr(abcd_dask, "code_fingerprint", lambda: "0.0.1+other")
    with pytest.raises(ClusterError, match="runs other abcd code"):
        DaskExecutor(client)


def test_a_scheduler_answers_and_a_worker_is_not_taken_for_one(client) -> None:
    abcd_cluster.ask_scheduler(client.scheduler.address, 10.0)
    reached = abcd_cluster.connect(client.scheduler.address, None, None)
    assert reached.workers == 2
    reached.shutdown()  # closes its own client, not the cluster
    assert client.scheduler_info()["workers"]
    worker = next(iter(client.scheduler_info()["workers"]))
    with pytest.raises(abcd_cluster.NoScheduler, match="it is a Dask worker"):
        abcd_cluster.ask_scheduler(worker, 10.0)


def test_a_task_refuses_to_run_with_other_code() -> None:
    with pytest.raises(ClusterError, match="other abcd code"):
        run_tasks(len, [[1, 2]], "0.0.1+other", [{}])


def test_a_lost_cluster_keeps_the_checkpoint_and_resume_finishes(serial, tmp_path: Path) -> None:
    cluster = _cluster(1)
    checkpoint = tmp_path / "search.ckpt.json"

    def close_after_level(line: str) -> None:
        if line.startswith("level 0"):
            cluster.close()

    try:
        with distributed.Client(cluster) as c, pytest.raises(ClusterError) as err:
            abcd_cli.search(
                (X, Y),
                executor=c,
                progress=close_after_level,
                checkpoint=checkpoint,
                **_keywords(SETTINGS),
            )
    finally:
        cluster.close()
    message = str(err.value)
    assert "\n" not in message and "--resume" in message and str(checkpoint) in message
    assert checkpoint.exists()
    resumed = abcd_cli.search((X, Y), checkpoint=checkpoint, resume=True, **_keywords(SETTINGS))
    assert json.dumps(result_doc(resumed.search_result)) == json.dumps(serial)


# ----------------------------------------------------------------------------- command line


def test_cli_search_on_a_local_cluster_equals_jobs_1(tmp_path: Path) -> None:
    data = write_csv(tmp_path / "data.csv", X, Y)
    docs = []
    for where in (["--jobs", "1"], ["--jobs", "2", "--scheduler", "local"]):
        out = tmp_path / f"{len(docs)}.json"
        result = CliRunner().invoke(
            main, ["search", str(data), "--json", str(out), "--quiet", *SMALL, *where]
        )
        assert result.exit_code == 0, result.output
        docs.append(json_doc(out))
    assert json.dumps(docs[0]) == json.dumps(docs[1])


def test_missing_distributed_is_one_line_naming_the_install(tmp_path, monkeypatch) -> None:
    data = write_csv(tmp_path / "data.csv", X, Y)
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    result = CliRunner().invoke(main, ["search", str(data), *SMALL, "--scheduler", "local"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "Error: running on a Dask cluster needs the distributed package:"
        " pip install 'abcd-cli[dask]'"
    ]
    with pytest.raises(InputError, match="pip install"):
        abcd_cli.search((X, Y), scheduler="local")


@pytest.mark.parametrize(
    ("args", "code", "text"),
    [
        (["--scheduler", "nowhere"], 2, "--scheduler takes 'local' or a scheduler's address"),
        (["--scheduler", "tcp://127.0.0.1:9"], 2, "no Dask scheduler answered at"),
    ],
    ids=["malformed", "unreachable"],
)
def test_bad_scheduler_is_one_line(tmp_path, monkeypatch, args, code, text) -> None:
    monkeypatch.setenv(abcd_cluster.TIMEOUT_VARIABLE, "1")
    data = write_csv(tmp_path / "data.csv", X, Y)
    result = CliRunner().invoke(main, ["search", str(data), *SMALL, *args])
    assert result.exit_code == code, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and text in lines[0]


def test_distribute_series_needs_a_scheduler(tmp_path: Path) -> None:
    write_csv(tmp_path / "a.csv", X, Y)
    result = CliRunner().invoke(
        main, ["benchmark", str(tmp_path), "-o", str(tmp_path / "out"), "--distribute", "series"]
    )
    assert result.exit_code == 2
    assert "needs --scheduler" in result.output


def _keywords(settings: SearchSettings) -> dict[str, object]:
    return {
        "depth": settings.depth,
        "restarts": settings.restarts,
        "seed": settings.seed,
        "patience": settings.patience,
    }


def test_a_posterior_on_a_cluster_equals_the_serial_one(client) -> None:
    settings = dataclasses.replace(SETTINGS, method="posterior", pool=3, draws=4)
    serial = result_doc(run_search(X, Y, settings))
    keywords = {**_keywords(settings), "method": "posterior", "pool": 3, "draws": 4}
    found = abcd_cli.search((X, Y), executor=client, **keywords)
    assert json.dumps(result_doc(found.search_result)) == json.dumps(serial)
    assert len(found.posterior.structures) == 3
