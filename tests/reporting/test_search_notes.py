"""The notes on how a search went (``reporting.search_notes``), worded from the facts the search
records: the subset, the seeds' BICs, and why it stopped before its depth."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from abcd_cli.engines.base import Capabilities
from abcd_cli.engines.exact import ExactEngine
from abcd_cli.kernel_search.final_polish import FinalPolish
from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.records import EarlyStop, SearchResult
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.reporting.search_notes import search_notes, stop_sentence

X = np.linspace(0.0, 10.0, 60)
Y = np.sin(X) + 0.1 * np.random.default_rng(0).normal(size=60)


@pytest.fixture(scope="module")
def result() -> SearchResult:
    return run_search(X, Y, SearchSettings(depth=0, restarts=1))


def test_a_whole_short_series_on_the_exact_engine_has_no_notes(result: SearchResult) -> None:
    assert search_notes(result) == [] and stop_sentence(result) == ""


def test_the_subset_sizes_are_worded(result: SearchResult) -> None:
    on_subset = replace(result, fit_points=20, refine_points=40)
    assert search_notes(on_subset) == [
        "candidates were optimised on 20 of 60 points (evenly spread pairs of neighbours), and"
        " the best 3 of each level (of each kept model's children) refined on 40 points (chosen"
        " the same way); only the models each next level expanded were fitted on all the data"
    ]
    assert search_notes(replace(result, fit_points=20))[0].endswith("refined on all the data")


def test_why_a_search_stopped_early(result: SearchResult) -> None:
    failed = replace(result, stopped_early=EarlyStop(4, failed=True))
    assert stop_sentence(failed) == "every candidate of level 4 failed; kept the best so far"
    patient = replace(result, stopped_early=EarlyStop(6, stale=3))
    assert stop_sentence(patient) == "no better model in 3 levels; stopped at level 6"


def test_a_posterior_names_its_most_probable_structure_and_the_lowest_bic():
    from dataclasses import replace

    import numpy as np

    from abcd_cli.kernel_search.infer import run_search
    from abcd_cli.kernel_search.posterior import Weighed, ranked
    from abcd_cli.kernel_search.settings import SearchSettings
    from abcd_cli.kernels.text import parse_kernel
    from abcd_cli.reporting.certainty import probability_text

    x = np.linspace(0.0, 10.0, 40)
    y = np.sin(x) + 0.1 * np.cos(7 * x)
    result = run_search(
        x, y, SearchSettings(depth=1, restarts=1, method="posterior", pool=2, draws=4)
    )
    first, second = result.posterior.structures
    # the second structure given the lower BIC, the first the larger evidence
    posterior = ranked([replace(first, bic=second.bic + 5.0), second], 32)
    notes = search_notes(replace(result, posterior=posterior))
    assert notes[-1].startswith("the posterior weighed the 2 structures of lowest BIC")
    lowest = result.model.scaling.kernel_out(second.kernel).to_text(params=False)
    shown = probability_text(posterior.weights[1])  # as the summary writes weights
    assert f"the lowest BIC, {lowest}, has weight {shown}" in notes[-1]
    assert f"the most probable, of weight {probability_text(posterior.weights[0])}" in notes[-1]
    lost = Weighed(parse_kernel("WN(sd=1.0)"), 0.0, float("-inf"), np.zeros((0, 1)), failure="x")
    notes = search_notes(replace(result, posterior=ranked([first, lost], 32)))
    assert notes[-1].endswith("1 could not be weighed (weight 0)")


def test_a_tables_screen_and_its_cost_are_noted(result: SearchResult) -> None:
    from abcd_cli.kernel_search.screening import Screen, Shares

    shares = Shares((0.5, 0.001, 0.3), {(0, 2): 0.1}, (0.9, 0.1, 0.0))
    screen = Screen((0, 2), ((0, 2),), 2, (), shares, rows=60, seconds=1.5, names=("a", "b", "c"))
    noted = replace(result, screen=screen, elapsed_seconds=4.0)
    assert search_notes(noted)[0] == (
        "one fit of the additive GP of orders up to 3 on 60 rows (1.5 s) chose what to search:"
        " the search used a, c (not b: under 2% of the fitted variance each); products only of"
        " a × c, up to 2 inputs; the search then took 2.5 s over 1 level"
    )


def test_a_coordinate_search_states_its_borderline_inputs_shares(result: SearchResult) -> None:
    from abcd_cli.kernel_search.screening import Screen, Shares
    from abcd_cli.kernel_search.table_plan import SCREEN_FLOOR

    shares = Shares((0.5, 0.012, 0.3, 0.001), {}, (1.0,))
    screen = Screen(
        (0, 1, 2), (), 1, (), shares, rows=60, seconds=1.5, names=tuple("abcd"), floor=SCREEN_FLOOR
    )
    stages = [{"stage": "screen", "fits": 1, "seconds": 1.5}]
    (note, _) = search_notes(replace(result, screen=screen, stages=stages))[:2]
    assert note.split("; ")[0].endswith(
        "the search used a, b, c (not d: under 0.5% of the fitted variance each)"
        " (near the bar of 2%, kept: b 1.2%), each input's kernel chosen by BIC one input at a time"
    )


def test_the_screens_own_floor_and_vote_level_are_stated(result: SearchResult) -> None:
    """The notes read the rule the screen used from its record, not from the search's stages."""
    from abcd_cli.kernel_search.screening import Probabilities, Screen, Shares

    shares = Shares((0.5, 0.001, 0.3), {}, (1.0,))
    screen = Screen((0, 2), (), 1, (), shares, rows=60, names=("a", "b", "c"), floor=0.005)
    (note,) = search_notes(replace(result, screen=screen, elapsed_seconds=4.0))
    assert "(not b: under 0.5% of the fitted variance each)" in note
    votes = Probabilities((1.0, 0.4, 1.0), {}, 5, 30, level=0.5)
    voted = replace(screen, probabilities=votes)
    first, second = search_notes(replace(result, screen=voted, elapsed_seconds=4.0))
    assert "(not b: kept by fewer than 50% of the fits on half the rows)" in first
    assert "(an input is kept from 0.50)" in second


def test_an_interval_engine_without_inducing_inputs_is_named_not_given_a_count(
    result: SearchResult,
) -> None:
    """The interval note counts inducing inputs only for an engine that has them."""

    class Bounded(ExactEngine):
        name = "bounded"
        capabilities = Capabilities(exact_likelihood=False)

    model = replace(result.model, engine=Bounded())
    (note,) = search_notes(replace(result, model=model))
    assert note.startswith("likelihoods were bounded by the bounded engine: each BIC is the upper")
    assert "None" not in note


@pytest.mark.parametrize("kept", [True, False])
def test_the_chosen_models_polish_is_stated_with_its_interval_before_and_after(
    result: SearchResult, kept: bool
) -> None:
    class Bounded(ExactEngine):
        name = "bounded"
        capabilities = Capabilities(exact_likelihood=False)

    polish = FinalPolish((-10.5, -2.25), (-30.0, -20.125), 25, 31, kept)
    model = replace(result.model, engine=Bounded())
    notes = search_notes(replace(result, model=model, final_polish=polish))
    assert notes[1] == (
        "the chosen model's fit was polished on all the data (25 L-BFGS-B iterations, 31"
        " evaluations of the engine's tighter bound): BIC [-10.50, -2.25] before, [-30.00,"
        f" -20.12] after; {'the polished fit' if kept else 'the search' + chr(39) + 's fit'} kept"
    )
    broken = FinalPolish((-10.5, -2.25), None, 0, 0, False)
    assert search_notes(replace(result, model=model, final_polish=broken))[1].endswith(
        "the polish broke, and the search's fit was kept"
    )


def test_the_samplers_halves_and_their_disagreement_are_stated(result: SearchResult) -> None:
    from abcd_cli.kernel_search.agreement import HalvesAgreement
    from abcd_cli.kernel_search.posterior import StructurePosterior

    def noted(halves: HalvesAgreement) -> str:
        posterior = replace(StructurePosterior.single(result.model.kernel, None), halves=halves)
        return search_notes(replace(result, posterior=posterior))[-1]

    agreeing = HalvesAgreement((8, 8), 0.12, 0.05, (-120.43, -121.71), ("SE + WN", "SE + WN"))
    assert noted(agreeing) == (
        "two independent halves of the sampler (8 and 8 particles, each from its own seeds)"
        " agree on the most probable structure, SE + WN; their structure posteriors differ by a"
        " total variation of 0.12 (within 0.2), the kinds of findings they state by 0.05, and"
        " their log evidence estimates by 1.3 nats (-120.4 and -121.7); the posterior is their"
        " union, each half weighed by its evidence estimate (0.78 and 0.22)"
    )
    apart = HalvesAgreement((8, 7), 0.64, 0.3, (-1.0, float("-inf")), ("SE + WN", "Per + WN"))
    text = noted(apart)
    assert "(8 and 7 particles" in text
    assert "disagree on the most probable structure (SE + WN in one, Per + WN in the other)" in text
    assert "total variation of 0.64 (more than 0.2: the sampler has not settled" in text
    assert "one half has no evidence estimate (its particles all failed)" in text
    assert text.endswith("weighed by its evidence estimate (1.00 and 0.00)")
    assert not any("halves" in n for n in search_notes(result))  # greedy's notes as before


def test_a_resampled_screen_states_each_inputs_and_pairs_probability(
    result: SearchResult,
) -> None:
    from abcd_cli.kernel_search.screening import Probabilities, Screen, Shares

    shares = Shares((0.5, 0.01, 0.3), {(0, 1): 0.0, (0, 2): 0.08, (1, 2): 0.0}, (0.9, 0.1))
    votes = Probabilities((1.0, 0.2, 1.0), {(0, 1): 0.0, (0, 2): 0.6, (1, 2): 0.2}, 5, 30)
    screen = Screen((0, 2), ((0, 2),), 2, (), shares, "", 60, 2.0, ("a", "b", "c"), votes)
    stages = [{"stage": "screen", "fits": 6, "seconds": 2.0}]
    first, second = search_notes(replace(result, screen=screen, stages=stages))[:2]
    assert first.startswith(
        "one fit of the additive GP of orders up to 3 on 60 rows and 5 on 30 rows drawn at random"
        " each (2.0 s) chose what to search: the search used a, c (not b: kept by fewer than 30%"
        " of the fits on half the rows)"
    )
    assert second == (
        "the share of the 5 fits on half the rows that kept each input: a 1.00, b 0.20, c 1.00"
        " (an input is kept from 0.30); that named each pair an interaction: a × c 0.60,"
        " b × c 0.20 (pairs are judged by the fit on all the rows)"
    )


def test_a_resampled_screen_states_probabilities_not_borderline_shares(
    result: SearchResult,
) -> None:
    from abcd_cli.kernel_search.screening import Probabilities, Screen, Shares

    shares = Shares((0.5, 0.001, 0.3), {(0, 1): 0.0, (0, 2): 0.0, (1, 2): 0.0}, (1.0,))
    votes = Probabilities((1.0, 0.4, 1.0), {(0, 1): 0.0, (0, 2): 0.0, (1, 2): 0.0}, 5, 30)
    screen = Screen((0, 1, 2), (), 1, (), shares, "", 60, 2.0, ("a", "b", "c"), votes)
    assert screen.borderline == (1,)  # b's share on all the rows is under the bar
    stages = [{"stage": "screen", "fits": 6, "seconds": 2.0}]
    first, second = search_notes(replace(result, screen=screen, stages=stages))[:2]
    assert "near the bar" not in first and "b 0.40" in second
