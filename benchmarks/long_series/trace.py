"""The search's per-level numbers and the chosen model, read from ``abcd``'s JSON.

Both the model file (``abcd search --json``, ``abcd report --json``: the trace at the top, the
data under ``data``) and the JSON report (``abcd report -o OUT.json``: the model under
``model``, without its data) are read. The reader is defensive: each number is looked up under
the names below and left None when the file has none of them.

Fields on main today (per level): ``level``, ``candidates``, ``failed``, ``rejected``,
``structure``, ``kernel``, ``bic``, ``elapsed_seconds`` (cumulative: a level's time is the
difference). Expected from the SKC search (issue 30), as its branches wrote them when this was
written: per level ``bic_low`` (the interval is [bic_low, bic]), ``bic_width``, ``kept``,
``pruned``, ``evaluations`` and ``full_data_evaluations`` (of that level); per model
``bic_interval`` and ``engine`` = {"name", "m", ..., "inducing_x"}. Not recorded there yet,
but read if they come: per-level wall time, PCG iterations and peak memory. The names tried
for each are in ``LEVEL_FIELDS`` and ``MODEL_FIELDS``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LEVEL_FIELDS: dict[str, tuple[str, ...]] = {
    "seconds": ("wall_seconds", "level_seconds", "seconds", "wall_time"),
    "elapsed": ("elapsed_seconds", "elapsed"),
    "candidates": ("candidates", "n_candidates"),
    "evaluations": ("evaluations", "n_evaluations", "evals", "function_evaluations"),
    "full_evaluations": ("full_data_evaluations", "full_evaluations"),
    "kept": ("kept", "buffer"),
    "pcg": ("pcg_iterations", "pcg_products", "pcg_iters", "pcg"),
    "interval": ("bic_interval", "best_interval", "interval"),
    "width": ("interval_width", "best_width", "bic_width", "width"),
    "pruned": ("pruned", "candidates_pruned", "n_pruned"),
    "bic": ("bic", "best_bic"),
    "memory": ("peak_memory_mib", "peak_rss_mib", "peak_memory", "max_rss"),
}
MODEL_FIELDS: dict[str, tuple[str, ...]] = {
    "engine": ("engine",),
    "inducing": ("inducing", "m", "n_inducing", "inducing_points", "inducing_x"),
    "interval": ("bic_interval", "interval"),
}


@dataclass(frozen=True)
class Level:
    """One level of the search (None: the JSON does not say)."""

    level: int
    structure: str | None
    bic: float | None
    seconds: float | None
    candidates: int | None
    evaluations: int | None
    full_evaluations: int | None
    kept: int | None
    pcg: int | None
    interval: tuple[float, float] | None
    width: float | None
    pruned: int | None
    memory: float | None


@dataclass(frozen=True)
class Chosen:
    """The chosen model: kernel text (user units), BIC, its interval, engine, m, and the first
    and last x of its data (None in a JSON report, which holds no data)."""

    kernel: str
    structure: str | None
    bic: float | None
    interval: tuple[float, float] | None
    engine: str | None
    inducing: int | None
    x_first: float | None
    x_last: float | None
    search_seconds: float | None
    notes: tuple[str, ...]


def model_part(document: Mapping[str, Any]) -> Mapping[str, Any]:
    """The model file inside ``document``: itself, or a JSON report's ``model``."""
    if "trace" not in document and isinstance(document.get("model"), Mapping):
        return document["model"]
    return document


def _first(d: Mapping[str, Any], names: Sequence[str]) -> Any:
    for name in names:
        if name in d and d[name] is not None:
            return d[name]
    return None


def _number(value: Any) -> float | None:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def _count(value: Any) -> int | None:
    v = _number(value)
    return None if v is None else int(round(v))


def _interval(value: Any) -> tuple[float, float] | None:
    """[low, high], (low, high) or {"low"|"lower": .., "high"|"upper": ..}."""
    if isinstance(value, Mapping):
        value = (_first(value, ("low", "lower", "lo")), _first(value, ("high", "upper", "hi")))
    if isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 2:
        low, high = _number(value[0]), _number(value[1])
        if low is not None and high is not None:
            return (low, high)
    return None


def levels(document: Mapping[str, Any]) -> list[Level]:
    """The per-level rows of the trace in ``document`` (model file or JSON report)."""
    rows = model_part(document).get("trace") or []
    out: list[Level] = []
    previous = 0.0
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            continue
        seconds = _number(_first(row, LEVEL_FIELDS["seconds"]))
        elapsed = _number(_first(row, LEVEL_FIELDS["elapsed"]))
        if seconds is None and elapsed is not None:
            seconds = max(elapsed - previous, 0.0)
        if elapsed is not None:
            previous = elapsed
        interval = _interval(_first(row, LEVEL_FIELDS["interval"]))
        if interval is None and "bic_low" in row:  # the upper end under bic_high, else bic
            interval = _interval((row.get("bic_low"), _first(row, ("bic_high", "bic"))))
        width = _number(_first(row, LEVEL_FIELDS["width"]))
        if width is None and interval is not None:
            width = interval[1] - interval[0]
        out.append(
            Level(
                level=_count(row.get("level")) if row.get("level") is not None else i,
                structure=row.get("structure"),
                bic=_number(_first(row, LEVEL_FIELDS["bic"])),
                seconds=seconds,
                candidates=_count(_first(row, LEVEL_FIELDS["candidates"])),
                evaluations=_count(_first(row, LEVEL_FIELDS["evaluations"])),
                full_evaluations=_count(_first(row, LEVEL_FIELDS["full_evaluations"])),
                kept=_count(_first(row, LEVEL_FIELDS["kept"])),
                pcg=_count(_first(row, LEVEL_FIELDS["pcg"])),
                interval=interval,
                width=width,
                pruned=_count(_first(row, LEVEL_FIELDS["pruned"])),
                memory=_number(_first(row, LEVEL_FIELDS["memory"])),
            )
        )
    return out


def chosen(document: Mapping[str, Any]) -> Chosen:
    """The chosen model in ``document``; KeyError when it holds no kernel."""
    model = model_part(document)
    settings = model.get("settings") if isinstance(model.get("settings"), Mapping) else {}
    engine = _first(model, MODEL_FIELDS["engine"]) or _first(settings, MODEL_FIELDS["engine"])
    if isinstance(engine, Mapping):  # {"name": "skc", "m": 320, ...}
        inducing = _first(engine, MODEL_FIELDS["inducing"])
        engine = engine.get("name")
    else:
        inducing = None
    if inducing is None:
        inducing = _first(model, MODEL_FIELDS["inducing"])
    if inducing is None:
        inducing = _first(settings, MODEL_FIELDS["inducing"])
    if isinstance(inducing, Sequence) and not isinstance(inducing, str):
        inducing = len(inducing)  # the inducing inputs themselves
    x = (model.get("data") or {}).get("x") if isinstance(model.get("data"), Mapping) else None
    x_first = x_last = None
    if isinstance(x, Sequence) and len(x) >= 2:
        first, last = x[0], x[-1]
        if isinstance(first, Sequence):  # (N, D): the first input
            first, last = first[0], last[0]
        x_first, x_last = _number(first), _number(last)
    return Chosen(
        kernel=str(model["kernel"]),
        structure=model.get("structure"),
        bic=_number(model.get("bic")),
        interval=_interval(_first(model, MODEL_FIELDS["interval"])),
        engine=None if engine is None else str(engine),
        inducing=_count(inducing),
        x_first=x_first,
        x_last=x_last,
        search_seconds=_number(model.get("elapsed_seconds")),
        notes=tuple(str(n) for n in model.get("notes") or ()),
    )


def read(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as f:
        return json.load(f)
