"""A found model in a notebook: its summary as HTML or Markdown, and the report's figures as
matplotlib ``Figure`` objects (what :class:`abcd_cli.found.FoundModel` shows and plots).

The figures are the report's own, drawn by the same functions
(:func:`~abcd_cli.reporting.forecast.forecast_drawing`,
:func:`~abcd_cli.reporting.component_sections.series_drawings` and
:func:`~abcd_cli.reporting.component_sections.inputs_drawing`); the table's numbers are
formatted as the report's table formats them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from html import escape
from typing import TYPE_CHECKING, Any

from matplotlib.figure import Figure

from abcd_cli.decompose.components import Decomposition
from abcd_cli.reporting.component_sections import inputs_drawing, series_drawings
from abcd_cli.reporting.figures import figure_to_png_base64
from abcd_cli.reporting.forecast import forecast_drawing, mixed_forecasts
from abcd_cli.reporting.numbers import decimals_for, format_number, format_percent
from abcd_cli.reporting.sections import frame_of

if TYPE_CHECKING:
    from abcd_cli.found import FoundModel
    from abcd_cli.kernel_search.posterior import StructurePosterior
    from abcd_cli.model import Particles

#: The components table's columns, named and ordered as the report's table names them.
HEADER = ("#", "Component", "Cumulative R²", "ΔR²", "CV MAE")
#: Resolution of the summary's figure (the report's forecast figure, 6.5 in wide).
SUMMARY_DPI = 80
#: Characters a Markdown text escapes with a backslash.
MARKDOWN_SPECIAL = "\\`*_[]<>|"


def forecast_plot(
    dec: Decomposition,
    search: Mapping[str, Any],
    record: StructurePosterior,
    particles: Particles | None = None,
) -> Figure:
    """The report's forecast figure of a series: the data, the fit and the forecast band (the
    mixture's of the method's weighted particles, ``record``, unless it is the model alone;
    their conditioned ``particles`` when the caller holds them; ``search``, the model's
    document, gives the seeds' average)."""
    averaged, posterior = mixed_forecasts(dec, search, record, particles)
    return forecast_drawing(dec, frame_of(dec), averaged, posterior)()


def component_plots(dec: Decomposition, cumulative: bool = False) -> list[Figure]:
    """The report's figure of each component: for a series, the component alone, or with
    ``cumulative`` the sum of the components up to it against the data; for several inputs,
    each drawn component's (noise, a constant and a component of three inputs or more have
    none)."""
    if dec.series is not None:
        frame = frame_of(dec)
        return [series_drawings(dec, c, frame)[int(cumulative)]() for c in dec.components]
    drawings = (inputs_drawing(dec, c)[0] for c in dec.components)
    return [draw() for draw in drawings if draw is not None]


def summary_sentences(found: FoundModel) -> list[str]:
    """The summary's plain sentences: the data and the model's BIC; with a posterior, the
    structure's weight and that forecasts are the mixture's."""
    x = ", ".join(found.x_names)
    bic = format_number(found.bic, decimals=2)
    sentences = [f"{found.y_name} against {x}: n = {found.n}, BIC {bic}."]
    posterior = found.posterior
    if not posterior.is_single:
        sentences.append(
            f"This structure is the most probable of the {posterior.structure_count} the"
            " posterior weighs, with weight"
            f" {format_number(float(posterior.weights[0]), decimals=2)}; forecasts (predict,"
            " plot) are the posterior mixture's."
        )
    return sentences


def table_rows(found: FoundModel) -> list[tuple[str, ...]]:
    """The components table's cells, formatted as the report's table formats them."""
    components = found.components
    decimals = decimals_for([c.cv_mae for c in components], 4)
    return [
        (
            str(c.index),
            c.description,
            format_percent(c.cumulative_share),
            format_percent(c.share, signed=True),
            format_number(c.cv_mae, decimals=decimals),
        )
        for c in components
    ]


def summary_markdown(found: FoundModel) -> str:
    """The summary as Markdown: the structure, the sentences and the components table."""
    lines = [f"**{type(found).__name__}** {_code(found.structure)}", ""]
    lines += [_markdown(s) for s in summary_sentences(found)]
    lines += ["", _markdown_row(HEADER), _markdown_row(("---",) * len(HEADER))]
    lines += [_markdown_row(tuple(map(_markdown, row))) for row in table_rows(found)]
    return "\n".join(lines) + "\n"


def summary_html(found: FoundModel, figure: Figure | None) -> str:
    """The summary as HTML, every text escaped, with ``figure`` (if any) as an inline PNG."""
    head = "".join(f"<th>{escape(h)}</th>" for h in HEADER)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>"
        for row in table_rows(found)
    )
    parts = [
        f"<p><strong>{type(found).__name__}</strong> <code>{escape(found.structure)}</code></p>",
        *(f"<p>{escape(s)}</p>" for s in summary_sentences(found)),
        f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>",
    ]
    if figure is not None:
        alt = escape(f"{found.y_name}: the data, the fit and the forecast")
        src = figure_to_png_base64(figure, dpi=SUMMARY_DPI)
        parts.append(f'<img src="{src}" alt="{alt}" style="max-width: 100%">')
    return '<div class="abcd-model">' + "".join(parts) + "</div>"


def _markdown(text: str) -> str:
    """``text`` as literal Markdown: its special characters escaped."""
    return "".join(f"\\{ch}" if ch in MARKDOWN_SPECIAL else ch for ch in text)


def _markdown_row(cells: tuple[str, ...]) -> str:
    """A Markdown table's row of ``cells``."""
    return "| " + " | ".join(cells) + " |"


def _code(text: str) -> str:
    """``text`` as a Markdown code span, fenced by more backticks than it holds in a row."""
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    return f"{fence} {text} {fence}"
