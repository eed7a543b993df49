"""The report's sections for a model of several inputs, one function each: data, summary and
its table, components, variance shares, extrapolation (only when an input is time), checks.

Each takes the finished :class:`~abcd_cli.decompose.several_inputs.InputsDecomposition` and
returns its plain part of the report context; the appendix and the checks' table are the
one-input report's (:mod:`abcd_cli.reporting.sections`).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from abcd_cli.decompose.several_inputs import InputComponent, InputsDecomposition
from abcd_cli.reporting import describe
from abcd_cli.reporting import inputs_figures as plots
from abcd_cli.reporting.inputs_paragraphs import inputs_extrapolation, inputs_paragraph
from abcd_cli.reporting.inputs_phrases import column, input_names
from abcd_cli.reporting.numbers import format_number
from abcd_cli.reporting.sections import (
    Frame,
    appendix_section,
    checks_section,
    level_sentence,
)
from abcd_cli.reporting.sections import table_section as one_input_table
from abcd_cli.reporting.wording import (
    format_position,
    format_span,
    join_words,
    number_word,
    percent,
)

#: Why the report of several inputs keeps only the quantile check.
CHECKS_LEFT_OUT = (
    " The autocorrelation and periodogram checks are left out: they read the residuals in"
    " the order of a time series, which the rows of a table of several inputs do not have."
)


def frame_of(dec: InputsDecomposition, figures: bool = True) -> Frame:
    """The first input's axis and column with y: what the shared sections' figures need."""
    return Frame(dec.axes[0], column(dec, 0), np.asarray(dec.model.y), figures)


def _value(dec: InputsDecomposition, d: int, x: float) -> str:
    axis = dec.axes[d]
    if axis.is_time:
        return format_position(x, axis)
    return format_number(x, 4, trim=True)


def data_section(dec: InputsDecomposition, n_dropped: int, frame: Frame) -> dict[str, Any]:
    """N, each input's range, rows dropped, the level; y against each input."""
    ranges = [
        f"{name} from {_value(dec, d, float(column(dec, d).min()))}"
        f" to {_value(dec, d, float(column(dec, d).max()))}"
        for d, name in enumerate(dec.names)
    ]
    rows = "row" if n_dropped == 1 else "rows"
    dropped = f"{format_number(int(n_dropped))} {rows} with missing values dropped"
    text = (
        f"{format_number(int(dec.model.n))} observations of {dec.y_name} with"
        f" {number_word(len(dec.names))} inputs: {join_words(ranges)};"
        f" {dropped if n_dropped else 'no rows dropped'}."
    ) + (level_sentence(dec.level, dec.axes[0]) if dec.level else "")
    figure = partial(
        plots.inputs_data_figure, dec.model.x, dec.model.y, list(dec.names), dec.y_name
    )
    return {
        "description": text,
        "inputs": [
            {"name": a.x_name, "kind": a.kind, "time": d == dec.time_dim}
            for d, a in enumerate(dec.axes)
        ],
        "figure": frame.embed(figure, f"{dec.y_name} against each input"),
    }


def summary_section(dec: InputsDecomposition, phrases: list[str]) -> dict[str, Any]:
    """The executive summary, its bullets the components' phrases."""
    return describe.summary_sentences(
        [c.facts for c in dec.components], dec.axes[0], phrases=phrases
    )


def table_section(dec: InputsDecomposition, components: list[dict[str, Any]]) -> dict[str, Any]:
    """The summary table (as for one input) and how its folds were drawn."""
    if dec.folds == "shuffled":
        folds = (
            "The cross-validation uses 10 folds of rows drawn at random (seeded, so the same"
            " seed gives the same folds): the rows of a table have no order to keep."
        )
    else:
        folds = (
            f"The cross-validation uses 10 blocks of consecutive {dec.names[dec.time_dim or 0]}:"
            " each block is predicted from the other times."
        )
    return {**one_input_table(dec, components), "folds": folds}


def component_sections(
    dec: InputsDecomposition, phrases: list[str], frame: Frame
) -> list[dict[str, Any]]:
    """One section per component, in the report's order."""
    out, previous = [], 0.0
    for c, phrase in zip(dec.components, phrases, strict=True):
        out.append(component_section(dec, c, phrase, previous, frame))
        previous = c.facts.cum_r2
    return out


def component_section(
    dec: InputsDecomposition, c: InputComponent, phrase: str, previous_r2: float, frame: Frame
) -> dict[str, Any]:
    """A component's phrase, inputs, paragraph, statistics and figure (one input: against it
    with partial residuals; two: a surface; else none, and a note saying so)."""
    f = c.facts
    figure, note = _figure(dec, c, phrase, frame)
    return {
        "index": f.index,
        "phrase": phrase,
        "inputs": input_names(dec, c.dims),
        "order": c.order,
        "structure": f.kernel.to_text(params=False, names=dec.names),
        "kernel": f.kernel.to_text(digits=6, names=dec.names),
        "paragraph": inputs_paragraph(dec, c, previous_r2),
        "extrapolation": inputs_extrapolation(dec, c),
        "share": c.share,
        "stats": {
            "cum_r2": f.cum_r2,
            "delta_r2": f.delta_r2,
            "residual_r2": f.residual_r2,
            "cv_mae_before": f.cv_mae_before,
            "cv_mae": f.cv_mae,
            "mae_reduction": f.mae_reduction,
        },
        "figure": figure,
        "figure_note": note,
    }


def _figure(
    dec: InputsDecomposition, c: InputComponent, phrase: str, frame: Frame
) -> tuple[dict[str, str], str]:
    """The component's figure and the note under it ('' and a sentence when it has none)."""
    f, title = c.facts, f"Component {c.facts.index}"
    if f.is_noise or not c.dims:
        return {}, ""
    if len(c.dims) == 1:
        d = c.dims[0]
        draw = partial(
            plots.partial_figure, f.x_grid, f.mean, f.sd, column(dec, d), c.partial,
            _label(dec, d), dec.y_name, title,
        )  # fmt: skip
        note = (
            f"The line is the component's posterior mean against {dec.names[d]}, the band"
            " ±2 standard deviations; the points are the partial residuals, the data less the"
            " other components' posterior means (noise aside)."
        )
        if d == dec.time_dim:
            note += " Grey shading marks the extrapolated range."
        return frame.embed(draw, f"Component {f.index}: {phrase}"), note
    if c.surface is not None:
        a, b = c.dims
        s = c.surface
        draw = partial(
            plots.surface_figure, s.grid_a, s.grid_b, s.mean, column(dec, a), column(dec, b),
            (_label(dec, a), _label(dec, b)), title,
        )  # fmt: skip
        note = (
            f"The colours give the component's posterior mean over {dec.names[a]} and"
            f" {dec.names[b]} (red above zero, blue below); dots mark the data."
        )
        return frame.embed(draw, f"Component {f.index}: {phrase}"), note
    return {}, f"Component {f.index} reads {number_word(len(c.dims))} inputs and is not drawn."


def _label(dec: InputsDecomposition, d: int) -> str:
    axis = dec.axes[d]
    return f"{axis.x_name} (years)" if axis.is_time else axis.x_name


def variance_section(dec: InputsDecomposition) -> dict[str, Any]:
    """The shares of the fitted mean's variance by inputs and by order; the additive kernel's
    order variances, with the inputs whose lengthscale reached its bound."""
    v = dec.variance
    text = (
        "The fitted mean (all components but noise) has a variance of"
        f" {format_number(v.total, 3)} over the data. Each set of inputs carries the share"
        " cov(its components' mean, fitted mean) / var(fitted mean) of it; the shares add up to"
        " 100%, and a negative one marks a part that offsets the others."
    )
    if v.by_inputs:
        top = v.by_inputs[0]  # the largest set; a last row may add up the rest
        text += f" The largest share, {percent(top.share)}, is that of {_inputs_words(top.label)}."
    rows = [{"label": s.label, "variance": s.variance, "share": s.share} for s in v.by_inputs]
    inputs = [{"label": s.label, "alone": s.alone, "overall": s.overall} for s in v.by_input]
    read = {d for c in dec.components for d in c.dims}
    unused = [name for d, name in enumerate(dec.names) if d not in read]
    if unused:
        text += (
            f" No component reads {join_words(unused)}: the chosen model does not use"
            f" {'it' if len(unused) == 1 else 'them'}."
        )
    orders = [{"label": s.label, "variance": s.variance, "share": s.share} for s in v.by_order]
    additive = None
    if v.additive_orders is not None:
        additive = {
            "text": (
                "The additive kernel's prior variance by order of interaction: σ_r² times the"
                " number of sets of r inputs (the variance at one point, before the data)."
            ),
            "rows": [
                {"label": s.label, "variance": s.variance, "share": s.share}
                for s in v.additive_orders
            ],
        }
    saturated = ""
    if v.saturated:
        names = [dec.names[d] for d in v.saturated]
        which = "input" if len(names) == 1 else "inputs"
        saturated = (
            f"The lengthscale of the {which} {join_words(names)} reached its upper bound, so"
            f" {'its' if len(names) == 1 else 'their'} kernel is close to 1 over the data: every"
            f" interaction holding {'it' if len(names) == 1 else 'them'} acts as the interaction"
            " of the other inputs alone, one order lower, and part of the variance shown at"
            " an order belongs to the order below."
        )
    return {
        "text": text,
        "total": v.total,
        "by_inputs": rows,
        "by_input": inputs,
        "by_input_text": (
            "Each input's share: of the components reading it alone, and of every component"
            " reading it, alone or in an interaction (an interaction counts for each of its"
            " inputs, so this column can add up to more than 100%)."
        ),
        "by_order": orders,
        "additive": additive,
        "saturated": saturated,
    }


def _inputs_words(label: str) -> str:
    """A variance row's label in words: 'weight', 'the interaction of a and b'."""
    names = label.split(" × ")
    if len(names) == 1:
        return names[0]
    return f"the interaction of {join_words(names)}"


def forecast_section(dec: InputsDecomposition, components: list[dict[str, Any]]) -> dict | None:
    """With a time input: how far its components are drawn past the data and what each one
    does there; None without one (the report then has no such section)."""
    t = dec.time_dim
    if t is None:
        return None
    column_t, time = column(dec, t), dec.names[t]
    span = dec.extrapolate * float(column_t.max() - column_t.min())
    readers = [c for c in dec.components if t in c.dims and not c.facts.is_noise]
    if not readers:
        drawn = f" No component depends on {time}, so the model expects no change with it."
    elif any(c.dims == (t,) for c in readers):
        drawn = (
            f" The components of {time} alone are drawn {format_span(span, dec.axes[t])}"
            " past the last observation."
        )
    else:
        drawn = ""
    text = (
        f"{time} is the time input.{drawn} A forecast of {dec.y_name} needs the other inputs'"
        " values at the times to come: give them to 'abcd predict' with the saved model."
    )
    return {
        "text": text,
        "component_sentences": [
            f"Component {c['index']}: {c['extrapolation']}" for c in components
        ],
    }


def checks_text_section(dec: InputsDecomposition, frame: Frame) -> dict[str, Any]:
    """The one-input report's checks section for the checks kept, and why the others are not."""
    section = checks_section(dec, frame)  # type: ignore[arg-type]
    section["text"] += CHECKS_LEFT_OUT
    return section


def inputs_appendix(dec: InputsDecomposition, search: dict[str, Any]) -> dict[str, Any]:
    """The one-input appendix, the kernel's inputs named by their columns."""
    section = appendix_section(dec, search)  # type: ignore[arg-type]
    section["kernel"] = dec.model.user_kernel.to_text(digits=6, names=dec.names)
    return section
