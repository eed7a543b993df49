"""Render a finished report context (a plain dict) as HTML, PDF or JSON.

One Jinja :class:`~jinja2.Environment` (autoescaping, :class:`~jinja2.StrictUndefined`) with its
filters registered beside it, as in datasette. The HTML is one self-contained file: the CSS of
``templates/report.css`` is inlined in a ``<style>`` tag and every figure is an ``<img>`` whose
``src`` is a ``data:`` URI. The PDF is made from that same HTML by WeasyPrint (nbconvert's
webpdf idea), so the two never drift apart. Nothing is computed here: figures arrive as
rendered strings (see :func:`abcd_cli.reporting.figures.embed_figure`).
"""

from __future__ import annotations

import base64
import functools
import json
from pathlib import Path
from typing import Any, Literal

import jinja2
from markupsafe import Markup

from abcd_cli.errors import InputError, RunError
from abcd_cli.files import write_output
from abcd_cli.reporting.numbers import decimals_for, format_number, format_percent, format_pvalue

FORMATS = ("html", "pdf", "json")


def _templates_dir() -> Path | None:
    """``templates/`` at the top of a source checkout (beside ``pyproject.toml``), if this
    module runs from one."""
    root = Path(__file__).resolve().parents[2]
    folder = root / "templates"
    if (root / "pyproject.toml").is_file() and (folder / "report.html").is_file():
        return folder
    return None


def _loader() -> jinja2.BaseLoader:
    """Templates from the source checkout first, else from the installed package data
    (``abcd_cli/templates`` inside the wheel)."""
    folder = _templates_dir()
    if folder is not None:
        return jinja2.FileSystemLoader(str(folder))
    try:
        return jinja2.PackageLoader("abcd_cli", "templates")
    except ValueError as exc:
        raise RunError("report templates not found: reinstall abcd-cli") from exc


# -- filters (numbers: abcd_cli.reporting.numbers) -------------------------------------------


def figure_src(figure: dict[str, Any]) -> str:
    """The ``src`` of an ``<img>`` for a context figure: PNG data URIs pass through, SVG markup
    becomes a base64 ``data:image/svg+xml`` URI (keeps each figure's ids to itself)."""
    kind, content = figure["kind"], figure["content"]
    if kind == "svg":
        encoded = base64.b64encode(content.encode("utf-8")).decode("ascii")
        return f"data:image/svg+xml;base64,{encoded}"
    if kind == "png":
        if not content.startswith("data:image/png;base64,"):
            raise ValueError("a png figure's content must be a data:image/png;base64 URI")
        return content
    raise ValueError(f"figure kind must be 'svg' or 'png', got {kind!r}")


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The report's Jinja environment with its filters."""
    env = jinja2.Environment(
        loader=_loader(),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        number=format_number,
        decimals_for=decimals_for,
        percent=format_percent,
        pvalue=format_pvalue,
        figure_src=figure_src,
    )
    return env


def _css(env: jinja2.Environment) -> Markup:
    """``report.css`` as trusted text for the ``<style>`` tag."""
    assert env.loader is not None
    source, _, _ = env.loader.get_source(env, "report.css")
    if "</style" in source.lower():
        raise RunError("report.css must not contain '</style'")
    return Markup(source)


# -- public API ------------------------------------------------------------------------------


def render_html(context: dict[str, Any]) -> str:
    """The report as one self-contained HTML page (CSS inlined, figures as data URIs).

    Raises :class:`jinja2.UndefinedError` when the context lacks a key the templates use.
    """
    env = environment()
    return env.get_template("report.html").render(context, css=_css(env))


def render_pdf(html: str) -> bytes:
    """The PDF of the HTML page, printed by WeasyPrint with the page's print CSS."""
    try:  # deferred: importing WeasyPrint (pango, fonts) takes a moment
        import weasyprint
    except (ImportError, OSError) as exc:  # OSError: the system's pango library is missing
        raise RunError(f"cannot make a PDF: WeasyPrint is not usable here ({exc})") from exc
    return weasyprint.HTML(string=html).write_pdf()


def render_json(context: dict[str, Any]) -> str:
    """``context["json"]`` as strict JSON (no NaN or infinity), indented by one space."""
    return json.dumps(context["json"], indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def render(context: dict[str, Any], fmt: Literal["html", "pdf", "json"]) -> str | bytes:
    """The report in one of :data:`FORMATS`, in memory."""
    if fmt == "html":
        return render_html(context)
    if fmt == "pdf":
        return render_pdf(render_html(context))
    if fmt == "json":
        return render_json(context)
    raise InputError(f"unknown report format {fmt!r}: choose one of {', '.join(FORMATS)}")


def write_report(
    context: dict[str, Any], path: str | Path, fmt: Literal["html", "pdf", "json"]
) -> None:
    """Render the report and write it to ``path`` atomically: if rendering or writing fails,
    ``path`` is left as it was and no temporary file remains."""
    if fmt not in FORMATS:
        raise InputError(f"unknown report format {fmt!r}: choose one of {', '.join(FORMATS)}")
    try:
        data = render(context, fmt)
    except jinja2.TemplateError as exc:
        raise RunError(f"cannot render the {fmt} report: {exc}") from exc
    except KeyError as exc:
        raise RunError(f"cannot render the {fmt} report: missing key {exc}") from exc
    except (TypeError, ValueError) as exc:
        if fmt != "json":
            raise
        raise RunError(f"cannot write the JSON report: {exc}") from exc
    write_output(path, data, "the report")
