"""Several input columns: choosing them (with and without --x), the kernel text naming inputs
by column, a search through the CLI that finds the input that matters, predicting from
columns by name, and the Python API on a DataFrame (the report of several inputs:
test_several_inputs_report.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import abcd_cli
from abcd_cli.cli.main import main
from abcd_cli.data.reader import load_series
from abcd_cli.errors import InputError
from abcd_cli.kernels import SE, WN, Lin, Per
from abcd_cli.kernels.algebra import sum_of_products
from abcd_cli.kernels.base import reads_x
from abcd_cli.kernels.text import parse_kernel

RNG = np.random.default_rng(11)


def table(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def mixed(tmp_path: Path) -> Path:
    """y, two numeric inputs, a date, a text column, a constant column."""
    rows = [
        f"{i % 4 + 0.5 * i},{i * 0.3},{(7 * i) % 5},2020-{i + 1:02d}-15,n{i},3" for i in range(8)
    ]
    return table(tmp_path / "mixed.csv", "target,a,b,when,note,const\n" + "\n".join(rows) + "\n")


# ----------------------------------------------------------------------------- columns


def test_without_x_every_other_numeric_or_date_column_is_an_input(tmp_path: Path) -> None:
    series = load_series(mixed(tmp_path), y="target")
    assert series.x_names == ("a", "b", "when")
    assert series.x_kinds == ("number", "number", "date")
    assert series.x.shape == (8, 3) and series.n_dims == 3
    # the date is a decimal year: 15 January 2020 is day 14 of a 366-day year
    assert series.x[0, 2] == pytest.approx(2020 + 14 / 366)
    used = [w for w in series.warnings if w.startswith("used 3 inputs")]
    assert len(used) == 1 and "'a', 'b', 'when'" in used[0]
    assert "left out column 'note' holding neither numbers nor dates" in series.warnings
    assert "left out column 'const' with a single value" in series.warnings
    assert "3 inputs 'a' from 0 to 2.1," in series.description()


def test_x_names_the_inputs_in_its_order(tmp_path: Path) -> None:
    path = mixed(tmp_path)
    series = load_series(path, x="when,a", y="target")
    assert series.x_names == ("when", "a")
    assert not any(w.startswith(("used", "left out")) for w in series.warnings)
    assert load_series(path, x=["b", "2"], y="1").x_names == ("b", "a")


@pytest.mark.parametrize(
    ("x", "message"),
    [
        ("a,note", "column 'note' value 'n0' is not a number or a date"),
        ("a,weight", "no column 'weight' (--x)"),
        ("a,a", "--x names column 'a' twice"),
        ("a,target", "--x and --y both name column 'target'"),
    ],
)
def test_bad_x_is_a_one_line_error(tmp_path: Path, x: str, message: str) -> None:
    path = mixed(tmp_path)
    with pytest.raises(InputError, match=re.escape(message)) as err:
        load_series(path, x=x, y="target")
    assert "\n" not in str(err.value)
    result = CliRunner().invoke(main, ["describe-data", str(path), "--y", "target", "--x", x])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [f"Error: {err.value}"]


def test_rows_with_a_missing_cell_are_dropped_and_counted(tmp_path: Path) -> None:
    body = "y,a,b\n" + "".join(
        f"{i % 3},{'' if i == 2 else i},{'NA' if i in (4, 6) else i * i}\n" for i in range(9)
    )
    series = load_series(table(tmp_path / "gaps.csv", body))
    assert series.n == 6 and series.n_dropped == 3
    assert "dropped 3 rows with missing values (data rows 3, 5, 7)" in series.warnings
    assert series.x[:, 0].tolist() == [0, 1, 3, 5, 7, 8]  # the table's order is kept


def test_one_input_is_read_as_before(tmp_path: Path) -> None:
    series = load_series(table(tmp_path / "two.csv", "t,v\n3,1\n1,2\n2,5\n4,4\n5,3\n"))
    assert series.x.ndim == 1 and series.x.tolist() == [1, 2, 3, 4, 5]
    assert (series.x_names, series.x_kinds, series.n_dims) == (("t",), ("number",), 1)
    assert series.warnings == ("x was not sorted; sorted the rows by x",)
    # a single usable input among several columns is one input too, the others named
    one = load_series(table(tmp_path / "one.csv", "date,v,note\n2020,1,a\n2021,2,b\n2022,4,c\n"
                                                  "2023,3,d\n2024,5,e\n"))  # fmt: skip
    assert (one.x_name, one.x_kind, one.x.ndim) == ("date", "year", 1)
    assert one.warnings == ("left out column 'note' holding neither numbers nor dates",)


# ----------------------------------------------------------------------------- kernel text


def test_kernel_text_names_inputs_by_column_and_reads_them_back() -> None:
    names = ("weight", "model year", "hp")
    kernel = SE((1.5, 2.0), dim=0) * Lin((0.1, 1970.0), dim=1) + Per(dim=2) + WN((0.3,))
    text = kernel.to_text(names=names)
    assert "SE[weight](" in text and "Lin[model year](" in text and "Per[hp]" in text
    assert "WN(" in text and "WN[" not in text  # white noise reads no input
    back = parse_kernel(text, names)
    assert back.to_text() == kernel.to_text()
    assert parse_kernel(kernel.to_text()).to_text(names=names) == text  # @d still parses
    assert kernel.to_text(names=("x",)) == kernel.to_text()  # one input: no brackets
    with pytest.raises(InputError, match="no input is called 'mpg'"):
        parse_kernel("SE[mpg]", names)
    with pytest.raises(InputError, match="names are not known"):
        parse_kernel("SE[weight]")


# ----------------------------------------------------------------------------- end to end


@pytest.fixture(scope="module")
def three_inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """y = sin(a) + 0.1·noise, with b and c irrelevant; searched through the CLI at depth 2."""
    folder = tmp_path_factory.mktemp("three")
    n = 60
    a, b, c = RNG.uniform(0, 6, n), RNG.uniform(0, 1, n), RNG.uniform(-1, 1, n)
    y = np.sin(a) + 0.1 * RNG.normal(size=n)
    data = folder / "three.csv"
    pd.DataFrame({"a": a, "b": b, "c": c, "y": y}).to_csv(data, index=False)
    out = folder / "model.json"
    args = ["search", str(data), "--depth", "2", "--restarts", "2", "--jobs", "1", "--quiet"]
    result = CliRunner().invoke(main, [*args, "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "used 3 inputs" in result.output and "'a', 'b', 'c'" in result.output
    return data, out


def test_a_search_on_three_inputs_finds_the_one_that_matters(
    three_inputs: tuple[Path, Path],
) -> None:
    _, model_file = three_inputs
    document = json.loads(model_file.read_text())
    assert document["data"]["x_names"] == ["a", "b", "c"]
    structure = document["structure"]
    # the signal (every term of the sum of products without white noise in it) reads a only;
    # a noise term may still scale with another input
    kernel = parse_kernel(structure, ["a", "b", "c"])
    signal = [t for t in sum_of_products(kernel) if not any(isinstance(n, WN) for n in t.nodes())]
    assert signal and {b.dim for t in signal for b in t.bases() if reads_x(b)} == {0}
    assert "SE[a]" in structure and "[a](" in document["kernel"]
    found = abcd_cli.found.read_model(model_file)
    assert found.structure == structure and found.model.x_names == ("a", "b", "c")
    assert all("[" in entry["structure"] for entry in document["trace"] if entry["level"] > 0)


def test_predict_reads_the_inputs_by_column_name(
    three_inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    _, model_file = three_inputs
    new = table(tmp_path / "x.csv", "note,c,a,b\nq,0.5,1.5,0.2\nr,-0.5,4.5,0.9\n")
    out = tmp_path / "p.csv"
    result = CliRunner().invoke(main, ["predict", str(model_file), str(new), "-o", str(out)])
    assert result.exit_code == 0, result.output
    written = pd.read_csv(out)
    assert list(written.columns[:3]) == ["a", "b", "c"]
    assert written["a"].tolist() == [1.5, 4.5]
    np.testing.assert_allclose(written["mean"], np.sin([1.5, 4.5]), atol=0.3)
    frame = abcd_cli.predict(model_file, pd.read_csv(new))
    np.testing.assert_allclose(frame["mean"], written["mean"])
    missing = table(tmp_path / "missing.csv", "c,a\n0.5,1.5\n")
    result = CliRunner().invoke(main, ["predict", str(model_file), str(missing), "-o", str(out)])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"Error: {missing}: no column 'b', an input of the model; available columns: 1 'c', 2 'a'"
    ]


def test_the_api_takes_a_dataframe_by_the_same_rules() -> None:
    frame = pd.DataFrame(
        {
            "price": [3.0, 1.0, 4.0, 1.0, 5.0, 9.0],
            "size": [50, 60, 70, 80, 90, 100],
            "sold": pd.date_range("2021-01-01", periods=6, freq="MS"),
            "city": list("abcabc"),
        }
    )
    series = abcd_cli.load(frame, y="price")
    assert series.x_names == ("size", "sold") and series.x_kinds == ("number", "date")
    assert "left out column 'city' holding neither numbers nor dates" in series.warnings
    assert abcd_cli.load(frame, x=["sold", "size"], y="price").x_names == ("sold", "size")
    assert abcd_cli.load(frame, x="size", y="price").x.ndim == 1
    with pytest.raises(InputError, match="'city' value 'a' is not a number or a date"):
        abcd_cli.load(frame, x=["size", "city"], y="price")
