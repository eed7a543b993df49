"""A table's screen by several fits of the additive GP on subsamples of the rows (issue 66):
each input and each pair gets the probability that one fit's verdict keeps it.

One fit's shares (``screening.variance_shares``) can land in different optima when inputs are
correlated (two serum measures that each explain y: one fit gives the first the share, another
the second), so a verdict read off one fit changes from split to split. Here F fits, fit f on
its own subsample S_f of m rows drawn without replacement, each give a verdict V_f
(``screening.decide``); the probabilities are the shares of the fits that keep them:

* P(input d) = (1/F) Σ_f [d ∈ kept(V_f)];
* P(pair i, j) = (1/F) Σ_f [(i, j) ∈ pairs(V_f)], and P(named i, j) the same with the pair's
  share at least ``table_plan.NAMED_SHARE`` too.

The verdict keeps an input, or names a pair, when its probability is at least
``screening.KEEP_PROBABILITY`` (the frequency of selection over subsamples of stability
selection, a vote rather than a share averaged across optima), and reports the shares averaged
over the fits, Σ_f s_f / F. The subsamples and each fit's random numbers come from the seed
alone, and the fits are independent: they run on the search's executor, one result per seed.
"""

from __future__ import annotations

import time
from concurrent.futures import Executor

import numpy as np

from abcd_cli.execution.pool import SerialExecutor
from abcd_cli.kernel_search.candidate import entropy
from abcd_cli.kernel_search.screening import (
    INPUT_SHARE,
    KEEP_PROBABILITY,
    SCREEN_ROWS,
    Probabilities,
    Screen,
    Shares,
    additive_start,
    decide,
    fit_shares,
    highest_order,
    screen_table,
)
from abcd_cli.kernel_search.table_plan import NAMED_SHARE

#: A fit's subsample holds this share of the table's rows (at most ``SCREEN_ROWS``).
SUBSAMPLE_SHARE = 0.5
#: A subsample has at least this many rows (all of them on a smaller table).
MIN_SUBSAMPLE = 40

FitTask = tuple[np.ndarray, np.ndarray, tuple[int, ...], int, int, bool]


def subsample_rows(n_rows: int, seed: int, fit_index: int, n_inputs: int) -> np.ndarray:
    """The sorted rows of fit ``fit_index``'s subsample: ``SUBSAMPLE_SHARE`` of ``n_rows``
    (from ``MIN_SUBSAMPLE``, at most ``SCREEN_ROWS``), drawn without replacement from the
    seed."""
    size = min(n_rows, max(MIN_SUBSAMPLE, round(SUBSAMPLE_SHARE * n_rows)), SCREEN_ROWS)
    stream = (*entropy(seed, additive_start(n_inputs)), 1, fit_index)
    rng = np.random.default_rng(np.random.SeedSequence(list(stream)))
    return np.sort(rng.choice(n_rows, size=size, replace=False))


def _fit(task: FitTask) -> Shares:
    """One subsample's shares (a top-level function: an executor's worker may run it)."""
    X, y, stream, restarts, max_iter, constant_mean = task
    return fit_shares(X, y, stream, restarts, max_iter, constant_mean)[0]


def mean_shares(fits: list[Shares]) -> Shares:
    """The shares averaged over the fits: Σ_f s_f / F for each input, pair and order."""
    count = len(fits)
    return Shares(
        tuple(float(v) for v in np.mean([s.inputs for s in fits], axis=0)),
        {p: sum(s.pairs[p] for s in fits) / count for p in fits[0].pairs},
        tuple(float(v) for v in np.mean([s.orders for s in fits], axis=0)),
    )


def vote(fits: list[Shares], floor: float, rows: int) -> Probabilities:
    """The probabilities of the module docstring: the share of the fits whose verdict
    (``decide`` from ``floor``) keeps each input, names each pair, names it strongly."""
    verdicts = [decide(s, (), floor) for s in fits]
    count = len(fits)
    n_inputs = len(fits[0].inputs)
    inputs = tuple(sum(d in v.inputs for v in verdicts) / count for d in range(n_inputs))
    pairs = {p: sum(p in v.pairs for v in verdicts) / count for p in fits[0].pairs}
    judged = list(zip(verdicts, fits, strict=True))
    named = {
        p: sum(p in v.pairs and s.pairs[p] >= NAMED_SHARE for v, s in judged) / count
        for p in fits[0].pairs
    }
    return Probabilities(inputs, pairs, named, count, rows)


def decide_by_vote(
    fits: list[Shares], change_inputs: tuple[int, ...], floor: float, rows: int
) -> Screen:
    """The verdict of several fits: inputs and pairs whose probability is at least
    ``KEEP_PROBABILITY`` (with every input of a kept pair; the most probable input, then the
    largest mean share, when none is), the highest order of the mean shares."""
    probabilities = vote(fits, floor, rows)
    shares = mean_shares(fits)
    pairs = tuple(sorted(p for p, v in probabilities.pairs.items() if v >= KEEP_PROBABILITY))
    kept = {d for d, v in enumerate(probabilities.inputs) if v >= KEEP_PROBABILITY}
    kept.update(d for pair in pairs for d in pair)
    if not kept:
        kept = {
            max(
                range(len(shares.inputs)), key=lambda d: (probabilities.inputs[d], shares.inputs[d])
            )
        }
    return Screen(
        tuple(sorted(kept)),
        pairs,
        highest_order(shares.orders, pairs),
        tuple(d for d in change_inputs if d in kept),
        shares,
        probabilities=probabilities,
    )


def resampled_screen(
    X: np.ndarray,
    y: np.ndarray,
    seed: int,
    restarts: int,
    max_iter: int,
    fits: int,
    change_inputs: tuple[int, ...] = (),
    constant_mean: bool = False,
    names: tuple[str, ...] = (),
    floor: float | None = None,
    executor: Executor | None = None,
) -> Screen:
    """Fit the additive GP of every order on ``fits`` subsamples of (X, y) (internal units) on
    ``executor`` and read their verdict by vote (``decide_by_vote``; inputs kept from
    ``floor``, INPUT_SHARE unless given); one fit: ``screening.screen_table`` on the rows."""
    if fits == 1:
        return screen_table(
            X, y, seed, restarts, max_iter, change_inputs, constant_mean, names, floor
        )
    started = time.perf_counter()
    n_rows, n_inputs = X.shape
    start_stream = entropy(seed, additive_start(n_inputs))
    tasks: list[FitTask] = []
    for f in range(fits):
        rows = subsample_rows(n_rows, seed, f, n_inputs)
        tasks.append((X[rows], y[rows], (*start_stream, 2, f), restarts, max_iter, constant_mean))
    shares = list((executor or SerialExecutor()).map(_fit, tasks))
    rows_per_fit = len(tasks[0][1])
    screen = decide_by_vote(
        shares, change_inputs, INPUT_SHARE if floor is None else floor, rows_per_fit
    )
    return Screen(
        screen.inputs,
        screen.pairs,
        screen.max_order,
        screen.change_inputs,
        screen.shares,
        f"{fits} fits of {additive_start(n_inputs).to_text(names=names)}",
        rows_per_fit,
        time.perf_counter() - started,
        names,
        screen.probabilities,
    )
