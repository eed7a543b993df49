"""The words for one component of any model: its noun phrase, its paragraph and its sentence
on extrapolation, naming the inputs it reads when the model has several.

A series' components (one input: no need to name it) get the words of :mod:`phrases`,
:mod:`paragraphs` and :mod:`extrapolation` along that input. Of a model of several inputs: one
reading one input gets the same words along that input, which they name ('a smooth function of
weight'); one reading two is 'an interaction between horsepower and year', three or more 'a
joint function of a, b and c'; its paragraph says which function of each input it multiplies
and how far its mean moves over the data; noise says how large it is and what it changes with.
Every paragraph ends with the same sentences on variance and cross-validated error.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np

from abcd_cli.decompose.components import Decomposition
from abcd_cli.decompose.facts import ComponentFacts
from abcd_cli.kernels import Additive, BaseKernel, Kernel, Product, product
from abcd_cli.kernels.base import copy_with, reads_x
from abcd_cli.reporting.curves import (
    mean_trend,
    trend_bend,
)
from abcd_cli.reporting.effects import effect_sentences
from abcd_cli.reporting.extrapolation import describe_extrapolation
from abcd_cli.reporting.factors import (
    gate_profile,
    is_gradual,
    product_lengthscale,
    stated_intervals,
)
from abcd_cli.reporting.gathered import leading_factors
from abcd_cli.reporting.headings import curve_phrase
from abcd_cli.reporting.paragraphs import component_paragraph, opening
from abcd_cli.reporting.phrases import gradual_clause, noun_phrase, on_clause
from abcd_cli.reporting.statistics_text import statistics_sentences
from abcd_cli.reporting.wording import (
    format_amount,
    format_span,
    join_words,
    number_word,
    reference_name,
)


def on_first_input(kernel: Kernel) -> Kernel:
    """The kernel with every base kernel moved to input 0: the one-input wording evaluates a
    component along one column, and a component of one input is the same function of it."""
    if isinstance(kernel, BaseKernel):
        return copy_with(kernel, dim=0)
    if kernel.operands:
        return kernel.with_operands([on_first_input(k) for k in kernel.operands])
    return kernel


def column(dec: Decomposition, d: int) -> np.ndarray:
    """Input d's values at the data."""
    return dec.model.X[:, d]


def input_names(dec: Decomposition, dims: tuple[int, ...]) -> list[str]:
    return [dec.names[d] for d in dims]


# -- the noun phrase ---------------------------------------------------------------------------


def component_phrase(dec: Decomposition, c: ComponentFacts, direction: bool = True) -> str:
    """Component ``c``'s noun phrase (``component_phrases``, which words them all at once)."""
    position = next(k for k, other in enumerate(dec.components) if other.index == c.index)
    return component_phrases(dec, direction)[position]


def component_phrases(dec: Decomposition, direction: bool = True) -> list[str]:
    """Every component's noun phrase, in order, naming the inputs it reads when there are
    several; ``direction``: whether a trend says which way its mean goes ('a linearly
    increasing function' rather than 'a linear trend'). Smooth components of a series whose
    phrases would read alike name the scale each varies over ('a smooth function on a scale of
    about 31.7 years which applies ...'), so that no two bullets of the summary are the same:
    each phrase is worded once and its twins counted, in one pass. A smooth function gathered
    from several terms is told apart by its leading term's scale (wheat's two 'smooth function
    whose amplitude changes' read alike: their kernel is a sum, which has no factors)."""
    phrases = [_phrase(dec, c, direction) for c in dec.components]
    if dec.series is None:
        return phrases
    counts = Counter(phrases)
    x = column(dec, 0)
    out = []
    for c, phrase in zip(dec.components, phrases, strict=True):
        parts = leading_factors(c.kernel, x) if counts[phrase] > 1 else None
        if parts is None or parts.head != "smooth" or parts.lead is None:
            out.append(phrase)
            continue
        scale = format_span(product_lengthscale(parts.smooth), dec.axis)
        noun = parts.lead.noun
        out.append(phrase.replace(noun, f"{noun} on a scale of about {scale}", 1))
    return out


def _phrase(dec: Decomposition, c: ComponentFacts, direction: bool) -> str:
    """:func:`component_phrase` before smooth components that read alike are told apart."""
    if dec.series is not None:
        x = column(dec, 0)
        return curve_phrase(
            c,
            dec.axis,
            x,
            direction=_direction(c, x, direction),
            reference=reference_name(dec.model.prior_mean),
        )
    if c.is_noise:
        if not c.dims:
            return "uncorrelated noise"
        return f"uncorrelated noise whose size changes with {join_words(input_names(dec, c.dims))}"
    if isinstance(c.kernel, Additive):
        n = len(c.kernel.members)
        r = next(k for k, sd in enumerate(c.kernel.sds, start=1) if sd != 0.0)
        return f"the interactions of order {r} among all {number_word(n)} inputs"
    if not c.dims:
        return noun_phrase(c.kernel, dec.axis)
    if len(c.dims) == 1:
        d = c.dims[0]
        x = column(dec, d)
        phrase = noun_phrase(
            on_first_input(c.kernel),
            dec.axes[d],
            x_data=x,
            direction=_direction(c, x, direction),
            input_name=dec.names[d],
            bend=trend_bend(c, x),
        )
        return naming(phrase, dec.names[d])
    switched = switched_phrase(dec, c, direction)
    if switched:
        return switched
    effect = dec.effects[c.index - 1]
    dims = c.dims if effect is None else effect.inputs_by_share  # the one carrying most first
    names = input_names(dec, dims)
    if len(c.dims) == 2:
        return f"an interaction between {names[0]} and {names[1]}"
    return f"a joint function of {join_words(names)}"


def _direction(c: ComponentFacts, x: np.ndarray, wanted: bool) -> str | None:
    """The trend's direction for its phrase when ``wanted``; 'flat' always, so that a trend
    flat where it applies is never called linear."""
    trend = mean_trend(c, x)
    return trend if wanted or trend == "flat" else None


def switched_phrase(dec: Decomposition, c: ComponentFacts, direction: bool = True) -> str:
    """A component that is a function of one input switched on and off, or scaled gradually,
    along another (a changepoint's side: 'a smooth function of weight which applies until 1978
    (in year)', '... which fades across the data (in year)'); '' for any other. The gates'
    input is named after the clause."""
    if not isinstance(c.kernel, (BaseKernel, Product)):
        return ""
    reading = [b for b in c.kernel.bases() if reads_x(b)]
    gate_dims = {b.dim for b in reading if getattr(b, "role", "") == "gate"}
    gate_dims -= {b.dim for b in reading if getattr(b, "role", "") != "gate"}
    main = [d for d in c.dims if d not in gate_dims]
    if len(gate_dims) != 1 or len(main) != 1:
        return ""
    (g,) = gate_dims
    (d,) = main
    x = column(dec, d)
    function = product([b for b in c.kernel.bases() if not reads_x(b) or b.dim == d])
    phrase = noun_phrase(
        on_first_input(function),
        dec.axes[d],
        x_data=x,
        direction=_direction(c, x, direction),
        input_name=dec.names[d],
    )
    gates = [on_first_input(b) for b in reading if b.dim == g]
    xg = column(dec, g)
    if is_gradual(gates, xg):
        clause = gradual_clause(gate_profile(gates, xg), dec.axes[g], xg)
    else:
        clause = on_clause(stated_intervals(gates, xg), dec.axes[g], xg)
        clause = f"which {clause}" if clause else ""
    if not clause:
        return ""
    return f"{naming(phrase, dec.names[d])} {clause} (in {dec.names[g]})"


def section_phrase(dec: Decomposition, c: ComponentFacts) -> str:
    """The phrase heading a component's section (and naming it in the API): a series' names a
    trend's shape ('a linear trend'); its summary, like every phrase of a table of several
    inputs, says which way the trend goes."""
    return component_phrase(dec, c, direction=dec.series is None)


def section_phrases(dec: Decomposition) -> list[str]:
    """``section_phrase`` of every component, in order, worded in one pass."""
    return component_phrases(dec, direction=dec.series is None)


def factor_phrases(dec: Decomposition, c: ComponentFacts) -> list[str]:
    """For a product over several inputs, one phrase per input for the factors reading it
    ('a smooth function of horsepower', 'a linear function of year'); empty otherwise."""
    if len(c.dims) < 2 or isinstance(c.kernel, Additive):
        return []
    out = []
    for d in c.dims:
        own = [b for b in c.kernel.bases() if reads_x(b) and b.dim == d]
        if not own:
            continue
        phrase = noun_phrase(
            on_first_input(product(own)),
            dec.axes[d],
            x_data=column(dec, d),
            input_name=dec.names[d],
        )
        out.append(naming(phrase, dec.names[d]))
    return out


def naming(phrase: str, name: str) -> str:
    """The phrase with its input named when it does not name it yet: a switched constant on a
    time input reads 'a constant which applies from 1976 onwards (in year)'."""
    return phrase if name in phrase else f"{phrase} (in {name})"


# -- the paragraph -----------------------------------------------------------------------------


def paragraph(dec: Decomposition, c: ComponentFacts, previous_r2: float) -> str:
    """The paragraph on component ``c``; ``previous_r2``: the R² of the components before it."""
    if dec.series is not None:
        return component_paragraph(
            c,
            dec.axis,
            previous_r2,
            x_data=column(dec, 0),
            reference=reference_name(dec.model.prior_mean),
            y_data=dec.model.y,
        )
    if len(c.dims) == 1 and not c.is_noise:
        d = c.dims[0]
        one = replace(c, kernel=on_first_input(c.kernel))
        return component_paragraph(
            one, dec.axes[d], previous_r2, x_data=column(dec, d), input_name=dec.names[d]
        )
    sentences = [opening(c.index, component_phrase(dec, c))]
    sentences += [_noise_sentence(dec, c)] if c.is_noise else _joint_sentences(dec, c)
    axis = dec.axes[c.dims[0]] if c.dims else dec.axis
    sentences += statistics_sentences(c, axis, previous_r2)
    return " ".join(sentences)


def _noise_sentence(dec: Decomposition, c: ComponentFacts) -> str:
    """Its standard deviation at the data: one number, or its range when it varies."""
    axis = dec.axis
    sd = np.sqrt(np.maximum(c.kernel.diag(dec.model.X), 0.0))
    lead = "Its values are independent from point to point"
    low, high = float(sd.min()), float(sd.max())
    if not c.dims or format_amount(low, axis) == format_amount(high, axis):
        return f"{lead}, with a standard deviation of about {format_amount(high, axis)}."
    names = join_words(input_names(dec, c.dims))
    return (
        f"{lead}; its standard deviation changes with {names}, between about"
        f" {format_amount(low, axis)} and {format_amount(high, axis)} over the data."
    )


def _joint_sentences(dec: Decomposition, c: ComponentFacts) -> list[str]:
    """What a component of several inputs multiplies, how far its mean moves, its figure."""
    axis, mean = dec.axis, c.data_mean
    if not c.dims:  # a constant: it reads no input
        level = float(mean[int(np.argmax(np.abs(mean)))]) if mean.size else 0.0
        return [f"Its level is about {format_amount(level, axis)}."]
    out = []
    factors = factor_phrases(dec, c)
    if len(factors) >= 2:
        out.append(
            f"It is the product of {join_words(factors)}: how {dec.y_name} changes with"
            f" {'either' if len(factors) == 2 else 'any one'} depends on the"
            f" other{'' if len(factors) == 2 else 's'}."
        )
    effect = dec.effects[c.index - 1]
    if effect is not None:
        out += effect_sentences(effect, dec.axes)
    elif mean.size:
        out.append(
            f"At the data its fitted mean ranges from {format_amount(float(mean.min()), axis)}"
            f" to {format_amount(float(mean.max()), axis)}."
        )
    if len(c.dims) > 2:
        out.append(
            "A function of three or more inputs is not drawn; the table of variance shares"
            " gives its size."
        )
    return out


# -- past the data -----------------------------------------------------------------------------


def extrapolation_sentence(dec: Decomposition, c: ComponentFacts) -> str:
    """What the component does past the data along the time input; '' when no input is time
    (the report then has no such section)."""
    t = dec.time_dim
    if t is None:
        return ""
    if dec.series is not None:
        return describe_extrapolation(c, dec.axis, x_data=column(dec, 0))
    time = dec.names[t]
    if c.is_noise:
        return describe_extrapolation(replace(c, kernel=on_first_input(c.kernel)), dec.axes[t])
    if t not in c.dims:
        return f"It does not depend on {time}: later {time} leaves it as it is."
    if c.dims == (t,):
        one = replace(c, kernel=on_first_input(c.kernel))
        return describe_extrapolation(one, dec.axes[t], x_data=column(dec, t))
    others = join_words([n for n in input_names(dec, c.dims) if n != time])
    return (
        f"Past the data in {time} it follows its covariance function; it depends on {others}"
        " too, so its values there depend on theirs."
    )
