"""The figures of RESULTS.md (box plots of standardised RMSE, the full search's forecasts) and the
tables that need the chosen models rebuilt from the kernels in ``results.csv`` (no refitting):
where the forecasts lie and where the interpolation errors lie."""

from __future__ import annotations

import io
import math
import statistics
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullFormatter

from abcd_cli.data.reader import Series, load_series
from abcd_cli.errors import InputError
from abcd_cli.files import write_output
from abcd_cli.kernel_search.settings import prior_mean_units
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model
from benchmarks.accuracy.runs import Key, split_files, test_scores
from benchmarks.accuracy.tables import REFERENCE_METHODS, Grid, column, md_table


def save_png(fig: Figure, path: Path, dpi: int) -> None:
    """The figure as a PNG file, written whole or not at all."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    write_output(path, buffer.getvalue())


def tick_label(col: str, count: int, total: int) -> str:
    name = f"{col} (ref)" if col in REFERENCE_METHODS else col
    return name if count == total else f"{name}, n={count}"


def boxplot(std: Grid, cols: list[str], title: str, path: Path) -> bool:
    """Box plot (median, quartiles) and raw points of standardised RMSE, ordered by median."""
    data = {c: column(std, c) for c in cols}
    data = {c: v for c, v in data.items() if v}
    if not data:
        return False
    order = sorted(data, key=lambda c: statistics.median(data[c]))
    fig = Figure(figsize=(max(6.0, 0.55 * len(order) + 1.5), 4.2), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    positions = np.arange(1, len(order) + 1)
    ax.boxplot([data[c] for c in order], positions=positions, widths=0.6, showfliers=False)
    rng = np.random.default_rng(0)
    for pos, c in zip(positions, order, strict=True):
        colour = "#7f7f7f" if c in REFERENCE_METHODS else "#1f5d99"
        jitter = rng.uniform(-0.15, 0.15, len(data[c]))
        ax.scatter(pos + jitter, data[c], s=12, color=colour, alpha=0.8, zorder=3)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.axhline(1.0, color="#d9d9d9", lw=0.8, zorder=0)
    ax.set_xticks(positions)
    ax.set_xticklabels([tick_label(c, len(data[c]), len(std)) for c in order])
    for label, c in zip(ax.get_xticklabels(), order, strict=True):
        label.set_rotation(45)
        label.set_horizontalalignment("right")
        label.set_color("#555555" if c in REFERENCE_METHODS else "#1f5d99")
    ax.set_ylabel("standardised RMSE (best = 1, log scale)")
    ax.set_title(title, fontsize=10)
    save_png(fig, path, dpi=130)
    return True


def stored_model(row: dict[str, str]) -> tuple[Model, Series]:
    """The model of one ``results.csv`` row, rebuilt on its training file (no refitting) with
    the row's prior mean."""
    train = load_series(split_files(row["series"], row["task"])[0])
    scaling, constant_mean = prior_mean_units(train.x, train.y, row.get("prior_mean") or "data")
    kernel = scaling.kernel_in(parse_kernel(row["kernel"]))
    return Model(kernel, scaling, train.x, train.y, math.nan, constant_mean), train


Rebuilt = tuple[dict[str, str], tuple[Model, Series, Series] | str]
FORECASTS_PNG = "forecasts_extrap_abcd.png"  # the abcd extrapolations, beside RESULTS.md


def rebuilt_runs(rows: dict[Key, dict[str, str]], method: str, task: str) -> list[Rebuilt]:
    """Each finished ``method`` run of ``task`` with its model, training and test series rebuilt
    once (no refitting), or the name of the error that stopped the rebuild."""
    rebuilt: list[Rebuilt] = []
    for (series, t, m), row in sorted(rows.items()):
        if t != task or m != method or row.get("status") != "ok":
            continue
        try:
            model, train = stored_model(row)
            test = load_series(split_files(series, task)[1])
        except (InputError, ValueError, np.linalg.LinAlgError) as exc:
            rebuilt.append((row, type(exc).__name__))
        else:
            rebuilt.append((row, (model, train, test)))
    return rebuilt


def forecast_figure(done: list[Rebuilt], method: str, path: Path) -> bool:
    """One panel per series: the end of the training data, the test points and the ``method``
    model's predictive mean with its 95% band (noise included), as the RMSE scores them."""
    if not done:
        return False
    cols = 4
    fig = Figure(figsize=(12.0, 2.6 * math.ceil(len(done) / cols)), layout="constrained")
    FigureCanvasAgg(fig)
    for i, (row, rebuilt) in enumerate(done):
        ax = fig.add_subplot(math.ceil(len(done) / cols), cols, i + 1)
        if isinstance(rebuilt, str):
            ax.set_title(f"{row['series']}: not rebuilt ({rebuilt})", fontsize=9)
            continue
        model, train, test = rebuilt
        shown = train.x >= train.x[-1] - 0.3 * (test.x[-1] - train.x[0])
        grid = np.linspace(train.x[shown][0], test.x[-1], 300)
        mean, sd = model.predict(grid)
        ax.fill_between(grid, mean - 1.96 * sd, mean + 1.96 * sd, color="#c6dbef", lw=0)
        ax.plot(grid, mean, color="#1f5d99", lw=1.0)
        ax.plot(train.x[shown], train.y[shown], ".", color="#333333", ms=2.5)
        ax.plot(test.x, test.y, ".", color="#d62728", ms=3.5)
        ax.axvline(train.x[-1], color="#999999", lw=0.6, ls=":")
        ax.set_title(f"{row['series']}: RMSE {float(row['rmse']):.4g}", fontsize=9)
        ax.tick_params(labelsize=7)
        ax.xaxis.set_major_locator(MaxNLocator(4))
        ax.ticklabel_format(axis="both", useOffset=False, style="plain")
    fig.suptitle(
        f"{method} extrapolation: training data (black), test data (red), predictive mean and"
        " 95% band (blue)",
        fontsize=10,
    )
    save_png(fig, path, dpi=110)
    return True


def bias_section(done: list[Rebuilt], method: str) -> list[str]:
    """Where the ``method`` extrapolations lie: bias = mean(forecast − test y), beside the test
    mean, the training mean and the mean of the last training points (as many as the test)."""
    body = []
    for row, rebuilt in done:
        if isinstance(rebuilt, str):
            body.append([row["series"], f"not rebuilt ({rebuilt})", "", "", "", ""])
            continue
        model, train, test = rebuilt
        mean, sd = model.predict(test.x)
        rmse, _ = test_scores(test.y, mean, sd)
        recent = train.y[-test.n :]
        cells = [rmse, float(np.mean(mean - test.y)), float(np.mean(test.y))]
        cells += [float(np.mean(train.y)), float(np.mean(recent))]
        body.append([row["series"], *(f"{v:.5g}" for v in cells)])
    if not body:
        return []
    header = ["series", "RMSE (rebuilt)", "bias", "test mean", "training mean", "recent mean"]
    return [
        f"### Where the {method} forecasts lie (rebuilt from the kernels in `results.csv`)",
        "",
        "bias = mean of forecast − test y; recent mean = mean of the last training points, as"
        " many as there are test points.",
        "",
        *md_table(header, body),
    ]


def error_profile(x: np.ndarray, err: np.ndarray, parts: int = 5) -> tuple[list[float], float]:
    """Where the squared error of a prediction lies: the RMSE over each of ``parts`` equal
    groups of test points in order of x, and the share of sum(err²) held by the five worst
    points (0.05 for 100 points of equal error)."""
    order = np.argsort(x, kind="stable")
    sq = np.asarray(err, dtype=float)[order] ** 2
    by_part = [float(np.sqrt(np.mean(g))) for g in np.array_split(sq, parts) if g.size]
    worst = np.sort(sq)[::-1][:5]
    total = float(np.sum(sq))
    return by_part, float(np.sum(worst)) / total if total > 0 else 0.0


def interp_error_section(done: list[Rebuilt], method: str) -> list[str]:
    """Where the ``method`` interpolation errors lie, for each series: RMSE over each fifth of
    the test points in order of x, the share of the squared error in the five worst points, and
    the worst point's x and error (prediction − y)."""
    body = []
    for row, rebuilt in done:
        if isinstance(rebuilt, str):
            body.append([row["series"], f"not rebuilt ({rebuilt})", "", "", ""])
            continue
        model, _, test = rebuilt
        mean, sd = model.predict(test.x)
        rmse, _ = test_scores(test.y, mean, sd)
        err = mean - test.y
        by_part, share = error_profile(test.x, err)
        w = int(np.argmax(err**2))
        body.append(
            [
                row["series"],
                f"{rmse:.4g}",
                " / ".join(f"{v:.3g}" for v in by_part),
                f"{share:.2f}",
                f"{test.x[w]:.2f}: {err[w]:+.3g}",
            ]
        )
    if not body:
        return []
    header = ["series", "RMSE (rebuilt)", "RMSE by fifth of x", "worst 5 share", "worst x: error"]
    return [
        f"### Where the {method} interpolation errors lie (rebuilt from the kernels in"
        " `results.csv`)",
        "",
        "RMSE over each fifth of the test points in order of x; worst 5 share = part of the summed"
        " squared error from the five worst points (about 5/n if errors were even).",
        "",
        *md_table(header, body),
    ]
