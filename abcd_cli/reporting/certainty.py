"""How sure the report is, in words: the posterior's findings with their probabilities, the tag
of each component, and the page on the posterior over structures (``--method posterior``).

Every probability is relative to the structures weighed (the search's pool), and is worded so:
a finding of probability at least ``FACT`` is stated as held "among the structures weighed, with
probability 0.9 or more"; from ``LIKELY`` to ``FACT`` as likely; from ``FLOOR`` to ``LIKELY`` as
possible but uncertain; below ``FLOOR`` it is left out of the summary (the page on the posterior
lists every finding). A cycle that the data hold fewer than ``MIN_CYCLES`` times is never among
those: however probable, it gets a sentence of its own saying it is seen too few times to be
sure it repeats, so no probability of 0.9 or more stands under "likely". A period or a change
time is given with its central 95% interval over the posterior, in the data's units.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from abcd_cli.data.time_units import counted, in_largest_unit
from abcd_cli.decompose.certainty import Finding, PosteriorFacts, component_feature
from abcd_cli.decompose.components import Decomposition
from abcd_cli.decompose.facts import ComponentFacts
from abcd_cli.kernel_search.agreement import AGREED_TV
from abcd_cli.reporting.change_parts import change_clause
from abcd_cli.reporting.curves import (
    applied_part,
    flat_in_band,
    mean_trend,
    repeat_harmonic,
    trend_shape,
)
from abcd_cli.reporting.hidden_cycle import curve_repeats, repeat_words
from abcd_cli.reporting.numbers import format_number
from abcd_cli.reporting.phrases import harmonic_words
from abcd_cli.reporting.trends import data_spacing
from abcd_cli.reporting.weak import MIN_CYCLES, weak_reasons
from abcd_cli.reporting.wording import (
    capitalise,
    format_span,
    join_words,
    number_word,
    place_in_data,
)

#: A finding at least this probable is stated as a fact.
FACT = 0.9
#: A finding at least this probable (and below FACT) is stated as likely.
LIKELY = 0.5
#: A finding less probable than this is left out of the summary.
FLOOR = 0.1
#: Structures shown on the page on the posterior: at most this many, of weight ≥ SHOWN_WEIGHT.
SHOWN_STRUCTURES = 10
SHOWN_WEIGHT = 0.001


def wording(probability: float) -> str | None:
    """ "fact", "likely", "uncertain", or None below ``FLOOR``."""
    if probability >= FACT:
        return "fact"
    if probability >= LIKELY:
        return "likely"
    if probability >= FLOOR:
        return "uncertain"
    return None


def cycles_seen(f: Finding, dec: Decomposition) -> float | None:
    """How many of a periodic finding's periods the data span along its input; None for
    other findings."""
    if f.feature.kind != "periodic" or not f.feature.value:
        return None
    column = dec.model.X[:, f.feature.inputs[0]]
    return float(np.ptp(column)) / f.feature.value


#: The tier of a cycle probable enough to be a fact or likely, but seen fewer than
#: ``MIN_CYCLES`` times: stated apart, with the count.
FEW_CYCLES = "too few cycles"
#: The tier of a finding probable enough to be a fact or likely that the data cannot back (a
#: change outside the data, a weak cycle): stated apart, so that no "possible" sentence
#: carries a probability of 1.00.
NOT_ESTABLISHED = "not established"


def outside_data(f: Finding, dec: Decomposition) -> bool:
    """Whether a change finding's time lies outside the data along its input, where no
    observation places it (an artefact of a switch that only needed to be off over the data)."""
    if f.feature.kind != "change" or f.feature.value is None:
        return False
    column = dec.model.X[:, f.feature.inputs[0]]
    return not float(column.min()) <= f.feature.value <= float(column.max())


def weak_findings(
    facts: PosteriorFacts, dec: Decomposition, weak: Mapping[int, str] | None = None
) -> dict[int, str]:
    """The findings shown by a cycle of the decomposed structure that the data do not single
    out (``weak``: the reasons by component index, ``reporting/weak.py``), by ``id``, with the
    reason: every weighed structure may hold it, so its probability says only that the
    structures weighed agree."""
    weak = weak_reasons(dec) if weak is None else weak
    out = {}
    for c in dec.components:
        reason = weak.get(c.index)
        finding = component_finding(c, facts) if reason else None
        if finding is not None and finding.feature.kind == "periodic":
            out[id(finding)] = reason
    return out


def tier(
    f: Finding, dec: Decomposition, weak: dict[int, str] | None = None, settled: bool = True
) -> str | None:
    """How the summary words a finding: ``wording`` of its probability; a fact or a likely
    finding about a cycle seen fewer than ``MIN_CYCLES`` times is ``FEW_CYCLES``; a change
    outside the data, or a cycle in ``weak`` (``weak_findings``), is at most possible,
    whatever its probability (``NOT_ESTABLISHED`` when that probability would make it a fact or
    likely), and so is every finding of a sampler that has not ``settled``
    (``PosteriorFacts.unsettled``)."""
    told = wording(f.probability)
    unbacked = outside_data(f, dec) or id(f) in (weak or {}) or not settled
    if told is not None and unbacked:
        return NOT_ESTABLISHED if told in ("fact", "likely") else "uncertain"
    cycles = cycles_seen(f, dec)
    if told in ("fact", "likely") and cycles is not None and cycles < MIN_CYCLES:
        return FEW_CYCLES
    return told


def probability_text(p: float) -> str:
    """A probability with two decimals, never rounded to a certainty it is not: '0.98',
    '> 0.99', '< 0.01'."""
    if p >= 0.995 and p < 1.0 - 1e-9:
        return "> 0.99"
    if 0.0 < p < 0.005:
        return "< 0.01"
    return format_number(p, decimals=2)


def probability_range(low: float, high: float) -> str:
    """Where a probability lies, in words that read whatever its ends: '0.96 to 0.99',
    '0.96 to over 0.99', 'under 0.01 to 0.03', '1.00'."""
    words = {">": "over", "<": "under"}
    a, b = (probability_text(p) for p in (low, high))
    if a == b:
        return a
    a, b = (f"{words[t[0]]} {t[2:]}" if t[0] in words else t for t in (a, b))
    return f"{a} to {b}"


def _distinct(values: tuple[float, ...]) -> list[str]:
    """The values written with the fewest significant figures (2 to 5) that keep the distinct
    ones apart."""
    for digits in (2, 3, 4, 5):
        shown = [format_number(v, digits) for v in values]
        if len(set(shown)) == len(set(values)):
            return shown
    return shown


def _period_interval(f: Finding, dec: Decomposition) -> str:
    """'between 0.998 and 1.003 years': both ends in the unit the upper end fills; '3.06
    years' when the ends would print the same."""
    axis = dec.axes[f.feature.inputs[0]]
    low, high = f.feature.interval  # type: ignore[misc]
    value = float(f.feature.value)  # type: ignore[arg-type]
    if axis.unit is None:
        a, _, b = _distinct((low, value, high))
        if a == b:  # every draw holding it has this period (to five figures): one value
            return f"{format_number(value, 3)} units of {axis.x_name}"
        return f"between {a} and {b} units of {axis.x_name}"
    count, name = in_largest_unit(high, axis.unit)
    scale = high / count
    a, _, b = _distinct((low / scale, value / scale, count))
    if a == b:  # every draw holding it has this period (to five figures): one value
        return counted(format_number(value / scale, 3), name)
    return f"between {a} and {counted(b, name)}"


def finding_phrase(f: Finding, dec: Decomposition) -> str:
    """The finding as a noun phrase: 'a cycle with a period of 1.0 year', 'a change around
    1899', 'a linear trend', 'an interaction between a and b'; a period whose component in
    the decomposed structure has a flat curve (``curves.flat_in_band``) is said as no cycle."""
    feature = f.feature
    names = [dec.names[d] for d in feature.inputs]
    of = f" of {join_words(names)}" if dec.series is None and names else ""
    if feature.kind == "periodic":
        axis = dec.axes[feature.inputs[0]]
        shown = _shown(f, dec)
        if shown is not None and flat_in_band(shown):  # its figure shows no cycle
            span = format_span(feature.value, axis)  # type: ignore[arg-type]
            return f"a period of {span}{of} that the data give no shape"
        k = _shown_harmonic(f, dec)
        if k is not None:
            return f"a cycle{of} {harmonic_words(feature.value, k, axis)}"  # type: ignore[arg-type]
        return f"a cycle{of} with a period of {format_span(feature.value, axis)}"  # type: ignore[arg-type]
    if feature.kind == "change":
        axis = dec.axes[feature.inputs[0]]
        where = place_in_data(feature.value, axis, _span(f, dec), _change_precision(f, dec))  # type: ignore[arg-type]
        around = "" if where.endswith(("begin", "end")) else "around "
        what = change_clause(f, dec)
        return f"a change{' in ' + names[0] if of else ''} {around}{where}{what}"
    if feature.kind == "linear trend":
        return f"{_linear_words(f, dec)}{of}"
    if feature.kind == "polynomial trend":
        return f"a curved (polynomial) trend{of}"
    if feature.kind == "smooth":
        return f"a smooth function{of}" if of else _smooth_words(f, dec)
    if feature.kind == "changing noise":
        return "noise whose size changes"
    if feature.kind == "input used":
        return f"an effect of {names[0]}"
    if feature.kind == "interaction":
        return f"an interaction between {join_words(names)}"
    return f"{feature.kind}{of}"


def _shown(f: Finding, dec: Decomposition) -> ComponentFacts | None:
    """The component of the decomposed structure that shows finding ``f``, if one does."""
    return next(
        (c for c in dec.components if component_feature(c.kernel, c.is_noise, [f]) is f), None
    )


def _shown_harmonic(f: Finding, dec: Decomposition) -> int | None:
    """For a cycle's finding, the k ≥ 2 at whose period/k what its component in the decomposed
    structure fits mostly repeats (``curves.repeat_harmonic``), which its words then say
    first, as the component's heading does; None when none does."""
    shown = _shown(f, dec)
    if shown is None or len(shown.dims) > 1:
        return None
    return repeat_harmonic(shown, dec.model.X[:, shown.dims[0] if shown.dims else 0])


def _linear_words(f: Finding, dec: Decomposition) -> str:
    """A linear-trend finding in the words its curve in the decomposed structure allows, as
    the greedy report checks its own: 'a linear trend'; 'a linear term, flat where it applies
    (a level switched on or off)' when its fitted curve is flat there (``curves.mean_trend``);
    'a linear term whose fitted curve is not a straight line' when a line explains less than
    ``curves.LINEAR_SHARE`` of it (``curves.trend_shape``). A structure that does not hold
    it leaves the words as they are."""
    shown = _shown(f, dec)
    if shown is None or len(shown.dims) > 1:
        return "a linear trend"
    x = dec.model.X[:, shown.dims[0] if shown.dims else 0]
    if mean_trend(shown, x) == "flat":
        return "a linear term, flat where it applies (a level switched on or off)"
    shape = trend_shape(*applied_part(shown, x))
    if shape is not None and not shape.linear:
        return "a linear term whose fitted curve is not a straight line"
    return "a linear trend"


def _smooth_words(f: Finding, dec: Decomposition) -> str:
    """A smooth finding of a series: 'a smooth, non-periodic component', unless its curve in
    the decomposed structure repeats (``hidden_cycle.curve_repeats``): then that its
    covariance holds no period, though its curve rises and falls every P."""
    shown = _shown(f, dec)
    found = curve_repeats(shown, dec.model.X[:, 0]) if shown is not None else None
    if found is None:
        return "a smooth, non-periodic component"
    words = repeat_words(found[0], dec.axes[0])
    return f"a smooth component whose covariance holds no period, though {words}"


def _span(f: Finding, dec: Decomposition) -> tuple[float, float]:
    """The data's first and last value along the finding's input."""
    column = dec.model.X[:, f.feature.inputs[0]]
    return float(column.min()), float(column.max())


def _change_precision(f: Finding, dec: Decomposition) -> float | None:
    """How finely to write a change time: its interval's width, never finer than the data's
    spacing along its input (user units)."""
    low, high = f.feature.interval  # type: ignore[misc]
    x = dec.model.X[:, f.feature.inputs[0]]
    spacing = data_spacing(x) or 0.0
    return max(high - low, spacing) or None


#: What qualifies each probability of a sampler whose halves disagree.
UNSETTLED_RUN = "in this unsettled run"


def finding_detail(
    f: Finding, dec: Decomposition, weak: dict[int, str] | None = None, settled: bool = True
) -> str:
    """'probability 0.98; period between 0.998 and 1.003 years', 'probability 0.87; between
    1895 and 1903'; a cycle in ``weak`` adds why it is only possible; the probability of a
    sampler that has not ``settled`` is qualified (``UNSETTLED_RUN``)."""
    text = f"probability {probability_text(f.probability)}"
    if not settled:
        text += f" {UNSETTLED_RUN}"
    feature = f.feature
    if id(f) in (weak or {}):
        text += f", but only possible: {(weak or {})[id(f)]}"
    if feature.interval is None:
        return text
    if feature.kind == "periodic":
        text += f"; period {_period_interval(f, dec)}"
        cycles = cycles_seen(f, dec)
        if cycles is not None and cycles < MIN_CYCLES:
            text += (
                f"; the data hold only {format_number(cycles, 2)} cycles, too few to be sure"
                " it repeats"
            )
        return text
    if outside_data(f, dec):
        return f"{text}, but outside the data, where no observation places it"
    axis = dec.axes[feature.inputs[0]]
    precision = _change_precision(f, dec)
    span = _span(f, dec)
    ends = {"before the data begin": "the data's start", "after the data end": "the data's end"}
    low, high = (
        ends.get(t, t) for t in (place_in_data(v, axis, span, precision) for v in feature.interval)
    )
    if low == high:
        return text
    return f"{text}; between {low} and {high}"


def unsettled_sentence(facts: PosteriorFacts) -> str:
    """Why a sampler whose halves disagree (``PosteriorFacts.unsettled``) states no finding as
    a fact: '' when they agree."""
    if not facts.unsettled or facts.halves is None:
        return ""
    return (
        "The sampler has not settled: its two independent halves disagree (their weights over"
        f" structures differ by a total variation of {facts.halves.structures_tv:.2f}, more"
        f" than {AGREED_TV:g}), so these weights are not probabilities the data establish, and"
        " no finding is stated as a fact."
    )


def stated(facts: PosteriorFacts) -> list[Finding]:
    """The findings the summary states: probability at least ``FLOOR``."""
    return [f for f in facts.findings if wording(f.probability) is not None]  # the floor


def certainty_summary(
    facts: PosteriorFacts, dec: Decomposition, weak: Mapping[int, str] | None = None
) -> dict[str, Any]:
    """The summary's account of the posterior: an opening, the facts as bullets, the likely
    and the uncertain findings as two sentences; ``weak`` as for ``weak_findings``."""
    weighed = sum(1 for s in facts.structures if s.weight > 0)
    top = facts.structures[0]
    tiers: dict[str, list[str]] = {
        "fact": [],
        FEW_CYCLES: [],
        "likely": [],
        NOT_ESTABLISHED: [],
        "uncertain": [],
    }
    weak_ones = weak_findings(facts, dec, weak)
    settled = not facts.unsettled
    for f in stated(facts):
        tiers[tier(f, dec, weak_ones, settled)].append(  # type: ignore[index]
            f"{finding_phrase(f, dec)} ({finding_detail(f, dec, weak_ones, settled)})"
        )
    found = (
        f"The sampler's particles hold {number_word(weighed)} structures, weighed"
        if facts.sampler is not None
        else f"The search weighed {number_word(weighed)} structures"
        if facts.searches == 1
        else f"The structures of {number_word(facts.searches)} searches with different seeds,"
        f" {number_word(weighed)} in all, were weighed together"
    )
    intro = (
        f"{found} by how well each explains the data (the posterior over structures), so every"
        " finding below comes with its probability among the structures weighed; a structure"
        f" {'no particle holds' if facts.sampler else 'the search did not keep'} carries none. "
    )
    bar = format_number(FACT, decimals=1)
    if not settled:
        intro += unsettled_sentence(facts)
    elif tiers["fact"]:
        intro += f"Among the structures weighed, with probability {bar} or more:"
    else:
        intro += f"No finding reaches probability {bar} among the structures weighed."
    few = (
        f"Held by most of the weight, but seen fewer than {number_word(int(MIN_CYCLES))} times"
        f" in the data, too few to be sure it repeats: {join_words(tiers[FEW_CYCLES])}."
        if tiers[FEW_CYCLES]
        else ""
    )
    likely = (
        f"Likely among the structures weighed, but not certain: {join_words(tiers['likely'])}."
        if tiers["likely"]
        else ""
    )
    unbacked = (
        f"Held by most of the weight{' of this unsettled run' if not settled else ''}, but not"
        f" established by the data: {join_words(tiers[NOT_ESTABLISHED])}."
        if tiers[NOT_ESTABLISHED]
        else ""
    )
    possible = (
        f"Possible, but uncertain: {join_words(tiers['uncertain'])}." if tiers["uncertain"] else ""
    )
    uncertain = " ".join(s for s in (unbacked, possible) if s)
    structure = (
        f"The components below are those of the most probable structure (weight"
        f" {probability_text(top.weight)}); each is tagged with the probability of what it"
        f" shows. Findings below {format_number(FLOOR, decimals=1)} are left out here; the page"
        " on the posterior lists them all."
    )
    return {
        "certainty": intro,
        "facts": [capitalise(t) + "." for t in tiers["fact"]],
        "few_cycles": few,
        "likely": likely,
        "uncertain": uncertain,
        "structure": structure,
    }


def component_finding(c: ComponentFacts, facts: PosteriorFacts) -> Finding | None:
    """The posterior's finding that component ``c`` shows (``decompose/certainty.py``)."""
    return component_feature(c.kernel, c.is_noise, facts.findings)


def component_tag(f: Finding | None, dec: Decomposition, settled: bool = True) -> str:
    """What a component's heading and bullet add: 'probability 0.98', 'uncertain: probability
    0.35', 'probability 1.00, but the data hold only 2.8 cycles'; '' when the posterior gives
    it no probability; a sampler that has not ``settled`` qualifies the probability
    (``UNSETTLED_RUN``)."""
    if f is None:
        return ""
    qualified = "" if settled else f" {UNSETTLED_RUN}"
    if f.probability < LIKELY:
        return f"uncertain: probability {probability_text(f.probability)}{qualified}"
    tag = f"probability {probability_text(f.probability)}{qualified}"
    cycles = cycles_seen(f, dec)
    if cycles is not None and cycles < MIN_CYCLES:
        tag += f", but the data hold only {format_number(cycles, 2)} cycles"
    return tag


def findings_json(
    facts: PosteriorFacts, dec: Decomposition, weak: Mapping[int, str] | None = None
) -> list[dict[str, Any]]:
    """Every finding for machines: kind, inputs by name, value and interval (user units), its
    probability and range under the evidence's error, how the summary words it, its words;
    ``weak`` as for ``weak_findings``."""
    out = []
    weak_ones = weak_findings(facts, dec, weak)
    settled = not facts.unsettled
    for f in facts.findings:
        feature = f.feature
        out.append(
            {
                "kind": feature.kind,
                "inputs": [dec.names[d] for d in feature.inputs],
                "value": feature.value,
                "interval": list(feature.interval) if feature.interval else None,
                "probability": f.probability,
                "probability_range": [f.low, f.high],
                "wording": tier(f, dec, weak_ones, settled) or "omitted",
                "text": f"{finding_phrase(f, dec)} ({finding_detail(f, dec, weak_ones, settled)})",
            }
        )
    return out
