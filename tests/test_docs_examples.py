"""The examples of README.md and docs/*.md run as written: every ``sh`` and ``python`` code
block, in order, from a folder holding the project's ``datasets/`` (so the bundled example files
are found by the paths the docs give), each command ending with exit code 0 and writing the
files it names.

Kept fast by smaller searches, without changing what the docs show: every ``abcd`` command
that searches gets ``--depth 1 --restarts 1 --jobs 1`` after its own options (click keeps an
option's last value), and ``abcd benchmark`` also ``--series 01-airline`` (one of the 13
series); in Python, ``abcd_cli.search`` (which ``AbcdRegressor`` calls too) runs with
``depth=1, restarts=1, jobs=1`` whatever it is given.

Not run, and why:

* ``make TARGET``: each target installs a virtual environment first, and the benchmark's runs
  for hours; checked: the Makefile has the target.
* commands for a Dask cluster (``dask scheduler``, ``dask worker``, ``--scheduler
  tcp://HOST:8786``): they need a running cluster (``tests/execution/test_dask.py`` starts
  one); checked: the ``abcd`` command exists.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import abcd_cli
import abcd_cli.api
from abcd_cli.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: The options that keep each search small, added after the command's own.
SMALL = ("--depth", "1", "--restarts", "1", "--jobs", "1")
#: The commands that search, and what each also gets.
SEARCHING: dict[str, tuple[str, ...]] = {
    "search": SMALL,
    "report": SMALL,
    "benchmark": (*SMALL, "--series", "01-airline"),
}
#: How a command names the abcd program in the docs.
ABCD = {"abcd", ".venv/bin/abcd"}
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def code_blocks(path: Path) -> list[tuple[str, str]]:
    """The fenced code blocks of a Markdown file: (language, text), in order."""
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(path.read_text(encoding="utf-8"))]


def shell_commands(text: str) -> list[list[str]]:
    """A shell block's commands, continued lines joined, comments and leading variable
    assignments (``NAME=value``) left out."""
    joined = re.sub(r"\\\n", " ", text)
    commands = []
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0]):
            words = words[1:]
        if words:
            commands.append(words)
    return commands


def _needs_a_cluster(words: list[str]) -> bool:
    return Path(words[0]).name == "dask" or any("HOST" in word for word in words)


def _make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([A-Za-z][\w-]*):", text, re.MULTILINE))


def run_shell(words: list[str]) -> None:
    """Run one command of a shell block (see the module docstring for what is not run)."""
    if words[0] == "make":
        assert set(words[1:]) <= _make_targets(), f"no such make target: {words}"
        return
    if _needs_a_cluster(words):
        assert words[0] not in ABCD or words[1] in main.commands, words
        return
    assert words[0] in ABCD, f"a command the test does not know how to run: {words}"
    args = [*words[1:], *SEARCHING.get(words[1], ())]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, f"{shlex.join(words)}:\n{result.output}"
    for flag in ("-o", "--json"):
        if flag in words and words[1] != "benchmark":
            written = Path(words[words.index(flag) + 1])
            assert written.is_file(), f"{shlex.join(words)} did not write {written}"


def _small_search(search: Callable[..., Any]) -> Callable[..., Any]:
    def small(*args: Any, **kwargs: Any) -> Any:
        return search(*args, **{**kwargs, "depth": 1, "restarts": 1, "jobs": 1})

    return small


@pytest.mark.parametrize("path", DOCS, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_the_examples_run_as_written(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocks = [
        (language, text) for language, text in code_blocks(path) if language in {"sh", "python"}
    ]
    if not blocks:
        pytest.skip(f"{path.name} has no sh or python examples")
    (tmp_path / "datasets").symlink_to(ROOT / "datasets")
    monkeypatch.chdir(tmp_path)
    small = _small_search(abcd_cli.api.search)
    monkeypatch.setattr(abcd_cli, "search", small)
    monkeypatch.setattr(abcd_cli.api, "search", small)
    for language, text in blocks:
        if language == "python":
            exec(compile(text, f"{path.name} example", "exec"), {"__name__": "example"})  # noqa: S102
        else:
            for words in shell_commands(text):
                run_shell(words)


def test_every_file_the_examples_name_is_bundled() -> None:
    named = set()
    for path in DOCS:
        for _, text in code_blocks(path):
            named.update(re.findall(r"datasets/[\w./-]+\.(?:csv|parquet|xlsx)", text))
    assert named, "the docs name no bundled file"
    missing = sorted(name for name in named if not (ROOT / name).is_file())
    assert not missing, f"named in the docs but not bundled: {missing}"
