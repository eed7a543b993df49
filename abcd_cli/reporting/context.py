"""Build the report: decomposition + sentences + figures → one plain context → HTML / PDF / JSON.

One builder for a model of any number of inputs. The context is a dict of strings, numbers and
embedded figures, one entry per section (built by :mod:`abcd_cli.reporting.sections`,
:mod:`~abcd_cli.reporting.component_sections`, :mod:`~abcd_cli.reporting.forecast` and, with
several inputs, :mod:`~abcd_cli.reporting.variance_section`); ``render`` only presents it.
``context["json"]`` holds everything the report states (numbers and sentences) for machines
(:mod:`abcd_cli.reporting.json_view`).
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from abcd_cli.decompose.certainty import posterior_facts
from abcd_cli.decompose.components import Decomposition
from abcd_cli.kernel_search.posterior import StructurePosterior
from abcd_cli.reporting.calibration_text import table_calibration_note
from abcd_cli.reporting.component_sections import component_sections
from abcd_cli.reporting.forecast import forecast_section, mixed_forecasts
from abcd_cli.reporting.json_view import json_view
from abcd_cli.reporting.posterior_page import posterior_section
from abcd_cli.reporting.sections import (
    appendix_section,
    checks_section,
    data_section,
    frame_of,
    summary_section,
    table_section,
)
from abcd_cli.reporting.variance_section import variance_section
from abcd_cli.reporting.weak import weak_reasons

if TYPE_CHECKING:
    from abcd_cli.model import Particles


def build_context(
    dec: Decomposition,
    title: str,
    source: str,
    search: dict[str, Any],
    n_dropped: int = 0,
    figures: bool = True,
    record: StructurePosterior | None = None,
    particles: Particles | None = None,
) -> dict[str, Any]:
    """The full report context. ``search`` is the search's JSON (trace, settings, notes, and
    the models of several seeds when there are some). ``figures=False`` draws none (their
    entries stay empty): what the JSON report needs. A model of several inputs adds the
    variance table (``variance``); its ``forecast`` is None when no input is time.
    ``record``: the method's weighted particles (``kernel_search.posterior``; None: the model
    alone), whose probabilities and mixture the report states when there are several;
    ``particles``: their conditioned models when the caller holds them."""
    frame = frame_of(dec, figures)
    record = record or StructurePosterior.single(dec.model.kernel, dec.model.bic)
    facts = posterior_facts(dec.model, record, search)
    weak = weak_reasons(dec)
    components = component_sections(dec, frame, facts, weak)
    averaged, posterior = mixed_forecasts(dec, search, record, particles)
    context: dict[str, Any] = {
        "title": title,
        "subtitle": f"An automatic analysis of {Path(source).name}",
        "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "data": data_section(dec, n_dropped, frame),
        "summary": summary_section(dec, facts, weak),
        "table": table_section(dec, components),
        "components": components,
        "forecast": forecast_section(dec, components, averaged, frame, posterior),
        "checks": checks_section(dec, frame),
        "appendix": appendix_section(dec, search),
    }
    if dec.variance is not None:
        context["variance"] = variance_section(dec)
    if facts is not None:
        context["posterior"] = posterior_section(facts, dec)
        note = table_calibration_note(dec, search)
        if note is not None:
            context["posterior"]["calibration"] = note
    context["json"] = json_view(context, dec, search, averaged, posterior)
    return context
