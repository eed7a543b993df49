"""The command line on bad input: one-line errors, the right exit codes, no tracebacks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import abcd_cli.data.reader
from abcd_cli import __version__
from abcd_cli.cli.main import handle_errors, main
from abcd_cli.errors import InputError, RunError

GOOD = "x,y\n1,10\n2,20\n3,15\n4,30\n5,25\n"


def describe(*args: str) -> Result:
    return CliRunner().invoke(main, ["describe-data", *args])


def assert_one_line_error(result: Result, code: int, *needles: str) -> str:
    """Exit code as given, nothing on stdout, exactly one 'Error:' line on stderr."""
    assert result.exit_code == code, result.output
    assert result.stdout == ""
    assert "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: ")
    for needle in needles:
        assert needle in lines[0]
    return lines[0]


def write(tmp_path: Path, content: str | bytes, name: str = "data.csv") -> str:
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return str(path)


BAD_INPUTS = {
    "empty": ("", "the file is empty"),
    "header-only": ("x,y\n", "no data rows"),
    "nul-bytes": (b"x,y\n\x00\x00\x01\n", "binary file"),
    "undecodable": (b"\x81\x8d\x8f\x90\x9d", "not valid UTF-8"),
    "ragged": ("x,y\n1,2\n2,3,4\n3,4\n", "row 2 (line 3) has 3 fields"),
    "too-few": ("x,y\n1,2\n2,3\n", "too few data points"),
    "constant": ("x,y\n1,2\n2,2\n3,2\n4,2\n5,2\n", "column 'y' is constant (value 2)"),
    "non-numeric": ("x,y\n1,2\n2,zz\n3,4\n4,5\n5,6\n", "row 2 (line 3)", "'zz' is not a number"),
    "infinite": ("x,y\n1,2\n2,3\n3,-inf\n4,5\n5,6\n", "row 3 (line 4)", "infinite"),
    "huge": ("x,y\n1,2\n2,3\n3,1e300\n4,5\n5,6\n", "as large as 1e+300"),
    "tiny-x-range": (
        "x,y\n" + "".join(f"{1e9 + i * 1e-4!r},{i % 3}\n" for i in range(6)),
        "x spans only",
    ),
    "ambiguous-columns": ("a,b,c\n" + "1,2,3\n" * 6, "pass --x and --y"),
    "bad-date": ("date,y\n2020-01-01,1\nsoon,2\n2020-03-01,3\n", "row 2 (line 3)", "not a date"),
    "ambiguous-dates": ("d,y\n01/02/2020,1\n02/03/2020,2\n", "could be day/month or month/day"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_gives_one_line_and_exit_2(tmp_path: Path, case: str) -> None:
    content, *needles = BAD_INPUTS[case]
    path = write(tmp_path, content)
    line = assert_one_line_error(describe(path), 2, *needles)
    assert path in line


def test_missing_file(tmp_path: Path) -> None:
    assert_one_line_error(describe(str(tmp_path / "nope.csv")), 2, "nope.csv: file not found")


def test_directory(tmp_path: Path) -> None:
    assert_one_line_error(describe(str(tmp_path)), 2, "is a directory")


def test_unreadable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, GOOD)

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "open", refuse)
    assert_one_line_error(describe(path), 2, "permission denied")


def test_unknown_column_lists_available(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    result = describe(path, "--y", "sales")
    assert_one_line_error(result, 2, "no column 'sales' (--y)", "available columns: 1 'x', 2 'y'")


def test_success_prints_one_line_and_warnings_on_stderr(tmp_path: Path) -> None:
    path = write(tmp_path, "x,y\n3,30\n1,10\n2,\n2,20\n5,50\n4,40\n")
    result = describe(path)
    assert result.exit_code == 0
    assert result.stdout.count("\n") == 1
    assert result.stdout.startswith("data.csv: 5 points, x 'x' from 1 to 5")
    assert result.stdout.rstrip().endswith("1 row dropped")
    assert result.stderr.splitlines() == [
        "Warning: dropped 1 row with missing values (data row 3)",
        "Warning: x was not sorted; sorted the rows by x",
    ]


def test_columns_chosen_by_option(tmp_path: Path) -> None:
    path = write(
        tmp_path, "id,when,a,b\n" + "".join(f"{i},{i},{i % 2},{i * i}\n" for i in range(6))
    )
    result = describe(path, "--x", "when", "--y", "4")
    assert result.exit_code == 0, result.output
    assert "x 'when' from 0 to 5" in result.stdout and "y 'b' from 0 to 25" in result.stdout


def test_bundled_dataset() -> None:
    path = Path(__file__).resolve().parents[2] / "datasets" / "01-airline.csv"
    result = describe(str(path))
    assert result.exit_code == 0
    assert result.stdout.startswith("01-airline.csv: 144 points")
    assert "decimal years" in result.stdout and result.stderr == ""


def test_version() -> None:
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"abcd {__version__}"


def test_usage_error_keeps_click_exit_code() -> None:
    result = CliRunner().invoke(main, ["describe-data"])
    assert result.exit_code == 2
    assert "Missing argument" in result.stderr and "Traceback" not in result.output


# ----------------------------------------------------------------------------- error handling


def raise_(exc: BaseException):
    def fake(*args: object, **kwargs: object) -> None:
        raise exc

    return fake


def test_unexpected_error_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(abcd_cli.data.reader, "load_series", raise_(ZeroDivisionError("boom")))
    result = describe(write(tmp_path, GOOD))
    line = assert_one_line_error(result, 1)
    assert line == (
        "Error: unexpected failure: ZeroDivisionError: boom (run with --debug for the traceback)"
    )


def test_debug_shows_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(abcd_cli.data.reader, "load_series", raise_(ZeroDivisionError("boom")))
    result = CliRunner().invoke(main, ["--debug", "describe-data", write(tmp_path, GOOD)])
    assert result.exit_code == 1
    assert "Traceback (most recent call last)" in result.stderr
    assert "ZeroDivisionError: boom" in result.stderr
    assert result.stderr.splitlines()[-1] == "Error: unexpected failure: ZeroDivisionError: boom"


def test_debug_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(abcd_cli.data.reader, "load_series", raise_(ValueError("odd")))
    result = CliRunner(env={"ABCD_DEBUG": "1"}).invoke(main, ["describe-data", "f.csv"])
    assert result.exit_code == 1 and "Traceback" in result.stderr


def test_debug_with_input_error_keeps_exit_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["--debug", "describe-data", str(tmp_path / "no.csv")])
    assert result.exit_code == 2
    assert "Traceback" in result.stderr
    assert result.stderr.splitlines()[-1].endswith("no.csv: file not found")


def test_run_error_exits_1(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(abcd_cli.data.reader, "load_series", raise_(RunError("fit failed\nbadly")))
    assert assert_one_line_error(describe("f.csv"), 1) == "Error: fit failed badly"


def test_input_error_from_library_exits_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(abcd_cli.data.reader, "load_series", raise_(InputError("bad option")))
    assert assert_one_line_error(describe("f.csv"), 2) == "Error: bad option"


def test_keyboard_interrupt_exits_130(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(abcd_cli.data.reader, "load_series", raise_(KeyboardInterrupt()))
    result = describe("f.csv")
    assert result.exit_code == 130
    assert result.stderr == "Interrupted.\n"


def test_handle_errors_as_a_decorator_on_any_command() -> None:
    @click.command()
    @handle_errors()
    def standalone() -> None:
        raise InputError("bad thing")

    assert assert_one_line_error(CliRunner().invoke(standalone), 2) == "Error: bad thing"


def test_commands_added_later_get_the_handling(monkeypatch: pytest.MonkeyPatch) -> None:
    @click.command("explode")
    def explode() -> None:
        raise RunError("the fit diverged")

    monkeypatch.setitem(main.commands, "explode", explode)
    result = CliRunner().invoke(main, ["explode"])
    assert assert_one_line_error(result, 1) == "Error: the fit diverged"


def test_python_dash_m_in_a_real_process(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "abcd_cli", "describe-data", str(tmp_path / "gone.csv")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [f"Error: {tmp_path / 'gone.csv'}: file not found"]


# ----------------------------------------------------------------------------- fuzzing

WORDS = ["1", "-2.5", "3e4", "", " ", "NA", "nan", "inf", "abc", "2020-01-31", "Jan 2020", '"']
CELL = st.one_of(st.sampled_from(WORDS), st.integers(-10, 3000).map(str), st.text(max_size=4))


@st.composite
def small_csv(draw: st.DrawFn) -> str:
    """Random small CSV-ish texts: mixes of numbers, words, blanks and delimiters."""
    lines = []
    for _ in range(draw(st.integers(0, 10))):
        delimiter = draw(st.sampled_from([",", ",", ";", "\t", "|", " "]))
        lines.append(delimiter.join(draw(st.lists(CELL, min_size=0, max_size=4))))
    return "\n".join(lines)


@pytest.fixture(scope="module")
def fuzz_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cli-fuzz") / "input.csv"


def check_clean(result: Result) -> None:
    """No traceback; success prints one line, failure exactly one 'Error:' line."""
    assert "Traceback" not in result.output
    # Library input problems are exit 2; an exit 1 would mean an unexpected failure (a bug).
    assert result.exit_code in (0, 2), result.output
    if result.exit_code == 0:
        assert result.stdout.count("\n") == 1
    else:
        assert_one_line_error(result, 2)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(content=st.binary(max_size=300))
def test_random_bytes_never_crash(fuzz_path: Path, content: bytes) -> None:
    fuzz_path.write_bytes(content)
    check_clean(describe(str(fuzz_path)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(content=small_csv())
def test_random_csv_text_never_crashes(fuzz_path: Path, content: str) -> None:
    fuzz_path.write_bytes(content.encode())
    check_clean(describe(str(fuzz_path)))


def test_a_report_on_the_shortest_series_writes_nothing_on_stderr(tmp_path: Path) -> None:
    """Six points leave one lag for the autocorrelation check: drawn without a warning."""
    path = write(tmp_path, "x,y\n1,5\n2,6\n3,4\n4,5\n5,5.5\n6,4.5\n")
    out = tmp_path / "six.html"
    proc = subprocess.run(
        [sys.executable, "-m", "abcd_cli", "report", path, "-o", str(out), "--depth", "1"]
        + ["--restarts", "1", "--jobs", "1", "--quiet"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout.strip() == f"wrote {out}"
