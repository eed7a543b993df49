"""Bad input is refused in one line (``Error: ...``, exit 2), before any search: the seed, the
scheduler's address, repeated column names, long lists of columns, odd dates and the other
cases found by trying the command line as a hostile user would. ``abcd benchmark`` reports a
series that fails and goes on with the others."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner, Result

import abcd_cli
import abcd_cli.batch
import abcd_cli.cli.running
import abcd_cli.reports
from abcd_cli.cli.main import main
from abcd_cli.data.dates import decimal_year
from abcd_cli.data.reader import load_series
from abcd_cli.errors import InputError, RunError
from abcd_cli.kernel_search.settings import MAX_SEED, SearchSettings

SMALL = ["--depth", "1", "--restarts", "2", "--jobs", "1", "--quiet"]
TINY = ["--depth", "0", "--restarts", "1", "--jobs", "1", "--quiet"]


def good_csv(n: int = 60) -> str:
    x = np.linspace(0.0, 10.0, n)
    y = np.sin(x) + 0.1 * x
    return "x,y\n" + "".join(f"{a},{b}\n" for a, b in zip(x.tolist(), y.tolist(), strict=True))


def write(tmp_path: Path, text: str, name: str = "data.csv") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def error_line(result: Result, code: int, *needles: str) -> str:
    """The exit code, no traceback, exactly one 'Error:' line (the last line of stderr) and it
    names every needle; every other stderr line is a warning or a series' failure."""
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    assert "unexpected failure" not in result.output
    lines = result.stderr.splitlines()
    errors = [line for line in lines if line.startswith("Error:")]
    assert len(errors) == 1 and lines[-1] == errors[0], result.stderr
    for needle in needles:
        assert needle in errors[0], errors[0]
    return errors[0]


# ----------------------------------------------------------------------------- 1. the seed


@pytest.mark.parametrize("seed", ["-1", "1.5", "abc", "", str(2**128), "9" * 5000])
def test_a_bad_seed_is_a_usage_error_of_one_error_line(tmp_path, seed) -> None:
    """As for the other options' values (--depth -1): click's usage text, one Error line."""
    data = write(tmp_path, good_csv())
    result = run("search", data, *SMALL, "--seed", seed)
    line = error_line(result, 2, "Invalid value for '--seed'", "not a whole number from 0")
    assert result.stderr.startswith("Usage: ") and result.stdout == ""
    assert len(line) < 300


@pytest.mark.parametrize("seed", [-1, 1.5, True, "3", 2**128])
def test_a_bad_seed_is_refused_by_the_library(seed) -> None:
    with pytest.raises(InputError, match="seed must be a whole number"):
        SearchSettings(seed=seed)
    with pytest.raises(InputError, match="seed"):
        abcd_cli.search((np.arange(20.0), np.sin(np.arange(20.0))), seed=seed, depth=0)


def test_huge_seeds_work_up_to_the_largest_and_seeds_may_not_pass_it(tmp_path) -> None:
    assert SearchSettings(seed=2**64).seed == 2**64
    assert SearchSettings(seed=10**30, seeds=3).seed == 10**30
    assert SearchSettings(seed=np.int64(7)).seed == 7 and type(SearchSettings(seed=7).seed) is int
    assert SearchSettings(seed=MAX_SEED).seed == MAX_SEED
    with pytest.raises(InputError, match="largest seed"):
        SearchSettings(seed=MAX_SEED, seeds=2)
    data = write(tmp_path, good_csv())
    out = tmp_path / "m.json"
    result = run("search", data, *TINY, "--seed", str(2**64), "--json", str(out))
    assert result.exit_code == 0, result.output
    assert str(2**64) in out.read_text()
    too_far = run("search", data, *TINY, "--seed", str(MAX_SEED), "--seeds", "2")
    error_line(too_far, 2, "largest seed")


def test_other_settings_of_the_wrong_type_are_input_errors() -> None:
    with pytest.raises(InputError, match="depth='3'"):
        SearchSettings(depth="3")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="restarts=2.5"):
        SearchSettings(restarts=2.5)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- 2. benchmark


def _benchmark_folder(tmp_path: Path) -> Path:
    """a, b and c, b malformed (a row of three fields under a header of two)."""
    folder = tmp_path / "data"
    folder.mkdir()
    for name in ("a", "c"):
        write(folder, good_csv(40), f"{name}.csv")
    write(folder, "x,y\n1,2\n2,3,4\n3,4\n4,5\n5,6\n", "b.csv")
    return folder


def test_benchmark_runs_every_series_and_names_the_failed_ones(tmp_path) -> None:
    folder = _benchmark_folder(tmp_path)
    out = tmp_path / "out"
    result = run("benchmark", str(folder), "-o", str(out), *TINY)
    error_line(result, 2, "1 of 3 series failed: b")
    assert "b: failed: " in result.stderr and "has 3 fields" in result.stderr
    assert "a: WN" in result.stdout and "c: WN" in result.stdout
    assert {p.name for p in out.iterdir() if not p.name.startswith(".")} == {
        f"{n}.{f}" for n in "ac" for f in ("pdf", "html", "json")
    }


class _SerialMap:
    """An executor whose ``map`` takes ``on_lost``, as a Dask executor's does, and runs here."""

    def map(self, fn, items, on_lost=None):  # noqa: ANN001, ANN201
        return map(fn, list(items))

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        pass


def _json_only(monkeypatch) -> None:
    """Reports as JSON only (the PDF takes seconds); the other two files are left empty."""
    real = abcd_cli.reports.write_reports

    def write_reports(found, paths, **kwargs):  # noqa: ANN001, ANN202
        for fmt, path in paths.items():
            if fmt != "json":
                Path(path).write_text("")
        return real(found, {"json": paths["json"]}, **kwargs)

    monkeypatch.setattr(abcd_cli.reports, "write_reports", write_reports)


def test_benchmark_distributing_series_runs_every_series(tmp_path, monkeypatch) -> None:
    @contextlib.contextmanager
    def shared_executor(opts) -> Iterator[_SerialMap]:  # noqa: ANN001
        yield _SerialMap()

    monkeypatch.setattr(abcd_cli.cli.running, "shared_executor", shared_executor)
    _json_only(monkeypatch)
    folder = _benchmark_folder(tmp_path)
    out = tmp_path / "out"
    args = [str(folder), "-o", str(out), *TINY, "--scheduler", "local", "--distribute", "series"]
    result = run("benchmark", *args)
    error_line(result, 2, "1 of 3 series failed: b")
    assert "b: failed: " in result.stderr
    assert (out / "a.json").exists() and (out / "c.json").exists()

    # A search that fails on its worker is that series' failure; a RunError makes exit 1.
    real = abcd_cli.batch.run_search

    def failing_on_a(x, y, settings, *args, **kwargs):  # noqa: ANN001, ANN202
        if Path(args[2]).name == ".a.ckpt.json":
            raise RunError("no model could be fitted to this series")
        return real(x, y, settings, *args, **kwargs)

    monkeypatch.setattr(abcd_cli.batch, "run_search", failing_on_a)
    for p in out.iterdir():
        p.unlink()
    result = run("benchmark", *args)
    error_line(result, 1, "2 of 3 series failed: a, b")
    assert "a: failed: no model could be fitted" in result.stderr
    assert (out / "c.json").exists() and not (out / "a.json").exists()


def test_benchmark_a_failure_while_writing_is_that_series_failure(tmp_path, monkeypatch) -> None:
    folder = _benchmark_folder(tmp_path)
    (folder / "b.csv").unlink()

    def write_reports(found, paths, **kwargs):  # noqa: ANN001, ANN202
        raise RunError("cannot write the report: disk full")

    monkeypatch.setattr(abcd_cli.reports, "write_reports", write_reports)
    result = run("benchmark", str(folder), "-o", str(tmp_path / "out"), *TINY)
    error_line(result, 1, "2 of 2 series failed: a, c")
    assert result.stderr.count("failed: cannot write the report: disk full") == 2


# ----------------------------------------------------------------------------- 3. scheduler


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("tcp://[::1", "closing bracket"),
        ("tcp://[::1]", "port"),
        ("tcp://host:99999", "from 1 to 65535"),
        ("tcp://host:", "from 1 to 65535"),
        ("tcp://:8786", "host and a port"),
        ("tcp://host", "host and a port"),
        ("foo://host:8786", "unknown scheme"),
        ("inproc://x", "unknown scheme"),
        ("tcp://h:1:2", "IPv6"),
        ("tcp://[zz]:8786", "not an IPv6 address"),
        ("tcp://256.1.1.1:8786", "not an IPv4 address"),
        ("tcp://a b:8786", "spaces"),
        ("", "empty"),
    ],
)
def test_a_malformed_scheduler_address_is_one_line_naming_it(tmp_path, address, reason) -> None:
    data = write(tmp_path, good_csv())
    result = run("search", data, *SMALL, "--scheduler", address)
    error_line(result, 2, f"not {address!r}", reason)
    with pytest.raises(InputError, match="scheduler"):
        abcd_cli.search((np.arange(20.0), np.sin(np.arange(20.0))), scheduler=address)


def test_without_distributed_a_good_address_keeps_the_install_message(tmp_path, monkeypatch):
    data = write(tmp_path, good_csv())
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    result = run("search", data, *SMALL, "--scheduler", "tcp://127.0.0.1:8786")
    error_line(result, 2, "needs the distributed package", "pip install")


# ----------------------------------------------------------------------------- 4. repeated names


def test_two_columns_named_y_are_refused(tmp_path) -> None:
    body = "".join(f"{i},{i * i % 7}\n" for i in range(10))
    data = write(tmp_path, "y,y\n" + body)
    error_line(run("describe-data", data), 2, "column name 'y'", "columns 1 and 2")
    wide = write(tmp_path, "x,y,y\n" + "".join(f"{i},{i % 3},{i * i % 7}\n" for i in range(10)))
    error_line(run("describe-data", wide, "--y", "2"), 2, "column name 'y'", "columns 2 and 3")
    error_line(run("describe-data", wide, "--y", "y"), 2, "column name 'y'", "columns 2 and 3")
    spaced = write(tmp_path, "t, v ,v\n" + body.replace("\n", ",1\n"), "spaced.csv")
    error_line(run("describe-data", spaced, "--y", "3"), 2, "column name 'v'", "columns 2 and 3")
    # chosen by number, a name another (unread) column shares is not ambiguous
    result = run("describe-data", wide, "--x", "1", "--y", "3")
    assert result.exit_code == 0, result.output
    with pytest.raises(InputError, match="column name 'y' is used by columns 2 and 3"):
        frame = pd.DataFrame(np.random.default_rng(0).random((10, 3)), columns=list("xyy"))
        abcd_cli.load(frame, y=2)


def test_repeated_names_among_several_inputs_are_refused(tmp_path) -> None:
    rows = "".join(f"{i},{i % 4},{i % 5},{i * i % 7}\n" for i in range(12))
    data = write(tmp_path, "a,b,b,y\n" + rows)
    error_line(run("describe-data", data), 2, "column name 'b'", "columns 2 and 3", "inputs")


def test_predict_refuses_an_input_named_twice_in_x_csv(tmp_path) -> None:
    rng = np.random.default_rng(0)
    X = rng.random((30, 2))
    rows = "".join(f"{a},{b},{np.sin(3 * a) + b}\n" for a, b in X.tolist())
    data = write(tmp_path, "a,b,y\n" + rows)
    model = tmp_path / "m.json"
    assert run("search", data, *TINY, "--json", str(model)).exit_code == 0
    new = write(tmp_path, "a,b,b\n0.1,0.2,0.3\n", "X.csv")
    out = str(tmp_path / "p.csv")
    error_line(run("predict", str(model), new, "-o", out), 2, "column name 'b'", "2 and 3")


# ----------------------------------------------------------------------------- 5. time zones


def test_times_with_offsets_are_read_as_utc_with_a_warning(tmp_path) -> None:
    rows = "".join(f"2020-01-{d:02d}T13:45+02:00,{d * d % 7}\n" for d in range(1, 21))
    series = load_series(write(tmp_path, "date,y\n" + rows))
    assert series.x[0] == pytest.approx(decimal_year(2020, 1, 1, 11.75 * 3600))
    assert (
        "column 'date' gives times with time-zone offsets (+02:00); they are read as UTC"
        in series.warnings
    )
    result = run("describe-data", write(tmp_path, "date,y\n" + rows, "cli.csv"))
    assert result.exit_code == 0 and "(+02:00); they are read as UTC" in result.stderr


def test_mixed_offsets_are_named_up_to_three(tmp_path) -> None:
    zones = ["+02:00", "-05:00", "+05:45", "+01:00", "Z"]
    rows = "".join(f"2020-01-{d:02d}T13:45{zones[d % 5]},{d * d % 7}\n" for d in range(1, 21))
    series = load_series(write(tmp_path, "date,y\n" + rows))
    assert series.x[1] == pytest.approx(decimal_year(2020, 1, 2, 8.75 * 3600 + 15 * 60))
    (note,) = [w for w in series.warnings if "time-zone" in w]
    assert "(-05:00, +05:45, +01:00 and others)" in note
    utc = "".join(f"2020-01-{d:02d} 13:45 UTC,{d * d % 7}\n" for d in range(1, 21))
    assert not load_series(write(tmp_path, "date,y\n" + utc, "utc.csv")).warnings


# ----------------------------------------------------------------------------- 6. long lists


def test_a_list_of_500_columns_is_capped(tmp_path) -> None:
    header = ",".join(f"col{i}" for i in range(500))
    rows = "".join(",".join(str((i * j) % 11) for i in range(500)) + "\n" for j in range(6))
    data = write(tmp_path, header + "\n" + rows)
    line = error_line(run("describe-data", data, "--y", "nope"), 2, "... and 492 more")
    assert len(line) < 300 and "col7" in line and "col8'" not in line
    line = error_line(run("describe-data", data), 2, "cannot tell which columns", "492 more")
    assert len(line) < 300


def test_long_names_are_shortened_in_lists(tmp_path) -> None:
    names = ",".join(f"{'n' * 300}{i}" for i in range(10))
    data = write(tmp_path, names + "\n" + "1,2,3,4,5,6,7,8,9,10\n" * 6)
    line = error_line(run("describe-data", data, "--y", "z" * 100_000), 2, "available columns")
    assert len(line.replace(data, "")) < 330


def test_the_note_on_many_inputs_is_capped(tmp_path) -> None:
    rng = np.random.default_rng(0)
    header = ",".join(f"c{i}" for i in range(40)) + ",y"
    rows = "".join(",".join(map(str, rng.random(41).tolist())) + "\n" for _ in range(12))
    series = load_series(write(tmp_path, header + "\n" + rows))
    (note,) = [w for w in series.warnings if w.startswith("used 40 inputs")]
    assert "... and 32 more" in note and len(note) < 300


# ----------------------------------------------------------------------------- 7. the rest


@pytest.mark.parametrize(
    ("body", "args", "needles"),
    [
        # dates before year 1 (pandas reads '-0100-01-01': no calendar date)
        (
            "date,y\n" + "".join(f"-0100-01-{d:02d},{d % 3}\n" for d in range(1, 9)),
            [],
            ["'-0100-01-01' is not a number or a date"],
        ),
        # --x naming every column leaves nothing for y
        ("x,y\n" + "".join(f"{i},{i % 3}\n" for i in range(8)), ["--x", "x,y"], ["every column"]),
        # --x taking the column named y: say to pass --y
        (
            "a,b,c,y\n" + "".join(f"{i},{i % 3},{i % 5},{i % 4}\n" for i in range(8)),
            ["--x", "y"],
            ["--x takes column 'y'", "pass --y"],
        ),
        # a column of one date, shown as a date
        (
            "date,y\n" + "".join(f"2020-01-01,{i}\n" for i in range(8)),
            [],
            ["are equal (2020-01-01 00:00:00)"],
        ),
    ],
    ids=["before-year-1", "x-takes-every-column", "x-takes-y", "identical-dates"],
)
def test_odd_files_and_columns_are_one_line(tmp_path, body, args, needles) -> None:
    data = write(tmp_path, body)
    error_line(run("describe-data", data, *args), 2, *needles)


def test_an_empty_data_path_is_one_line() -> None:
    error_line(run("describe-data", ""), 2, "no data file given")


def test_a_column_name_with_a_line_break_is_read_on_one_line(tmp_path) -> None:
    data = write(tmp_path, 'x,"y\r\nz"\n' + "".join(f"{i},{i * i % 7}\n" for i in range(8)))
    series = load_series(data)
    assert series.y_name == "y z"
    assert load_series(data, y="y\nz").y_name == "y z"


def test_predict_refuses_new_x_out_of_range_and_asks_for_x(tmp_path) -> None:
    data = write(tmp_path, good_csv())
    model = tmp_path / "m.json"
    assert run("search", data, *TINY, "--json", str(model)).exit_code == 0
    out = str(tmp_path / "p.csv")
    huge = write(tmp_path, "x\n1e308\n-1e308\n", "huge.csv")
    error_line(run("predict", str(model), huge, "-o", out), 2, "as large as 1e+308")
    three = write(tmp_path, "q,r,s\n1,2,3\n", "three.csv")
    line = error_line(run("predict", str(model), three, "-o", out), 2, "which column holds x")
    assert "--y" not in line
    assert not Path(out).exists()


def test_a_forecast_length_or_report_seed_out_of_range_is_one_line(tmp_path) -> None:
    data = write(tmp_path, good_csv())
    model = str(tmp_path / "m.json")
    assert run("search", data, *TINY, "--json", model).exit_code == 0
    out = str(tmp_path / "r.json")
    result = run("report", "--from-model", model, "-o", out, "--extrapolate", "nan")
    error_line(result, 2, "extrapolate", "nan")
    with pytest.raises(InputError, match="the seed must be a whole number"):
        abcd_cli.report(model, out, seed=-1)
    with pytest.raises(InputError, match="extrapolate"):
        abcd_cli.report(model, extrapolate=float("inf"))
    assert not Path(out).exists()
