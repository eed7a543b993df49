"""The report's building blocks: base-kernel roles, shared time units, the averaged forecast
record and the sections that build_context assembles."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.data.time_units import UNITS, counted, in_largest_unit
from abcd_cli.decompose.averaged import averaged_forecast
from abcd_cli.decompose.components import decompose
from abcd_cli.decompose.facts import Axis
from abcd_cli.kernels import BASE_KERNELS, SE, WN, Lin, Per, Product
from abcd_cli.prediction import evidence_weights, predictive_table
from abcd_cli.reporting import sections
from abcd_cli.reporting.factors import ROLES, factors_of, role_of
from abcd_cli.reporting.forecast import seed_shares
from abcd_cli.reporting.json_view import averaged_json
from tests.reporting.test_report import _search_doc, fixed_model, other_model


@pytest.mark.parametrize("symbol", sorted(BASE_KERNELS))
def test_every_base_kernel_has_a_role(symbol: str) -> None:
    kernel = BASE_KERNELS[symbol]()
    assert role_of(kernel) in ROLES


def test_a_product_is_sorted_by_role() -> None:
    parts = factors_of(Product((Per((1.0, 1.0, 1.0)), SE((1.0, 1.0)), Lin((1.0, 0.0)))))
    assert parts is not None and parts.head == "periodic"
    assert [len(getattr(parts, role)) for role in ROLES] == [1, 1, 0, 0, 1, 0]
    assert factors_of(WN((1.0,)) + SE((1.0, 1.0))) is None  # a sum is not a product


@pytest.mark.parametrize(
    ("years", "count", "unit"),
    [(2.0, 2.0, "year"), (0.25, 3.0, "month"), (14 / 365.2425, 2.0, "week"), (0.96, 0.96, "year")],
)
def test_lengths_are_counted_in_the_largest_unit_they_fill(years, count, unit) -> None:
    got_count, got_unit = in_largest_unit(years)
    assert got_unit == unit and got_count == pytest.approx(count)
    assert in_largest_unit(1e-12)[1] == UNITS[-1][0] == "second"


def test_unit_words_are_singular_for_one() -> None:
    assert counted("1", "day") == "1 day"
    assert counted("1.0", "year") == "1.0 year"
    assert counted("2.5", "month") == "2.5 months"
    assert counted("0.5", "week") == "0.5 weeks"


def test_the_averaged_forecast_is_the_evidence_weighted_mixture() -> None:
    chosen, other = fixed_model(), other_model(bic_above=2.0)
    doc = _search_doc(chosen)
    grid = np.linspace(2000.0, 2010.0, 7)
    assert averaged_forecast(doc, grid) is None  # one search: nothing to average
    doc["seed_models"] = [
        {"seed": 3, **chosen.to_dict(with_data=False)},
        {"seed": 9, **other.to_dict(with_data=False)},
    ]
    averaged = averaged_forecast(doc, grid)
    assert averaged is not None and averaged.seeds == [3, 9]
    weights = evidence_weights([chosen.bic, other.bic])
    np.testing.assert_allclose(averaged.weights, weights, rtol=1e-12)
    table = predictive_table([chosen, other], grid, weights)
    np.testing.assert_allclose(averaged.mean, table["mean"], rtol=1e-9)
    np.testing.assert_allclose(averaged.low, table["q2.5"], rtol=1e-9)
    np.testing.assert_allclose(averaged.high, table["q97.5"], rtol=1e-9)
    assert list(averaged_json(averaged)) == ["seeds", "weights", "mean", "sd", "q2.5", "q97.5"]
    assert seed_shares(averaged.seeds, averaged.weights) == (
        f"seed 3 {weights[0]:.2f}, seed 9 {weights[1]:.2f}"
    )


@pytest.fixture(scope="module")
def dec():
    model = fixed_model()
    return decompose(model, (Axis("year", "date", "sales"),), extrapolate=0.2, seed=0)


def test_the_table_rows_repeat_the_component_sections(dec) -> None:
    components = [{"index": 1, "phrase": "p", "stats": dict.fromkeys(sections.TABLE_STATS, 0.5)}]
    table = sections.table_section(dec, components)
    assert table["baseline"] == "Baseline (mean)" and table["baseline_mae"] == dec.baseline_mae
    assert table["rows"] == [
        {"index": 1, "phrase": "p", **dict.fromkeys(sections.TABLE_STATS, 0.5)}
    ]


def test_the_appendix_states_the_run(dec) -> None:
    doc = _search_doc(fixed_model())
    doc.update(elapsed_seconds=1234.56, stopped_early="stopped at the time limit")
    doc["trace"].append({"level": 1, "structure": None, "bic": None})
    appendix = sections.appendix_section(dec, doc)
    assert appendix["elapsed"] == "1,234.6 s of search"
    assert appendix["notes"] == ["stopped at the time limit"]
    assert appendix["trace"][1]["structure"] == "(all failed)"
    assert np.isnan(appendix["trace"][1]["bic"]) and appendix["trace"][1]["candidates"] == 0


def test_counts_in_the_data_description_go_through_the_formatter(dec) -> None:
    text = sections.series_description(dec, np.int64(1234))
    assert text.startswith("96 observations of sales from 2000 to 2007")
    assert text.endswith("; 1,234 rows with missing values dropped.")
    assert sections.series_description(dec, 1).endswith("; 1 row with missing values dropped.")
