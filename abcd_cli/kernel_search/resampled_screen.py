"""A table's screen whose inputs are chosen by the vote of several fits of the additive GP, each
on a random half of the rows (issue 66): each input gets the probability that one fit keeps it.

One fit's shares (``screening.variance_shares``) can land in different optima when inputs are
correlated (two serum measures that each explain y: one fit gives the first the share, another
the second), so a verdict read off one fit changes from split to split. Here F fits, fit f on
its own subsample S_f of m rows drawn without replacement, each give a verdict V_f
(``screening.decide``), and

* P(input d) = (1/F) Σ_f [d ∈ kept(V_f)], P(pair i, j) = (1/F) Σ_f [(i, j) ∈ pairs(V_f)]:
  the frequency of selection over subsamples of stability selection;
* the search keeps input d when P(d) ≥ ``screening.KEEP_PROBABILITY`` (with every input of an
  interacting pair);
* the pairs, the highest order and the shares the plan reads are those of the screen's fit on
  all the rows (``screening.screen_table``), also one of the fits the executor runs: a fit on
  half the rows gives an interaction a smaller share than one on all of them (measured on
  auto-mpg: acceleration × year holds 4-10% of the fitted variance on all 352 rows of each of
  10 splits, at least 3% in 10-40% of the half-row fits; docs/findings.md), so pairs are
  judged on all the rows and their probabilities only stated.

The subsamples and each fit's random numbers come from the seed alone, and the fits are
independent: they run on the search's executor, one result per seed.
"""

from __future__ import annotations

import time
from concurrent.futures import Executor
from dataclasses import replace

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
    screen_rows,
    screen_table,
)

#: A fit's subsample holds this share of the table's rows (at most ``SCREEN_ROWS``).
SUBSAMPLE_SHARE = 0.5
#: A subsample has at least this many rows (all of them on a smaller table).
MIN_SUBSAMPLE = 40

FitTask = tuple[np.ndarray, np.ndarray, tuple[int, ...], int, int, bool, tuple[str, ...]]


def subsample_rows(n_rows: int, seed: int, fit_index: int, n_inputs: int) -> np.ndarray:
    """The sorted rows of fit ``fit_index``'s subsample: ``SUBSAMPLE_SHARE`` of ``n_rows``
    (from ``MIN_SUBSAMPLE``, at most ``SCREEN_ROWS``), drawn without replacement from the
    seed."""
    size = min(n_rows, max(MIN_SUBSAMPLE, round(SUBSAMPLE_SHARE * n_rows)), SCREEN_ROWS)
    stream = (*entropy(seed, additive_start(n_inputs)), 1, fit_index)
    rng = np.random.default_rng(np.random.SeedSequence(list(stream)))
    return np.sort(rng.choice(n_rows, size=size, replace=False))


def _fit(task: FitTask) -> tuple[Shares, str]:
    """One fit's shares and kernel (a top-level function: an executor's worker may run it)."""
    return fit_shares(*task)


def vote(fits: list[Shares], floor: float, rows: int) -> Probabilities:
    """The probabilities of the module docstring: the share of the fits whose verdict
    (``decide`` from ``floor``) keeps each input and names each pair."""
    verdicts = [decide(s, (), floor) for s in fits]
    count = len(fits)
    n_inputs = len(fits[0].inputs)
    inputs = tuple(sum(d in v.inputs for v in verdicts) / count for d in range(n_inputs))
    pairs = {p: sum(p in v.pairs for v in verdicts) / count for p in fits[0].pairs}
    return Probabilities(inputs, pairs, count, rows)


def decide_by_vote(
    whole: Shares,
    fits: list[Shares],
    change_inputs: tuple[int, ...],
    floor: float,
    rows: int,
    level: float = KEEP_PROBABILITY,
) -> Screen:
    """The verdict of the module docstring: the pairs and order of the ``whole`` rows' shares,
    the inputs whose probability over ``fits`` is at least ``level`` and those of the pairs
    (the whole rows' largest share when none is)."""
    probabilities = replace(vote(fits, floor, rows), level=level)
    on_all = decide(whole, (), floor)
    kept = {d for d, p in enumerate(probabilities.inputs) if p >= level - 1e-12}
    kept.update(d for pair in on_all.pairs for d in pair)
    if not kept:
        kept = {int(np.argmax(whole.inputs))}
    return Screen(
        tuple(sorted(kept)),
        on_all.pairs,
        on_all.max_order,
        tuple(d for d in change_inputs if d in kept),
        whole,
        probabilities=probabilities,
        floor=floor,
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
    floor: float = INPUT_SHARE,
    executor: Executor | None = None,
) -> Screen:
    """The screen of ``screening.screen_table`` on (X, y) (internal units) and, with ``fits``
    above 1, that many fits on random halves of the rows, all on ``executor``, whose vote
    keeps the inputs (``decide_by_vote``; each fit's inputs kept from ``floor``)."""
    if fits == 1:
        return screen_table(
            X, y, seed, restarts, max_iter, change_inputs, constant_mean, names, floor
        )
    started = time.perf_counter()
    n_rows, n_inputs = X.shape
    stream = entropy(seed, additive_start(n_inputs))
    rows = screen_rows(n_rows)
    tasks: list[FitTask] = [(X[rows], y[rows], stream, restarts, max_iter, constant_mean, names)]
    for f in range(fits):
        sub = subsample_rows(n_rows, seed, f, n_inputs)
        tasks.append((X[sub], y[sub], (*stream, 2, f), restarts, max_iter, constant_mean, ()))
    (whole, kernel), *subsampled = list((executor or SerialExecutor()).map(_fit, tasks))
    screen = decide_by_vote(
        whole, [s for s, _ in subsampled], change_inputs, floor, len(tasks[1][1])
    )
    seconds = time.perf_counter() - started
    return replace(screen, kernel=kernel, rows=len(rows), seconds=seconds, names=names)
