"""The report end to end: snapshot regression against golden files, and the CLI's PDF, HTML and
JSON outputs. ``make snapshots`` (ABCD_UPDATE_SNAPSHOTS=1) rewrites the golden files."""

from __future__ import annotations

import dataclasses
import difflib
import html
import io
import json
import math
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from pypdf import PdfReader

from abcd_cli.cli.main import main
from abcd_cli.data.scaling import Scaling
from abcd_cli.decompose.components import decompose
from abcd_cli.decompose.facts import Axis
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model
from abcd_cli.prediction import predictive_table
from abcd_cli.reporting import figures as plots
from abcd_cli.reporting.context import build_context
from abcd_cli.reporting.render import render_html
from abcd_cli.reporting.sections import check_curves
from abcd_cli.reporting.wording import format_amount
from tests.sampling import gp_draw

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
UPDATE = os.environ.get("ABCD_UPDATE_SNAPSHOTS") == "1"
KERNEL = (
    "Lin(sd=3.0, location=1990.0) + Per(lengthscale=1.5, period=1.0, sd=4.0) * Lin(sd=0.2, location=1985.0)"
    " + SE(lengthscale=0.4, sd=1.5) + WN(sd=0.8)"
)


def _series() -> tuple[np.ndarray, np.ndarray]:
    x = 2000.0 + (np.arange(96) + 0.5) / 12.0
    rng = np.random.default_rng(0)
    y = parse_kernel(KERNEL).gram(x)
    y = gp_draw(y, rng) + 100.0
    return x, y


def fixed_model() -> Model:
    """A fixed model on fixed data: no search, so the report is exactly reproducible."""
    x, y = _series()
    sc = Scaling.from_data(x, y)
    kernel = sc.kernel_in(parse_kernel(KERNEL))
    from abcd_cli.engines.exact import negative_log_likelihood

    nll = sc.nll_out(negative_log_likelihood(kernel, sc.x_in(x), sc.y_in(y)), x.size)
    return Model(kernel, sc, x, y, nll)


OTHER_KERNEL = "Lin(sd=2.0, location=1995.0) + SE(lengthscale=3.0, sd=5.0) + WN(sd=1.0)"


def other_model(bic_above: float = 10.0) -> Model:
    """A second model of the fixed model's data, forecasting differently (a smooth trend), with
    a BIC ``bic_above`` units above the fixed model's."""
    first = fixed_model()
    kernel = first.scaling.kernel_in(parse_kernel(OTHER_KERNEL))
    other = Model(kernel, first.scaling, first.x, first.y, first.nll)
    return dataclasses.replace(other, nll=other.nll + (first.bic + bic_above - other.bic) / 2)


def _search_doc(model: Model) -> dict:
    doc = model.to_dict()
    doc.update(
        {
            "trace": [{"level": 0, "structure": "WN", "bic": 1000.0, "candidates": 1}],
            "settings": {"seed": 0, "depth": 10},
            "notes": [],
            "stopped_early": "",
            "elapsed_seconds": 1.0,
        }
    )
    doc["data"].update(
        {"x_name": "date", "y_name": "sales", "x_kind": "year", "source": "sales.csv"}
    )
    return doc


@pytest.fixture(scope="module")
def context() -> dict:
    model = fixed_model()
    dec = decompose(model, (Axis("year", "date", "sales"),), extrapolate=0.2, seed=0)
    context = build_context(dec, "Sales", "sales.csv", _search_doc(model))
    context["generated"] = "2026-01-01 00:00 UTC"  # the one field that changes from run to run
    return context


def _round(value, digits: int = 6):
    """Numbers to a fixed number of significant digits: the snapshots' tolerance."""
    if isinstance(value, float):
        return float(f"{value:.{digits}g}") if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _round(v, digits) for k, v in value.items()}
    if isinstance(value, list):
        return [_round(v, digits) for v in value]
    return value


def _snapshot_json(context: dict) -> dict:
    doc = json.loads(json.dumps(context["json"]))
    doc["model"].pop("elapsed_seconds", None)
    doc["model"].pop("version", None)
    doc.pop("version", None)
    return _round(doc, 5)


class _Text(HTMLParser):
    """Text of the headings and paragraphs, the parts of the page a reader sees."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        if tag in ("h1", "h2", "h3", "p", "li", "td", "th", "figcaption"):
            self._in = tag
            self.parts.append(f"[{tag}] ")

    def handle_endtag(self, tag):
        if tag == self._in:
            self._in = None

    def handle_data(self, data):
        if self._in and data.strip():
            self.parts[-1] += " ".join(data.split()) + " "


def _fragments(html: str) -> list[str]:
    parser = _Text()
    parser.feed(html)
    return [p.strip() for p in parser.parts]


_KERNEL_NUMBER = re.compile(r"(?<==)-?[0-9][0-9.]*(?:e[-+]?[0-9]+)?")


def _with_kernel_numbers_rounded(text: str) -> str:
    """The JSON text with every number inside a "kernel" string at 9 significant digits."""

    def fix(value):
        if isinstance(value, dict):
            return {
                k: (
                    _KERNEL_NUMBER.sub(lambda m: f"{float(m.group()):.9g}", v)
                    if k == "kernel" and isinstance(v, str)
                    else fix(v)
                )
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [fix(v) for v in value]
        return value

    return json.dumps(fix(json.loads(text)), indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def _compare(name: str, actual) -> None:
    path = GOLDEN / name
    text = json.dumps(actual, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if UPDATE or not path.exists():
        if not UPDATE:
            pytest.fail(f"golden file {path} is missing: run `make snapshots`")
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    expected = path.read_text(encoding="utf-8")
    if expected != text:
        # Kernel texts carry full-precision floats: compare them to 9 digits (BLAS and numpy
        # versions move the last bits), the golden file itself staying as it is.
        expected, text = (_with_kernel_numbers_rounded(t) for t in (expected, text))
    if expected != text:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(True), text.splitlines(True), f"golden/{name}", "now", n=2
            )
        )
        pytest.fail(f"report changed (run `make snapshots` if intended):\n{diff[:6000]}")


def test_report_json_matches_snapshot(context):
    _compare("report.json", _snapshot_json(context))


def test_report_html_fragments_match_snapshot(context):
    _compare("report_fragments.json", _fragments(render_html(context)))


def test_report_states_the_components(context):
    phrases = [c["phrase"] for c in context["components"]]
    assert any("period of 1.0 year" in p for p in phrases), phrases
    assert any("noise" in p for p in phrases)
    total = context["components"][-1]["stats"]["cum_r2"]
    assert total == pytest.approx(1.0, abs=1e-6)


def test_the_table_says_why_the_last_row_reaches_100_percent(context):
    (noise,) = [c for c in context["components"] if c["phrase"].endswith("noise")]
    assert context["components"][-1]["stats"]["cum_r2"] == pytest.approx(1.0, abs=1e-6)
    note = context["table"]["noise_note"]
    assert note.startswith(f"With component {noise['index']}, the noise, the model's mean")
    assert "cumulative R² reaches 100% by construction" in note
    assert note in html.unescape(render_html(context))


def test_a_constant_mean_is_stated_and_carried_through_the_sums():
    fixed = fixed_model()
    model = dataclasses.replace(fixed, constant_mean=True)
    dec = decompose(model, (Axis("year", "date", "sales"),), extrapolate=0.2, seed=0)
    context = build_context(dec, "Sales", "sales.csv", _search_doc(model))
    value, sd = dec.level
    post = model.posterior
    assert value == pytest.approx(model.scaling.y_out(post.level))
    assert sd == pytest.approx(model.scaling.y_scale * post.level_sd) and sd > 0
    sentence = (
        "The components below are deviations from a constant level, estimated with the model at"
        f" {format_amount(value, dec.axis)} (standard deviation {format_amount(sd, dec.axis)})."
    )
    assert context["data"]["description"].endswith(sentence)
    assert context["json"]["data"]["level"] == {"value": value, "sd": sd}
    assert context["table"]["baseline"] == "Baseline (level)"
    np.testing.assert_allclose(dec.series.cumulative_mean[-1], dec.series.forecast_mean, rtol=1e-9)
    np.testing.assert_allclose(
        dec.series.forecast_mean, model.predict(dec.series.x_grid)[0], rtol=1e-9
    )
    assert dec.components[-1].cum_r2 == pytest.approx(1.0, abs=1e-6)
    # without it: no sentence, the mean as baseline
    plain = decompose(fixed, (Axis("year", "date", "sales"),), extrapolate=0.2, seed=0)
    assert plain.level is None
    assert (
        "constant level"
        not in build_context(plain, "S", "s.csv", _search_doc(fixed))["data"]["description"]
    )


def test_a_search_with_several_seeds_adds_their_averaged_forecast(context):
    chosen, other = fixed_model(), other_model(bic_above=1.0)
    doc = _search_doc(chosen)
    doc["seed_models"] = [
        {"seed": 4, **chosen.to_dict(with_data=False)},
        {"seed": 5, **other.to_dict(with_data=False)},
    ]
    dec = decompose(chosen, (Axis("year", "date", "sales"),), extrapolate=0.2, seed=0)
    several = build_context(dec, "Sales", "sales.csv", doc)
    text = several["forecast"]["text"]
    assert text.startswith(context["forecast"]["text"])
    assert "The search was run 2 times" in text and "(seed 4 0.62, seed 5 0.38)" in text
    share = 1 / (1 + np.exp(-0.5))
    expected = predictive_table([chosen, other], dec.series.x_grid, [share, 1 - share])
    averaged = several["json"]["forecast"]["averaged"]
    assert averaged["seeds"] == [4, 5]
    np.testing.assert_allclose(averaged["weights"], [share, 1 - share], rtol=1e-12)
    for key in ("mean", "sd", "q2.5", "q97.5"):
        np.testing.assert_allclose(averaged[key], expected[key], rtol=1e-9)
    # the forecast figure draws it; a report of one search has neither the line nor the text
    assert plots.AVERAGE_COLOUR in several["forecast"]["figure"]["content"]
    assert plots.AVERAGE_COLOUR not in context["forecast"]["figure"]["content"]
    assert (
        "averaged" not in context["json"]["forecast"] and "seeds" not in context["forecast"]["text"]
    )


# ------------------------------------------------------------------------------------------
# Through the command line
# ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def model_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("model") / "model.json"
    path.write_text(json.dumps(_search_doc(fixed_model())))
    return path


def _run(args: list[str]):
    return CliRunner().invoke(main, args, catch_exceptions=False)


def test_pdf_report_from_saved_model(model_file, tmp_path):
    out = tmp_path / "report.pdf"
    result = _run(["report", "--from-model", str(model_file), "-o", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    reader = PdfReader(io.BytesIO(out.read_bytes()))
    text = " ".join(" ".join(page.extract_text().split()) for page in reader.pages)
    assert len(reader.pages) >= 3
    for heading in (
        "Data",
        "Executive summary",
        "Component 1",
        "Extrapolation",
        "Model checking",
        "Appendix",
    ):
        assert heading in text
    assert not list(tmp_path.glob(".*.part"))


def test_html_report_is_self_contained(model_file, tmp_path):
    out = tmp_path / "report.html"
    assert (
        _run(["report", "--from-model", str(model_file), "-o", str(out), "--quiet"]).exit_code == 0
    )
    html = out.read_text()
    srcs = []

    class Images(HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag == "img":
                srcs.append(dict(attrs)["src"])

    Images().feed(html)
    assert len(srcs) >= 5 and all(s.startswith("data:image/") for s in srcs)
    assert "http://" not in html.replace("http://www.w3.org", "")


def test_json_report_holds_numbers_and_sentences(model_file, tmp_path):
    out = tmp_path / "report.json"
    assert _run(["report", "--from-model", str(model_file), "-o", str(out)]).exit_code == 0
    doc = json.loads(out.read_text())
    assert doc["components"][0]["paragraph"]
    assert doc["model"]["kernel"].startswith(("Lin", "Per", "SE", "WN", "("))


def test_report_straight_from_data(tmp_path):
    x, y = _series()
    data = tmp_path / "series.csv"
    data.write_text("date,sales\n" + "".join(f"{a},{b}\n" for a, b in zip(x, y, strict=True)))
    out = tmp_path / "r.html"
    model = tmp_path / "model.json"
    result = _run(
        [
            "report",
            str(data),
            "-o",
            str(out),
            "--json",
            str(model),
            "--depth",
            "1",
            "--restarts",
            "2",
            "--jobs",
            "1",
            "--quiet",
        ]
    )
    assert result.exit_code == 0, result.output
    assert "Executive summary" in out.read_text()
    assert not list(tmp_path.glob("*.ckpt.json"))
    saved = json.loads(model.read_text())  # --json: the model file, with its trace and data
    assert [row["level"] for row in saved["trace"]] == [0, 1]
    assert len(saved["data"]["y"]) == y.size
    assert f"wrote {model}" in result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["-o", "{tmp}/r.docx"], "format"),
        (["-o", "{tmp}/missing/r.pdf"], "does not exist"),
        ([], "Missing option"),
    ],
)
def test_bad_report_options_fail_cleanly(model_file, tmp_path, args, message):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    result = CliRunner().invoke(main, ["report", "--from-model", str(model_file), *args])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert not any(tmp_path.iterdir())


def _texts(value) -> list[str]:
    """Every string in a JSON document."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return []


def test_an_hourly_series_is_reported_in_days_and_hours(tmp_path):
    hours = np.arange(5 * 24)
    rng = np.random.default_rng(1)
    y = 10.0 + 3.0 * np.sin(2 * np.pi * hours / 24) + 0.3 * rng.standard_normal(hours.size)
    stamps = np.datetime64("2024-03-01T00:00") + hours * np.timedelta64(1, "h")
    data = tmp_path / "hourly.csv"
    rows = (f"{str(s).replace('T', ' ')},{v}\n" for s, v in zip(stamps, y, strict=True))
    data.write_text("time,load\n" + "".join(rows))
    out = tmp_path / "r.json"
    args = ["report", str(data), "-o", str(out), "--depth", "1", "--restarts", "2"]
    result = _run([*args, "--jobs", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    description = doc["data"]["description"]
    assert description.startswith("120 observations of load from 1 March 2024 to 5 March 2024")
    # 119 hours: 4.9 days in the decimal years of a leap year (see data.dates)
    assert "(a span of 5.0 days), typically 1.0 hour apart" in description
    periodic = [c for c in doc["components"] if "period of" in c["phrase"]]
    assert periodic and periodic[0]["phrase"].endswith("with a period of 1.0 day")
    assert "every 1.0 day" in periodic[0]["extrapolation"]
    assert periodic[0]["phrase"] in [row["phrase"] for row in doc["table"]["rows"]]
    # nothing about a few days of data is worded in years
    words = [t for key, v in doc.items() if key != "model" for t in _texts(v)]
    assert not [t for t in words if "year" in t]


def test_the_quantile_check_is_drawn_as_the_residuals_quantiles():
    """The check's statistic is the gap between the quantiles; the figure draws the residuals'
    quantiles themselves against the line y = x, with the simulations' band around it."""
    model = fixed_model()
    dec = decompose(model, (Axis("year", "date", "sales"),), extrapolate=0.2, seed=0)
    check = next(c for c in dec.checks if c.name == "quantile-quantile")
    observed, low, high = check_curves(check)
    np.testing.assert_allclose(observed, np.sort(model.posterior.standardised_errors()))
    theory = check.lag_or_freq
    np.testing.assert_allclose(observed - theory, check.observed)
    assert np.mean((low <= theory) & (theory <= high)) > 0.9  # the band follows y = x
    autocorrelation = next(c for c in dec.checks if c.name == "autocorrelation")
    assert check_curves(autocorrelation)[0] is autocorrelation.observed
