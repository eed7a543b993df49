"""The page on the posterior (reporting/posterior_page.py) and the summary of a sampler's run
whose two independent halves disagree (``PosteriorFacts.unsettled``): no finding is stated as
a fact, and every probability is qualified where it is given."""

from __future__ import annotations

import pytest

from abcd_cli.decompose.components import decompose
from abcd_cli.decompose.facts import Axis
from abcd_cli.kernel_search.agreement import AGREED_TV, HalvesAgreement
from abcd_cli.reporting.certainty import NOT_ESTABLISHED, UNSETTLED_RUN
from abcd_cli.reporting.render import render_html
from tests.reporting.test_posterior_report import posterior_context, posterior_doc
from tests.reporting.test_report import fixed_model


def _sampler_context(structures_tv: float, figures: bool = False) -> dict:
    """The fixed posterior (a linear trend at 0.95, a yearly cycle at 0.65) as the sampler's,
    its halves a total variation ``structures_tv`` apart."""
    model = fixed_model()
    dec = decompose(model, (Axis("year", "date", "sales"),), extrapolate=0.2, seed=0)
    doc = posterior_doc()
    doc["settings"].update({"method": "smc", "particles": 16, "data_steps": 10})
    halves = HalvesAgreement((8, 8), structures_tv, structures_tv, (-751.7, -736.1), ("a", "b"))
    doc["posterior"]["halves"] = halves.to_dict()
    return posterior_context(dec, doc, figures=figures)


@pytest.fixture(scope="module")
def unsettled() -> dict:
    return _sampler_context(1.0, figures=True)


def test_a_run_whose_halves_disagree_states_no_fact(unsettled) -> None:
    """Airline by the sampler at 16 particles: halves a total variation 1.00 apart, and the
    summary stated 'Among the structures weighed, with probability 0.9 or more: ...
    (probability 1.00)', the disagreement said only in the appendix's notes."""
    summary = unsettled["summary"]
    assert summary["facts"] == [] and summary["likely"] == ""
    assert "with probability 0.9 or more" not in summary["certainty"]
    assert "has not settled" in summary["certainty"]
    assert "total variation of 1.00" in summary["certainty"]
    assert "not probabilities the data establish" in summary["certainty"]
    assert "A linear trend" not in " ".join(summary["facts"])
    assert "a linear trend (probability 0.95 in this unsettled run)" in summary["uncertain"]
    for f in summary["findings"]:
        assert f["wording"] in (NOT_ESTABLISHED, "uncertain", "omitted"), f
        assert f"probability {UNSETTLED_RUN}" not in f["text"]  # qualified after its value
        assert UNSETTLED_RUN in f["text"], f


def test_a_run_whose_halves_disagree_qualifies_every_probability_where_given(unsettled) -> None:
    tagged = [c for c in unsettled["components"] if c["tag"]]
    assert tagged and all(c["tag"].endswith(UNSETTLED_RUN) for c in tagged)
    assert all(
        b.endswith(f"{UNSETTLED_RUN}).") for b in unsettled["summary"]["bullets"] if "(" in b
    )
    page = unsettled["posterior"]
    assert "has not settled" in " ".join(page["text"])
    assert "not a probability the data establish" in page["unsettled"]
    html = render_html(unsettled)
    caption = html.split("Every finding of the posterior.")[1].split("</caption>")[0]
    assert "weight of this unsettled run" in caption


def test_a_run_whose_halves_agree_keeps_its_facts() -> None:
    settled = _sampler_context(AGREED_TV / 2)
    summary = settled["summary"]
    assert "A linear trend (probability 0.95)." in summary["facts"]
    assert "has not settled" not in summary["certainty"]
    assert "unsettled" not in settled["posterior"]
    assert all(UNSETTLED_RUN not in c["tag"] for c in settled["components"])
