"""The report's section on how the fitted mean's variance splits over the inputs of a model of
several inputs: by set of inputs, by input and by order of interaction, and the additive
kernel's order variances (computed by :func:`abcd_cli.decompose.variance.variance_table`).
"""

from __future__ import annotations

from typing import Any

from abcd_cli.decompose.components import Decomposition
from abcd_cli.reporting.numbers import format_number
from abcd_cli.reporting.wording import join_words, percent


def variance_section(dec: Decomposition) -> dict[str, Any]:
    """The shares of the fitted mean's variance by inputs and by order; the additive kernel's
    order variances, with the inputs whose lengthscale reached its bound."""
    v = dec.variance
    assert v is not None, "only a model of several inputs has a variance table"
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
