"""The page on the posterior over structures: how it was made (a pool weighed by Laplace
evidence, or the sampler's particles), its most probable structures with their weights, and
every finding with its probability, that probability's range and its interval. A sampler whose
two independent halves disagree (``PosteriorFacts.unsettled``) says so above the findings."""

from __future__ import annotations

import math
from typing import Any

from abcd_cli.decompose.certainty import PosteriorFacts
from abcd_cli.decompose.components import Decomposition
from abcd_cli.reporting.certainty import (
    SHOWN_STRUCTURES,
    SHOWN_WEIGHT,
    finding_detail,
    finding_phrase,
    probability_range,
    probability_text,
    unsettled_sentence,
)
from abcd_cli.reporting.numbers import format_number
from abcd_cli.reporting.wording import capitalise, number_word


def _sampler_text(facts: PosteriorFacts, count: str) -> list[str]:
    """How the sampler's posterior was made and what its probabilities mean (method "smc": no
    pool, no BIC, no Laplace evidence; its weights are the particles')."""
    particles, steps = facts.sampler  # type: ignore[misc]
    return [
        f"The sampler (sequential Monte Carlo) moved {particles} particles, each a structure with"
        f" its parameters, through the data added in {steps} steps, changing their structures"
        " and parameters at each step; each particle is weighted by how well it predicted the"
        " data added. A structure's weight is the summed weight of the particles that hold it:"
        f" {count} structures hold weight. The prior over structures is {facts.prior}.",
        "A finding's probability is the summed weight of the particles whose structure holds it."
        f" With {particles} particles, one particle more or less holding a finding moves its"
        f" probability by about {format_number(1.0 / particles, decimals=2)}, and a run with"
        " another seed can differ by more; the range beside each probability is where it would"
        " lie if each structure's weight were off by a factor of e in the direction that moves"
        " it most.",
    ]


def posterior_section(facts: PosteriorFacts, dec: Decomposition) -> dict[str, Any]:
    """The page on the posterior: what it is, the most probable structures with their weights,
    every finding with its probability and how far that moves if each structure's evidence is
    off by the stated error, and the prior."""
    shown = [s for s in facts.structures if s.weight >= SHOWN_WEIGHT][:SHOWN_STRUCTURES]
    failed = sum(1 for s in facts.structures if s.failure)
    names = dec.names
    count = number_word(len(facts.structures))
    weighed = (
        f"The search kept the {count} structures of lowest BIC and weighed each"
        if facts.searches == 1
        else f"{capitalise(number_word(facts.searches))} searches with different seeds each kept"
        f" their structures of lowest BIC, and the {count} distinct ones among them were weighed"
        " together, each"
    )
    text = (
        _sampler_text(facts, count)
        if facts.sampler is not None
        else [
            f"{weighed} by its evidence, p(y | structure), from a Laplace approximation at its"
            f" fitted parameters, with {number_word(facts.draws)} draws of its parameters from a"
            " Markov chain. A structure's weight is its evidence over the sum of all of theirs;"
            f" the prior over structures is {facts.prior}.",
            "A finding's probability is the summed weight of the draws whose structure holds it."
            " The Laplace evidence may be off by about a nat against more exact estimates; the"
            " range beside each probability is where it would lie if every structure's evidence"
            " were off by up to one nat in the direction that moves it most.",
        ]
    )
    if failed:
        text.append(
            f"{capitalise(number_word(failed))} structure{'s' if failed > 1 else ''} could not"
            " be weighed and carr{} no weight.".format("y" if failed > 1 else "ies")
        )
    structures = [
        {
            "rank": k + 1,
            "weight": s.weight,
            "bic": s.bic,
            "log_evidence": s.log_evidence if math.isfinite(s.log_evidence) else None,
            "kernel": s.kernel.to_text(params=False, names=names if len(names) > 1 else ()),
        }
        for k, s in enumerate(shown)
    ]
    unsettled = unsettled_sentence(facts)
    if unsettled:
        text.append(unsettled)
    findings = [
        {
            "finding": capitalise(finding_phrase(f, dec)),
            "probability": probability_text(f.probability),
            "range": probability_range(f.low, f.high),
            "interval": finding_detail(f, dec).partition("; ")[2],
        }
        for f in facts.findings
    ]
    section: dict[str, Any] = {"text": text, "structures": structures, "findings": findings}
    if unsettled:  # the findings table's caption says so where the probabilities stand
        section["unsettled"] = (
            "Probability: a weight of this unsettled run (its halves disagree), not a probability"
            " the data establish."
        )
    if facts.sampler is not None:  # no BIC and no evidence per structure: the template says so
        section["sampler"] = True
    return section
