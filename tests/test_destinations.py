"""Issue 49: no command removes or overwrites a file the user did not name as its output.

abcd_cli.destinations refuses, before any search, an output that is an input, two outputs that
are one file, a checkpoint on an input or an output, and a checkpoint path holding anything but
this program's checkpoint; the commands use it, write ``-`` to standard output, read ``-`` from
standard input, and remove only their own checkpoints. A property-based test drives the CLI
with random combinations of paths and checks that no input and no file that is not the
program's is changed or removed; another does the same for ``abcd benchmark`` (issue 61), and
the first redirects standard input from the files too."""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from abcd_cli.cli.main import main
from abcd_cli.destinations import check_destinations
from abcd_cli.errors import InputError
from abcd_cli.kernel_search.checkpoint import discard, is_checkpoint

QUICK = ["--depth", "0", "--restarts", "1", "--jobs", "1", "--quiet"]


def data_csv(n: int = 30) -> str:
    x = np.arange(n, dtype=float)
    y = np.sin(x / 4.0) + 0.1 * np.random.default_rng(0).normal(size=n)
    return "x,y\n" + "".join(f"{a:.17g},{b:.17g}\n" for a, b in zip(x, y, strict=True))


@pytest.fixture(scope="module")
def model_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("model")
    (folder / "d.csv").write_text(data_csv())
    result = run("search", str(folder / "d.csv"), *QUICK, "--json", str(folder / "m.json"))
    assert result.exit_code == 0, result.output
    return (folder / "m.json").read_text()


@pytest.fixture
def in_tmp(tmp_path: Path) -> Iterator[Path]:
    cwd = os.getcwd()
    os.chdir(tmp_path)
    (tmp_path / "d.csv").write_text(data_csv())
    try:
        yield tmp_path
    finally:
        os.chdir(cwd)


def run(*args: str, stdin: str | BinaryIO | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=stdin)


def refused(result: Result, *needles: str) -> None:
    """Exit code 2 with one ``Error:`` line on stderr naming each needle."""
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


# ----------------------------------------------------------------------------- the rules


def test_output_on_an_input_by_any_name(in_tmp: Path) -> None:
    (in_tmp / "link.csv").symlink_to("d.csv")
    os.link("d.csv", "hard.csv")
    for name in ("d.csv", "./d.csv", str(in_tmp / "d.csv"), "link.csv", "hard.csv"):
        with pytest.raises(InputError, match=f"-o {name} would overwrite the input DATA.csv"):
            check_destinations({"DATA.csv": "d.csv"}, {"-o": name})


def test_two_outputs_one_file(in_tmp: Path) -> None:
    with pytest.raises(InputError, match="-o a.json and --json ./a.json are the same file"):
        check_destinations({}, {"-o": "a.json", "--json": "./a.json"})
    with pytest.raises(InputError, match="both write standard output"):
        check_destinations({}, {"-o": "-", "--json": "-"})
    check_destinations({"DATA.csv": "-"}, {"-o": "-", "--json": None})  # stdin in, stdout out


def test_two_inputs_from_standard_input() -> None:
    with pytest.raises(InputError, match="cannot both read standard input"):
        check_destinations({"MODEL.json": "-", "X.csv": "-"}, {"-o": "out.csv"})


def test_output_on_the_file_standard_input_reads(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (in_tmp / "link.csv").symlink_to("d.csv")
    with open("d.csv", "rb") as stdin:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(stdin))
        for name in ("d.csv", "link.csv", str(in_tmp / "d.csv")):
            with pytest.raises(InputError, match=f"--json {name} would overwrite the input"):
                check_destinations({"DATA.csv": "-"}, {"--json": name})
        with pytest.raises(InputError, match="the checkpoint d.csv would overwrite the input"):
            check_destinations({"DATA.csv": "-"}, {}, ["d.csv"])
        check_destinations({"DATA.csv": "-"}, {"--json": "other.json"})
        check_destinations({"DATA.csv": "d.csv"}, {"-o": "-"})


def test_standard_input_that_is_not_a_file_is_no_output(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pipe, or a stream without a descriptor, is no file an output could name."""
    read_end, write_end = os.pipe()
    with open(read_end, "rb") as pipe:
        os.close(write_end)
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(pipe))
        check_destinations({"DATA.csv": "-"}, {"--json": "d.csv"})
    monkeypatch.setattr(sys, "stdin", io.StringIO("x,y\n"))
    check_destinations({"DATA.csv": "-"}, {"--json": "d.csv"})


def test_checkpoint_on_an_input_or_output(in_tmp: Path) -> None:
    with pytest.raises(InputError, match="the checkpoint d.csv would overwrite the input"):
        check_destinations({"DATA.csv": "d.csv"}, {}, ["d.csv"])
    with pytest.raises(InputError, match="would overwrite the output -o"):
        check_destinations({}, {"-o": "r.json"}, ["r.json"])
    with pytest.raises(InputError, match="cannot be standard output"):
        check_destinations({}, {}, ["-"])


def test_checkpoint_path_holding_something_else(in_tmp: Path) -> None:
    (in_tmp / "notes.txt").write_text("my notes")
    (in_tmp / "link").symlink_to("notes.txt")
    (in_tmp / "folder").mkdir()
    os.mkfifo(in_tmp / "fifo")
    for name, what in [
        ("notes.txt", "a file that is not an abcd search checkpoint"),
        ("link", "a link"),
        ("folder", "a folder"),
        ("fifo", "a special file"),
    ]:
        with pytest.raises(InputError, match=f"the checkpoint path {name} already holds {what}"):
            check_destinations({}, {}, [name])
    check_destinations({}, {}, ["new.ckpt.json"])  # nothing there yet: fine
    assert (in_tmp / "notes.txt").read_text() == "my notes"


def test_only_checkpoints_are_discarded(in_tmp: Path) -> None:
    (in_tmp / "notes.txt").write_text('{"format": "something else"}')
    discard(in_tmp / "notes.txt")
    assert (in_tmp / "notes.txt").exists()
    assert not is_checkpoint(in_tmp / "d.csv")


# ----------------------------------------------------------------------------- the cases


def test_checkpoint_naming_a_user_file_leaves_it(in_tmp: Path) -> None:
    (in_tmp / "notes.txt").write_text("my notes")
    refused(run("search", "d.csv", *QUICK, "--checkpoint", "notes.txt"), "notes.txt")
    refused(run("search", "d.csv", *QUICK, "--checkpoint", "d.csv"), "d.csv")
    refused(
        run("report", "d.csv", "-o", "r.json", *QUICK, "--checkpoint", "r.json"),
        "the checkpoint r.json would overwrite the output -o",
    )
    assert (in_tmp / "notes.txt").read_text() == "my notes"
    assert (in_tmp / "d.csv").read_text() == data_csv()
    assert not (in_tmp / "r.json").exists()


def test_default_checkpoint_beside_the_output_holding_a_user_file(in_tmp: Path) -> None:
    (in_tmp / "r.json.ckpt.json").write_text("mine")
    refused(run("report", "d.csv", "-o", "r.json", *QUICK), "r.json.ckpt.json", "--checkpoint")
    assert (in_tmp / "r.json.ckpt.json").read_text() == "mine"


def test_outputs_on_inputs_and_on_each_other(in_tmp: Path, model_text: str) -> None:
    (in_tmp / "m.json").write_text(model_text)
    (in_tmp / "X.csv").write_text("x\n1\n2\n")
    refused(run("search", "d.csv", *QUICK, "--json", "d.csv"), "--json d.csv", "DATA.csv")
    refused(run("report", "d.csv", "-o", "d.csv", "--format", "json", *QUICK), "-o d.csv")
    refused(run("predict", "m.json", "X.csv", "-o", "X.csv"), "-o X.csv", "X.csv")
    refused(run("predict", "m.json", "X.csv", "-o", "m.json"), "-o m.json", "MODEL.json")
    refused(
        run("report", "--from-model", "m.json", "-o", "r.html", "--json", "m.json"),
        "--json m.json",
        "--from-model",
    )
    refused(
        run("report", "d.csv", "-o", "same.json", "--json", "same.json", *QUICK),
        "-o same.json and --json same.json are the same file",
    )
    assert (in_tmp / "d.csv").read_text() == data_csv()
    assert (in_tmp / "X.csv").read_text() == "x\n1\n2\n"
    assert (in_tmp / "m.json").read_text() == model_text
    assert not (in_tmp / "same.json").exists()


def test_a_success_removes_its_own_checkpoint_only(in_tmp: Path) -> None:
    result = run("report", "d.csv", "-o", "r.json", "--json", "m.json", *QUICK)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in in_tmp.iterdir()) == ["d.csv", "m.json", "r.json"]


def test_special_outputs_are_never_replaced(in_tmp: Path, model_text: str) -> None:
    (in_tmp / "m.json").write_text(model_text)
    os.mkfifo(in_tmp / "fifo")
    result = run("report", "--from-model", "m.json", "-o", "fifo", "--format", "json")
    assert result.exit_code == 2 and "no process is reading this FIFO" in result.stderr
    assert stat.S_ISFIFO((in_tmp / "fifo").stat().st_mode)
    result = run("report", "--from-model", "m.json", "-o", "/dev/null", "--format", "json")
    assert result.exit_code == 0 and stat.S_ISCHR(os.stat("/dev/null").st_mode)
    (in_tmp / "real.html").write_text("old")
    (in_tmp / "link.html").symlink_to("real.html")
    assert run("report", "--from-model", "m.json", "-o", "link.html").exit_code == 0
    assert (in_tmp / "link.html").is_symlink()
    assert (in_tmp / "real.html").read_text().startswith("<!DOCTYPE html>")


def test_dash_writes_standard_output(in_tmp: Path, model_text: str) -> None:
    (in_tmp / "m.json").write_text(model_text)
    (in_tmp / "X.csv").write_text("x\n1\n2\n")
    result = run("search", "d.csv", *QUICK, "--json", "-")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["structure"] == "WN"  # the summary lines went to stderr
    assert "wrote standard output" in result.stderr
    result = run("predict", "m.json", "X.csv", "-o", "-")
    assert result.stdout.splitlines()[0].startswith("x,mean,sd")
    assert len(result.stdout.splitlines()) == 3
    result = run("report", "--from-model", "m.json", "-o", "-", "--format", "json")
    assert json.loads(result.stdout)["title"]
    assert not (in_tmp / "-").exists()


def test_dash_reads_standard_input(in_tmp: Path) -> None:
    result = run("search", "-", *QUICK, "--json", "m.json", stdin=data_csv())
    assert result.exit_code == 0, result.output
    assert json.loads((in_tmp / "m.json").read_text())["data"]["source"] == "standard input"
    result = run("describe-data", "-", stdin=data_csv())
    assert result.exit_code == 0 and "30" in result.output
    refused(run("describe-data", "-", stdin=""), "standard input")


def test_standard_input_redirected_from_the_output(in_tmp: Path, model_text: str) -> None:
    (in_tmp / "m.json").write_text(model_text)
    (in_tmp / "X.csv").write_text("x\n1\n2\n")
    with open("d.csv", "rb") as stdin:
        refused(
            run("search", "-", *QUICK, "--json", "d.csv", stdin=stdin),
            "--json d.csv would overwrite the input DATA.csv",
            "standard input",
        )
    with open("X.csv", "rb") as stdin:
        refused(
            run("predict", "m.json", "-", "-o", "X.csv", stdin=stdin),
            "-o X.csv would overwrite the input X.csv",
        )
    assert (in_tmp / "d.csv").read_text() == data_csv()
    assert (in_tmp / "X.csv").read_text() == "x\n1\n2\n"
    with open("d.csv", "rb") as stdin:
        result = run("search", "-", *QUICK, "--json", "m2.json", stdin=stdin)
    assert result.exit_code == 0, result.output


def test_fifo_without_a_reader_is_refused_before_the_search(in_tmp: Path) -> None:
    os.mkfifo(in_tmp / "fifo")
    result = run("search", "d.csv", *QUICK, "--json", "fifo")
    refused(result, "cannot write fifo: no process is reading this FIFO")
    assert result.stdout == ""  # no search ran: its summary would be there
    assert stat.S_ISFIFO((in_tmp / "fifo").stat().st_mode)
    result = run("report", "d.csv", "-o", "r.json", *QUICK, "--json", "fifo")
    refused(result, "no process is reading this FIFO")
    assert sorted(p.name for p in in_tmp.iterdir()) == ["d.csv", "fifo"]


def test_fifo_whose_reader_is_there_gets_the_output(in_tmp: Path) -> None:
    os.mkfifo(in_tmp / "fifo")
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append((in_tmp / "fifo").read_bytes()))
    reader.start()
    result = None
    for _ in range(200):  # until the reader has opened its end
        result = run("search", "d.csv", *QUICK, "--json", "fifo")
        if result.exit_code == 0:
            break
        threading.Event().wait(0.05)
    reader.join(10)
    assert result is not None and result.exit_code == 0, result.output
    assert json.loads(received[0])["structure"] == "WN"


def test_resume_without_a_checkpoint_says_so(in_tmp: Path) -> None:
    result = run("search", "d.csv", *QUICK, "--resume")
    assert result.exit_code == 0, result.output
    assert "Warning: --resume: there is no checkpoint at" in result.stderr
    assert "starts from the beginning" in result.stderr


# ----------------------------------------------------------------------------- property


def snapshot(folder: Path) -> dict[str, tuple[str, str]]:
    """Every entry of ``folder``: its kind and its content's hash (a link: its target)."""
    entries = {}
    for path in folder.iterdir():
        mode = path.lstat().st_mode
        if stat.S_ISLNK(mode):
            entries[path.name] = ("link", os.readlink(path))
        elif stat.S_ISREG(mode):
            entries[path.name] = ("file", hashlib.sha256(path.read_bytes()).hexdigest())
        else:
            entries[path.name] = ("other", str(stat.S_IFMT(mode)))
    return entries


#: What a path option may name: inputs, a user's file, a link to the data, a FIFO, a folder,
#: new names, standard output.
NAMES = ["d.csv", "m.json", "X.csv", "notes.txt", "link.csv", "fifo", "sub", "a.json", "b.json"]
PATHS = st.sampled_from([*NAMES, "-", "./d.csv", "sub/../notes.txt"])


#: Each command's arguments before the path options, and the files it reads.
COMMANDS = {
    "search": (["search", "d.csv"], {"d.csv"}),
    "report": (["report", "d.csv", "--format", "json"], {"d.csv"}),
    "from-model": (["report", "--from-model", "m.json", "--format", "json"], {"m.json"}),
    "predict": (["predict", "m.json", "X.csv"], {"m.json", "X.csv"}),
}
#: The argument each command reads from standard input (``-``) when the test redirects it.
FROM_STDIN = {"search": "d.csv", "report": "d.csv", "predict": "X.csv"}
#: What standard input may be redirected from: the data, a link to them, other files.
STDIN = st.none() | st.sampled_from(["d.csv", "link.csv", "X.csv", "notes.txt", "m.json"])


def _arguments(
    kind: str, out: str, json_out: str | None, checkpoint: str | None, stdin: str | None
) -> list[str]:
    """The command line, and the paths it names as outputs (its data ``-`` with ``stdin``)."""
    args = list(COMMANDS[kind][0])
    if stdin and kind in FROM_STDIN:
        args[args.index(FROM_STDIN[kind])] = "-"
    if kind != "search":
        args += ["-o", out]
    if kind != "predict":
        args += ["--json", json_out] if json_out else []
    if kind in ("search", "report"):
        args += [*QUICK, *(["--checkpoint", checkpoint] if checkpoint else [])]
    return args


def _inputs(kind: str, stdin: str | None, folder: Path) -> set[str]:
    """The entries of ``folder`` the command reads: its files, standard input's instead of
    the one it reads from ``-``."""
    reads = set(COMMANDS[kind][1])
    if stdin and kind in FROM_STDIN:
        reads = reads - {FROM_STDIN[kind]} | {_real_name(folder, stdin)}
    return reads


def _real_name(folder: Path, name: str) -> str:
    """The path of the file ``name`` leads to (through links), relative to ``folder``."""
    return os.path.relpath(os.path.realpath(folder / name), os.path.realpath(folder))


def _outputs(args: list[str], folder: Path) -> set[str]:
    """The entries of ``folder`` that the command's -o and --json name (through links)."""
    named = [args[i + 1] for i, a in enumerate(args) if a in ("-o", "--json")]
    return {_real_name(folder, p) for p in named if p != "-"}


def _populate(folder: Path, model_text: str) -> None:
    """The files the property tests start from: inputs, a user's note, a link to the data,
    a FIFO and a folder."""
    (folder / "d.csv").write_text(data_csv())
    (folder / "m.json").write_text(model_text)
    (folder / "X.csv").write_text("x\n1\n2\n")
    (folder / "notes.txt").write_text("my notes")
    (folder / "link.csv").symlink_to("d.csv")
    (folder / "sub").mkdir()
    os.mkfifo(folder / "fifo")


def _run_in(folder: Path, args: list[str], stdin: str | None = None) -> Result:
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        if stdin is None:
            return run(*args)
        with open(stdin, "rb") as stream:
            return run(*args, stdin=stream)
    finally:
        os.chdir(cwd)


def _unchanged(
    before: dict[str, tuple[str, str]], after: dict[str, tuple[str, str]], may_change: set[str]
) -> list[str]:
    """The entries that changed though the command could not write them (only regular files
    an output names may change)."""
    return [
        name
        for name, entry in before.items()
        if (name not in may_change or entry[0] != "file") and after.get(name) != entry
    ]


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    kind=st.sampled_from(sorted(COMMANDS)),
    out=PATHS,
    json_out=st.none() | PATHS,
    checkpoint=st.none() | PATHS,
    stdin=STDIN,
)
def test_no_input_and_no_foreign_file_is_changed(
    tmp_path_factory: pytest.TempPathFactory,
    model_text: str,
    kind: str,
    out: str,
    json_out: str | None,
    checkpoint: str | None,
    stdin: str | None,
) -> None:
    folder = tmp_path_factory.mktemp("paths")
    _populate(folder, model_text)
    before = snapshot(folder)
    args = _arguments(kind, out, json_out, checkpoint, stdin)
    result = _run_in(folder, args, stdin)
    event(f"exit code {result.exit_code}")
    assert result.exit_code in (0, 2), (args, stdin, result.output)
    assert "Traceback" not in result.output and "unexpected" not in result.output, args
    after = snapshot(folder)
    may_change = _outputs(args, folder) - _inputs(kind, stdin, folder)
    assert not _unchanged(before, after, may_change), (args, stdin, result.output)
    new = set(after) - set(before) - may_change
    assert not [name for name in new if not is_checkpoint(folder / name)], (args, new)
    if result.exit_code == 0:
        assert not new, (args, new)


#: What benchmark's -o may name: the data's folder, another, a new one, files, a FIFO.
BENCHMARK_OUT = [".", "sub", "new", "d.csv", "link.csv", "fifo", "notes.txt", "d.csv/new"]
#: A link where one of benchmark's reports goes, to a series file or to a user's file.
REPORT_LINK = st.tuples(
    st.sampled_from([".", "sub"]),
    st.sampled_from(["d.html", "d.json", "d.pdf"]),
    st.sampled_from(["d.csv", "X.csv", "notes.txt"]),
)


def tree(folder: Path) -> dict[str, tuple[str, str]]:
    """:func:`snapshot` of ``folder`` and of its ``sub``."""
    return {**snapshot(folder), **{f"sub/{k}": v for k, v in snapshot(folder / "sub").items()}}


@settings(
    max_examples=8,  # a benchmark that runs writes a PDF: seconds each
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(out=st.sampled_from(BENCHMARK_OUT), link=REPORT_LINK)
@example(out=".", link=(".", "d.html", "d.csv"))  # the series it reads
@example(out="sub", link=("sub", "d.pdf", "X.csv"))  # a series --series left out
def test_benchmark_changes_no_series_and_no_foreign_file(
    tmp_path_factory: pytest.TempPathFactory,
    model_text: str,
    out: str,
    link: tuple[str, str, str],
) -> None:
    """``abcd benchmark`` over the folder's series d (X.csv is a series too, unread), its
    reports in -o, a link where one of them goes: a series file is never written, through a
    link or otherwise."""
    folder = tmp_path_factory.mktemp("bench")
    _populate(folder, model_text)
    where, name, target = link
    (folder / where / name).symlink_to(os.path.relpath(folder / target, folder / where))
    before = tree(folder)
    args = ["benchmark", ".", "--series", "d", "-o", out, *QUICK]
    result = _run_in(folder, args)
    event(f"exit code {result.exit_code}")
    assert result.exit_code in (0, 2), (args, link, result.output)
    assert "Traceback" not in result.output and "unexpected" not in result.output, args
    if result.exit_code == 2:
        assert len(result.stderr.splitlines()) == 1, result.stderr
    after = tree(folder)
    reports = {_real_name(folder, f"{out}/d.{fmt}") for fmt in ("html", "json", "pdf")}
    may_change = reports - {"d.csv", "X.csv"}
    assert not _unchanged(before, after, may_change), (args, link, result.output)
    new = set(after) - set(before) - may_change - {"new"}
    assert not new, (args, link, new)
