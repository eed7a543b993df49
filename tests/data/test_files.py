"""Parquet files and Excel workbooks read as the CSV file of the same data is."""

from __future__ import annotations

import json
import re
import sys
from datetime import date, datetime
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd
import pytest
from click.testing import CliRunner

import abcd_cli
from abcd_cli.cli.main import main
from abcd_cli.data.reader import load_inputs
from abcd_cli.errors import InputError
from tests.reporting.test_report import _search_doc, fixed_model

FORMATS = ("parquet", "xlsx")


def _write(frame: pd.DataFrame, path: Path) -> Path:
    """The frame as a file of the format its suffix names, without the index."""
    writers = {".csv": frame.to_csv, ".parquet": frame.to_parquet, ".xlsx": frame.to_excel}
    writers[path.suffix](path, index=False)
    return path


def _both(frame: pd.DataFrame, tmp_path: Path, kind: str) -> tuple[Path, Path]:
    """The CSV file and the ``kind`` file of the same frame."""
    return _write(frame, tmp_path / "data.csv"), _write(frame, tmp_path / f"data.{kind}")


def _same_series(a: abcd_cli.Series, b: abcd_cli.Series) -> None:
    np.testing.assert_array_equal(a.x, b.x)
    np.testing.assert_array_equal(a.y, b.y)
    assert (a.x_names, a.y_name, a.x_kinds, a.n_dropped, a.warnings) == (
        b.x_names,
        b.y_name,
        b.x_kinds,
        b.n_dropped,
        b.warnings,
    )


def _monthly() -> pd.DataFrame:
    rng = np.random.default_rng(1)
    sales = np.round(100 + np.cumsum(rng.normal(size=24)), 3)
    sales[[5, 17]] = np.nan  # dropped and counted
    frame = pd.DataFrame({"month": pd.date_range("2019-01-01", periods=24, freq="MS")})
    frame["sales"] = sales
    return frame.iloc[np.r_[3:24, 0:3]]  # unsorted: sorted with a warning


def _table() -> pd.DataFrame:
    rng = np.random.default_rng(2)
    return pd.DataFrame(
        {
            "id": [f"car {i}" for i in range(30)],  # text: left out, named in a warning
            "weight": np.round(rng.uniform(1.5, 4.5, 30), 3),
            "cylinders": rng.choice([4, 6, 8], 30),
            "built": pd.date_range("1990-03-01", periods=30, freq="7D"),
            "mpg": np.round(rng.uniform(10, 40, 30), 2),
        }
    )


@pytest.mark.parametrize("kind", FORMATS)
def test_a_series_reads_as_the_csv_of_the_same_data(tmp_path: Path, kind: str) -> None:
    csv, other = _both(_monthly(), tmp_path, kind)
    from_csv = abcd_cli.load(csv)
    assert from_csv.x_kind == "date" and from_csv.n_dropped == 2
    assert "x was not sorted; sorted the rows by x" in from_csv.warnings
    series = abcd_cli.load(other)
    _same_series(series, from_csv)
    assert series.source == str(other)
    assert series.description() == from_csv.description().replace(csv.name, other.name)
    if kind == "parquet":  # a DataFrame's saved time index holds x, as in abcd_cli.load(frame)
        _monthly().set_index("month").to_parquet(other)
        _same_series(abcd_cli.load(other), from_csv)


@pytest.mark.parametrize("kind", FORMATS)
def test_a_table_of_several_inputs_reads_as_the_csv(tmp_path: Path, kind: str) -> None:
    csv, other = _both(_table(), tmp_path, kind)
    from_csv = abcd_cli.load(csv, y="mpg")
    assert from_csv.x_names == ("weight", "cylinders", "built")
    assert from_csv.x_kinds == ("number", "number", "date")
    _same_series(abcd_cli.load(other, y="mpg"), from_csv)
    # chosen by name and by 1-based number, as for a CSV file
    chosen = abcd_cli.load(other, x=["built", "2"], y=5)
    assert chosen.x_names == ("built", "weight") and chosen.y_name == "mpg"
    _same_series(chosen, abcd_cli.load(csv, x="built,2", y="mpg"))


@pytest.mark.parametrize("kind", FORMATS)
def test_columns_are_chosen_as_in_a_csv_file(tmp_path: Path, kind: str) -> None:
    frame = _table()[["weight", "built", "mpg"]]
    csv, other = _both(frame, tmp_path, kind)
    for x, y in [("built", "mpg"), ("2", "3"), ("1", "mpg")]:
        _same_series(abcd_cli.load(other, x=x, y=y), abcd_cli.load(csv, x=x, y=y))
    assert abcd_cli.load(other, x=1, y=3).x_name == "weight"


def test_dates_in_date_cells_and_in_text_are_read_as_in_a_csv_file(tmp_path: Path) -> None:
    cells = [
        datetime(2020, 1, 31),
        date(2020, 2, 29),
        "2020-03-31",
        "30/04/2020",
        datetime(2020, 5, 31, 13, 45),
        "Jun 30 2020",
    ]
    written = ["2020-01-31", "2020-02-29", "2020-03-31", "30/04/2020", "2020-05-31 13:45"]
    written.append("Jun 30 2020")
    book = openpyxl.Workbook()
    book.active.append(["when", "level"])
    for i, cell in enumerate(cells):
        book.active.append([cell, 3 * i % 5])
    book.save(tmp_path / "dates.xlsx")
    text = "when,level\n" + "".join(f'"{w}",{3 * i % 5}\n' for i, w in enumerate(written))
    (tmp_path / "dates.csv").write_text(text)
    series = abcd_cli.load(tmp_path / "dates.xlsx")
    assert series.x_kind == "date"
    _same_series(series, abcd_cli.load(tmp_path / "dates.csv"))


def test_a_sheet_is_read_from_its_first_cell_with_its_row_numbers(tmp_path: Path) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Data"
    for row, (x, y) in enumerate([(1, 2.5), (2, 3.5), (3, 1.0), (4, "abc"), (5, 2.0)], start=3):
        sheet.cell(row, 3, x)  # C3 on: no header, two blank rows and columns before
        sheet.cell(row, 4, y)
    book.create_sheet("Other").append(["a", "b"])
    book.save(tmp_path / "sheet.xlsx")
    with pytest.raises(InputError) as error:
        abcd_cli.load(tmp_path / "sheet.xlsx")
    assert str(error.value) == (
        f"{tmp_path / 'sheet.xlsx'}: row 4 (sheet row 6): column 'column 2' value 'abc' is not"
        " a number"
    )
    sheet.cell(6, 4, 4.5)
    sheet.cell(7, 4).value = None  # a missing cell: the row is dropped, as in a CSV file
    sheet.cell(9, 3, 6)  # a blank row 8 is skipped
    sheet.cell(9, 4, 0.5)
    book.save(tmp_path / "sheet.xlsx")
    series = abcd_cli.load(tmp_path / "sheet.xlsx", x=1, y=2)
    assert list(series.x) == [1, 2, 3, 4, 6] and list(series.y) == [2.5, 3.5, 1.0, 4.5, 0.5]
    assert series.n_dropped == 1
    assert "read the first sheet, 'Data', of 2" in " ".join(series.warnings)


def _message(path: Path, **columns: object) -> str:
    """The error loading the file gives, with its name as F and the row's place in the file as
    the line of a CSV file holding the same rows (a header, then one line per row)."""
    with pytest.raises(InputError) as error:
        abcd_cli.load(path, **columns)
    message = str(error.value).replace(str(path), "F").replace("(sheet row ", "(line ")
    return re.sub(r"\(index (\d+)\)", lambda m: f"(line {int(m[1]) + 2})", message)


FIVE = pd.DataFrame({"t": [1, 2, 3, 4, 5], "y": [1, 2, 3, 4, 6]})
BAD = {
    "a missing column": (FIVE, {"y": "v"}),
    "a column number too high": (FIVE, {"x": 3}),
    "a non-number": (pd.DataFrame({"t": [1, 2, 3, 4, 5], "y": ["1", "2", "x7", "4", "5"]}), {}),
    # missing to pandas, not to the CSV reader
    "text pandas reads as missing": (FIVE.assign(y=["1", "2", "<NA>", "4", "1.#IND"]), {}),
    "a non-date": (pd.DataFrame({"t": ["2020-01-01", "2020-01-02", "soon"], "y": [1, 2, 3]}), {}),
    "too few points": (pd.DataFrame({"t": [1.5, 2.5, 3.5], "y": [1.0, 2.0, 1.5]}), {}),
    "a constant y": (pd.DataFrame({"t": [1, 2, 3, 4, 5, 6], "y": [2.0] * 6}), {}),
}


@pytest.mark.parametrize("kind", FORMATS)
@pytest.mark.parametrize("case", BAD)
def test_the_same_problem_gives_the_same_message(tmp_path: Path, kind: str, case: str) -> None:
    frame, columns = BAD[case]
    csv, other = _both(frame, tmp_path, kind)
    expected = _message(csv, **columns)
    assert _message(other, **columns) == expected
    assert "F: " in expected


def _run(*args: str, stdin: bytes | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), input=stdin)
    return result.exit_code, result.output


def _one_error_line(code: int, output: str) -> str:
    """The message of a command that ended with one Error line and exit code 2."""
    assert code == 2, output
    assert output.count("\n") == 1 and output.startswith("Error: "), output
    return output


@pytest.mark.parametrize("kind", FORMATS)
def test_predict_reads_x_from_a_file_and_writes_its_dates_as_iso_dates(
    tmp_path: Path, kind: str
) -> None:
    model = tmp_path / "model.json"
    model.write_text(json.dumps(_search_doc(fixed_model())))
    frame = pd.DataFrame({"when": pd.to_datetime(["2008-02-15", "2008-07-01", "2009-01-31"])})
    csv, other = _both(frame, tmp_path, kind)
    assert csv.read_text() == "when\n2008-02-15\n2008-07-01\n2009-01-31\n"
    for given in (csv, other):
        code, output = _run("predict", str(model), str(given), "-o", str(given) + ".out.csv")
        assert code == 0, output
    written = Path(f"{other}.out.csv").read_text()
    assert written.startswith("when,mean,sd,")
    assert written == Path(f"{csv}.out.csv").read_text()
    # inputs of numbers, read by their column's name
    numbers = _write(pd.DataFrame({"n": [1, 2], "date": [2008.5, 2009.25]}), tmp_path / f"n.{kind}")
    values, cells, names, _ = load_inputs(numbers, ["date"], "date")
    assert values[:, 0].tolist() == [2008.5, 2009.25] and cells == [["2008.5", "2009.25"]]
    assert names == ["date"]


@pytest.mark.parametrize("kind", FORMATS)
def test_standard_input_is_read_by_its_first_bytes(tmp_path: Path, kind: str) -> None:
    csv, other = _both(_monthly(), tmp_path, kind)
    code, output = _run("describe-data", "-", stdin=other.read_bytes())
    assert code == 0, output
    assert output.splitlines()[-1] == abcd_cli.load(csv).description().replace(
        csv.name, "standard input"
    )


@pytest.mark.parametrize(("kind", "engine"), [("parquet", "pyarrow"), ("xlsx", "openpyxl")])
def test_a_missing_engine_names_the_extra_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, engine: str
) -> None:
    path = _write(_monthly(), tmp_path / f"data.{kind}")
    monkeypatch.setitem(sys.modules, engine, None)  # import engine: ImportError
    output = _one_error_line(*_run("describe-data", str(path)))
    assert f"needs the {engine} package: pip install 'abcd-cli[files]'" in output


def test_a_damaged_or_misnamed_file_is_one_line(tmp_path: Path) -> None:
    parquet = _write(_monthly(), tmp_path / "data.parquet")
    parquet.write_bytes(parquet.read_bytes()[:-40])  # truncated: its footer is gone
    output = _one_error_line(*_run("describe-data", str(parquet)))
    assert output.startswith(f"Error: {parquet}: cannot read it as a Parquet file: ")
    book = tmp_path / "data.xlsx"
    book.write_bytes(b"PK\x03\x04 not a zip archive")
    output = _one_error_line(*_run("describe-data", str(book)))
    assert output.startswith(f"Error: {book}: cannot read it as an Excel workbook: ")
    book.write_text("t,y\n1,2\n2,3\n")  # text with the suffix of a workbook
    output = _one_error_line(*_run("describe-data", str(book)))
    assert output.startswith(f"Error: {book}: cannot read it as an Excel workbook: ")


def test_an_empty_sheet_or_file_is_refused(tmp_path: Path) -> None:
    openpyxl.Workbook().save(tmp_path / "empty.xlsx")
    output = _one_error_line(*_run("describe-data", str(tmp_path / "empty.xlsx")))
    assert output == f"Error: {tmp_path / 'empty.xlsx'}: the first sheet, 'Sheet', is empty\n"
    header = _write(pd.DataFrame({"t": [], "y": []}), tmp_path / "header.xlsx")
    output = _one_error_line(*_run("describe-data", str(header)))
    assert output == f"Error: {header}: has a header line but no data rows\n"
    rows = _write(pd.DataFrame({"t": [], "y": []}), tmp_path / "none.parquet")
    output = _one_error_line(*_run("describe-data", str(rows)))
    assert output == f"Error: {rows}: the file holds no values\n"


def test_an_old_xls_workbook_is_refused_with_what_to_do(tmp_path: Path) -> None:
    model = tmp_path / "model.json"
    model.write_text(json.dumps(_search_doc(fixed_model())))
    old = tmp_path / "x.xls"
    old.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504))  # an OLE2 file's header
    for args in (["describe-data", str(old)], ["predict", str(model), str(old), "-o", "-"]):
        output = _one_error_line(*_run(*args))
        assert output == (
            f"Error: {old}: old Excel .xls workbooks are not read; save it as .xlsx (or CSV)"
            " and give that file\n"
        )
