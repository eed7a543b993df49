"""The report layer: figures from plots.py, HTML from the templates, the PDF, atomic writing.

Run ``python tests/reporting/test_render.py OUT.pdf`` (or ``OUT.html``) to write the fake report for a look.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import io
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import jinja2
import numpy as np
import pytest
from matplotlib.figure import Figure

from abcd_cli.errors import InputError, RunError
from abcd_cli.reporting import dense_figures, numbers, render
from abcd_cli.reporting import figures as plots

SECTION_IDS = ["data", "summary", "component-1", "component-2", "component-3", "component-4"]
SECTION_IDS += ["extrapolation", "checks", "appendix"]
PHRASES = [
    "A linearly increasing function",
    "An approximately periodic function with a period of 1.0 years and linearly growing amplitude",
    "A smooth function with a typical lengthscale of 2.3 years",
    "Uncorrelated noise with linearly increasing standard deviation",
]
HEADINGS = ["Data", "Executive summary"]
HEADINGS += [f"Component {i}: {p}" for i, p in enumerate(PHRASES, 1)]
HEADINGS += ["Extrapolation", "Model checking", "Appendix"]


# -- a realistic fake context ----------------------------------------------------------------


def build_fake_context(months: int = 144, kind: str = "svg") -> dict[str, Any]:
    """An airline-like report context with real figures from plots.py."""
    rng = np.random.default_rng(0)
    x = 1949 + (np.arange(months) + 0.5) / 12
    t = x - 1949
    trend = 110 + 21 * t
    season = (0.08 + 0.012 * t) * trend.mean() * np.sin(2 * np.pi * (x - 0.2))
    smooth = 12 * np.sin(t / 1.7)
    noise = rng.normal(0, 1 + 0.5 * t)
    y = trend + season + smooth + noise
    grid = np.linspace(x[0], x[-1] + 3, 60 + months)
    g = grid - 1949
    beyond = np.clip(grid - x[-1], 0, None)
    parts = [
        (110 + 21 * g, 2 + 3 * beyond),
        ((0.08 + 0.012 * g) * trend.mean() * np.sin(2 * np.pi * (grid - 0.2)), 3 + 2 * beyond),
        (12 * np.sin(g / 1.7) * np.exp(-beyond / 2), 2 + 4 * np.sqrt(beyond)),
        (np.zeros_like(grid), 1 + 0.5 * g),
    ]
    xl, yl = "Year", "Passengers (thousands)"

    def fig(figure: Figure, alt: str) -> dict[str, str]:
        return plots.embed_figure(figure, alt, kind)  # type: ignore[arg-type]

    components, rows = [], []
    cum_mean, cum_var = np.zeros_like(grid), np.zeros_like(grid)
    cum = [0.84, 0.962, 0.981, 0.993]
    for i, ((mean, sd), phrase) in enumerate(zip(parts, PHRASES, strict=True), 1):
        cum_mean, cum_var = cum_mean + mean, cum_var + sd**2
        left = dense_figures.component_figure(
            grid, mean, sd, (x[0], x[-1]), xl, yl, f"Component {i}"
        )
        right = dense_figures.cumulative_figure(
            grid,
            cum_mean,
            np.sqrt(cum_var),
            x,
            y,
            xl,
            yl,
            f"Components 1–{i}" if i > 1 else "Component 1",
        )
        components.append(
            {
                "index": i,
                "phrase": phrase,
                "paragraph": (
                    f"This component is {phrase[0].lower() + phrase[1:]}. It explains "
                    f"{100 * (cum[i - 1] - (cum[i - 2] if i > 1 else 0)):.1f}% of the variance "
                    "left by the components before it. The posterior uncertainty is small "
                    "across the data and widens steadily beyond the last observation."
                ),
                "figure_component": fig(left, f"Posterior of component {i}: {phrase}"),
                "figure_cumulative": fig(right, f"Sum of components 1 to {i} with the data"),
                "extrapolation": "This component is expected to continue its pattern for "
                "the next three years, with the uncertainty growing with the horizon.",
            }
        )
        rows.append(
            {
                "index": i,
                "phrase": phrase,
                "cum_r2": cum[i - 1],
                "delta_r2": cum[i - 1] - (cum[i - 2] if i > 1 else 0.0),
                "residual_r2": [0.84, 0.76, 0.5, 0.63][i - 1],
                "cv_mae": [41.2, 15.87, 10.3, 9.87][i - 1],
                "mae_reduction": [0.602, 0.847, 0.9, 0.904][i - 1],
            }
        )
    lags = np.arange(1, 25)
    acf_obs = 0.3 * np.cos(2 * np.pi * lags / 12) * np.exp(-lags / 20)
    freqs = np.linspace(0.01, 0.5, 60)
    pgram = np.exp(-freqs * 8) + 0.2 * rng.random(60)
    theo = np.sort(rng.normal(size=100))
    obs_q = np.sort(theo + rng.normal(0, 0.15, 100))
    checks = [
        plots.check_figure("acf", lags, acf_obs, acf_obs - 0.2, acf_obs + 0.15, "Autocorrelation"),
        plots.check_figure("periodogram", freqs, pgram, pgram * 0.5, pgram * 1.6, "Periodogram"),
        plots.check_figure(
            "quantile-quantile", theo, obs_q, theo - 0.3, theo + 0.3, "Quantile–quantile"
        ),
    ]
    return {
        "title": "Monthly international airline passengers",
        "subtitle": "An automatic analysis of 01-airline.csv",
        "generated": "2024-05-01 12:00 UTC",
        "data": {
            "description": "144 monthly observations of the number of airline passengers, "
            "from January 1949 to December 1960; no values are missing.",
            "figure": fig(plots.data_figure(x, y, xl, yl), "The raw data"),
        },
        "summary": {
            "intro": "The structure search found four additive components in the data.",
            "explained": "Together they explain 99.3% of the variation in the data.",
            "stops_improving": "After the third component the cross-validated error "
            "stops improving noticeably.",
            "bullets": [f"{p}." for p in PHRASES],
        },
        "table": {
            "baseline": "Baseline (mean)",
            "baseline_mae": 103.54,
            "rows": rows,
            "noise_note": None,
        },
        "components": components,
        "forecast": {
            "text": "The full model's forecast for the three years after the data, with "
            "a band of two standard deviations either side of the mean.",
            "figure": fig(
                plots.forecast_figure(x, y, grid, cum_mean, np.sqrt(cum_var), xl, yl),
                "Forecast of the full model",
            ),
            "component_sentences": [f"{p} is expected to persist." for p in PHRASES[:3]],
        },
        "checks": {
            "text": "One of three posterior predictive checks is significant at the 5% level: "
            "the autocorrelation of the residuals at lag 12 is larger than the model expects.",
            "rows": [
                {
                    "name": "Autocorrelation",
                    "statistic": "max |ACF|",
                    "p_value": 0.012,
                    "significant": True,
                },
                {
                    "name": "Periodogram",
                    "statistic": "max power",
                    "p_value": 0.41,
                    "significant": False,
                },
                {
                    "name": "Quantile–quantile",
                    "statistic": "max |Δq|",
                    "p_value": 0.0004,
                    "significant": True,
                },
            ],
            "figures": [fig(c, f"Check {i}") for i, c in enumerate(checks, 1)],
        },
        "appendix": {
            "kernel": "LIN(loc=1944.2) + PER(ℓ=0.93, p=1.0, σ=0.41) × LIN(loc=1946.1)\n"
            "  + SE(ℓ=2.31, σ=12.1) + WN(σ=0.12) × LIN(loc=1947.9)",
            "trace": [
                {"level": 1, "structure": "LIN", "bic": 1423.7, "candidates": 5},
                {"level": 2, "structure": "LIN + PER", "bic": 1102.35, "candidates": 23},
                {"level": 3, "structure": "LIN + PER × LIN", "bic": 989.01, "candidates": 41},
                {"level": 4, "structure": "LIN + PER × LIN + SE", "bic": 962.4, "candidates": 57},
            ],
            "settings": [
                ["Depth", "4"],
                ["Restarts", "3"],
                ["Workers", "8"],
                ["Kernels", "SE, LIN, PER, WN"],
            ],
            "seed": 42,
            "version": "0.1.0",
            "elapsed": "2 min 13 s",
            "notes": [
                "Dates were read as decimal years.",
                "The data were scaled to unit variance for fitting.",
            ],
        },
        "json": {"title": "Monthly international airline passengers", "r2": cum, "seed": 42},
    }


# -- a small HTML reader ---------------------------------------------------------------------


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


class Page(HTMLParser):
    """Collects sections, headings, images, links and all visible text of a page, and checks
    that every element is closed in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sections: list[str] = []
        self.h2: list[str] = []
        self.images: list[dict[str, str | None]] = []
        self.urls: list[str] = []
        self.tags: list[str] = []
        self.text: list[str] = []
        self._h2: list[str] | None = None
        self._skip = 0
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append(tag)
        if tag not in VOID:
            self.open.append(tag)
        if tag == "section":
            self.sections.append(a.get("id") or "")
        if tag == "h2" and "contents-title" not in (a.get("class") or ""):
            self._h2 = []
        if tag == "img":
            self.images.append(a)
        if tag in ("style", "script"):
            self._skip += 1
        for name in ("src", "href", "srcset", "action", "data"):
            if a.get(name):
                self.urls.append(a[name] or "")

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes <{self.open[-1:]}>"
        self.open.pop()
        if tag == "h2" and self._h2 is not None:
            self.h2.append(" ".join("".join(self._h2).split()))
            self._h2 = None
        if tag in ("style", "script"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if self._h2 is not None:
            self._h2.append(data)
        if not self._skip:
            self.text.append(data)


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    assert page.open == [], f"unclosed elements: {page.open}"
    return page


def pdf_page_count(pdf: bytes) -> int:
    """Pages in a PDF, counted in its (possibly compressed) object streams."""
    chunks = [pdf]
    for match in re.finditer(rb"stream\r?\n(.*?)\r?\nendstream", pdf, re.S):
        with contextlib.suppress(zlib.error):
            chunks.append(zlib.decompress(match.group(1)))
    return len(re.findall(rb"/Type\s*/Page(?![A-Za-z])", b"\n".join(chunks)))


# -- fixtures --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def context() -> dict[str, Any]:
    return build_fake_context(months=48)  # four years keep the PDF quick to draw


@pytest.fixture(scope="module")
def html(context: dict[str, Any]) -> str:
    return render.render_html(context)


@pytest.fixture(scope="module")
def pdf(html: str) -> bytes:
    return render.render_pdf(html)


# -- plots -----------------------------------------------------------------------------------


def test_plots_return_figures_with_plain_year_ticks() -> None:
    x = 2001 + np.arange(30) / 12  # a narrow range far from 0: matplotlib would use an offset
    fig = plots.data_figure(x, 1e5 + np.sin(x), "Year", "y")
    assert isinstance(fig, Figure) and fig.get_figwidth() == pytest.approx(6.5)
    fig.draw_without_rendering()
    ax = fig.axes[0]
    assert ax.xaxis.get_offset_text().get_text() == ""
    assert ax.yaxis.get_offset_text().get_text() == ""
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert "2002" in labels and all(re.fullmatch(r"\d{4}(\.\d+)?", s) for s in labels), labels
    half = dense_figures.component_figure(x, x * 0, x * 0 + 1, (2001, 2002), "Year", "y", "t")
    assert half.get_figwidth() == pytest.approx(3.2)


def test_plots_reject_mismatched_arrays() -> None:
    with pytest.raises(ValueError, match="same length"):
        plots.forecast_figure([1, 2], [1, 2], [1, 2, 3], [1, 2], [1, 2, 3], "x", "y")


def test_figure_helpers_give_clean_svg_and_png_data_uri() -> None:
    fig = plots.check_figure(
        "quantile-quantile", [-1, 0, 1], [-1.1, 0, 0.9], [-2, -1, 0], [0, 1, 2], "QQ"
    )
    svg = plots.figure_to_svg(fig)
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    no_ns = re.sub(r'xmlns(:\w+)?="[^"]*"', "", svg)
    assert "http" not in no_ns and "<metadata" not in svg
    png = plots.figure_to_png_base64(fig, dpi=50)
    assert png.startswith("data:image/png;base64,iVBORw0KGgo")
    entry = plots.embed_figure(fig, "alt text", "png")
    assert entry == {"kind": "png", "content": entry["content"], "alt": "alt text"}
    with pytest.raises(ValueError):
        plots.embed_figure(fig, "x", "gif")  # type: ignore[arg-type]


# -- HTML ------------------------------------------------------------------------------------


def test_sections_in_order_with_headings(html: str) -> None:
    page = parse(html)
    assert page.sections == SECTION_IDS
    assert page.h2 == HEADINGS
    assert page.tags[0] == "html" and "main" in page.tags


def test_summary_table_rows(html: str) -> None:
    text = " ".join(" ".join(parse(html).text).split())
    assert "Baseline (mean) — — — 103.5 —" in text
    assert "1 A linearly increasing function 84.0% +84.0% 84.0% 41.2 60.2%" in text
    assert "2 An approximately periodic" in text and "96.2% +12.2% 76.0% 15.9 84.7%" in text


def test_html_is_self_contained(html: str) -> None:
    page = parse(html)
    assert len(page.images) == 1 + 2 * 4 + 1 + 3 == 13
    for img in page.images:
        src = img["src"] or ""
        assert src.startswith("data:image/"), src[:40]
        assert img.get("alt")
        if src.startswith("data:image/svg+xml;base64,"):
            root = ET.fromstring(base64.b64decode(src.split(",", 1)[1]))
            assert root.tag == "{http://www.w3.org/2000/svg}svg"
    for url in page.urls:
        assert url.startswith(("data:", "#")), url[:60]
    assert not {"script", "link", "iframe", "object"} & set(page.tags)
    assert "http" not in html
    assert html.count("<style>") == 1 and "@page" in html


def test_png_figures_embed(context: dict[str, Any]) -> None:
    ctx = copy.deepcopy(context)
    x = np.linspace(2000, 2003, 20)
    png = plots.embed_figure(plots.data_figure(x, np.cos(x), "Year", "y"), "PNG data", "png")
    ctx["data"]["figure"] = png
    ctx["checks"]["figures"] = [png]
    page = parse(render.render_html(ctx))
    srcs = [i["src"] or "" for i in page.images]
    assert srcs[0] == png["content"] and srcs[-1] == png["content"]
    assert all(s.startswith("data:image/svg+xml;base64,") for s in srcs[1:-1])


def test_autoescape(context: dict[str, Any]) -> None:
    ctx = copy.deepcopy(context)
    ctx["components"][0]["phrase"] = "A <b>bold</b> & risky phrase"
    ctx["table"]["rows"][0]["phrase"] = "<script>alert(1)</script>"
    out = render.render_html(ctx)
    assert "<b>bold</b>" not in out and "&lt;b&gt;bold&lt;/b&gt; &amp; risky" in out
    assert "<script>" not in out
    assert "A <b>bold</b> & risky phrase" in parse(out).h2[2]


def test_strict_undefined(context: dict[str, Any]) -> None:
    ctx = copy.deepcopy(context)
    del ctx["components"][1]["extrapolation"]
    with pytest.raises(jinja2.UndefinedError, match="extrapolation"):
        render.render_html(ctx)
    ctx = copy.deepcopy(context)
    del ctx["subtitle"]
    with pytest.raises(jinja2.UndefinedError):
        render.render_html(ctx)


def test_the_filters_are_the_one_number_formatter() -> None:
    filters = render.environment().filters
    assert filters["number"] is numbers.format_number
    assert filters["percent"] is numbers.format_percent
    assert filters["pvalue"] is numbers.format_pvalue
    assert filters["decimals_for"] is numbers.decimals_for
    template = render.environment().from_string("{{ v | number(decimals=2) }} {{ v | percent }}")
    assert template.render(v=-1234.5) == "−1,234.50 −123,450.0%"


# -- PDF -------------------------------------------------------------------------------------


def test_pdf_has_pages_and_headings(pdf: bytes, tmp_path: Path) -> None:
    assert pdf.startswith(b"%PDF")
    pages = pdf_page_count(pdf)
    assert pages >= 2
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(pdf))
    assert len(reader.pages) == pages
    text = "\n".join(page.extract_text() for page in reader.pages)
    flat = " ".join(text.split())
    for heading in HEADINGS:
        assert " ".join(heading.split()[:6]) in flat, heading
    assert "Page 1 of" in flat


def test_templates_load_from_an_installed_package(tmp_path: Path) -> None:
    """Outside a source checkout the templates come from ``abcd_cli/templates`` (the wheel)."""
    package = tmp_path / "abcd_cli"
    (package / "reporting").mkdir(parents=True)
    source = Path(render.__file__).parents[1]
    for name in ("__init__.py", "errors.py", "files.py"):
        shutil.copy(source / name, package / name)
    (package / "reporting" / "__init__.py").write_text("")
    for name in ("render.py", "numbers.py"):
        shutil.copy(Path(render.__file__).parent / name, package / "reporting" / name)
    shutil.copytree(source.parent / "templates", package / "templates")
    code = (
        "from abcd_cli.reporting import render; assert render._templates_dir() is None; "
        "env = render.environment(); env.get_template('report.html'); render._css(env); "
        "print(type(env.loader).__name__)"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "PackageLoader"


# -- writing ---------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["html", "json"])
def test_write_report(context: dict[str, Any], tmp_path: Path, fmt: str) -> None:
    path = tmp_path / f"report.{fmt}"
    render.write_report(context, path, fmt)  # type: ignore[arg-type]
    text = path.read_text(encoding="utf-8")
    if fmt == "json":
        assert text.startswith('{\n "title"') and text.endswith("}\n")
    else:
        assert text.startswith("<!DOCTYPE html>")
    assert os.listdir(tmp_path) == [path.name]


def test_write_pdf(context: dict[str, Any], pdf: bytes, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(render, "render_pdf", lambda html: pdf)  # the real one ran already
    render.write_report(context, tmp_path / "r.pdf", "pdf")
    assert (tmp_path / "r.pdf").read_bytes() == pdf


@pytest.mark.parametrize("fmt", ["html", "pdf", "json"])
def test_write_report_is_atomic(
    context: dict[str, Any], tmp_path: Path, monkeypatch, fmt: str
) -> None:
    def boom(*args: object) -> str:
        raise RuntimeError("renderer exploded")

    for name in ("render_html", "render_pdf", "render_json"):
        monkeypatch.setattr(render, name, boom)
    old = tmp_path / "old.html"
    old.write_text("previous report")
    with pytest.raises(RuntimeError, match="exploded"):
        render.write_report(context, tmp_path / f"new.{fmt}", fmt)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError):
        render.write_report(context, old, fmt)  # type: ignore[arg-type]
    assert os.listdir(tmp_path) == ["old.html"]
    assert old.read_text() == "previous report"


def test_write_report_errors(context: dict[str, Any], tmp_path: Path) -> None:
    ctx = copy.deepcopy(context)
    del ctx["checks"]
    with pytest.raises(RunError, match="cannot render the html report"):
        render.write_report(ctx, tmp_path / "r.html", "html")
    ctx["json"] = {"bad": float("nan")}
    with pytest.raises(RunError, match="JSON"):
        render.write_report(ctx, tmp_path / "r.json", "json")
    with pytest.raises(InputError, match="unknown report format"):
        render.write_report(context, tmp_path / "r.txt", "txt")  # type: ignore[arg-type]
    assert os.listdir(tmp_path) == []


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "fake_report.pdf")
    fake = build_fake_context()
    render.write_report(fake, out, "pdf" if out.suffix == ".pdf" else "html")
    print(out)
