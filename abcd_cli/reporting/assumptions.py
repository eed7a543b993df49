"""The forecast's assumptions in plain words, one short paragraph for a series' forecast
section: which components carry on past the data (a cycle that keeps repeating, a trend or a
level that continues), which ease back so that the forecast returns to the long-run trend,
which stay switched off, what noise does, and what is held constant. Read from each
component's extrapolation record (``extrapolation.extrapolation_record``), the same record its
own sentence in the section comes from.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from abcd_cli.decompose.components import Decomposition
from abcd_cli.reporting.component_text import column
from abcd_cli.reporting.extrapolation import Kind, extrapolation_record
from abcd_cli.reporting.numbers import format_percent
from abcd_cli.reporting.sections import format_mean
from abcd_cli.reporting.trends import ends_precision
from abcd_cli.reporting.wording import format_amount, format_position, join_words, reference_name

#: What each kind of continuation says, for one component ("component 2") or several.
CLAUSES: dict[Kind, tuple[str, str]] = {
    "repeats": ("the cycle of {} keeps repeating", "the cycles of {} keep repeating"),
    "continues": ("the trend of {} carries on as fitted", "the trends of {} carry on as fitted"),
    "holds": ("the level of {} stays where it is", "the levels of {} stay where they are"),
    "returns": (
        "{} eases back to nothing a few of its own lengths past the data",
        "{} ease back to nothing a few of their own lengths past the data",
    ),
    "off": ("{} stays switched off", "{} stay switched off"),
    "noise": (
        "the noise of {} is not forecast: it only widens the band",
        "the noise of {} is not forecast: it only widens the band",
    ),
    "other": ("{} follows its covariance function", "{} follow their covariance functions"),
}


def _named(indices: list[int]) -> str:
    """'component 2', 'components 2 and 4'."""
    words = join_words([str(i) for i in indices])
    return f"component{'s' if len(indices) > 1 else ''} {words}"


def _base(dec: Decomposition) -> str:
    """What the components are added to: the series' mean, zero or the model's own level."""
    prior = dec.model.prior_mean
    if prior == "zero":
        return "zero"
    if prior == "constant" and dec.level:
        return f"the model's constant level ({format_amount(dec.level[0], dec.axis)})"
    mean = format_mean(dec.model.scaling.y_shift, dec.model.scaling.y_scale)
    return f"the series' mean ({mean})"


#: Components easing back past the data that move the forecast's mean by more than this share
#: of the data's range are said to (``_easing_sentence``).
EASING_SHARE = 0.25


def _easing_sentence(dec: Decomposition, returning: list[int], x: np.ndarray) -> str:
    """How far the components that ease back to nothing move the forecast's mean between the
    last observation and the end of the forecast, when that is more than ``EASING_SHARE`` of
    the data's range (gas production: halved by 2003): the assumption at work, not a change
    the data show; '' otherwise."""
    assert dec.series is not None
    grid, last = dec.series.x_grid, float(np.max(x))
    y = np.asarray(dec.model.y, dtype=float)
    easing = [c for c in dec.components if c.index in returning]
    move = sum(float(c.mean[-1]) - float(np.interp(last, grid, c.mean)) for c in easing)
    if not easing or abs(move) <= EASING_SHARE * float(np.ptp(y)):
        return ""
    way = "lowers" if move < 0 else "raises"
    when = format_position(float(grid[-1]), dec.axis, ends_precision(x))
    towards = reference_name(dec.model.prior_mean)
    size = format_amount(abs(move), dec.axis)
    return (
        f" By {when} the return of {_named([c.index for c in easing])} towards {towards}"
        f" {way} the forecast by about {size}, about"
        f" {format_percent(abs(move) / float(np.ptp(y)), 0)} of the data's range: that is this"
        f" assumption at work, not a {'fall' if move < 0 else 'rise'} the data show."
    )


def assumptions_paragraph(dec: Decomposition, possible: Sequence[int] = ()) -> str:
    """The forecast's assumptions for a series' decomposition ('' for several inputs);
    ``possible``: the components headed as possible, whose carrying on is said to rest on
    them (lynx: a 38-year cycle 'possible rather than established' made a third of the
    forecast's next peak)."""
    if dec.series is None:
        return ""
    x = column(dec, 0)
    reference = reference_name(dec.model.prior_mean)
    by_kind: dict[Kind, list[int]] = {}
    grouped: dict[Kind, list[int]] = {}  # by kind, those without words of their own
    own: list[str] = []  # components said in words of their own (a scaled level)
    for c in dec.components:
        record = extrapolation_record(c, dec.axis, x_data=x)
        by_kind.setdefault(record.kind, []).append(c.index)
        if record.clause:
            own.append(record.clause.format(name=_named([c.index]), reference=reference))
        else:
            grouped.setdefault(record.kind, []).append(c.index)
    clauses = own + [
        CLAUSES[kind][len(grouped[kind]) > 1].format(_named(grouped[kind]))
        for kind in CLAUSES
        if kind in grouped
    ]
    carrying = [i for k in ("repeats", "continues", "holds") for i in by_kind.get(k, [])]
    trend = _base(dec) + (f" with {_named(sorted(carrying))} added" if carrying else "")
    text = f"What the forecast assumes: {'; '.join(clauses)}."
    carried = [i for i in carrying if i in possible]
    if carried:
        one = len(carried) == 1
        text += (
            f" {_named(carried).capitalize()} {'is' if one else 'are'} carried on though"
            f" {'its section calls it' if one else 'their sections call them'} only possible:"
            f" the forecast leans on {'it' if one else 'them'} as if established."
        )
    if by_kind.get("returns") and carrying:
        what = "the long-run trend" + (
            " and the cycles that keep repeating" if by_kind.get("repeats") else ""
        )
        text += f" Far from the data the forecast therefore returns to {what}: {trend}."
    elif by_kind.get("returns"):  # nothing carries on: no trend to speak of, only the base
        text += f" Far from the data the forecast therefore returns to {trend}."
    text += _easing_sentence(dec, by_kind.get("returns", []), x)
    changing = any(c.is_noise and not c.kernel.stationary for c in dec.components)
    noise = "the noise's size" + (f" and how it changes with {dec.axis.x_name}" if changing else "")
    text += (
        f" Held constant throughout: every fitted value (periods, slopes, lengths, {noise}) and"
        " the structure itself; nothing the data do not show, such as a new event or a change"
        " of regime, is foreseen, so the band says how uncertain the forecast is only if these"
        " assumptions hold."
    )
    return text
