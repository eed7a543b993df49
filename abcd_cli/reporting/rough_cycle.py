"""A cycle made only of rough terms (``decompose/rough.py``: every term's smooth factors
shorter than its period, or its periodic factor's features narrower than the data's
spacing): its kernel holds a period, but its fitted curve has no smooth periodic part, no
shape that repeats. It is said by what its curve shows: short-term irregular variation, why
its period does not make it a regular cycle, how large its fitted values at the data are
(sd of m(x_i)), and how alike its curve is one period apart, r = corr(m(x), m(x + P)) over
the data."""

from __future__ import annotations

import numpy as np

from abcd_cli.decompose.facts import Axis, ComponentFacts
from abcd_cli.decompose.rough import all_rough
from abcd_cli.decompose.window import shortest_period
from abcd_cli.kernels import Kernel
from abcd_cli.reporting.curves import fades_beyond, flat_in_band
from abcd_cli.reporting.gathered import leading_cycle
from abcd_cli.reporting.hidden_cycle import lagged_correlation
from abcd_cli.reporting.numbers import format_number
from abcd_cli.reporting.trends import data_range, data_spacing
from abcd_cli.reporting.wording import format_amount, format_span

#: What the heading calls such a component.
ROUGH_PHRASE = "short-term irregular variation"
#: What the heading calls one whose fitted curve is flat at zero (``curves.flat_in_band``):
#: its curve shows no variation at all, irregular or not.
FLAT_PHRASE = "a periodic part the data give no shape"
#: Curves whose values one period apart correlate below this are said to be unalike there.
ALIKE_CORRELATION = 0.5


def is_rough_cycle(kernel: Kernel, x_data: np.ndarray | None) -> bool:
    """Whether the component (user units) is a cycle made only of rough terms at the data's
    spacing (``rough.all_rough``); False without data."""
    return x_data is not None and all_rough(kernel, data_spacing(x_data))


def said_as_rough(facts: ComponentFacts, x_data: np.ndarray | None) -> bool:
    """``is_rough_cycle``, unless what it fits, its partial residuals (the data less the other
    components), recur one (shortest) period later at ``ALIKE_CORRELATION`` or more: then the
    data show its jumps repeating every period, and it is said as the cycle it is (births: a
    weekly pattern on scattered days, the data a week apart correlating at 0.8). Its fitted
    values alone cannot tell: a periodic factor makes them recur whatever the data do."""
    if x_data is None or not is_rough_cycle(facts.kernel, x_data):
        return False
    period = _read_period(facts.kernel, x_data)
    if period is None or facts.partial.size != np.asarray(x_data).size:
        return True
    r = lagged_correlation(np.asarray(x_data, dtype=float), facts.partial, period)
    return not (np.isfinite(r) and r >= ALIKE_CORRELATION)


def _read_period(kernel: Kernel, x_data: np.ndarray | None) -> float | None:
    """The period a rough cycle is read at: its leading cycle's (``gathered.leading_cycle``,
    which reads cycles multiplied together as one of their common period: 3 and 4 months
    together repeat every year), else its shortest periodic factor's; None without one."""
    parts = leading_cycle(kernel, x_data)
    if parts is not None:
        return float(parts.periodic[0].param("period"))
    return shortest_period([kernel])


def is_flat_cycle(facts: ComponentFacts, x_data: np.ndarray | None) -> bool:
    """Whether the component is a rough cycle (``is_rough_cycle``) whose fitted curve is flat
    at zero inside its own band (``curves.flat_in_band``): said by ``FLAT_PHRASE``."""
    return is_rough_cycle(facts.kernel, x_data) and flat_in_band(facts)


def _period_and_reason(kernel: Kernel, axis: Axis, x_data: np.ndarray | None) -> tuple[float, str]:
    """The component's period (``_read_period``), and why it is no regular cycle in words:
    its smooth factors' lengthscale below the period, or its periodic factor's features
    narrower than the data's spacing."""
    bases = kernel.bases()
    periodic = [b for b in bases if getattr(b, "role", "") == "periodic"]
    spacing = data_spacing(x_data)
    period = _read_period(kernel, x_data)
    assert period is not None  # a rough cycle holds a periodic factor
    smooth = [float(b.param("lengthscale")) for b in bases if getattr(b, "role", "") == "smooth"]
    if smooth:
        length = sum(v**-2 for v in smooth) ** -0.5
        if length < period:
            return period, (
                f"another of its factors changes over only about {format_span(length, axis)},"
                " less than a period: its fitted curve changes within each period as the data"
                " do, not along one smooth shape"
            )
    widths = [
        float(b.param("lengthscale")) * float(b.param("period")) / (2.0 * np.pi)
        for b in periodic
        if "lengthscale" in getattr(b, "names", ())
    ]
    width = min(widths) if widths else 0.0
    gap = format_span(spacing, axis) if spacing else "the data's spacing"
    return period, (
        f"within a period its features are only about {format_span(width, axis)} wide,"
        f" narrower than the spacing of the data ({gap}): its fitted values jump from one data"
        " point to the next, with no smooth shape within a period"
    )


def period_correlation(facts: ComponentFacts, period: float, x_data: np.ndarray) -> float:
    """r = corr(m(x_i), m(x_i + P)) of the component's fitted values at the data, m(x_i + P)
    interpolated between them (NaN when the data hold less than two periods or the values do
    not move)."""
    return lagged_correlation(x_data, facts.data_mean, period)


def rough_cycle_sentences(facts: ComponentFacts, axis: Axis, x_data: np.ndarray) -> list[str]:
    """The sentences after the opening of a cycle made only of rough terms; of one whose
    curve is flat inside its band (``curves.flat_in_band``), that and its sizes alone."""
    period, reason = _period_and_reason(facts.kernel, axis, x_data)
    size = format_amount(float(np.std(facts.data_mean)), axis)
    if flat_in_band(facts):
        band = format_amount(float(np.mean(facts.sd)), axis)
        return [
            f"Its covariance holds a period of {format_span(period, axis)}, but its fitted curve"
            f" is flat at zero: its fitted values at the data have a standard deviation of about"
            f" {size}, against {band} for its own uncertainty, so the data give it no shape."
        ]
    out = [
        f"Its covariance holds a period of {format_span(period, axis)}, but {reason}. Its"
        f" fitted values at the data have a standard deviation of about {size}."
    ]
    r = period_correlation(facts, period, x_data)
    if np.isfinite(r):
        apart = (
            f"values {format_span(period, axis)} apart correlate at {format_number(r, decimals=2)}"
        )
        out.append(
            f"Its irregular values do recur a period later ({apart} over the data): what"
            " repeats is a pattern of jumps, not a regular shape."
            if r >= ALIKE_CORRELATION
            else f"Nor do its values recur a period later: {apart} over the data."
        )
    return out


def rough_cycle_continuation(
    facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None
) -> tuple[bool, str]:
    """What the component does past the data, read from its curve there: (whether it fades,
    its sentence). Fading, short-term variation is not forecast; else the model carries its
    irregular values on period by period, which is its assumption, not a shape the data show;
    a curve flat inside its band stays flat."""
    if flat_in_band(facts):  # a line at zero in its figure, past the data as over it
        return False, (
            "Beyond the data its fitted curve stays flat at zero: it adds only its uncertainty"
            " to the forecast's band."
        )
    period, _ = _period_and_reason(facts.kernel, axis, x_data)
    span = data_range(x_data)
    if span is None or fades_beyond(facts, period, x_data):
        return True, (
            "Beyond the data its fitted curve dies away: short-term irregular variation is not"
            " forecast far ahead; it only widens the band."
        )
    return False, (
        "Beyond the data the model carries its irregular values on from one period of"
        f" {format_span(period, axis)} to the next; that is its assumption, not a repeating"
        " shape the data show."
    )
