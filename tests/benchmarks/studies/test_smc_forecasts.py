"""The sampler study's settings (``smc_forecasts.Budget``): labels, outputs and resumed rows."""

from __future__ import annotations

from dataclasses import fields

from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernel_search.smc import SMCSettings
from benchmarks.studies import OUTPUTS
from benchmarks.studies.smc_forecasts import Budget, budget_arguments, main, row_settings


def test_the_default_budget_is_the_samplers_defaults() -> None:
    defaults = SMCSettings()
    assert Budget().keywords == {
        "particles": defaults.particles,
        "data_steps": defaults.steps,
        "structure_moves": defaults.structure_moves,
        "parameter_moves": defaults.parameter_moves,
    }


def test_the_keywords_are_search_settings() -> None:
    names = {f.name for f in fields(SearchSettings)}
    assert set(Budget(64).keywords) <= names


def test_the_default_keeps_its_file_and_others_are_named_by_settings() -> None:
    assert Budget().outputs() == (OUTPUTS / "smc_forecasts.csv", OUTPUTS / "smc_forecasts.md")
    csv, md = Budget(64, 10, 20, 40).outputs()
    assert csv.name == "smc_forecasts_p64_t10_s20_m40.csv"
    assert md.name == "smc_forecasts_p64_t10_s20_m40.md"


def test_cost_and_words_give_the_budget_factor() -> None:
    assert Budget(64).cost() == 4 * Budget().cost()
    assert Budget(64, 10, 20, 40).cost() == 16 * Budget().cost()
    assert "16 times the defaults' moves" in Budget(64, 10, 20, 40).described()
    assert Budget().described().startswith("The sampler's default settings: 16 particles")


def test_rows_without_the_column_are_the_defaults() -> None:
    assert row_settings({"series": "01-airline"}) == "p16 t10 s5 m10"
    assert row_settings({"settings": "p64 t10 s5 m10"}) == "p64 t10 s5 m10"


def test_a_rows_settings_key_the_resume(tmp_path, monkeypatch) -> None:
    """A row of other settings for the same series and seed does not count as done."""
    import benchmarks.studies.smc_forecasts as study

    monkeypatch.setattr(study, "OUTPUTS", tmp_path)
    ran: list[tuple[str, int, str]] = []

    def fake_run(series: str, seed: int, budget: Budget) -> dict[str, object]:
        ran.append((series, seed, budget.label))
        return {"series": series, "seed": seed, "settings": budget.label, "covered": 1, "n_test": 2}

    monkeypatch.setattr(study, "study_run", fake_run)
    monkeypatch.setattr(study, "publish", lambda text, out: None)
    monkeypatch.setattr(study, "table", lambda *args: "")
    csv = tmp_path / "smc_forecasts_p64_t10_s5_m10.csv"
    csv.write_text(
        "series,seed,settings\n01-airline,0,p16 t10 s5 m10\n01-airline,1,p64 t10 s5 m10\n"
    )
    main(["01-airline", "--seeds", "0", "1", "--particles", "64"])
    assert ran == [("01-airline", 0, "p64 t10 s5 m10")]


def test_the_command_line_gives_the_budget_back() -> None:
    given = budget_arguments(Budget(128, 10, 10, 20))
    assert given == ["--particles", "128", "--steps", "10", "--structure-moves", "10"] + [
        "--parameter-moves",
        "20",
    ]


def test_budgets_keep_series_with_every_seed_by_setting() -> None:
    from benchmarks.studies.smc_budgets import complete

    rows = [
        {"series": "a", "seed": "0", "settings": "p64 t10 s5 m10"},
        {"series": "a", "seed": "1", "settings": "p64 t10 s5 m10"},
        {"series": "b", "seed": "0", "settings": "p64 t10 s5 m10"},
        {"series": "a", "seed": "1"},
        {"series": "a", "seed": "0"},
    ]
    runs = complete(rows, [0, 1])
    assert set(runs) == {"p64 t10 s5 m10", "p16 t10 s5 m10"}
    assert list(runs["p64 t10 s5 m10"]) == ["a"]
    assert [r["seed"] for r in runs["p16 t10 s5 m10"]["a"]] == ["0", "1"]
