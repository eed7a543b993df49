"""A found model in a notebook: its HTML and Markdown summaries, ``plot()`` (the report's forecast
figure, the posterior mixture's band after ``method="posterior"``) and ``plot_components()``
(the report's figure of each component)."""

from __future__ import annotations

import base64
from html import escape
from html.parser import HTMLParser

import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.figure import Figure

import abcd_cli
from abcd_cli.decompose.averaged import posterior_forecast
from abcd_cli.errors import InputError
from abcd_cli.model import posterior_of
from abcd_cli.reporting.numbers import format_number, format_percent
from tests.reporting.test_report import _search_doc
from tests.reporting.test_report import fixed_model as series_model
from tests.reporting.test_several_inputs import CAR_INPUTS, CARS
from tests.reporting.test_several_inputs import fixed_model as inputs_model

Y_NAME, X_NAME = "<b>sales</b>", "date & time"


@pytest.fixture(scope="module")
def found() -> abcd_cli.FoundModel:
    """The report tests' fixed series model (four components, no search), its names to
    escape."""
    doc = _search_doc(series_model())
    doc["data"].update({"y_name": Y_NAME, "x_name": X_NAME})
    return abcd_cli.FoundModel.from_document(doc)


@pytest.fixture(scope="module")
def posterior_found() -> abcd_cli.FoundModel:
    x = 2000 + np.arange(40) / 12
    y = 10 + 2 * np.sin(2 * np.pi * x) + 0.3 * np.random.default_rng(3).standard_normal(x.size)
    return abcd_cli.search(
        x=x, y=y, method="posterior", depth=1, restarts=1, pool=2, draws=4, jobs=1
    )


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.images: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        if tag == "img":
            self.images.append(dict(attrs)["src"] or "")


def _band(ax: Axes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The x, low and high of the axes' (first) band."""
    vertices = ax.collections[0].get_paths()[0].vertices
    x = np.unique(vertices[:, 0])
    at = [vertices[vertices[:, 0] == v, 1] for v in x]
    return x, np.array([a.min() for a in at]), np.array([a.max() for a in at])


def _line(ax: Axes, label: str) -> tuple[np.ndarray, np.ndarray]:
    (line,) = [line for line in ax.get_lines() if line.get_label() == label]
    return np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float)


def test_the_html_summary_holds_the_structure_table_and_figure_with_text_escaped(
    found: abcd_cli.FoundModel,
) -> None:
    html = found._repr_html_()
    parser = _Tags()
    parser.feed(html)
    # the names are text: no <b> tag, and the ampersand is an entity
    assert parser.tags == {"div", "p", "strong", "code", "table", "thead", "tbody", "tr", "th",
                           "td", "img"}  # fmt: skip
    assert escape(Y_NAME) in html and escape(X_NAME) in html and Y_NAME not in html
    assert f"<code>{escape(found.structure)}</code>" in html
    assert f"n = {found.n}, BIC {format_number(found.bic, decimals=2)}" in html
    assert len(found.components) == 4
    for c in found.components:
        row = f"<td>{c.index}</td><td>{escape(c.description)}</td>"
        assert row + f"<td>{escape(format_percent(c.cumulative_share))}</td>" in html
    (src,) = parser.images
    assert src.startswith("data:image/png;base64,")
    assert base64.b64decode(src.split(",", 1)[1]).startswith(b"\x89PNG")
    assert "posterior" not in html
    assert repr(found) == f"<FoundModel {found.structure}  BIC {found.bic:.2f}  n={found.n}>"


def test_the_markdown_summary_holds_the_table(found: abcd_cli.FoundModel) -> None:
    lines = found._repr_markdown_().splitlines()
    assert lines[0] == f"**FoundModel** ` {found.structure} `"
    assert lines[2].startswith("\\<b\\>sales\\</b\\> against date & time: n = 96")
    table = lines[lines.index("| # | Component | Cumulative R² | ΔR² | CV MAE |") :]
    assert table[1] == "| --- | --- | --- | --- | --- |"
    rows = [row.split(" | ") for row in table[2:]]
    assert [(r[0], r[1]) for r in rows] == [
        (f"| {c.index}", c.description) for c in found.components
    ]
    assert [r[2] for r in rows] == [format_percent(c.cumulative_share) for c in found.components]
    assert [r[3] for r in rows] == [format_percent(c.share, signed=True) for c in found.components]


def test_plot_draws_the_data_and_the_models_forecast_band(found: abcd_cli.FoundModel) -> None:
    fig = found.plot(extrapolate=0.5)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    x, y = _line(ax, "data")
    np.testing.assert_array_equal(x, found.model.x)
    np.testing.assert_array_equal(y, found.model.y)
    curves = found.decomposition(0.5).series
    assert curves is not None
    grid, low, high = _band(ax)
    np.testing.assert_allclose(grid, curves.x_grid)
    span = x.max() - x.min()
    assert grid.max() == pytest.approx(x.max() + 0.5 * span)
    np.testing.assert_allclose(low, curves.forecast_mean - 2 * curves.forecast_sd)
    np.testing.assert_allclose(high, curves.forecast_mean + 2 * curves.forecast_sd)
    assert ax.get_xlabel() == f"{X_NAME} (years)" and ax.get_ylabel() == Y_NAME
    with pytest.raises(InputError, match="extrapolate"):
        found.plot(extrapolate=-1.0)


def test_plot_components_draws_the_reports_figure_of_each(found: abcd_cli.FoundModel) -> None:
    dec = found.decomposition()
    alone = found.plot_components()
    assert [f.axes[0].get_title(loc="left") for f in alone] == [
        f"Component {c.index}" for c in dec.components
    ]
    for fig, c in zip(alone, dec.components, strict=True):
        np.testing.assert_allclose(_line(fig.axes[0], "fitted mean")[1], c.mean)
    summed = found.plot_components(cumulative=True)
    assert [f.axes[0].get_title(loc="left") for f in summed] == [
        "Component 1",
        "Sum of components 1-2",
        "Sum of components 1-3",
        "Sum of components 1-4",
    ]
    assert dec.series is not None
    last = summed[-1].axes[0]
    np.testing.assert_allclose(_line(last, "sum of components")[1], dec.series.cumulative_mean[-1])
    np.testing.assert_array_equal(_line(last, "data")[1], found.model.y)


def test_a_posterior_models_summary_and_band_are_the_mixtures(
    posterior_found: abcd_cli.FoundModel,
) -> None:
    posterior = posterior_found.posterior
    assert posterior is not None
    weight = format_number(float(posterior.weights[0]), decimals=2)
    said = (
        f"the most probable of the {posterior.structure_count} the posterior weighs, with weight"
        f" {weight}; forecasts (predict, plot) are the posterior mixture's"
    )
    assert said in posterior_found._repr_html_().replace("&#x27;", "'")
    assert said in posterior_found._repr_markdown_()
    ax = posterior_found.plot().axes[0]
    curves = posterior_found.decomposition().series
    assert curves is not None
    mixture = posterior_forecast(
        posterior_found.model,
        posterior_of(posterior_found.document, posterior_found.model),
        posterior_found.document,
        curves.x_grid,
    )
    assert mixture is not None
    grid, low, high = _band(ax)
    np.testing.assert_allclose(grid, curves.x_grid)
    np.testing.assert_allclose(low, mixture.low)
    np.testing.assert_allclose(high, mixture.high)
    np.testing.assert_allclose(_line(ax, "forecast mean")[1], mixture.mean)
    own = curves.forecast_mean + 2 * curves.forecast_sd  # the chosen model's band alone
    assert np.max(np.abs(high - own)) > 1e-3
    assert "central 95%" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_a_model_of_several_inputs_has_no_forecast_figure() -> None:
    doc = inputs_model(CARS, CAR_INPUTS).to_dict()
    doc["data"]["x_kinds"] = ["number"] * len(CAR_INPUTS)
    found = abcd_cli.FoundModel.from_document(doc)
    with pytest.raises(InputError, match="plot\\(\\) draws a series; this model has 3 inputs"):
        found.plot()
    with pytest.raises(InputError, match="cumulative"):
        found.plot_components(cumulative=True)
    dec = found.decomposition()
    drawn = [c.index for c in dec.components if not c.is_noise and 0 < len(c.dims) <= 2]
    assert 0 < len(drawn) < len(dec.components)  # noise and a term of three inputs are not
    figures = found.plot_components()
    assert [f.axes[0].get_title(loc="left") for f in figures] == [f"Component {i}" for i in drawn]
    html = found._repr_html_()
    assert "<img" not in html and "a smooth function of weight" in html
