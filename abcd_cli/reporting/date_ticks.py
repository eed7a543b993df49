"""Dates on a figure's time axis where decimal years do not read: an axis spanning less than
``DATE_TICKS_BELOW`` years (hourly data over six weeks, a window of a few weeks of daily data)
gets ticks at round calendar steps (hours, days, weeks or months) labelled as dates ('21 Nov',
'21 Nov 06:00', 'Mar 1977'), and its label names the year(s) instead of '(years)'.

x on a calendar axis is in decimal years: a "date" axis as ``dates.decimal_year`` counts them,
a "year" axis as ``dates.calendar_year`` reads numbers written as years; the ticks are placed
and read back through the same map.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FixedFormatter, FixedLocator

from abcd_cli.data.dates import (
    calendar_year,
    decimal_year,
    from_calendar_year,
    from_decimal_year,
)
from abcd_cli.decompose.facts import Axis

#: An axis spanning fewer years than this is labelled with dates rather than decimal years.
DATE_TICKS_BELOW = 1.5
#: Ticks per inch of axis at most (a label such as '21 Nov 06:00' is about 0.7 inch wide).
TICKS_PER_INCH = 1.4
#: Tick steps, shortest first: (hours, months) — one of the two is zero.
STEPS: tuple[tuple[int, int], ...] = (
    (1, 0),
    (2, 0),
    (3, 0),
    (6, 0),
    (12, 0),
    (24, 0),
    (48, 0),
    (7 * 24, 0),
    (14 * 24, 0),
    (0, 1),
    (0, 2),
    (0, 3),
    (0, 6),
)


def _moment(value: float, axis: Axis) -> datetime | None:
    return from_decimal_year(value) if axis.kind == "date" else from_calendar_year(value)


def _position(moment: datetime, axis: Axis) -> float:
    seconds = moment.hour * 3600.0 + moment.minute * 60.0 + moment.second
    to_years = decimal_year if axis.kind == "date" else calendar_year
    return to_years(moment.year, moment.month, moment.day, seconds)


def _ticks(start: datetime, end: datetime, hours: int, months: int) -> list[datetime]:
    """Round moments from ``start`` to ``end`` every ``hours`` hours or ``months`` months."""
    if months:
        moment = datetime(start.year, start.month, 1)
        out = []
        while moment <= end:
            if moment >= start and (moment.month - 1) % months == 0:
                out.append(moment)
            year, month = divmod(moment.month, 12)
            moment = datetime(moment.year + year, month + 1, 1)
        return out
    moment = datetime(start.year, start.month, start.day)
    if hours >= 7 * 24:  # weeks from a Monday
        moment -= timedelta(days=moment.weekday())
    step = timedelta(hours=hours)
    out = []
    while moment <= end:
        if moment >= start:
            out.append(moment)
        moment += step
    return out


def _label(moment: datetime, hours: int, months: int) -> str:
    if months:
        return moment.strftime("%b %Y")
    if hours < 24:
        return moment.strftime("%d %b %H:%M").lstrip("0")
    return moment.strftime("%d %b").lstrip("0")


def date_ticks(ax: Axes, axis: Axis) -> bool:
    """Dates on ``ax``'s x axis when it spans less than ``DATE_TICKS_BELOW`` years of a
    calendar ``axis``; whether it did."""
    low, high = ax.get_xlim()
    if not axis.is_time or not 0 < high - low < DATE_TICKS_BELOW:
        return False
    start, end = _moment(low, axis), _moment(high, axis)
    if start is None or end is None:
        return False
    width = ax.get_window_extent().width / ax.figure.dpi
    most = max(3, int(width * TICKS_PER_INCH))
    counts = {step: len(_ticks(start, end, *step)) for step in STEPS}
    readable = [step for step in STEPS if 2 <= counts[step] <= most]
    two_or_more = [step for step in STEPS if counts[step] >= 2]
    if not two_or_more:
        return False
    chosen = readable[0] if readable else two_or_more[-1]  # else the fewest ticks there are
    moments = _ticks(start, end, *chosen)
    ax.xaxis.set_major_locator(FixedLocator([_position(t, axis) for t in moments]))
    ax.xaxis.set_major_formatter(FixedFormatter([_label(t, *chosen) for t in moments]))
    if ax.get_xlabel():
        years = sorted({start.year, end.year})
        told = str(years[0]) if len(years) == 1 else f"{years[0]}–{years[-1]}"
        ax.set_xlabel(f"{axis.x_name} (date, {told})")
    return True


def figure_dates(fig: Figure, axis: Axis) -> Figure:
    """``date_ticks`` on every panel of ``fig``; the figure itself."""
    for ax in fig.axes:
        date_ticks(ax, axis)
    return fig
