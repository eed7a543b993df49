"""Which components the data do not single out, and why: a cycle is stated as possible, not as
a plain finding, when its period is one of several comparable peaks of the periodogram of
what it fits (at least ``MIN_RIVALS`` rivals outside its own spectral width:
``decompose/periods.py``), when the data span fewer than ``MIN_CYCLES`` of it, or when it
lowers the cross-validated mean absolute error by less than ``WEAK_CV_GAIN``; any other
component but noise, for the last reason (unless the whole model predicts worse without
it). The report computes the reasons once (``weak_reasons``) and passes them to every part
that words a component.
"""

from __future__ import annotations

from abcd_cli.decompose.components import Decomposition
from abcd_cli.decompose.facts import ComponentFacts
from abcd_cli.decompose.periods import dominant_harmonic, period_rivals
from abcd_cli.reporting.curves import fitted_amplitudes, flat_in_band
from abcd_cli.reporting.factors import Factors, is_gradual, product_lengthscale
from abcd_cli.reporting.gathered import leading_cycle
from abcd_cli.reporting.numbers import format_number, format_percent
from abcd_cli.reporting.trends import cycles_in_data
from abcd_cli.reporting.wording import format_span, join_words, number_word, percent

#: A cycle lowering the cross-validated MAE by less than this share is possible at most.
WEAK_CV_GAIN = 0.01
#: A cycle whose period has at least this many rival peaks is possible at most.
MIN_RIVALS = 2
#: A period whose fitted swings reach this share of the largest counts as one where the cycle
#: shows (``_visible_cycles``).
VISIBLE_SHARE = 0.25
#: A cycle that the data hold fewer times than this is possible at most: with so few repeats
#: its repetition is what the data cannot show (airline's 4.4-year cycle in 11.9 years).
MIN_CYCLES = 3.0


def cycle_period(dec: Decomposition, c: ComponentFacts) -> float | None:
    """The period of a component that is a cycle along one input (its leading periodic factor,
    or its gathered terms' leading one); None for any other component."""
    parts = _cycle_parts(dec, c)
    return None if parts is None else float(parts.periodic[0].param("period"))


def _cycle_parts(dec: Decomposition, c: ComponentFacts) -> Factors | None:
    """The leading cycle's factors of a component that is a cycle along one input."""
    if c.is_noise or len(c.dims) > 1:
        return None
    return leading_cycle(c.kernel, dec.model.X[:, c.dims[0] if c.dims else 0])


def cycle_drift(dec: Decomposition, c: ComponentFacts) -> float | None:
    """The length over which a cycle's shape drifts (its smooth factors' lengthscale), None
    when it repeats exactly."""
    parts = _cycle_parts(dec, c)
    return product_lengthscale(parts.smooth) if parts is not None and parts.smooth else None


def _visible_cycles(dec: Decomposition, c: ComponentFacts, period: float) -> tuple[int, int] | None:
    """(k, n): a cycle that no change factor switches off whose fitted swings reach
    ``VISIBLE_SHARE`` of their largest in only k < ``MIN_CYCLES`` of the n ≥ 2k periods its
    amplitude is measured over (wages: a 104-year cycle flat for six centuries, swinging over
    the last one and a half); None otherwise."""
    parts = _cycle_parts(dec, c)
    x = dec.model.X[:, c.dims[0] if c.dims else 0]
    if parts is None or (parts.gates and not is_gradual(parts.gates, x)):
        return None  # switched off somewhere: its quiet periods are its switches'
    amplitudes = fitted_amplitudes(c, period, x)
    if amplitudes is None or amplitudes.sizes.size < 2 or float(amplitudes.sizes.max()) <= 0:
        return None
    sizes = amplitudes.sizes
    k, n = int((sizes >= VISIBLE_SHARE * float(sizes.max())).sum()), int(sizes.size)
    return (k, n) if k < MIN_CYCLES and n >= 2 * k else None


def weak_cycle_reason(dec: Decomposition, c: ComponentFacts) -> str | None:
    """Why the data do not single out component ``c``'s cycle ('its period is one of four
    comparable peaks ...; it lowers the cross-validated error by only 0.4%'; a spiky 3-year
    cycle whose fitted curve repeats mostly every year), or None when it is not a cycle or
    they do."""
    period = cycle_period(dec, c)
    if period is None:
        return None
    reasons = []
    if flat_in_band(c):  # its curve, flat at zero, shows no cycle: nothing else to weigh
        reasons.append("its fitted curve is flat at zero")
    elif c.partial.size:
        d = c.dims[0] if c.dims else 0
        cycles = cycles_in_data(period, dec.model.X[:, d]) or 0.0
        if 1.0 <= cycles < MIN_CYCLES:  # under one, it is said as a slow swing instead
            reasons.append(f"the data span only {format_number(cycles, 2)} of its cycles")
        visible = _visible_cycles(dec, c, period)
        if visible is not None:
            reasons.append(
                f"its swings reach {format_percent(VISIBLE_SHARE, 0)} of their largest size in only"
                f" {number_word(visible[0])} of the {number_word(visible[1])} periods the data span"
            )
        rivals = period_rivals(dec.model.X[:, d], c.partial, period, cycle_drift(dec, c))
        if rivals is not None and rivals >= MIN_RIVALS:
            reasons.append(
                f"its period is one of {number_word(rivals + 1)} comparable peaks in the"
                " periodogram of what it fits"
            )
        k = dominant_harmonic(dec.model.X[:, d], c.partial, period)
        if k is not None:
            reasons.append(
                f"what it fits repeats every {format_span(period / k, dec.axes[d])}, not"
                f" every {format_span(period, dec.axes[d])}: in its periodogram only multiples"
                " of that shorter cycle's frequency hold power"
            )
    reasons += _cv_reason(c)
    return join_words(reasons) if reasons else None


def _cv_reason(c: ComponentFacts) -> list[str]:
    """Why a component lowering the cross-validated MAE by less than ``WEAK_CV_GAIN`` is not
    established, unless the whole model predicts worse without it (``helps_jointly``)."""
    if c.mae_reduction >= WEAK_CV_GAIN or c.helps_jointly:
        return []
    if c.mae_reduction > 0:
        return [
            f"it lowers the cross-validated error by only {percent(c.mae_reduction, fine=True)}"
        ]
    return ["it does not lower the cross-validated error"]


def weak_reason(dec: Decomposition, c: ComponentFacts) -> str | None:
    """Why component ``c`` is possible rather than established: a cycle's reasons
    (``weak_cycle_reason``); of any other component but noise, that it barely lowers the
    cross-validated error (radio's 'A constant.' of level 0.00386, which raises it by 1.7%)."""
    if cycle_period(dec, c) is not None:
        return weak_cycle_reason(dec, c)
    return None if c.is_noise else join_words(_cv_reason(c)) or None


def weak_reasons(dec: Decomposition) -> dict[int, str]:
    """``weak_reason`` of every component that has one, by the component's index: computed
    once per report (the periodogram's rivals cost a transform per cycle) and handed to the
    summary, the sections and the posterior's findings."""
    reasons = {c.index: weak_reason(dec, c) for c in dec.components}
    return {index: reason for index, reason in reasons.items() if reason}


def headed(phrase: str, reason: str | None) -> str:
    """A component's heading, its table row's and its API description: a weak cycle's (one
    with a ``reason``) is 'possibly ...', as its bullet is."""
    return f"possibly {phrase}" if reason else phrase
