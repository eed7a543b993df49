"""Build the report of a model of several inputs: decomposition + sentences + figures → one
plain context (rendered by ``templates/report.html``, as for one input) and its JSON view.

The JSON view has the one-input report's keys, with the inputs (``data.inputs``), each
component's inputs and share of the fitted mean's variance, the variance table
(``variance``), and ``forecast`` null when no input is time.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from abcd_cli import __version__
from abcd_cli.decompose.several_inputs import InputsDecomposition
from abcd_cli.reporting.inputs_phrases import component_phrase
from abcd_cli.reporting.inputs_sections import (
    checks_text_section,
    component_sections,
    data_section,
    forecast_section,
    frame_of,
    inputs_appendix,
    summary_section,
    table_section,
    variance_section,
)
from abcd_cli.reporting.json_view import clean


def build_inputs_context(
    dec: InputsDecomposition,
    title: str,
    source: str,
    search: dict[str, Any],
    n_dropped: int = 0,
    figures: bool = True,
) -> dict[str, Any]:
    """The full report context of a model of several inputs (``figures=False``: none drawn)."""
    frame = frame_of(dec, figures)
    phrases = [component_phrase(dec, c) for c in dec.components]
    components = component_sections(dec, phrases, frame)
    context: dict[str, Any] = {
        "title": title,
        "subtitle": f"An automatic analysis of {Path(source).name}",
        "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "data": data_section(dec, n_dropped, frame),
        "summary": summary_section(dec, phrases),
        "table": table_section(dec, components),
        "components": components,
        "variance": variance_section(dec),
        "forecast": forecast_section(dec, components),
        "checks": checks_text_section(dec, frame),
        "appendix": inputs_appendix(dec, search),
    }
    context["json"] = inputs_json(context, dec, search)
    return context


def inputs_json(
    context: dict[str, Any], dec: InputsDecomposition, search: dict[str, Any]
) -> dict[str, Any]:
    """Everything the report states, without figures; the model file without its data."""
    model_json = dict(search)
    model_json.pop("data", None)
    components = [{k: v for k, v in c.items() if k != "figure_note"} for c in context["components"]]
    return clean(
        {
            "title": context["title"],
            "data": {
                "description": context["data"]["description"],
                "n": int(dec.model.n),
                "inputs": context["data"]["inputs"],
                "level": {"value": dec.level[0], "sd": dec.level[1]} if dec.level else None,
            },
            "summary": context["summary"],
            "table": context["table"],
            "components": components,
            "variance": context["variance"],
            "forecast": context["forecast"],
            "checks": {"text": context["checks"]["text"], "rows": context["checks"]["rows"]},
            "model": model_json,
            "version": __version__,
        }
    )
