"""Recovering known structure from synthetic data of several inputs (thesis table 3.2).

The data follow the thesis (§3.9: 300 points uniform at random, f drawn from the true kernel's
GP prior, i.i.d. Gaussian noise at SNR 10) with what the thesis leaves unsaid taken from the
authors' generator: x uniform on [-2, 2]^D, every sd 1, lengthscales e, 1 or 1/e and the
period 1/e as that generator sets them, f scaled to sd 1 and noise of sd 1/SNR = 0.1
(``benchmarks/several_inputs/recovery_truth.py`` says which value is which). One data set
per case, seed 0, searched with seed 0: a fixed draw, not a chosen one.

The search is the thesis's: greedy (``beam=1``, the original's search; the default keeps two
models for three levels) and DEPTH = 4 levels, the fewest each true structure needs from white
noise (SE3, + Per1, × SE2, + SE1); every other setting is the default. The chosen structure is
compared with the truth by its sum of products over inputs, constants and noise terms left
out (``signal_terms``): a missing term, an extra one, or a factor on the wrong input fails.

Measured on these draws (CPU seconds in one process, 2026-11-25): both structures are found at
level 4 with these settings (105 and 113 s), and with the default beam at depth 5 (about
270 s each). The default search at its full depth of 10 does not keep the first one: at level
6 it replaces SE1 (lengthscale e over a range of 4, a nearly quadratic draw) by Lin1 × Lin1,
BIC -39.8 against -37.3 for the true structure, the "additional linear structure" the thesis
reports for long SE lengthscales. That is BIC preferring another structure on this draw, not
the search missing the true one, so this test stops at the depth the truth needs. On the
second case the default search keeps the true structure to the end (397 CPU s).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

import abcd_cli
from abcd_cli.kernels import SE, WN, C, Lin, Per
from abcd_cli.kernels.text import parse_kernel
from benchmarks.several_inputs import recovery_truth as truth

DEPTH = 4


# ----------------------------------------------------------------------------- the comparison


def test_signal_terms_ignore_order_constants_and_noise_but_not_inputs() -> None:
    a = SE(dim=0) + Per(dim=0) * SE(dim=1) + SE(dim=2)
    b = C() + SE(dim=2) + SE(dim=1) * Per(dim=0) * C() + WN() * Lin(dim=1) + SE(dim=0) + WN()
    assert truth.signal_terms(a) == truth.signal_terms(b)
    assert truth.signal_terms(a) == truth.thesis_terms("SE1 + SE2 × Per1 + SE3")
    moved = SE(dim=0) + Per(dim=1) * SE(dim=1) + SE(dim=2)  # the periodic factor on input 2
    assert truth.signal_terms(moved) != truth.signal_terms(a)
    extra = a + Lin(dim=0)
    assert truth.signal_terms(extra) != truth.signal_terms(a)
    # products are distributed over sums, and SE × SE on one input is one SE
    nested = (SE(dim=0) + SE(dim=1)) * SE(dim=2) * SE(dim=2)
    assert truth.signal_terms(nested) == truth.thesis_terms("SE1 × SE3 + SE2 × SE3")


def test_the_thesis_notation_reads_back_through_its_own_description() -> None:
    for text in ("(SE1 + SE2) × (SE3 × Lin3 × Lin1 + SE4)", "Lin × Per", "SE1 + RQ2", "-"):
        terms = truth.thesis_terms(text)
        assert truth.thesis_terms(truth.describe_terms(terms)) == terms
    assert truth.thesis_terms("-") == Counter()
    assert truth.thesis_terms("SE + RQ") == truth.thesis_terms("RQ1 + SE1")
    # a changewindow's or changepoint's gates are factors numbered by their input too
    for text in ("CW@1(SE + C, Per * SE@1) + SE@2 + WN", "CP@2(SE, Lin) * SE@1"):
        terms = truth.signal_terms(parse_kernel(text))
        assert truth.thesis_terms(truth.describe_terms(terms)) == terms


def test_every_case_of_the_table_draws_as_the_generator_does() -> None:
    for case in truth.CASES:
        x, y = truth.draw(case, 10.0, seed=1)
        assert x.shape == (truth.N_POINTS, case.dims) and y.shape == (truth.N_POINTS,)
        assert x.min() >= -truth.X_MAX and x.max() <= truth.X_MAX
        again = truth.draw(case, 10.0, seed=1)
        np.testing.assert_array_equal(again[1], y)
    # the same seed draws the same f; the SNR sets only the noise's sd (1/SNR, f has sd 1)
    case = truth.case("SE1 × SE2")
    _, quiet = truth.draw(case, 1e6, seed=2)
    _, noisy = truth.draw(case, 0.1, seed=2)
    assert np.std(quiet, ddof=1) == pytest.approx(1.0, abs=1e-5)
    assert np.std(noisy - quiet) == pytest.approx(10.0, rel=0.15)


# ----------------------------------------------------------------------------- the searches


def _search(label: str) -> tuple[Counter, Counter, str]:
    """The chosen structure's signal terms, the truth's, and the structure's text. A true
    kernel with a cycle along an input that is not time is searched with the full grammar
    (``screen=False``): a table's screened search offers cycles only along time inputs."""
    case = truth.case(label)
    x, y = truth.draw(case, snr=10.0, seed=0)
    names = [f"x{i + 1}" for i in range(case.dims)]
    frame = pd.DataFrame(x, columns=names).assign(y=y)
    screen = "Per" not in label
    found = abcd_cli.search(
        frame, y="y", x=names, depth=DEPTH, beam=1, seed=0, jobs=2, screen=screen
    )
    chosen = truth.signal_terms(parse_kernel(found.structure, names))
    return chosen, truth.signal_terms(case.kernel), found.structure


@pytest.mark.parametrize("label", ["SE1 + SE2 × Per1 + SE3", "SE1 × SE2 + SE2 × SE3"])
def test_the_search_recovers_the_true_structure_at_snr_10(label: str) -> None:
    chosen, true, structure = _search(label)
    assert chosen == true, (
        f"chose {structure}: {truth.describe_terms(chosen)}, not {truth.describe_terms(true)}"
    )
