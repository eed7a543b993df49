"""Noun phrases for the components of a model of several inputs, named by the inputs they read.

One input: the one-input phrase with the input after its head noun ('a smooth function of
weight', 'an approximately periodic function of month with a period of 12 months'); two: 'an
interaction between horsepower and year'; three or more: 'a joint function of a, b and c';
none: the one-input phrase ('a constant', 'uncorrelated noise').
"""

from __future__ import annotations

import numpy as np

from abcd_cli.decompose.several_inputs import InputComponent, InputsDecomposition
from abcd_cli.kernels import Additive, BaseKernel, Kernel, product
from abcd_cli.kernels.base import copy_with, reads_x
from abcd_cli.reporting.phrases import noun_phrase
from abcd_cli.reporting.trends import mean_trend
from abcd_cli.reporting.wording import join_words, number_word


def on_first_input(kernel: Kernel) -> Kernel:
    """The kernel with every base kernel moved to input 0: the one-input wording evaluates a
    component along one column, and a component of one input is the same function of it."""
    if isinstance(kernel, BaseKernel):
        return copy_with(kernel, dim=0)
    if kernel.operands:
        return kernel.with_operands([on_first_input(k) for k in kernel.operands])
    return kernel


def column(dec: InputsDecomposition, d: int) -> np.ndarray:
    """Input d's values at the data."""
    return dec.model.X[:, d]


def input_names(dec: InputsDecomposition, dims: tuple[int, ...]) -> list[str]:
    return [dec.names[d] for d in dims]


def component_phrase(dec: InputsDecomposition, c: InputComponent) -> str:
    """The component's noun phrase, naming the inputs it reads."""
    facts, dims = c.facts, c.dims
    if facts.is_noise:
        if not dims:
            return "uncorrelated noise"
        return f"uncorrelated noise whose size changes with {join_words(input_names(dec, dims))}"
    if isinstance(facts.kernel, Additive):
        n = len(facts.kernel.members)
        r = next(k for k, sd in enumerate(facts.kernel.sds, start=1) if sd != 0.0)
        return f"the interactions of order {r} among all {number_word(n)} inputs"
    if not dims:
        return noun_phrase(facts.kernel, dec.axes[0])
    if len(dims) == 1:
        d = dims[0]
        x = column(dec, d)
        return naming(
            noun_phrase(
                on_first_input(facts.kernel),
                dec.axes[d],
                x_data=x,
                direction=mean_trend(facts, x),
                input_name=dec.names[d],
            ),
            dec.names[d],
        )
    names = input_names(dec, dims)
    if len(dims) == 2:
        return f"an interaction between {names[0]} and {names[1]}"
    return f"a joint function of {join_words(names)}"


def factor_phrases(dec: InputsDecomposition, c: InputComponent) -> list[str]:
    """For a product over several inputs, one phrase per input for the factors reading it
    ('a smooth function of horsepower', 'a linear function of year'); empty otherwise."""
    kernel = c.facts.kernel
    if len(c.dims) < 2 or isinstance(kernel, Additive):
        return []
    out = []
    for d in c.dims:
        own = [b for b in kernel.bases() if reads_x(b) and b.dim == d]
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
