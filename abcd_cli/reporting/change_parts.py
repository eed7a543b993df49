"""What changes at a change the posterior finds (gas production: "a change around 1980
(probability 0.99)" with no component saying what changes there).

A change finding is an end of a change factor's interval, grouped over the particles
(``decompose/features.py``). In the decomposed structure (the most probable one, whose
components the report describes), a component changes at it when one of its change factors
switches on or off within the finding's interval, widened by ``features.CHANGE_TOLERANCE`` of
the data's span. What it does there is read from its own fitted curve, not from the factor
alone: its mean size over the data before the interval (s₀) against after it (s₁), a level's,
trend's or smooth function's own value m (it rises when s₁ > s₀, else falls), a cycle's
amplitude period by period (``curves.size_profile``), noise's prior standard
deviation √k(x, x) (it grows when s₁ > s₀, else shrinks); a component whose curve holds no
data on one side, or is flat inside its band (``curves.flat_in_band``), is not named.
"""

from __future__ import annotations

import numpy as np

from abcd_cli.decompose.certainty import Finding
from abcd_cli.decompose.components import Decomposition
from abcd_cli.decompose.facts import ComponentFacts
from abcd_cli.decompose.features import CHANGE_TOLERANCE
from abcd_cli.reporting.curves import flat_in_band, size_profile
from abcd_cli.reporting.factors import factors_of
from abcd_cli.reporting.gathered import gathered
from abcd_cli.reporting.trends import in_data_range, noise_profile
from abcd_cli.reporting.wording import format_amount, join_words

#: A size below this share of the larger of the two is said as 0 (a level switched off).
SMALL_SHARE = 0.01
#: What each kind of component is called in a change's words.
NOUNS = {
    "constant": "a level",
    "linear": "a trend",
    "periodic": "a cycle",
    "smooth": "a smooth function",
    "noise": "noise",
}
#: What grows or shrinks, by kind: a cycle's amplitude, noise's size, the rest's level.
MEASURES = {"periodic": "in amplitude", "noise": "in size"}
#: The kinds whose change is said by their curve's own signed value m (measured from the
#: reference every level is), averaged on each side: it rises or falls. A smooth function's |m|
#: would read as a size no reader can place ('grows from about 124 to 240' of a rising trend).
SIGNED = ("constant", "linear", "smooth")


def _head(c: ComponentFacts, x: np.ndarray) -> str | None:
    """The component's kind ("constant", "linear", "periodic", "smooth", "noise")."""
    if c.is_noise:
        return "noise"
    parts = factors_of(c.kernel, x)
    if parts is not None:
        return parts.head
    together = gathered(c.kernel, x)
    return None if together is None else together.head


def _switches_within(c: ComponentFacts, d: int, low: float, high: float) -> bool:
    """Whether one of the component's change factors on input d switches within [low, high]."""
    for base in c.kernel.bases():
        if getattr(base, "role", "") != "gate" or base.dim != d:
            continue
        for start, end, *_ in base.switched_on():  # type: ignore[attr-defined]
            if any(low <= t <= high for t in (start, end)):
                return True
    return False


def _sizes(c: ComponentFacts, x: np.ndarray, head: str) -> tuple[np.ndarray, np.ndarray] | None:
    """(where, size) across the data: noise's prior sd, a level's, trend's or smooth function's
    own value (signed), a cycle's amplitude."""
    if head in SIGNED:
        return in_data_range(c, x)
    if c.is_noise:
        xs = np.linspace(float(x.min()), float(x.max()), 201)
        return xs, noise_profile(c.kernel, (float(x.min()), float(x.max())))
    return size_profile(c, x)


def _before_after(
    c: ComponentFacts, x: np.ndarray, head: str, span: tuple[float, float]
) -> tuple[float, float] | None:
    """s₀ and s₁: the component's mean size over the data before and after ``span``."""
    low, high = span
    profile = _sizes(c, x, head)
    if profile is None:
        return None
    where, size = profile
    before, after = size[where < low], size[where > high]
    if not before.size or not after.size:
        return None
    return float(np.mean(before)), float(np.mean(after))


def change_clause(f: Finding, dec: Decomposition) -> str:
    """', where component 1 (a level) rises from about −16,800 before it to −3,060 after and
    component 3 (noise) grows in size from about 1,230 before it to 6,960 after' for a change
    finding; '' for any other finding, and when no component of the decomposed structure
    changes within its interval."""
    feature = f.feature
    if feature.kind != "change" or feature.interval is None or not feature.inputs:
        return ""
    d = feature.inputs[0]
    x = dec.model.X[:, d]
    tol = CHANGE_TOLERANCE * float(np.ptp(x))
    low, high = feature.interval[0] - tol, feature.interval[1] + tol
    said = []
    axis = dec.axes[d]
    for c in dec.components:
        head = _head(c, x)
        if head is None or flat_in_band(c) or not _switches_within(c, d, low, high):
            continue  # a curve flat inside its band changes nothing a reader can see
        sizes = _before_after(c, x, head, feature.interval)
        if sizes is None or sizes[0] == sizes[1]:
            continue
        if head in SIGNED:
            verb = "rises" if sizes[1] > sizes[0] else "falls"
        else:
            verb = "grows" if sizes[1] > sizes[0] else "shrinks"
        measure = MEASURES.get(head, "")
        top = max(abs(sizes[0]), abs(sizes[1]))
        sizes = tuple(v if abs(v) >= SMALL_SHARE * top else 0.0 for v in sizes)
        averaged = " on average" if head in SIGNED and head != "constant" else ""
        said.append(
            f"component {c.index} ({NOUNS[head]}) {verb}{' ' + measure if measure else ''}"
            f" from about {format_amount(sizes[0], axis)}{averaged} before it to"
            f" {format_amount(sizes[1], axis)} after"
        )
    return f", where {join_words(said)}" if said else ""
