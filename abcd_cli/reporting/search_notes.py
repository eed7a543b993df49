"""The notes on how a search went, in words: the subset its candidates were optimised on, what
its scores are when the engine bounds them, of several seeds' searches whose model it kept, the
posterior's most probable structure beside the lowest BIC, how far the sampler's two
independent halves disagree, and why it stopped before its depth. They go into the model file
(``notes``, ``stopped_early``), the command line's ``note:`` lines and the report's appendix.
The search records the facts (``kernel_search.records.SearchResult``).
"""

from __future__ import annotations

from abcd_cli.kernel_search.agreement import AGREED_TV
from abcd_cli.kernel_search.final_polish import FinalPolish
from abcd_cli.kernel_search.records import SearchResult
from abcd_cli.kernel_search.screening import INPUT_SHARE, SCREEN_ORDER, Screen
from abcd_cli.kernel_search.smc_budget import fewer, overrun, plan_text
from abcd_cli.reporting.certainty import probability_text

#: A chosen model whose BIC interval is wider than this (BIC units) gets a note: m is too small
#: for it. Ten BIC units is where a difference between two models counts as strong evidence,
#: so narrower intervals rarely leave the choice in doubt.
WIDE_BIC = 10.0


def search_notes(result: SearchResult) -> list[str]:
    """Every note on ``result``, in this order: a table's screen, subset, interval scores,
    seeds, posterior, the sampler's halves and its time budget."""
    return [
        *_screen_notes(result),
        *_subset_notes(result),
        *_interval_notes(result),
        *_seeds_notes(result),
        *_posterior_notes(result),
        *_halves_notes(result),
        *budget_notes(result),
    ]


def _screen_notes(result: SearchResult) -> list[str]:
    """On a table: what the additive GP's fit kept for the search, and each stage's seconds."""
    screen = result.screen
    if screen is None:
        return []
    names = [screen.name(d) for d in screen.inputs]
    dropped = [screen.name(d) for d in range(len(screen.shares.inputs)) if d not in screen.inputs]
    pairs = [f"{screen.name(i)} × {screen.name(j)}" for i, j in screen.pairs]
    coordinate = bool(result.stages)  # the plan's stages: one input at a time
    votes = screen.probabilities
    why = (
        f"kept by fewer than {votes.level:.0%} of the fits on half the rows"
        if votes
        else f"under {screen.floor * 100:g}% of the fitted variance each"
    )
    kept = f"the search used {', '.join(names)}" + (
        f" (not {', '.join(dropped)}: {why})" if dropped else ""
    )
    borderline = [f"{screen.name(d)} {screen.shares.inputs[d]:.1%}" for d in screen.borderline]
    if borderline and not votes:  # a vote's inputs are stated with their probabilities
        kept += f" (near the bar of {INPUT_SHARE:.0%}, kept: {', '.join(borderline)})"
    products = (
        (
            f"a product tried for {', '.join(pairs)}"
            if coordinate
            else f"products only of {', '.join(pairs)}, up to {screen.max_order} inputs"
        )
        if pairs
        else "no products (no pair of inputs interacts)"
    )
    if coordinate:
        kept += ", each input's kernel chosen by BIC one input at a time"
    search_seconds = max(result.elapsed_seconds - screen.seconds, 0.0)
    fits = f"one fit of the additive GP of orders up to {SCREEN_ORDER} on {screen.rows} rows" + (
        f" and {votes.fits} on {votes.rows} rows drawn at random each" if votes else ""
    )
    notes = [
        f"{fits} ({screen.seconds:.1f} s) chose what to search: {kept}; {products}; the search"
        f" then took {search_seconds:.1f} s over {len(result.trace)}"
        f" level{'' if len(result.trace) == 1 else 's'}"
    ]
    if votes:
        notes.append(_vote_note(screen))
    if coordinate:
        costs = [
            f"{c['stage']} {float(c['seconds']):.1f} s"  # type: ignore[arg-type]
            f" ({c['fits']} fit{'' if c['fits'] == 1 else 's'})"
            for c in result.stages
        ]
        notes.append("cost per stage: " + ", ".join(costs))
    return notes


def _vote_note(screen: Screen) -> str:
    """The probabilities of a resampled screen (``resampled_screen``): per input, and per
    pair that any fit on a subsample named."""
    votes = screen.probabilities
    assert votes is not None
    inputs = ", ".join(f"{screen.name(d)} {p:.2f}" for d, p in enumerate(votes.inputs))
    pairs = [
        f"{screen.name(i)} × {screen.name(j)} {p:.2f}"
        for (i, j), p in sorted(votes.pairs.items(), key=lambda item: (-item[1], item[0]))
        if p > 0
    ]
    return (
        f"the share of the {votes.fits} fits on half the rows that kept each input: {inputs}"
        f" (an input is kept from {votes.level:.2f}); that named each pair an interaction:"
        f" {', '.join(pairs) if pairs else 'none'} (pairs are judged by the fit on all the rows)"
    )


def _subset_notes(result: SearchResult) -> list[str]:
    """On a long series: the points candidates were optimised and refined on."""
    n = result.model.n
    if result.fit_points >= n:
        return []
    refined_on = (
        "all the data"
        if result.refine_points >= n
        else f"{result.refine_points} points (chosen the same way); only the models"
        " each next level expanded were fitted on all the data"
    )
    return [
        f"candidates were optimised on {result.fit_points} of {n}"
        " points (evenly spread pairs of neighbours),"
        f" and the best {result.settings.refine} of each level"
        f" (of each kept model's children) refined on {refined_on}"
    ]


def _interval_notes(result: SearchResult) -> list[str]:
    """With an engine whose scores are intervals: what the BICs are, and a call to raise m
    when the chosen model's interval is wider than ``WIDE_BIC``."""
    model = result.model
    if model.engine.capabilities.exact_likelihood:
        return []
    low, high = model.bic_interval
    m = model.engine.inducing_count
    engine = model.engine.name
    how = f"with {m} inducing inputs (the {engine} engine)" if m else f"by the {engine} engine"
    notes = [
        f"likelihoods were bounded {how}:"
        f" each BIC is the upper end of an interval, the chosen model's [{low:.2f}, {high:.2f}]"
    ]
    finalists = _last_finalists(result)
    if len(finalists) > 1:
        listed = "; ".join(
            f"{f['structure']} [{f['bic_low']:.2f}, {f['bic']:.2f}]" for f in finalists
        )
        notes.append(f"the last level's finalists (the models it kept) and their BICs: {listed}")
    if result.final_polish is not None:
        notes.append(_polish_note(result.final_polish))
    if high - low > WIDE_BIC:
        notes.append(
            f"the chosen model's BIC interval is {high - low:.1f} wide (more than"
            f" {WIDE_BIC:g}): {m} inducing inputs are too few for it; raise --inducing"
            f" (e.g. --inducing {min(model.n, 2 * m)}) to narrow it"
        )
    return notes


def _polish_note(polish: FinalPolish) -> str:
    """What the chosen model's polish on all the data did (``kernel_search.final_polish``)."""
    low, high = polish.before
    what = (
        f"the chosen model's fit was polished on all the data ({polish.iterations} L-BFGS-B"
        f" iterations, {polish.evaluations} evaluations of the engine's tighter bound)"
    )
    if polish.after is None:
        return f"{what}: the polish broke, and the search's fit was kept"
    new_low, new_high = polish.after
    change = f"BIC [{low:.2f}, {high:.2f}] before, [{new_low:.2f}, {new_high:.2f}] after"
    kept = "the polished fit" if polish.kept else "the search's fit"
    return f"{what}: {change}; {kept} kept"


def _last_finalists(result: SearchResult) -> list[dict]:
    """The finalists of the last level that recorded them (none: an older trace)."""
    for record in reversed(result.trace):
        if record.finalists is not None:
            return record.finalists
    return []


def _seeds_notes(result: SearchResult) -> list[str]:
    """Of several seeds' searches: each one's BIC and whose model was kept (with a posterior
    over their pools, whose trace the file holds)."""
    if not result.seed_models:
        return []
    first = result.settings.seed
    bics = ", ".join(f"{first + i}: {m.bic:.2f}" for i, m in enumerate(result.seed_models))
    if not result.particles.is_single:
        return [
            f"{len(result.seed_models)} searches were run, their lowest BICs by seed {bics};"
            f" the trace is seed {result.trace_seed}'s, whose search fitted the model"
        ]
    chosen = next(i for i, m in enumerate(result.seed_models) if m is result.model)
    return [
        f"the lowest BIC of {len(result.seed_models)} searches, by seed {bics};"
        f" the model and trace are seed {first + chosen}'s"
    ]


def _posterior_notes(result: SearchResult) -> list[str]:
    """With the method "posterior": how many structures were weighed, the model's weight, and
    the lowest BIC's when that is another structure."""
    posterior = result.particles
    if posterior.is_single:
        return []
    weights = posterior.weights
    count = len(posterior.structures)
    if all(s.bic is None for s in posterior.structures):
        # particles not drawn from a search's structures of lowest BIC (the sampler's)
        return [
            f"the posterior holds {count} structures, {posterior.particle_count} particles;"
            f" the model is the most probable, of weight {weights[0]:.2f}"
        ]
    weighed = (
        f"the {count} structures of lowest BIC"
        if not result.seed_models
        else f"the {count} distinct structures of the {len(result.seed_models)} searches'"
        f" pools (each search's {result.settings.pool} of lowest BIC) jointly"
    )
    note = (
        f"the posterior weighed {weighed} by their evidence; the model is the most probable,"
        f" of weight {probability_text(weights[0])}"
    )
    lowest = min(range(len(weights)), key=lambda i: posterior.structures[i].ranking_bic)
    if lowest != 0:
        text = result.model.scaling.kernel_out(posterior.structures[lowest].kernel)
        note += (
            f"; the lowest BIC, {text.to_text(params=False, names=result.model.x_names)},"
            f" has weight {probability_text(weights[lowest])}"
        )
    failed = sum(bool(s.failure) for s in posterior.structures)
    if failed:
        note += f"; {failed} could not be weighed (weight 0)"
    return [note]


def _halves_notes(result: SearchResult) -> list[str]:
    """With the sampler: whether its two independent halves agree on the most probable
    structure, and the total variation between their posteriors by structure and by the
    kinds of findings, and between their log evidence estimates."""
    halves = result.particles.halves
    if halves is None:
        return []
    first, second = halves.most_probable
    on = (
        f"agree on the most probable structure, {first}"
        if first == second
        else f"disagree on the most probable structure ({first} in one, {second} in the other)"
    )
    a, b = halves.log_evidence
    gap = halves.evidence_gap
    evidence = (
        f"their log evidence estimates by {gap:.1f} nats ({a:.1f} and {b:.1f})"
        if gap < float("inf")
        else "one half has no evidence estimate (its particles all failed)"
    )
    settled = (
        f"within {AGREED_TV:g}"
        if halves.structures_tv <= AGREED_TV
        else f"more than {AGREED_TV:g}: the sampler has not settled; more particles or"
        " moves would bring the halves closer"
    )
    sizes = " and ".join(str(n) for n in halves.particles)
    shares = halves.shares
    return [
        f"two independent halves of the sampler ({sizes} particles, each from its own seeds)"
        f" {on}; their structure posteriors differ by a total variation of"
        f" {halves.structures_tv:.2f} ({settled}), the kinds of findings they state by"
        f" {halves.kinds_tv:.2f}, and {evidence}; the posterior is their union, each half"
        f" weighed by its evidence estimate ({shares[0]:.2f} and {shares[1]:.2f})"
    ]


def budget_notes(result: SearchResult) -> list[str]:
    """With the sampler's time budget: whether it forced fewer moves than the settings ask
    (and the plan it used), and whether the run passed it anyway (``smc_budget``)."""
    settings = result.settings
    plan = settings.moves_plan
    if settings.budget is None or plan is None:
        return []
    budget, seconds = settings.budget, result.elapsed_seconds
    asked = (settings.structure_moves, settings.parameter_moves)
    steps = plan_text(plan)
    notes = []
    if fewer(asked, plan):
        notes.append(
            f"the time budget of {budget:g} s allowed fewer moves than the settings ask"
            f" ({asked[0]} structure and {asked[1]} parameter moves per particle and data"
            f" step): the data steps made {steps} (structure:parameter); the plan was decided"
            " from how fast this machine ran the steps before, and the settings keep it"
            " (moves_plan), so that they give this result again"
        )
    if overrun(budget, seconds):
        least = ", even with one move of each kind at its last data step"
        notes.append(
            f"the sampler took {seconds:.1f} s, more than its budget of {budget:g} s"
            + (least if max(plan[-1]) <= 1 else "")
        )
    return notes


def stop_sentence(result: SearchResult) -> str:
    """Why the search ended before its depth ('' when it did not)."""
    stop = result.stopped_early
    if stop is None:
        return ""
    if stop.failed:
        return f"every candidate of level {stop.level} failed; kept the best so far"
    return f"no better model in {stop.stale} levels; stopped at level {stop.level}"
