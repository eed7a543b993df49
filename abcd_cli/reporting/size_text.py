"""How gradual change factors scale a component across the data, said from its fitted
curve's size profile (``curves.size_profile``: sizes s_k at x_k, shares s_k / max s): one
largest size, stated once where it is reached, and the share at the start or at the end of
the data only where it falls short of the largest by more than ``1 − NEAR_LARGEST`` (a
curve at 100% of its largest at the start is not also 'largest around 1960')."""

from __future__ import annotations

import numpy as np

from abcd_cli.decompose.facts import Axis
from abcd_cli.reporting.numbers import format_percent
from abcd_cli.reporting.trends import coarse_precision
from abcd_cli.reporting.wording import format_position, join_words

#: An end of the data whose size is at least this share of the largest is said to be about
#: as large as the largest, not given a share of its own.
NEAR_LARGEST = 0.95


def gradual_sentences(
    profile: tuple[np.ndarray, np.ndarray], axis: Axis, x_data: np.ndarray
) -> list[str]:
    """How change factors too soft to switch the component scale it across the data, from
    ``profile`` (x_k, s_k): where it is largest and, relative to that, its size at the start
    and the end of the data."""
    xs, sizes = np.asarray(profile[0], dtype=float), np.asarray(profile[1], dtype=float)
    share = sizes / sizes.max()
    peak, last = int(np.argmax(sizes)), sizes.size - 1
    if peak == 0:
        largest = "largest at the start of the data"
    elif peak == last:
        largest = "largest at the end of the data"
    else:
        largest = f"largest around {format_position(xs[peak], axis, coarse_precision(x_data))}"
    ends = []
    for k, end in ((0, "start"), (last, "end")):
        if k == peak:
            continue
        if share[k] < NEAR_LARGEST:
            ends.append(f"{format_percent(share[k], 0)} of that at the {end} of the data")
        else:
            ends.append(f"about as large at the {end} of the data")
    text = (
        "Its change points do not switch it on or off but scale it gradually: on its fitted"
        f" curve, its size is {largest}"
    )
    if ends:
        text += f"{',' if len(ends) > 1 else ' and'} {join_words(ends)}"
    return [text + "."]
