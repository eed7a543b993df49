"""The sentences on a component's row of the table: how the share of variance explained and
the cross-validated error change when it is added, and why the two may disagree. R² values
are fractions.
"""

from __future__ import annotations

from abcd_cli.decompose.facts import Axis, ComponentFacts
from abcd_cli.reporting.numbers import format_number, format_percent
from abcd_cli.reporting.wording import percent

#: The phrase that marks a component which does not improve the cross-validated error.
CV_WARNING = "without improving the cross-validated error"


def statistics_sentences(
    facts: ComponentFacts, axis: Axis, previous_r2: float | None = None
) -> list[str]:
    """How the share of variance explained and the cross-validated error change with the
    component (``previous_r2`` as in :func:`component_paragraph`)."""
    if previous_r2 is None:
        previous_r2 = facts.cum_r2 - facts.delta_r2
    return [_variance_sentence(facts, previous_r2), *_cv_sentences(facts, axis)]


def _distinct_percents(before: float, after: float) -> tuple[str, str] | None:
    """Two percentages with enough decimals (up to 3) to tell them apart, or None."""
    for decimals in (1, 2, 3):
        a, b = format_percent(before, decimals), format_percent(after, decimals)
        if a != b:
            return a, b
    return None


def _variance_sentence(facts: ComponentFacts, previous_r2: float) -> str:
    """How the share of variance explained changes with this component (three rotating forms)."""
    res = percent(facts.residual_r2)
    pair = _distinct_percents(previous_r2, facts.cum_r2)
    if pair is None:
        return (
            "It leaves the share of variance explained practically unchanged at "
            f"{percent(facts.cum_r2)}."
        )
    prev, cum = pair
    forms = (
        f"It accounts for {res} of the variance that the earlier components left unexplained, "
        f"raising the share of variance explained from {prev} to {cum}.",
        f"Adding it takes the variance explained from {prev} to {cum}, which is {res} of what "
        "was still unexplained.",
        f"With it the model explains {cum} of the variance, up from {prev}: it captures {res} "
        "of the variance that remained.",
    )
    return forms[(facts.index - 1) % len(forms)]


#: A component that adds at least this share of the variance explained (ΔR²) while lowering
#: the cross-validated MAE by less than ``SMALL_CV_GAIN`` gets a sentence on why the two differ.
LARGE_R2_GAIN = 0.05
#: See ``LARGE_R2_GAIN``: a fall of the cross-validated MAE below this share is small.
SMALL_CV_GAIN = 0.02


def _conflict_sentences(facts: ComponentFacts) -> list[str]:
    """Why a component can add much to R² and little to the cross-validated error: R² counts
    how closely it follows the data it was fitted to; the cross-validated error, how much it
    helps predict blocks of data left out."""
    if facts.is_noise or facts.delta_r2 < LARGE_R2_GAIN or facts.mae_reduction >= SMALL_CV_GAIN:
        return []
    return [
        f"It adds {percent(facts.delta_r2)} to the variance explained but lowers the"
        f" cross-validated error by only {percent(facts.mae_reduction, fine=True)}: it follows"
        " the data it was fitted to closely, but helps little to predict a block of data left"
        " out: what it fits there could not be foreseen from the data around it."
    ]


def _told_apart(before: float, after: float) -> tuple[str, str]:
    """Two errors with the significant digits (3 to 6) that tell them apart, so that a change
    of 0.10% never reads 'from 0.488 to 0.488'; equal ones, or closer than 6 digits, at 3."""
    for digits in range(3, 7):
        pair = format_number(before, digits), format_number(after, digits)
        if pair[0] != pair[1]:
            return pair
    return format_number(before, 3), format_number(after, 3)


def _cv_sentences(facts: ComponentFacts, axis: Axis) -> list[str]:
    """How the cross-validated MAE changes, with a warning when the component does not lower it."""
    before, after = _told_apart(facts.cv_mae_before, facts.cv_mae)
    reduction = percent(abs(facts.mae_reduction), fine=True)
    if facts.improves_cv:
        forms = (
            f"It lowers the cross-validated mean absolute error (MAE) by {reduction}, from "
            f"{before} to {after}.",
            f"The cross-validated mean absolute error falls by {reduction} when it is added, "
            f"from {before} to {after}.",
        )
        return [forms[(facts.index - 1) % len(forms)], *_conflict_sentences(facts)]
    if facts.mae_reduction < 0 and reduction != percent(0.0, fine=True):
        change = (
            f"The cross-validated mean absolute error rises by {reduction}, from {before} to "
            f"{after}."
        )
    else:
        change = (
            f"The cross-validated mean absolute error barely moves ({before} to {after}, "
            f"{reduction} lower)."
        )
    if facts.is_noise:
        warning = (
            f"As expected of noise, it explains variance {CV_WARNING}: it cannot be predicted "
            "from neighbouring points."
        )
    elif percent(facts.delta_r2) == percent(0.0):  # the table shows it adds nothing
        warning = (
            "It adds almost nothing to the variance explained and does not improve the"
            " cross-validated error: it is probably a by-product of the model rather than a"
            " pattern that helps prediction."
        )
    elif facts.helps_jointly:
        whole, without = _told_apart(facts.cv_mae_whole, facts.cv_mae_without)
        warning = (
            "That is an effect of the order in which the components are added: the whole"
            f" model's cross-validated error is {without} without it rather than {whole}, so it"
            " helps prediction together with the components ranked after it."
        )
    else:
        warning = (
            f"Since it explains variance {CV_WARNING}, it probably captures short-lived "
            "fluctuations or noise, or is a by-product of the model, rather than a pattern "
            "that helps prediction."
        )
    return [change, warning]
