"""The five methods of the regression benchmark, each fitted on one standardised split and
giving the predictive mean and sd of y (noise included) at the test inputs.

* ``search``: ``abcd_cli.search`` with its default language (kernel search over SE, Per, Lin,
  C, WN on every input), unscreened (``screen=False``: the search of every input before issue
  66, which the rows of this name in regression.csv ran).
* ``search-screened``: the search with ``screen=True`` (issue 66, opt-in): the
  additive GP's screen first, then the restricted grammar (``kernel_search/screening.py``,
  ``table_grammar.py``); its row also keeps the screen's seconds and the story (``story``).
* ``search-coordinate``: the search with ``table_search="coordinate"`` (issue 66): the
  additive GP's screen, then the coordinate-wise plan (``kernel_search/table_plan.py``); its
  row keeps the screen's seconds, the story and each stage's cost (``stages``).
* ``search-coordinate-voted``: the same with ``screen_fits=VOTED_FITS``: the screen's verdict
  by the vote of that many fits on random halves of the rows
  (``kernel_search/resampled_screen.py``).
* ``search-se-rq``: the same search over SE and RQ only, as the thesis's table 3.3 ran it
  ("Search - SE, RQ"; ``bases=("SE", "RQ")``, the white-noise start kept).
* ``additive``: ``abcd_cli.search`` with ``language="additive"``: the additive GP of every
  order up to ``max_order`` (default: every input's), fitted, not searched.
* ``sklearn-ard``: scikit-learn's ``GaussianProcessRegressor`` with C × RBF (one lengthscale
  per input) + WhiteKernel, 5 starts of L-BFGS-B (the thesis's 5 restarts).
* ``linear``: least squares with an intercept; its predictive sd is the residual sd,
  sqrt(RSS / (n - D - 1)), the same at every test point (parameter uncertainty left out).

Scores per test point (y standardised): squared error (y - m)², and the negative log density
-log N(y; m, s²) = ½ log(2π s²) + (y - m)² / (2 s²).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchmarks.several_inputs.regression_data import Split

#: The fits of ``search-coordinate-voted``'s screen (chosen by measurement: docs/findings.md).
VOTED_FITS = 10


@dataclass(frozen=True)
class Prediction:
    """A method's predictive mean and sd at the test inputs, its wall time, and what it chose."""

    mean: np.ndarray
    sd: np.ndarray
    seconds: float
    chosen: str = ""
    model: dict | None = None  # abcd's found model as its JSON document (level bests included)
    screen_seconds: float | None = None  # the table's screen (``search-screened``)
    story: str = ""  # the chosen kernel's inputs and interactions (``story``)
    stages: str = ""  # a coordinate-wise search's cost per stage, "screen 1.2 s/1 fit; ..."
    cpu_seconds: float | None = None  # user + system time, workers included (_cpu_seconds)


def _cpu_seconds() -> float:
    """User and system seconds of this process and its reaped children (a search's pool
    workers end with it): a fit's cost whatever else loads the machine (grunfeld split 0:
    6.0 s with 2 workers, 6.1 s serial, both at 46 s wall under a load average of 16)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


@dataclass(frozen=True)
class Options:
    """What the abcd methods run with."""

    depth: int = 10
    jobs: int = 1
    seed: int = 0
    max_order: int | None = None


def scores(y: np.ndarray, p: Prediction) -> tuple[float, float]:
    """Mean squared error and mean negative log predictive density per test point."""
    err = y - p.mean
    nll = 0.5 * np.log(2 * math.pi * p.sd**2) + err**2 / (2 * p.sd**2)
    return float(np.mean(err**2)), float(np.mean(nll))


def _frame(x: np.ndarray, y: np.ndarray | None = None) -> pd.DataFrame:
    frame = pd.DataFrame(x, columns=[f"x{i + 1}" for i in range(x.shape[1])])
    if y is not None:
        frame["y"] = y
    return frame


def story(kernel: object, names: list[str]) -> str:
    """The inputs a kernel reads and the pairs it multiplies, as "x1 x4; x4*x6": what the
    report says matters and interacts (its terms as a sum of products; a change along an input
    counts as a product with it)."""
    from abcd_cli.kernel_search.table_grammar import term_inputs
    from abcd_cli.kernels.algebra import sum_of_products

    inputs: set[int] = set()
    pairs: set[tuple[int, int]] = set()
    for term in sum_of_products(kernel):  # type: ignore[arg-type]
        dims = sorted(term_inputs(term))
        inputs.update(dims)
        pairs.update((a, b) for i, a in enumerate(dims) for b in dims[i + 1 :])
    used = " ".join(names[d] for d in sorted(inputs))
    named = " ".join(f"{names[a]}*{names[b]}" for a, b in sorted(pairs))
    return f"{used}; {named}".strip()


def _abcd(split: Split, options: Options, **settings: object) -> Prediction:
    import abcd_cli

    names = [f"x{i + 1}" for i in range(split.x_train.shape[1])]
    start, cpu_start = time.perf_counter(), _cpu_seconds()
    found = abcd_cli.search(
        _frame(split.x_train, split.y_train),
        y="y",
        x=names,
        depth=options.depth,
        seed=options.seed,
        jobs=options.jobs,
        **settings,
    )
    seconds, cpu = time.perf_counter() - start, _cpu_seconds() - cpu_start
    mean, sd = found.model.predict(split.x_test)
    document = found.to_dict()
    screen = document.get("screen")
    return Prediction(
        np.asarray(mean),
        np.asarray(sd),
        seconds,
        found.structure,
        document,
        screen["seconds"] if screen else None,
        story(found.model.kernel, names),
        "; ".join(
            f"{c['stage']} {c['seconds']:.1f} s/{c['fits']}" for c in document.get("stages", [])
        ),
        cpu,
    )


def search(split: Split, options: Options) -> Prediction:
    return _abcd(split, options, screen=False)


def search_screened(split: Split, options: Options) -> Prediction:
    return _abcd(split, options, screen=True)


def search_coordinate(split: Split, options: Options) -> Prediction:
    return _abcd(split, options, table_search="coordinate")


def search_coordinate_voted(split: Split, options: Options) -> Prediction:
    return _abcd(split, options, table_search="coordinate", screen_fits=VOTED_FITS)


def search_se_rq(split: Split, options: Options) -> Prediction:
    return _abcd(split, options, bases=("SE", "RQ"), screen=False)


def additive(split: Split, options: Options) -> Prediction:
    return _abcd(split, options, language="additive", max_order=options.max_order)


def sklearn_ard(split: Split, options: Options) -> Prediction:
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

    dims = split.x_train.shape[1]
    kernel = ConstantKernel(1.0, (1e-4, 1e4)) * RBF(np.ones(dims), (1e-3, 1e3)) + WhiteKernel(
        0.1, (1e-6, 1e1)
    )
    gp = GaussianProcessRegressor(kernel, n_restarts_optimizer=4, random_state=options.seed)
    start = time.perf_counter()
    gp.fit(split.x_train, split.y_train)
    mean, sd = gp.predict(split.x_test, return_std=True)  # WhiteKernel's noise included
    return Prediction(mean, sd, time.perf_counter() - start, str(gp.kernel_))


def linear(split: Split, options: Options) -> Prediction:
    start = time.perf_counter()
    n, dims = split.x_train.shape
    design = np.column_stack([np.ones(n), split.x_train])
    coef, *_ = np.linalg.lstsq(design, split.y_train, rcond=None)
    rss = float(np.sum((split.y_train - design @ coef) ** 2))
    sd = math.sqrt(rss / max(n - dims - 1, 1))
    mean = np.column_stack([np.ones(len(split.x_test)), split.x_test]) @ coef
    return Prediction(mean, np.full(len(mean), sd), time.perf_counter() - start)


METHODS: dict[str, Callable[[Split, Options], Prediction]] = {
    "search": search,
    "search-screened": search_screened,
    "search-coordinate": search_coordinate,
    "search-coordinate-voted": search_coordinate_voted,
    "search-se-rq": search_se_rq,
    "additive": additive,
    "sklearn-ard": sklearn_ard,
    "linear": linear,
}
#: How each method is named in the table.
TITLES = {
    "search": "abcd kernel search",
    "search-screened": "abcd kernel search, screened (opt-in --screen)",
    "search-coordinate": "abcd coordinate-wise table search (--table-search coordinate)",
    "search-coordinate-voted": "abcd coordinate-wise table search, screened by the vote of"
    f" {VOTED_FITS} fits (--screen-fits {VOTED_FITS})",
    "search-se-rq": "abcd kernel search, SE and RQ only",
    "additive": "abcd additive GP",
    "sklearn-ard": "scikit-learn GP, SE-ARD + noise",
    "linear": "linear regression",
}
#: The methods that choose a kernel of abcd's (the table names their most frequent choice).
ABCD_METHODS = (
    "search",
    "search-screened",
    "search-coordinate",
    "search-coordinate-voted",
    "search-se-rq",
    "additive",
)
