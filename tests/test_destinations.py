"""Issue 49: no command removes or overwrites a file the user did not name as its output.

abcd_cli.destinations refuses, before any search, an output that is an input, two outputs that
are one file, a checkpoint on an input or an output, and a checkpoint path holding anything but
this program's checkpoint; the commands use it, write ``-`` to standard output, read ``-`` from
standard input, and remove only their own checkpoints. A property-based test drives the CLI
with random combinations of paths and checks that no input and no file that is not the
program's is changed or removed."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, event, given, settings
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


def run(*args: str, stdin: str | None = None) -> Result:
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


def _arguments(kind: str, out: str, json_out: str | None, checkpoint: str | None) -> list[str]:
    """The command line, and the paths it names as outputs."""
    args = list(COMMANDS[kind][0])
    if kind != "search":
        args += ["-o", out]
    if kind != "predict":
        args += ["--json", json_out] if json_out else []
    if kind in ("search", "report"):
        args += [*QUICK, *(["--checkpoint", checkpoint] if checkpoint else [])]
    return args


def _outputs(args: list[str], folder: Path) -> set[str]:
    """The entries of ``folder`` that the command's -o and --json name (through links)."""
    named = [args[i + 1] for i, a in enumerate(args) if a in ("-o", "--json")]
    return {os.path.basename(os.path.realpath(folder / p)) for p in named if p != "-"}


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
)
def test_no_input_and_no_foreign_file_is_changed(
    tmp_path_factory: pytest.TempPathFactory,
    model_text: str,
    kind: str,
    out: str,
    json_out: str | None,
    checkpoint: str | None,
) -> None:
    folder = tmp_path_factory.mktemp("paths")
    (folder / "d.csv").write_text(data_csv())
    (folder / "m.json").write_text(model_text)
    (folder / "X.csv").write_text("x\n1\n2\n")
    (folder / "notes.txt").write_text("my notes")
    (folder / "link.csv").symlink_to("d.csv")
    (folder / "sub").mkdir()
    os.mkfifo(folder / "fifo")
    before = snapshot(folder)
    args = _arguments(kind, out, json_out, checkpoint)
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        result = run(*args)
    finally:
        os.chdir(cwd)
    event(f"exit code {result.exit_code}")
    assert result.exit_code in (0, 2), (args, result.output)
    assert "Traceback" not in result.output and "unexpected" not in result.output, args
    after = snapshot(folder)
    may_change = _outputs(args, folder) - COMMANDS[kind][1]
    for name, entry in before.items():
        if name not in may_change or entry[0] != "file":
            assert after.get(name) == entry, (args, name, result.output)
    new = set(after) - set(before) - may_change
    assert not [name for name in new if not is_checkpoint(folder / name)], (args, new)
    if result.exit_code == 0:
        assert not new, (args, new)
