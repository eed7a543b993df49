"""The report functions of the Python API: ``report`` (``abcd_cli.report``) and what the
command line shares with it (``write_reports``, ``report_context``, ``report_format``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from abcd_cli.api import REPORT_FORMATS, _file_of, as_found_model
from abcd_cli.errors import InputError
from abcd_cli.found import EXTRAPOLATE, FoundModel
from abcd_cli.limits import TITLE


def report(
    model: FoundModel | str | Path,
    path: str | Path | None = None,
    format: str | None = None,
    *,
    title: str | None = None,
    extrapolate: float = EXTRAPOLATE,
    seed: int | None = None,
) -> Path | dict[str, Any]:
    """The automatic report: each additive component in plain English, their statistics, a
    forecast ``extrapolate`` × the data's range past it, model checks.

    With ``path``: written atomically as PDF, HTML or JSON (by ``format``, else the suffix);
    returns the path. Without: the report's content as a dict (the JSON report). ``seed``
    drives the model checks' simulations (default: the search's seed).
    """
    found = as_found_model(model)
    if path is None:
        if format not in (None, "json"):
            raise InputError("a report without a path is a dict; give a path for pdf or html")
        import json

        from abcd_cli.reporting.render import render_json

        context = report_context(found, title, extrapolate, seed, figures=False)
        return json.loads(render_json(context))
    from abcd_cli.destinations import check_destinations

    fmt = report_format(str(path), format, option="format=")
    check_destinations({"model": _file_of(model)}, {"path": path})
    write_reports(found, {fmt: path}, title=title, extrapolate=extrapolate, seed=seed)
    return Path(path)


def write_reports(
    found: FoundModel,
    outputs: Mapping[str, str | Path],
    *,
    title: str | None = None,
    extrapolate: float = EXTRAPOLATE,
    seed: int | None = None,
    source: str | None = None,
) -> None:
    """Decompose the model once and write its report in each format ({format: path})."""
    from abcd_cli.reporting.render import write_report

    figures = any(fmt != "json" for fmt in outputs)  # the JSON report holds no figure
    context = report_context(found, title, extrapolate, seed, source, figures)
    for fmt, path in outputs.items():
        write_report(context, path, fmt)


def report_context(
    found: FoundModel,
    title: str | None = None,
    extrapolate: float = EXTRAPOLATE,
    seed: int | None = None,
    source: str | None = None,
    figures: bool = True,
) -> dict[str, Any]:
    """The report's plain context (figures drawn unless ``figures`` is False), titled
    "Analysis of <source>" unless ``title`` is given; ``source`` defaults to the data's."""
    from abcd_cli.reporting.context import build_context

    check_title(title)
    source = source or found.source
    title = title or f"Analysis of {Path(source).stem}"
    dec = found.decomposition(extrapolate, seed)
    n_dropped = int(found.data.get("n_dropped", 0))
    record, particles = found.posterior, found.particles()
    return build_context(dec, title, source, found.document, n_dropped, figures, record, particles)


def check_title(title: str | None, option: str = "title") -> None:
    """Refuse a title longer than :data:`abcd_cli.limits.TITLE` characters (a title of 20,000
    words did not finish its PDF in two minutes); ``option`` names it in the message."""
    most = TITLE.value()
    if title is not None and len(title) > most:
        raise InputError(
            f"{option} is {len(title):,} characters long, more than the {most} a report's title"
            f" may have; shorten it, or {TITLE.raise_hint()}"
        )


def report_format(output: str, fmt: str | None, option: str = "--format") -> str:
    """``fmt`` if given, else the format named by the suffix of ``output``."""
    if fmt:
        if fmt not in REPORT_FORMATS:
            raise InputError(f"unknown report format {fmt!r}: choose pdf, html or json")
        return fmt
    suffix = Path(output).suffix.lower().lstrip(".")
    if suffix in ("htm",):
        return "html"
    if suffix not in REPORT_FORMATS:
        raise InputError(
            f"cannot tell the report format from {output!r}: use a .pdf, .html or .json name"
            f" or {option}"
        )
    return suffix
