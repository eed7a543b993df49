"""What a component of a model of several inputs does along each input it reads, in words.

A component's kernel names the inputs it reads but not what it does along them ("a joint
function of cylinders, weight and model_year" says nothing). The numbers come from
``decompose/effects.py`` (partial dependence along each input: its direction and size, the
inputs' shares, how the change along the main input differs at a second input's quartiles),
computed once by ``decompose`` (``Decomposition.effects``). This module words them:

* a curve along an input: "Along weight (1,613 to 5,140), mpg falls by about 12.3": the
  input and the ends of its range, then its direction with its size ("rises" / "falls" by
  max − min; "mostly rises, by about ... from end to end"; "rises by about ... then falls by
  about ..., peaking near ..."; "varies by about ... with no clear direction"; "does not
  change"). A value of an input is a date on a calendar axis, else has the decimals a tenth
  of the input's span calls for, with no thousands separator when it counts time;
* the modulation, when ``decompose`` found one material: ", less steeply at higher b (by about
  8.1 at b = 79 against 15.2 at b = 73)" ("later" when b counts time); when the two changes go
  opposite ways (``opposite``: their signs differ and the smaller is at least ``OPPOSITE`` of
  the larger), "; it rises by about 2 where b = 7.5 but falls by about 2 where b = 2.5"; along
  a main input that is not monotone, "; taken as a straight line, it falls by ..."; nothing
  when the two changes read the same once rounded;
* the inputs, largest share first: the summary's sentence names the main input and "It also
  changes with ..." the others carrying at least ``MINOR_INPUT`` of the variation; the
  paragraph has a sentence along each of those, their shares, the minor ones together ("under
  10% along each of ..."), and, when the part no single input carries is at least ``JOINT``,
  that the inputs act together;
* components too small to matter (a share of the fitted mean's variance under
  ``SMALL_SHARE``, ``is_small``: no effect computed) are folded into one sentence
  (``folded_sentence``), or, in their own paragraph, get ``small_sentence`` alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from abcd_cli.decompose.components import Decomposition
from abcd_cli.decompose.effects import SMALL_SHARE, Dependence, Effect, Modulation, is_small
from abcd_cli.decompose.facts import Axis, ComponentFacts
from abcd_cli.reporting.numbers import format_number, format_percent
from abcd_cli.reporting.wording import (
    capitalise,
    format_amount,
    format_position,
    join_words,
    number_word,
    percent,
)

#: The two changes go opposite ways when their signs differ and the smaller is at least this
#: fraction of the larger (below it, "less steeply" says it).
OPPOSITE = 0.2
#: Inputs carrying less than this share of a component's variation are named together.
MINOR_INPUT = 0.1
#: Above this part carried by no single input, the sentences say the inputs act together.
JOINT = 0.5


def _timeish(axis: Axis) -> bool:
    return axis.is_time or axis.unit is not None


def position(value: float, axis: Axis, span: float) -> str:
    """A value of an input: a date on a calendar axis; else with the decimals a tenth of the
    input's ``span`` calls for (1,613; 13.8; 76), no thousands separator when it counts time."""
    precision = abs(span) / 10.0
    if axis.is_time:
        return format_position(value, axis, precision or None)
    decimals = max(0, 1 - int(np.floor(np.log10(precision)))) if precision > 0 else 3
    return format_number(value, decimals=min(decimals, 10), grouping=not _timeish(axis), trim=True)


def _at(value: float, axis: Axis, span: float) -> str:
    """'weight = 2,224'; on a calendar axis 'model_year 1979'."""
    sep = " " if axis.is_time else " = "
    return f"{axis.x_name}{sep}{position(value, axis, span)}"


def _range(dep: Dependence, axis: Axis) -> str:
    """'weight (1,613 to 5,140)': the input and the ends of its range."""
    span = float(np.ptp(dep.grid))
    lo, hi = (position(float(v), axis, span) for v in (dep.grid[0], dep.grid[-1]))
    return f"{axis.x_name} ({lo} to {hi})"


def _moves(dep: Dependence, axis: Axis) -> str:
    """The verb phrase of a curve: 'falls by about 12.3', 'mostly falls, by about 7.42 from
    end to end', 'rises by about 2.1 then falls by about 3.4, peaking near 3,200'."""
    size, change = format_amount(dep.size, axis), format_amount(abs(dep.change), axis)
    word = dep.direction
    if word in ("rises", "falls"):
        return f"{word} by about {size}"
    if word in ("mostly rises", "mostly falls"):
        return f"{word}, by about {change} from end to end"
    if word in ("rises then falls", "falls then rises"):
        k = int(np.argmax(dep.values) if word == "rises then falls" else np.argmin(dep.values))
        first = format_amount(abs(dep.values[k] - dep.values[0]), axis)
        second = format_amount(abs(dep.values[-1] - dep.values[k]), axis)
        up, down = word.split(" then ")
        turn = "peaking" if word == "rises then falls" else "lowest"
        where = position(dep.turn, axis, float(np.ptp(dep.grid)))
        return f"{up} by about {first} then {down} by about {second}, {turn} near {where}"
    if word == "varies":
        return f"varies by about {size} with no clear direction"
    return "does not change"


def _way(change: float) -> str:
    return "rises" if change > 0 else "falls"


def opposite(modulation: Modulation) -> bool:
    """Whether the two changes go opposite ways (``OPPOSITE``)."""
    lo, hi = modulation.change_low, modulation.change_high
    small, large = sorted((abs(lo), abs(hi)))
    return lo * hi < 0 and small >= OPPOSITE * large


def _modulation_clause(effect: Effect, axes: Sequence[Axis]) -> str:
    """How the change along the main input differs at the other input's quartiles: ', less
    steeply at higher b (by about 8.1 at b = 79 against 15.2 at b = 73)'; when the two go
    opposite ways, '; it rises by about 2 where b = 7.5 but falls by about 2 where b = 2.5';
    along a main input that is not monotone, '; taken as a straight line, it falls by ...'."""
    m = effect.modulation
    if m is None:
        return ""
    a_axis, b_axis = axes[m.main], axes[m.other]
    span = float(np.ptp(next(d.grid for d in effect.along if d.input == m.other)))
    at_low, at_high = _at(m.low, b_axis, span), _at(m.high, b_axis, span)
    lo, hi = abs(m.change_low), abs(m.change_high)
    lo_text, hi_text = format_amount(lo, a_axis), format_amount(hi, a_axis)
    if opposite(m):
        return (
            f"; it {_way(m.change_high)} by about {hi_text} where {at_high} but"
            f" {_way(m.change_low)} by about {lo_text} where {at_low}"
        )
    if lo_text == hi_text:  # material, but the same once rounded
        return ""
    higher = "later" if _timeish(b_axis) else "higher"
    steep = "more" if hi > lo else "less"
    numbers = f"by about {hi_text} at {at_high} against {lo_text} at {at_low}"
    if effect.main.direction in ("rises", "falls"):
        return f", {steep} steeply at {higher} {b_axis.x_name} ({numbers})"
    if effect.main.direction in ("mostly rises", "mostly falls"):
        way = _way(m.change_high)
        return f"; it {way} {steep} steeply at {higher} {b_axis.x_name} ({numbers})"
    return f"; taken as a straight line, it {_way(m.change_high)} {numbers}"


def effect_summary(effect: Effect, axes: Sequence[Axis], subject: str | None = None) -> str:
    """What the component does along its main input, in a sentence or two: 'Along weight
    (1,613 to 5,140), mpg falls by about 12.3, less steeply at later model_year (...). It also
    changes with acceleration.' (the other inputs carrying at least ``MINOR_INPUT`` of its
    variation). ``subject``: what moves (y's name by default)."""
    main = effect.main
    axis = axes[main.input]
    who = subject or axis.y_name
    clause = _modulation_clause(effect, axes)
    text = f"Along {_range(main, axis)}, {who} {_moves(main, axis)}{clause}."
    others = [axes[d.input].x_name for d in effect.along[1:] if d.share >= MINOR_INPUT]
    if others:
        text += f" It also changes with {join_words(others)}."
    return text


def _share(fraction: float) -> str:
    return format_percent(fraction, decimals=0)


def effect_sentences(effect: Effect, axes: Sequence[Axis], subject: str | None = None) -> list[str]:
    """The component's sentences, for its paragraph: its main input (``effect_summary``'s
    first sentence; one too small to matter gets ``small_sentence`` alone); each other input
    carrying at least ``MINOR_INPUT`` of its variation ('Along model_year (1970 to 1982), mpg
    rises by about 3.2.'); the inputs' shares, largest first, the minor ones together; and,
    when no single input carries most of it (``JOINT``), that its inputs act together."""
    if effect.share is not None and abs(effect.share) < SMALL_SHARE:
        return [small_sentence(effect.share)]
    main, axis = effect.main, axes[effect.main.input]
    who = subject or axis.y_name
    sentences = [f"Along {_range(main, axis)}, {who} {_moves(main, axis)}"
                 f"{_modulation_clause(effect, axes)}."]  # fmt: skip
    if len(effect.along) == 1:
        return sentences
    major = [d for d in effect.along if d.share >= MINOR_INPUT]
    for dep in major[1:]:
        axis = axes[dep.input]
        sentences.append(f"Along {_range(dep, axis)}, {who} {_moves(dep, axis)}.")
    parts = [f"{_share(d.share)} along {axes[d.input].x_name}" for d in major]
    minor = [axes[d.input].x_name for d in effect.along if d.share < MINOR_INPUT]
    if len(minor) == 1:
        parts.append(f"under {_share(MINOR_INPUT)} along {minor[0]}")
    elif minor:
        parts.append(f"under {_share(MINOR_INPUT)} along each of {join_words(minor)}")
    sentences.append(f"Its variation along single inputs is {join_words(parts)}.")
    if effect.joint >= JOINT:
        sentences.append(
            f"Most of its variation ({_share(effect.joint)}) comes from its inputs acting"
            " together rather than from any one of them."
        )
    return sentences


def effect_json(effect: Effect, names: Sequence[str]) -> dict[str, Any]:
    """The effect for the JSON report: per input (largest share first) its direction, size
    (y's units) and share; the part carried jointly; the modulation, if one is worded."""
    m = effect.modulation
    return {
        "along": [
            {
                "input": names[d.input],
                "direction": d.direction,
                "size": d.size,
                "share": d.share,
                "from": float(d.grid[0]),
                "to": float(d.grid[-1]),
            }
            for d in effect.along
        ],
        "joint": effect.joint,
        "modulation": None
        if m is None
        else {
            "along": names[m.main],
            "by": names[m.other],
            "at": [m.low, m.high],
            "change": [m.change_low, m.change_high],
        },
    }


# -- small components --------------------------------------------------------------------------


def _limit(threshold: float) -> str:
    return format_number(100.0 * threshold, 2, trim=True) + "%"


def small_sentence(share: float, threshold: float = SMALL_SHARE) -> str:
    """The one sentence on a component too small to matter."""
    return (
        f"It is too small to matter: it carries {_explained(abs(share))} of the fitted mean's"
        f" variance, under {_limit(threshold)}."
    )


def _explained(total: float) -> str:
    """A share as the fold words it: '3.1%', 'less than 0.1%' when it rounds to nothing."""
    shown = percent(total)
    return "less than 0.1%" if abs(total) < 0.0005 else shown


def folded_sentence(components: Sequence[ComponentFacts], threshold: float = SMALL_SHARE) -> str:
    """One sentence for the components too small to matter ('Four further components, each
    under 2% of the fitted mean's variance, together explain 3.1% of it.'); '' when there are
    none. Shares can be negative (a component working against the others): their sum then
    'offsets' that much."""
    small = [c for c in components if is_small(c, threshold)]
    if not small:
        return ""
    total = sum(float(c.share or 0.0) for c in small)
    verb = "offset" if total <= -0.0005 else "explain"
    amount = _explained(abs(total))
    if len(small) == 1:
        return (
            f"One further component, under {_limit(threshold)} of the fitted mean's variance,"
            f" {verb}s {amount} of it."
        )
    return (
        f"{capitalise(number_word(len(small)))} further components, each under"
        f" {_limit(threshold)} of the fitted mean's variance, together {verb} {amount} of it."
    )


def summary_bullets(
    dec: Decomposition,
    phrases: Sequence[str],
    effects: Sequence[Effect | None] | None = None,
    threshold: float = SMALL_SHARE,
) -> list[str]:
    """The summary's bullets for a model of several inputs: each component that matters as its
    capitalised phrase and its ``effect_summary``; those under ``threshold`` folded into one
    last bullet (``folded_sentence``)."""
    effects = dec.effects if effects is None else effects
    bullets = []
    for c, phrase, effect in zip(dec.components, phrases, effects, strict=True):
        if is_small(c, threshold):
            continue
        text = capitalise(phrase) + "."
        if effect is not None:
            text += " " + effect_summary(effect, dec.axes)
        bullets.append(text)
    folded = folded_sentence(dec.components, threshold)
    return bullets + ([folded] if folded else [])
