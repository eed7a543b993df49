"""The report's summary sentences and the verdict of the posterior predictive checks."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from abcd_cli.decompose.facts import Axis, ComponentFacts, ModelCheck
from abcd_cli.reporting.curves import (
    mean_trend,
)
from abcd_cli.reporting.gathered import scatter_share
from abcd_cli.reporting.headings import curve_phrase
from abcd_cli.reporting.numbers import format_number, format_percent, format_pvalue
from abcd_cli.reporting.wording import (
    capitalise,
    join_words,
    number_word,
    percent,
)

#: A cycle whose variance at the data is at least this share scatter says so in the summary.
SCATTER_SAID = 0.1


def _explained_sentence(components: Sequence[ComponentFacts]) -> str:
    """How many components explain 90% and 99% of the variation, and all of them together."""
    n = len(components)
    if n == 0:
        return "There is no component to explain the variation in the data."
    cum = [c.cum_r2 for c in components]
    if n == 1:
        return f"The single component explains {percent(cum[0])} of the variation in the data."
    sentences = []
    shown = [""]
    for threshold in (0.9, 0.99):
        k = next((i + 1 for i, r in enumerate(cum) if r >= threshold), None)
        if k is None or k == n or percent(cum[k - 1]) == shown[-1]:
            continue
        shown.append(percent(cum[k - 1]))
        lead = "The first component explains" if k == 1 else f"The first {k} components explain"
        sentences.append(f"{lead} {shown[-1]} of the variation in the data.")
    every = "Both" if n == 2 else f"All {number_word(n)}"
    if not sentences:
        sentences.append(
            f"{every} components together explain {percent(cum[-1])} of the variation in the data."
        )
    elif percent(cum[-1]) != shown[-1]:
        sentences.append(f"{every} together explain {percent(cum[-1])}.")
    return " ".join(sentences + _hundred_sentence(components))


def _hundred_sentence(components: Sequence[ComponentFacts]) -> list[str]:
    """Why a share of 100% says nothing of prediction: with the noise among the components
    that reach it, their fitted values add up to the data by construction; reached before the
    noise (held-out US unemployment, wheat: components following every observation), they
    follow the data that closely. [] when no prefix of them reaches 100%."""
    full = next((k for k, c in enumerate(components) if percent(c.cum_r2) == percent(1.0)), None)
    if full is None:
        return []
    noise = [str(c.index) for c in components[: full + 1] if c.is_noise]
    tail = "so how well the model predicts is read from the cross-validated error instead."
    if noise:
        which = f"component {noise[0]}" if len(noise) == 1 else f"components {join_words(noise)}"
        return [
            f"That 100% holds by construction: with the noise ({which}) in, the components'"
            f" fitted values add up to the data exactly, {tail}"
        ]
    first = "component 1 follows" if full == 0 else f"components 1-{full + 1} follow"
    return [
        f"That 100% is reached before any noise: {first} the data through nearly every"
        " observation, which says how closely the model fits them, not how well it predicts;"
        " that is read from the cross-validated error instead."
    ]


def _scatter_sentence(components: Sequence[ComponentFacts], x_data: np.ndarray | None) -> str:
    """' About 35% of component 1's variance ... is scatter ...' for the cycles whose variance
    at the data is in part scatter from one observation to the next (a
    ``gathered.scatter_share`` of at least ``SCATTER_SAID``): the variance they explain
    counts what cannot be forecast."""
    shares = [(c.index, scatter_share(c, x_data)) for c in components]
    said = [(k, s) for k, s in shares if s is not None and s >= SCATTER_SAID]
    if not said:
        return ""
    parts = join_words([f"{format_percent(s, 0)} of component {k}'s" for k, s in said])
    who, says = ("it", "its paragraph says") if len(said) == 1 else ("they", "their paragraphs say")
    explains = "it explains" if who == "it" else "they explain"
    return (
        f" About {parts} variance at the data is scatter from one observation to the next,"
        f" which cannot be forecast: the share of the variation {explains} overstates what"
        f" {who} can predict ({says} why)."
    )


def _stops_sentence(components: Sequence[ComponentFacts]) -> str:
    """After which component the cross-validated MAE stops falling by more than 0.1%."""
    n = len(components)
    helping = [c.improves_cv for c in components]
    if n == 0:
        return ""
    if all(helping):
        if n == 1:
            return "The component lowers the cross-validated mean absolute error by more than 0.1%."
        return "Every component lowers the cross-validated mean absolute error by more than 0.1%."
    if not any(helping):
        return "No component lowers the cross-validated mean absolute error by more than 0.1%."
    last = max(i + 1 for i, h in enumerate(helping) if h)
    joint = [str(c.index) for c in components if c.helps_jointly]
    if last < n and not joint:
        lead = "After the first component" if last == 1 else f"After the first {last} components"
        return (
            f"{lead} the cross-validated mean absolute error no longer falls by more than 0.1%, "
            "so the later components most likely capture short-lived wiggles, noise or quirks "
            "of the fitted model rather than structure that helps prediction."
        )
    idle = [str(i + 1) for i, h in enumerate(helping) if not h]
    label = "component" if len(idle) == 1 else "components"
    sentence = (
        f"Every component except {label} {join_words(idle)} lowers the cross-validated mean"
        " absolute error by more than 0.1%."
    )
    if joint:
        one = len(joint) == 1
        sentence += (
            f" Yet without {'component' if one else 'components'} {join_words(joint)} the whole"
            f" model would predict worse: {'it helps' if one else 'each helps'} together with"
            " the components ranked after it."
        )
    return sentence


def summary_sentences(
    components: list[ComponentFacts],
    axis: Axis,
    *,
    x_data: np.ndarray | None = None,
    phrases: Sequence[str] | None = None,
) -> dict[str, str | list[str]]:
    """The report's summary: ``intro``, ``explained``, ``stops_improving`` and ``bullets``
    (one capitalised noun phrase per component, ending with a full stop; ``phrases``: the
    components' phrases when they are written elsewhere, as for several inputs)."""
    n = len(components)
    noun = "component" if n == 1 else "components"
    intro = f"The search found {number_word(n)} additive {noun} in the data."
    if phrases is None:
        phrases = [
            curve_phrase(facts, axis, x_data, direction=mean_trend(facts, x_data))
            for facts in components
        ]
    bullets = [capitalise(phrase) + "." for phrase in phrases]
    return {
        "intro": intro,
        "explained": _explained_sentence(components) + _scatter_sentence(components, x_data),
        "stops_improving": _stops_sentence(components),
        "bullets": bullets,
    }


_CHECK_HINTS = {
    "autocorrelation": "the residuals are still correlated from point to point, so some "
    "short-term structure may be missing from the model",
    "periodogram": "some periodic structure is left in the residuals",
    "quantile-quantile": "the residuals are not distributed as the model assumes, for example "
    "heavier tails or outliers",
}


def describe_checks(checks: list[ModelCheck]) -> str:
    """Which posterior predictive checks are significant and what that suggests, in a reader's
    words (the checks compare the data with series simulated from the fitted model)."""
    if not checks:
        return "The model was not checked against series simulated from it."
    flagged = [c for c in checks if c.significant]
    names = join_words([c.name for c in checks])
    if not flagged:
        return (
            "None of the checks that compare the data with series simulated from the fitted"
            f" model ({names}) is significant at the 5% level, so the residuals show no clear"
            " sign of structure that the model misses." + _pointwise_note(checks)
        )
    sentences = []
    for check in flagged:
        shown = format_pvalue(check.p_value)
        p = f"p {shown}" if shown.startswith("<") else f"p = {shown}"
        hint = _where_hint(check) or _CHECK_HINTS.get(
            check.name, "the model misses something this statistic picks up"
        )
        sentences.append(
            f"The {check.name} check is significant ({p}; {check.statistic}), which suggests "
            f"that {hint}."
        )
    calm = [c.name for c in checks if not c.significant]
    if calm:
        label = "check shows" if len(calm) == 1 else "checks show"
        sentences.append(f"The {join_words(calm)} {label} nothing unusual.")
    return " ".join(sentences) + _pointwise_note(checks)


def _where_hint(check: ModelCheck) -> str | None:
    """Where a significant autocorrelation or periodogram check departs most from its
    simulations: the lag (in observations) of the largest |autocorrelation| when it is not the
    first (call centre: lags of 12 and 24, a missed yearly pattern, not 'correlated from point
    to point'), or the period of the periodogram's highest peak; None otherwise."""
    if check.observed.size == 0 or check.lag_or_freq.size != check.observed.size:
        return None
    if check.name == "autocorrelation":
        order = np.argsort(-np.abs(check.observed))
        if float(check.lag_or_freq[order[0]]) <= 1.0:
            return None
        outside = [
            k
            for k in order[:3]
            if check.simulated_low.size != check.observed.size
            or not check.simulated_low[k] <= check.observed[k] <= check.simulated_high[k]
        ] or [int(order[0])]
        outside.sort(key=lambda k: float(check.lag_or_freq[k]))
        lags = join_words(
            [format_number(float(check.lag_or_freq[k]), 3, trim=True) for k in outside]
        )
        values = join_words([format_number(float(check.observed[k]), decimals=2) for k in outside])
        return (
            f"the residuals are still correlated {lags} observations apart (at {values}), so"
            " structure at that distance may be missing from the model"
        )
    if check.name == "periodogram":
        k = int(np.argmax(check.observed))
        frequency = float(check.lag_or_freq[k])
        if frequency <= 0:
            return None
        return (
            "some periodic structure is left in the residuals, strongest at a period of about"
            f" {format_number(1.0 / frequency, 3, trim=True)} observations"
        )
    return None


def _pointwise_note(checks: list[ModelCheck]) -> str:
    """Why a check that is not significant may still draw points outside its bands: each
    check tests the largest departure over all its lags, frequencies or quantiles, while its
    figure draws the 95% band of each point apart, which a few of many points leave by
    chance (radio's autocorrelation at lag 4, solar's periodogram peaks)."""
    outside = [
        c.name
        for c in checks
        if not c.significant
        and c.observed.size
        and c.observed.size == c.simulated_low.size == c.simulated_high.size
        and bool(np.any((c.observed < c.simulated_low) | (c.observed > c.simulated_high)))
    ]
    if not outside:
        return ""
    figures = "figure" if len(outside) == 1 else "figures"
    return (
        f" Points outside the 95% bands of the {join_words(outside)} {figures} are no sign by"
        " themselves: each band holds one point's simulations, so among many points a few fall"
        " outside by chance; each check tests the largest departure over all of them."
    )
