"""The Python API (abcd_cli.load / search / predict / report) and its agreement with the CLI."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import abcd_cli
from abcd_cli.cli.main import main
from abcd_cli.errors import InputError

# ----------------------------------------------------------------------------- load

DATED = "date,sales\n2020-01-31,1.5\n2020-03-31,2.25\n2020-02-29,3\n2020-04-30,\n2020-05-31,4\n2020-06-30,3.5\n2020-07-31,5\n"


def _same_series(a: Any, b: Any) -> None:
    np.testing.assert_array_equal(a.x, b.x)
    np.testing.assert_array_equal(a.y, b.y)
    assert (a.x_name, a.y_name, a.x_kind, a.n_dropped) == (
        b.x_name,
        b.y_name,
        b.x_kind,
        b.n_dropped,
    )
    assert a.warnings == b.warnings


def test_a_dataframe_reads_as_the_csv_written_from_it(tmp_path: Path) -> None:
    path = tmp_path / "sales.csv"
    path.write_text(DATED)
    from_file = abcd_cli.load(path)
    assert from_file.x_kind == "date" and from_file.n_dropped == 1
    assert "x was not sorted; sorted the rows by x" in from_file.warnings
    frame = pd.read_csv(path, parse_dates=["date"])
    assert pd.api.types.is_datetime64_any_dtype(frame["date"])
    _same_series(abcd_cli.load(frame), from_file)
    # a time index holds x; a pandas Series' values are y
    _same_series(abcd_cli.load(frame.set_index("date")), from_file)
    _same_series(abcd_cli.load(frame.set_index("date")["sales"]), from_file)


def test_arrays_read_as_a_two_column_csv(tmp_path: Path) -> None:
    x = np.array([1990.0, 1991.0, 1993.0, 1992.0, 1994.0, 1995.0])
    y = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0])
    path = tmp_path / "xy.csv"
    path.write_text(
        "x,y\n" + "".join(f"{float(a)!r},{float(b)!r}\n" for a, b in zip(x, y, strict=True))
    )
    from_file = abcd_cli.load(path)
    assert from_file.x_kind == "year"  # a neutral name and values in [1000, 3000], as in a CSV
    _same_series(abcd_cli.load(x=x, y=y), from_file)
    _same_series(abcd_cli.load((list(x), list(y))), from_file)
    _same_series(abcd_cli.load(pd.DataFrame({"x": x, "y": y})), from_file)
    only_y = abcd_cli.load(y=y)
    assert only_y.x_name == "index" and list(only_y.x) == [0, 1, 2, 3, 4, 5]


def test_datetime_arrays_become_decimal_years() -> None:
    dates = pd.date_range("2021-01-01", periods=6, freq="D")
    series = abcd_cli.load(x=dates.to_numpy(), y=[1.0, 2.0, 0.5, 3.0, 2.0, 1.0])
    assert series.x_kind == "date"
    day = 1 / 365.2425  # x is 2000 + days since 2000-01-01 / 365.2425
    np.testing.assert_allclose(series.x, 2000 + (7671 + np.arange(6)) * day, rtol=0, atol=1e-9)
    aware = abcd_cli.load(x=dates.tz_localize("Europe/Paris"), y=series.y)
    # midnight in Paris is 23:00 UTC the day before
    np.testing.assert_allclose(aware.x, series.x - day / 24, rtol=0, atol=1e-9)


def test_columns_are_chosen_by_name_or_number_and_errors_name_the_row() -> None:
    frame = pd.DataFrame({"id": [1, 2, 3, 4, 5, 6], "t": range(6), "a": [1.0, 2, 3, 2, 1, 0]})
    series = abcd_cli.load(frame, x="t", y=3)
    assert (series.x_name, series.y_name) == ("t", "a")
    with pytest.raises(InputError, match="DataFrame: no column 'b' .*available columns: 1 'id'"):
        abcd_cli.load(frame, y="b")
    bad = frame.assign(a=[1.0, "zz", 3, 2, 1, 0])
    with pytest.raises(
        InputError, match=r"row 2 \(index 1\): column 'a' value 'zz' is not a number"
    ):
        abcd_cli.load(bad, x="t", y="a")
    with pytest.raises(InputError, match="sales: column 'y' is constant"):
        abcd_cli.load(x=range(6), y=[2.0] * 6, name="sales")
    with pytest.raises(InputError, match="x has 5 values but y has 6"):
        abcd_cli.load(x=range(5), y=range(6))
    with pytest.raises(InputError, match="holds no values"):
        abcd_cli.load(pd.DataFrame())
    with pytest.raises(TypeError):
        abcd_cli.load(42)


# ----------------------------------------------------------------------------- search

SMALL = {"depth": 1, "restarts": 2}


def _strip_times(value: Any) -> Any:
    """The document without its timings (they differ between two runs)."""
    if isinstance(value, dict):
        return {k: _strip_times(v) for k, v in value.items() if k != "elapsed_seconds"}
    if isinstance(value, list):
        return [_strip_times(v) for v in value]
    return value


@pytest.fixture(scope="module")
def series_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(3)
    x = 2000 + np.arange(36) / 12
    y = 10 + 2 * np.sin(2 * np.pi * x) + 0.3 * rng.standard_normal(x.size)
    path = tmp_path_factory.mktemp("api") / "monthly.csv"
    path.write_text(
        "x,y\n" + "".join(f"{float(a)!r},{float(b)!r}\n" for a, b in zip(x, y, strict=True))
    )
    return path


@pytest.fixture(scope="module")
def found(series_csv: Path) -> abcd_cli.FoundModel:
    return abcd_cli.search(str(series_csv), **SMALL)


def test_the_api_search_writes_the_clis_document(
    found: abcd_cli.FoundModel, series_csv: Path, tmp_path: Path
) -> None:
    out = tmp_path / "cli.json"
    args = ["search", str(series_csv), "--json", str(out), "--jobs", "1", "--quiet"]
    result = CliRunner().invoke(main, [*args, "--depth", "1", "--restarts", "2"])
    assert result.exit_code == 0, result.output
    cli_doc = json.loads(out.read_text())
    assert _strip_times(found.to_dict()) == _strip_times(cli_doc)
    assert found.bic == cli_doc["bic"] and found.kernel == cli_doc["kernel"]
    assert found.structure == cli_doc["structure"] and found.n == cli_doc["n"] == 36
    assert found.parameters == {p["name"]: p["value"] for p in cli_doc["parameters"]}
    assert found.settings["restarts"] == 2 and found.settings["depth"] == 1
    saved = found.save(tmp_path / "api.json")
    assert _strip_times(json.loads(saved.read_text())) == _strip_times(cli_doc)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["api.json", "cli.json"]


def test_a_series_a_frame_and_any_executor_give_the_same_model(
    found: abcd_cli.FoundModel, series_csv: Path
) -> None:
    frame = pd.read_csv(series_csv)
    with ThreadPoolExecutor(2) as pool:
        threaded = abcd_cli.search(frame, executor=pool, **SMALL)
        assert pool.submit(int, "7").result() == 7  # the caller's executor is left running
    assert threaded.structure == found.structure
    assert threaded.bic == pytest.approx(found.bic, abs=1e-6)


def test_components_add_up_to_the_explained_share(found: abcd_cli.FoundModel) -> None:
    components = found.components
    assert components and [c.index for c in components] == list(range(1, len(components) + 1))
    assert sum(c.share for c in components) == pytest.approx(components[-1].cumulative_share)
    terms = found.structure.split(" + ")
    assert sorted(c.structure for c in components) == sorted(terms)
    assert all(isinstance(c.kernel, str) and "(" in c.kernel for c in components)


def test_warnings_and_bad_settings(series_csv: Path, tmp_path: Path) -> None:
    lines = series_csv.read_text().splitlines()
    gappy = tmp_path / "gappy.csv"
    gappy.write_text("\n".join([lines[0], lines[1].split(",")[0] + ",", *lines[2:]]) + "\n")
    with pytest.warns(abcd_cli.AbcdWarning, match="dropped 1 row with missing values"):
        abcd_cli.search(str(gappy), depth=0, restarts=1)
    with pytest.raises(TypeError, match="unknown setting 'restart'"):
        abcd_cli.search(str(series_csv), restart=2)
    with pytest.raises(InputError, match="unknown prior mean"):
        abcd_cli.search(str(series_csv), prior_mean="median")


def test_an_interrupted_search_resumes_from_its_checkpoint(
    series_csv: Path, tmp_path: Path
) -> None:
    checkpoint = tmp_path / "state.json"
    settings = {"depth": 2, "restarts": 1, "checkpoint": checkpoint}

    def stop_after_level_1(line: str) -> None:
        if line.startswith("level 1"):
            raise KeyboardInterrupt

    with pytest.raises(abcd_cli.SearchInterrupted) as stopped:
        abcd_cli.search(str(series_csv), progress=stop_after_level_1, **settings)
    assert stopped.value.saved == [checkpoint]
    assert json.loads(checkpoint.read_text())["level"] == 1
    lines: list[str] = []
    resumed = abcd_cli.search(str(series_csv), progress=lines.append, resume=True, **settings)
    assert lines[0] == "resumed after level 1" and lines[1].startswith("level 2/2")
    whole = abcd_cli.search(str(series_csv), depth=2, restarts=1)
    assert (resumed.structure, resumed.bic) == (whole.structure, pytest.approx(whole.bic, abs=1e-6))
    assert resumed.checkpoints == (checkpoint,)
    resumed.discard_checkpoints()
    assert not checkpoint.exists()


# ----------------------------------------------------------------------------- predict


def test_predict_gives_the_table_the_cli_writes(found: abcd_cli.FoundModel, tmp_path: Path) -> None:
    model = found.save(tmp_path / "model.json")
    (tmp_path / "x.csv").write_text("x\n2003.0\n2003.5\n2004.25\n")
    out = tmp_path / "out.csv"
    result = CliRunner().invoke(
        main, ["predict", str(model), str(tmp_path / "x.csv"), "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    cli = pd.read_csv(out)
    for source in (found, model, str(model)):
        table = abcd_cli.predict(source, [2003.0, 2003.5, 2004.25])
        assert list(table.columns) == ["x", "mean", "sd", "q2.5", "q10", "q50", "q90", "q97.5"]
        pd.testing.assert_frame_equal(table, cli, check_exact=True)
    mean, sd = found.model.predict(np.array([2003.5]))
    assert abcd_cli.predict(found, 2003.5)[["mean", "sd"]].iloc[0].tolist() == [mean[0], sd[0]]


def test_a_model_of_one_input_also_predicts_at_a_dataframe_of_its_column(
    found: abcd_cli.FoundModel,
) -> None:
    at = [2003.0, 2003.5, 2004.25]
    frame = pd.DataFrame({"other": [1, 2, 3], found.x_name: at})
    pd.testing.assert_frame_equal(
        abcd_cli.predict(found, frame), abcd_cli.predict(found, at), check_exact=True
    )
    with pytest.raises(InputError, match=f"x has no column '{found.x_name}'"):
        abcd_cli.predict(found, pd.DataFrame({"other": at}))


def test_predict_at_datetimes_is_predict_at_decimal_years(found: abcd_cli.FoundModel) -> None:
    at = pd.to_datetime(["2003-01-01 00:00", "2003-07-02 12:00"])
    by_date = abcd_cli.predict(found, at)
    by_year = abcd_cli.predict(found, [2003.0, 2003.5])
    assert list(by_date["x"]) == list(at)
    np.testing.assert_allclose(by_date["mean"], by_year["mean"], rtol=1e-12)
    numbers = abcd_cli.FoundModel.from_document(
        {**found.to_dict(), "data": {**found.to_dict()["data"], "x_kind": "number"}}
    )
    with pytest.raises(
        InputError, match="x holds dates or years but the model was fitted to plain"
    ):
        abcd_cli.predict(numbers, at)
    with pytest.raises(InputError, match="average_seeds needs a search with seeds > 1"):
        abcd_cli.predict(found, [2003.0], average_seeds=True)


@pytest.mark.parametrize(
    ("value", "cell", "message"),
    [
        (np.nan, "NaN", "column 'x' has no value in row 2"),
        (np.inf, "inf", "column 'x' value 'inf' is infinite or too large for a 64-bit"),
        (1e200, "1e200", "column 'x' has values as large as 1e+200"),
    ],
)
def test_predict_refuses_x_the_command_line_refuses(
    found: abcd_cli.FoundModel, tmp_path: Path, value: float, cell: str, message: str
) -> None:
    """Before: NaN or inf x gave rows of NaN where ``abcd predict`` refused the file."""
    for given in ([2003.0, value], pd.DataFrame({"x": [2003.0, value]})):
        with pytest.raises(InputError, match=f"^x: (row 2: )?{re.escape(message)}"):
            abcd_cli.predict(found, given)
    model = found.save(tmp_path / "model.json")
    (tmp_path / "x.csv").write_text(f"x\n2003.0\n{cell}\n")
    args = ["predict", str(model), str(tmp_path / "x.csv"), "-o", str(tmp_path / "o.csv")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and message in result.stderr


# ----------------------------------------------------------------------------- report


def test_report_without_a_path_is_the_json_report(
    found: abcd_cli.FoundModel, tmp_path: Path
) -> None:
    content = abcd_cli.report(found, title="Monthly")
    assert isinstance(content, dict)
    assert content["title"] == "Monthly"
    assert len(content["components"]) == len(found.components)
    # each component's description is the report's phrase for it
    phrases = [c["phrase"] for c in content["components"]]
    assert [c.description for c in found.components] == phrases
    assert content["model"]["kernel"] == found.kernel
    written = abcd_cli.report(found, tmp_path / "r.json", title="Monthly")
    assert written == tmp_path / "r.json"
    assert json.loads(written.read_text()) == content
    default = abcd_cli.report(found, tmp_path / "r2.json")
    assert json.loads(default.read_text())["title"] == "Analysis of monthly"


def test_report_to_a_path_is_atomic(
    found: abcd_cli.FoundModel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = abcd_cli.report(found, tmp_path / "r.htm")
    assert page.read_text().lstrip().lower().startswith("<!doctype html")
    import abcd_cli.reporting.render as render

    def broken(context: dict[str, Any], fmt: str) -> str:
        raise RuntimeError("renderer broke")

    monkeypatch.setattr(render, "render", broken)
    before = page.read_bytes()
    with pytest.raises(RuntimeError, match="renderer broke"):
        abcd_cli.report(found, page, format="html")
    assert page.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.htm"]  # no partial file
    with pytest.raises(InputError, match="use a .pdf, .html or .json name or format="):
        abcd_cli.report(found, tmp_path / "r.txt")
    with pytest.raises(InputError, match="folder .* does not exist"):
        abcd_cli.report(found, tmp_path / "nowhere" / "r.json")


def test_a_report_from_a_model_file(found: abcd_cli.FoundModel, tmp_path: Path) -> None:
    model = found.save(tmp_path / "model.json")
    assert abcd_cli.report(str(model)) == abcd_cli.report(found)
    (tmp_path / "bad.json").write_text("[1]")
    with pytest.raises(InputError, match="is not a model saved by 'abcd search --json'"):
        abcd_cli.read_model(tmp_path / "bad.json")


# ----------------------------------------------------------------------------- package


def test_importing_the_package_is_light() -> None:
    """The API's names load on first use; a report's libraries only when a report is made."""
    code = (
        "import sys, abcd_cli; heavy = {'matplotlib', 'weasyprint', 'click', 'jinja2', 'scipy'};"
        " print(sorted(heavy & set(sys.modules)));"
        " abcd_cli.search; print(sorted(heavy & set(sys.modules)) == ['scipy'])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]", "True"]
    assert abcd_cli.search is abcd_cli.api.search and "report" in dir(abcd_cli)
    assert set(abcd_cli.__all__) == {"__version__", *abcd_cli._API}
    assert all(getattr(abcd_cli, name) is not None for name in abcd_cli.__all__)
    with pytest.raises(AttributeError, match="no attribute 'serch'"):
        abcd_cli.serch  # noqa: B018


def test_search_takes_arrays_as_x_and_y_alone():
    x = np.linspace(0.0, 4.0, 30)
    y = np.sin(x)
    by_keywords = abcd_cli.search(x=x, y=y, depth=0, restarts=1)
    by_pair = abcd_cli.search((x, y), depth=0, restarts=1)
    assert by_keywords.kernel == by_pair.kernel and by_keywords.bic == by_pair.bic
