"""The report's JSON view: everything the report states, without figures, NaN as null."""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any

import numpy as np

from abcd_cli import __version__
from abcd_cli.decompose.averaged import AveragedForecast, PosteriorForecast
from abcd_cli.decompose.components import Decomposition

#: A component's notes under its figures, which the JSON (having no figures) leaves out.
CAPTIONS = ("figure_note", "envelope_note")


def json_view(
    context: dict[str, Any],
    dec: Decomposition,
    search: dict[str, Any],
    averaged: AveragedForecast | None,
    posterior: PosteriorForecast | None = None,
) -> dict[str, Any]:
    """The sections' text and numbers, and the model file (without its data). A series'
    forecast carries its grid, mean and sd (and the seeds' averaged forecast); after
    ``--method posterior`` those are the posterior's, with its q2.5 and q97.5, and the
    decomposed structure's own mean and sd are its ``most_probable``; ``agreement`` says
    whether the structures agree past the data (their means and weights, the share of the
    band's variance their spread makes up); ``calibration`` the band's calibration on the
    series' own past (its sentence, factors by horizon band, origins, the backtest's errors), or
    why there is none. The findings are in ``summary.findings``, the page
    on the posterior in ``posterior``. A model of several
    inputs adds its inputs (``data.inputs``) and the variance table (``variance``)."""
    model_json = dict(search)
    model_json.pop("data", None)
    data = {
        "description": context["data"]["description"],
        "n": int(dec.model.n),
        "level": {"value": dec.level[0], "sd": dec.level[1]} if dec.level else None,
    }
    view = {
        "title": context["title"],
        "data": data,
        "summary": context["summary"],
        "table": context["table"],
        "components": [
            {k: v for k, v in c.items() if k not in CAPTIONS} for c in context["components"]
        ],
        "forecast": context["forecast"],
        "checks": {"text": context["checks"]["text"], "rows": context["checks"]["rows"]},
        "model": model_json,
        "version": __version__,
    }
    if dec.series is not None:
        view["forecast"] = {
            "text": context["forecast"]["text"],
            "assumptions": context["forecast"]["assumptions"],
            "component_sentences": context["forecast"]["component_sentences"],
            "x": dec.series.x_grid.tolist(),
            "mean": dec.series.forecast_mean.tolist(),
            "sd": dec.series.forecast_sd.tolist(),
        }
        if averaged is not None:
            view["forecast"]["averaged"] = averaged_json(averaged)
        if posterior is not None:
            view["forecast"].update(
                {
                    "most_probable": {
                        "mean": view["forecast"]["mean"],
                        "sd": view["forecast"]["sd"],
                    },
                    "mean": posterior.mean.tolist(),
                    "sd": posterior.sd.tolist(),
                    "q2.5": posterior.low.tolist(),
                    "q97.5": posterior.high.tolist(),
                    "agreement": posterior.agreement_dict(),
                }
            )
            if posterior.calibration is not None:
                view["forecast"]["calibration"] = {
                    "text": context["forecast"]["calibration"],
                    **posterior.calibration.to_dict(),
                }
    if "posterior" in context:
        view["posterior"] = context["posterior"]
    if "variance" in context:
        data["inputs"] = context["data"]["inputs"]
        view["variance"] = context["variance"]
    return clean(view)


def averaged_json(averaged: AveragedForecast) -> dict[str, Any]:
    """The averaged forecast under the names of ``abcd predict``'s columns (q2.5, q97.5)."""
    names = {"low": "q2.5", "high": "q97.5"}
    return {names.get(k, k): np.asarray(v).tolist() for k, v in asdict(averaged).items()}


def clean(value: Any) -> Any:
    """NaN and infinities as None, figures left out, recursively."""
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items() if not k.startswith("figure")}
    if isinstance(value, list):
        return [clean(v) for v in value]
    return value
