"""The paragraph on one component of a model of several inputs, and its sentence on
extrapolation along the time input.

A component of one input gets the one-input paragraph along that input; one of several inputs
says which function of each input it multiplies, how far its mean moves over the data and
that it is drawn as a surface (two inputs) or not at all (more); noise says how large it is.
All end with the one-input report's sentences on variance and cross-validated error.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from abcd_cli.decompose.several_inputs import InputComponent, InputsDecomposition
from abcd_cli.reporting.extrapolation import describe_extrapolation
from abcd_cli.reporting.inputs_phrases import (
    column,
    component_phrase,
    factor_phrases,
    input_names,
    on_first_input,
)
from abcd_cli.reporting.paragraphs import component_paragraph, opening, statistics_sentences
from abcd_cli.reporting.wording import format_amount, join_words


def inputs_paragraph(dec: InputsDecomposition, c: InputComponent, previous_r2: float) -> str:
    """The paragraph on component ``c``; ``previous_r2``: the R² of the components before it."""
    facts, dims = c.facts, c.dims
    axis = dec.axes[dims[0]] if dims else dec.axes[0]
    if len(dims) == 1 and not facts.is_noise:
        d = dims[0]
        one = replace(facts, kernel=on_first_input(facts.kernel))
        return component_paragraph(
            one, dec.axes[d], previous_r2, x_data=column(dec, d), input_name=dec.names[d]
        )
    sentences = [opening(facts.index, component_phrase(dec, c))]
    if facts.is_noise:
        sentences.append(_noise_sentence(dec, c))
    else:
        sentences += _joint_sentences(dec, c)
    sentences += statistics_sentences(facts, axis, previous_r2)
    return " ".join(sentences)


def _noise_sentence(dec: InputsDecomposition, c: InputComponent) -> str:
    """Its standard deviation at the data: one number, or its range when it varies."""
    axis = dec.axes[0]
    sd = np.sqrt(np.maximum(c.facts.kernel.diag(dec.model.X), 0.0))
    lead = "Its values are independent from point to point"
    low, high = float(sd.min()), float(sd.max())
    if not c.dims or format_amount(low, axis) == format_amount(high, axis):
        return f"{lead}, with a standard deviation of about {format_amount(high, axis)}."
    names = join_words(input_names(dec, c.dims))
    return (
        f"{lead}; its standard deviation changes with {names}, between about"
        f" {format_amount(low, axis)} and {format_amount(high, axis)} over the data."
    )


def _joint_sentences(dec: InputsDecomposition, c: InputComponent) -> list[str]:
    """What a component of several inputs multiplies, how far its mean moves, its figure."""
    axis = dec.axes[0]
    mean = c.facts.data_mean
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
    if mean.size:
        out.append(
            f"At the data its posterior mean ranges from {format_amount(float(mean.min()), axis)}"
            f" to {format_amount(float(mean.max()), axis)}."
        )
    if len(c.dims) > 2:
        out.append(
            "A function of three or more inputs is not drawn; the table of variance shares"
            " gives its size."
        )
    return out


def inputs_extrapolation(dec: InputsDecomposition, c: InputComponent) -> str:
    """What the component does past the data along the time input (the report has such a
    section only when one input is time)."""
    t = dec.time_dim
    if t is None:
        return ""
    time = dec.names[t]
    if c.facts.is_noise:
        noise = replace(c.facts, kernel=on_first_input(c.facts.kernel))
        return describe_extrapolation(noise, dec.axes[t])
    if t not in c.dims:
        return f"It does not depend on {time}: later {time} leaves it as it is."
    if c.dims == (t,):
        one = replace(c.facts, kernel=on_first_input(c.facts.kernel))
        return describe_extrapolation(one, dec.axes[t], x_data=column(dec, t))
    others = join_words([n for n in input_names(dec, c.dims) if n != time])
    return (
        f"Past the data in {time} it follows its covariance function; it depends on {others}"
        " too, so its values there depend on theirs."
    )
