"""The report's section on each component: its phrase, paragraph, sentence on extrapolation,
statistics and figures.

A series' component has two figures along its input: the component alone, and the sum of the
components up to it against the data. A component of a model of several inputs has one: along
the input it reads, with its partial residuals; over the two it reads, as a surface; none
when it reads more (a note under it says what is drawn, or why nothing is).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from matplotlib.figure import Figure

from abcd_cli.decompose.certainty import Finding, PosteriorFacts
from abcd_cli.decompose.components import Decomposition
from abcd_cli.decompose.facts import ComponentFacts
from abcd_cli.decompose.window import WINDOW_CYCLES, Window, periods_of, shortest_period
from abcd_cli.reporting import dense_figures, inputs_figures
from abcd_cli.reporting.certainty import (
    LIKELY,
    component_finding,
    component_tag,
    probability_text,
)
from abcd_cli.reporting.component_text import (
    column,
    extrapolation_sentence,
    input_names,
    paragraph,
    section_phrase,
    section_phrases,
)
from abcd_cli.reporting.effects import effect_json
from abcd_cli.reporting.sections import Frame, axis_label
from abcd_cli.reporting.weak import cycle_period, headed, weak_reasons
from abcd_cli.reporting.wording import number_word


def component_sections(
    dec: Decomposition,
    frame: Frame,
    facts: PosteriorFacts | None = None,
    weak: Mapping[int, str] | None = None,
) -> list[dict[str, Any]]:
    """One section per component, in the report's order; with a posterior over structures
    (``facts``), each tagged with the probability of what it shows. A weak cycle (``weak``:
    the reasons by component index, ``weak.weak_reasons``) is headed as possible, as its
    summary bullet is, and its paragraph says why."""
    weak = weak_reasons(dec) if weak is None else weak
    sections, previous_r2 = [], 0.0
    for c, phrase in zip(dec.components, section_phrases(dec), strict=True):
        finding = component_finding(c, facts) if facts is not None else None
        uncertain = finding is not None and finding.probability < LIKELY
        section = component_section(dec, c, previous_r2, frame, uncertain, phrase)
        reason = weak.get(c.index)
        if reason:
            section["phrase"] = headed(section["phrase"], reason)
            what = "cycle" if cycle_period(dec, c) is not None else "component"
            section["paragraph_note"] = (
                f"This {what} is possible rather than established: {reason}."
            )
        if facts is not None:
            section |= certainty_of(finding, dec, not facts.unsettled)
        sections.append(section)
        previous_r2 = c.cum_r2
    return sections


def certainty_of(
    finding: Finding | None, dec: Decomposition, settled: bool = True
) -> dict[str, Any]:
    """A component's probability, its range under the evidence's error, its tag (qualified
    when the sampler has not ``settled``), and the sentence that opens the paragraph of an
    uncertain one (probability below ``LIKELY``)."""
    if finding is None:
        return {"probability": None, "tag": ""}
    out: dict[str, Any] = {
        "probability": finding.probability,
        "probability_range": [finding.low, finding.high],
        "tag": component_tag(finding, dec, settled),
    }
    if finding.probability < LIKELY:
        out["paragraph_note"] = (
            "Among the structures weighed, those holding this component carry only"
            f" {probability_text(finding.probability)} of the weight, so it is shown as one"
            " possibility among others."
        )
    return out


def component_section(
    dec: Decomposition,
    c: ComponentFacts,
    previous_r2: float,
    frame: Frame,
    uncertain: bool = False,
    phrase: str | None = None,
) -> dict[str, Any]:
    """Component ``c``'s section; ``previous_r2`` is the share of variance the components
    before it explain; an ``uncertain`` one (a posterior's, of probability below ``LIKELY``)
    says so in its figure's title; ``phrase``: its heading when already worded."""
    phrase = section_phrase(dec, c) if phrase is None else phrase
    section = {
        "index": c.index,
        "phrase": phrase,
        "structure": c.kernel.to_text(params=False, names=dec.names),
        "kernel": c.kernel.to_text(digits=6, names=dec.names),
        "paragraph": paragraph(dec, c, previous_r2),
        "extrapolation": extrapolation_sentence(dec, c),
        "stats": {
            "cum_r2": c.cum_r2,
            "delta_r2": c.delta_r2,
            "residual_r2": c.residual_r2,
            "cv_mae_before": c.cv_mae_before,
            "cv_mae": c.cv_mae,
            "mae_reduction": c.mae_reduction,
            "cv_mae_without": c.cv_mae_without,
        },
    }
    if dec.series is not None:
        return section | series_figures(dec, c, phrase, frame, uncertain)
    figure, note = inputs_figure(dec, c, phrase, frame)
    effect = dec.effects[c.index - 1]
    return section | {
        "effect": None if effect is None else effect_json(effect, dec.names),
        "inputs": input_names(dec, c.dims),
        "order": c.order,
        "share": c.share,
        "figure": figure,
        "figure_note": note,
    }


#: What the caption says of a noise drawn with the residuals it takes up.
RESIDUALS_NOTE = (
    "The left figure's dots are the residuals the noise takes up: the data less the other"
    " components."
)
#: What the caption says of a dense component's whole span drawn with its partial residuals.
PARTIAL_NOTE = (
    "The dots of the left figure's whole span are the data less the other components: what"
    " this component takes up."
)


def _draws_partial(c: ComponentFacts, frame: Frame) -> bool:
    """Whether component ``c``'s own figure draws its partial residuals: a noise always, any
    other component when its curve is dense (over its envelope)."""
    if c.partial.size != frame.x.size or not c.partial.size:
        return False
    return c.is_noise or dense_figures.is_dense(c.x_grid, c.cycle_mean, float(frame.x.max()))


#: What the caption says of a cycle drawn as its smooth shape (``decompose/rough.py``).
SHAPE_NOTE = (
    "The left figure draws the cycle's smooth shape, without its short-term irregular"
    " variation, which the right one holds."
)


def series_figures(
    dec: Decomposition, c: ComponentFacts, phrase: str, frame: Frame, uncertain: bool = False
) -> dict[str, dict[str, str]]:
    """A series' component alone (titled as uncertain when it is), and the sum of the
    components up to it against the data."""
    alone, so_far = series_drawings(dec, c, frame, uncertain)
    end = float(frame.x.max())
    k = c.index - 1
    curves = dec.series
    assert curves is not None
    drawn = [
        (c.x_grid, c.cycle_mean, kernel_periods([c])),
        (curves.x_grid, curves.cumulative_mean[k], kernel_periods(dec.components[: k + 1])),
    ]
    dense = [(x, m, p) for x, m, p in drawn if dense_figures.is_dense(x, m, end)]
    unsliced = any(dense_figures.envelope_period(x, m, p) is None for x, m, p in dense)
    return {
        "figure_component": frame.embed(alone, f"Posterior of component {c.index}: {phrase}"),
        "figure_cumulative": frame.embed(
            so_far, f"Sum of the first {c.index} components against the data"
        ),
        "envelope_note": " ".join(
            ([RESIDUALS_NOTE if c.is_noise else PARTIAL_NOTE] if _draws_partial(c, frame) else [])
            + ([SHAPE_NOTE] if c.shape_mean.size else [])
            + ([dense_figures.ENVELOPE_NOTE] if dense else [])
            + ([dense_figures.NO_PERIOD_NOTE] if unsliced else [])
        ),
    }


def series_drawings(
    dec: Decomposition, c: ComponentFacts, frame: Frame, uncertain: bool = False
) -> tuple[Callable[[], Figure], Callable[[], Figure]]:
    """What draws a series' component's two figures: the component alone, and the sum of the
    components up to it against the data."""
    assert dec.series is not None
    curves = dec.series
    window, k = curves.window, c.index - 1
    shaped = c.shape_mean.size > 0  # a cycle drawn as its smooth shape (``decompose/rough.py``)
    fine = c.shape_window if shaped else window_curve(c, window)
    alone = partial(
        dense_figures.component_figure,
        c.x_grid,
        c.cycle_mean,
        c.shape_sd if shaped else c.sd,
        (float(frame.x.min()), float(frame.x.max())),
        frame.x_label,
        frame.y_label,
        f"Component {c.index}"
        + ("'s shape" if shaped else "")
        + (" (uncertain)" if uncertain else ""),
        fine=fine,
        periods=kernel_periods([c]),
        points=(frame.x, c.partial) if _draws_partial(c, frame) else None,
    )
    so_far = partial(
        dense_figures.cumulative_figure,
        curves.x_grid,
        curves.cumulative_mean[k],
        curves.cumulative_sd[k],
        frame.x,
        frame.y,
        frame.x_label,
        frame.y_label,
        f"Sum of components 1-{c.index}" if c.index > 1 else "Component 1",
        fine=None
        if window is None
        else (window.x, window.cumulative_mean[k], window.cumulative_sd[k]),
        period=shaped_period(dec.components[: k + 1]),
        periods=kernel_periods(dec.components[: k + 1]),
    )
    return alone, so_far


def window_curve(c: ComponentFacts, window: Window | None) -> dense_figures.Curve | None:
    """Component ``c`` on the series' window of its shortest cycle (``decompose/window.py``),
    as (x, mean, sd); None without a window or when the window holds fewer than two of ``c``'s
    own cycles (births' yearly cycle on four weeks of the weekly one): its figure then reads
    its whole span's grid."""
    if (
        window is None
        or min(periods_of([c.kernel]), default=0.0) > window.period * WINDOW_CYCLES / 2
    ):
        return None
    k = c.index - 1
    return window.x, window.mean[k], window.sd[k]


def kernel_periods(components: list[ComponentFacts]) -> list[float]:
    """The periods of every periodic factor of ``components``' covariances (the cycles their
    curves may show, whose whole periods slice a dense figure's envelope)."""
    return periods_of([c.kernel for c in components])


def shaped_period(components: list[ComponentFacts]) -> float | None:
    """The longest period of the cycles drawn as their smooth shape among ``components``
    (``ComponentFacts.shape_mean``), whose sum's window then spans whole periods; None when
    none is."""
    periods = [shortest_period([c.kernel]) for c in components if c.shape_mean.size]
    return max((p for p in periods if p is not None), default=None)


def inputs_figure(
    dec: Decomposition, c: ComponentFacts, phrase: str, frame: Frame
) -> tuple[dict[str, str], str]:
    """A component of a model of several inputs: its figure and the note under it; no figure
    ({}) with a note saying why for a component of three inputs or more, and none at all for
    noise or a constant."""
    draw, note = inputs_drawing(dec, c)
    if draw is None:
        return {}, note
    return frame.embed(draw, f"Component {c.index}: {phrase}"), note


def inputs_drawing(
    dec: Decomposition, c: ComponentFacts
) -> tuple[Callable[[], Figure] | None, str]:
    """What draws a component of a model of several inputs (None when it is not drawn) and
    the note under its figure (see :func:`inputs_figure`)."""
    title = f"Component {c.index}"
    if c.is_noise or not c.dims:
        return None, ""
    if len(c.dims) == 1:
        d = c.dims[0]
        draw = partial(
            inputs_figures.partial_figure, c.x_grid, c.mean, c.sd, column(dec, d), c.partial,
            axis_label(dec.axes[d]), dec.y_name, title,
        )  # fmt: skip
        note = (
            f"The line is the component's fitted mean against {dec.names[d]}, the band"
            " ±2 standard deviations; the points are the partial residuals, the data less the"
            " other components' fitted means (noise aside)."
        )
        if d == dec.time_dim:
            note += " Grey shading marks the extrapolated range."
        return draw, note
    if c.surface is not None:
        a, b = c.dims
        s = c.surface
        draw = partial(
            inputs_figures.surface_figure, s.grid_a, s.grid_b, s.mean, column(dec, a),
            column(dec, b), (axis_label(dec.axes[a]), axis_label(dec.axes[b])), title,
        )  # fmt: skip
        note = (
            f"The colours give the component's fitted mean over {dec.names[a]} and"
            f" {dec.names[b]} (red above zero, blue below); dots mark the data."
        )
        return draw, note
    return None, f"Component {c.index} reads {number_word(len(c.dims))} inputs and is not drawn."
