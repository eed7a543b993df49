"""The sampler's time budget (kernel_search/smc_budget.py, through smc_method.py): the moves
scale down when the steps are slow (a fake clock, not real timing), the recorded plan gives the
result again, a resumed run keeps the plan it recorded, and bad values are refused."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

import abcd_cli
from abcd_cli.cli.main import main
from abcd_cli.errors import InputError
from abcd_cli.kernel_search import smc_method
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernel_search.smc_budget import MovePlanner, cost, fewer, overrun, scaled
from abcd_cli.reporting.search_notes import budget_notes
from abcd_cli.sklearn import AbcdRegressor

X = np.linspace(0.0, 6.0, 36)
Y = np.sin(2.5 * X) + 0.1 * np.random.default_rng(2).standard_normal(36)
ASKED = (2, 4)
SETTINGS = SearchSettings(
    method="smc", particles=4, data_steps=3, first_points=10, structure_moves=ASKED[0],
    parameter_moves=ASKED[1],
)  # fmt: skip


class Clock:
    """A clock that moves ``tick`` seconds each time it is read."""

    def __init__(self, tick: float) -> None:
        self.now, self.tick = 0.0, tick

    def __call__(self) -> float:
        self.now += self.tick
        return self.now


def test_the_planner_keeps_the_asked_moves_when_they_fit_and_scales_them_when_not() -> None:
    planner = MovePlanner((5, 10), (10, 20, 40), budget=100.0)
    assert planner.moves((), elapsed=0.01) == (5, 10)  # fast: the settings' moves
    # step 0 took 1 s on 10 rows: r = 1 / c(10) s per unit; the rest at s + p + 1 = 16 would
    # take 16 r Σ c(n) = 48 s, and fit
    assert planner.moves((), elapsed=1.0) == (5, 10)
    # step 0 took 4 s: 16 r Σ c(n) = 200 s would not fit in the 96 s left
    ahead = 4.0 / cost(10) * (cost(10) + cost(20) + cost(40))
    factor = (96.0 / ahead - 1.0) / 15
    assert planner.moves((), elapsed=4.0) == (scaled(5, factor), scaled(10, factor)) == (2, 4)
    assert planner.moves((), elapsed=99.0) == (1, 1)  # never below one move each
    assert MovePlanner((0, 10), (10, 20), budget=1.0).moves((), elapsed=0.9) == (0, 1)
    assert MovePlanner((5, 10), (10, 20), given=((1, 2), (3, 4))).moves(((1, 2),), 1e9) == (3, 4)
    with pytest.raises(ValueError, match="the moves plan has 1 data steps; this run has 2"):
        MovePlanner((5, 10), (10, 20), given=((1, 2),))


def test_the_planner_counts_every_step_done_in_its_rate() -> None:
    planner = MovePlanner((4, 4), (10, 20, 30), budget=10.0)
    done = ((4, 4),)
    spent = cost(10) + 9 * cost(10)
    rate = 2.0 / spent
    left = (10.0 - 2.0) / (rate * (cost(20) + cost(30)))  # moves + 1 that fit per step
    factor = (left - 1) / 8
    assert planner.moves(done, elapsed=2.0) == (scaled(4, factor), scaled(4, factor))
    assert fewer((4, 4), [(4, 4), (4, 3)]) and not fewer((4, 4), [(4, 4)])
    assert overrun(1.0, 1.5) and not overrun(None, 1e9) and not overrun(2.0, 2.0)


def test_slow_steps_make_fewer_moves_and_the_run_records_its_plan() -> None:
    slow = smc_method.search(X, Y, with_budget(30.0), clock=Clock(1.0))
    # step 0 took 2 s: 2 + 4 moves would take 44 s, 1 + 2 fit in the 28 s left; then the steps
    # so far show them cheaper than projected, and the asked moves fit again
    assert slow.settings.moves_plan == ((1, 2), ASKED, ASKED)
    fast = smc_method.search(X, Y, with_budget(1e6), clock=Clock(1e-6))
    assert fast.settings.moves_plan == (ASKED,) * 3
    assert fast.to_dict()["posterior"] == smc_method.search(X, Y, SETTINGS).to_dict()["posterior"]
    (note,) = budget_notes(slow)
    assert note.startswith("the time budget of 30 s allowed fewer moves than the settings ask")
    assert "the data steps made 1:2, 2:4, 2:4 (structure:parameter)" in note
    assert budget_notes(fast) == []


def test_a_budget_too_small_for_one_move_each_is_passed_and_said_so() -> None:
    late = smc_method.search(X, Y, with_budget(5.0), clock=Clock(1.0))
    assert late.settings.moves_plan == ((1, 1),) * 3 and late.elapsed_seconds > 5.0
    fewer_note, late_note = budget_notes(late)
    assert late_note == (
        f"the sampler took {late.elapsed_seconds:.1f} s, more than its budget of 5 s, even with"
        " one move of each kind at its last data step"
    )


def test_the_recorded_plan_gives_the_result_again() -> None:
    slow = smc_method.search(X, Y, with_budget(30.0), clock=Clock(1.0))
    again = smc_method.search(X, Y, slow.settings)  # the settings the model file keeps
    given = smc_method.search(
        X, Y, SearchSettings(**{**_fields(SETTINGS), "moves_plan": list(slow.settings.moves_plan)})
    )
    assert again.to_dict()["posterior"] == slow.to_dict()["posterior"]
    assert given.to_dict()["posterior"] == slow.to_dict()["posterior"]
    unbudgeted = smc_method.search(X, Y, SETTINGS)
    assert unbudgeted.to_dict()["posterior"] != slow.to_dict()["posterior"]


def test_a_resumed_run_keeps_the_plan_it_recorded(tmp_path) -> None:
    path = tmp_path / "sampler.json"

    def stop_after_one(event) -> None:
        if event.kind == "data step" and event.level == 1:
            raise KeyboardInterrupt

    settings = with_budget(30.0)
    with pytest.raises(KeyboardInterrupt):
        smc_method.search(X, Y, settings, checkpoint=path, events=stop_after_one, clock=Clock(1.0))
    saved = json.loads(path.read_text())
    first = [tuple(m) for m in saved["halves"][0]["moves"]]
    assert len(first) == 1 and first == [tuple(m) for m in saved["halves"][1]["moves"]]
    assert fewer(ASKED, first)
    # resumed on a machine so fast that the rest would get every asked move
    resumed = smc_method.search(X, Y, settings, checkpoint=path, resume=True, clock=Clock(1e-9))
    plan = resumed.settings.moves_plan
    assert plan is not None and list(plan[:1]) == first
    rerun = smc_method.search(X, Y, resumed.settings)
    assert rerun.to_dict()["posterior"] == resumed.to_dict()["posterior"]


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"budget": 0}, "the budget must be a number of seconds above 0, not 0"),
        ({"budget": -5.0}, "the budget must be a number of seconds above 0, not -5.0"),
        ({"budget": math.inf}, "the budget must be a number of seconds above 0, not inf"),
        ({"budget": True}, "the budget must be a number of seconds above 0, not True"),
        ({"budget": 10.0, "method": "greedy"}, "--budget only applies with --method smc"),
        ({"moves_plan": [(1, 2)], "method": "posterior"}, "--moves-plan only applies with"),
        ({"moves_plan": [(1, -2)]}, "the moves plan must be 1 to 3 pairs"),
        ({"moves_plan": [(1, 2)] * 4}, "the moves plan must be 1 to 3 pairs"),
        ({"moves_plan": "1:2"}, "the moves plan must be 1 to 3 pairs"),
    ],
)
def test_bad_budgets_and_plans_are_refused(values, message) -> None:
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        SearchSettings(**{**_fields(SETTINGS), **values})


def test_a_plan_of_the_wrong_length_for_the_series_is_refused() -> None:
    settings = SearchSettings(**{**_fields(SETTINGS), "moves_plan": [(1, 1)] * 2})
    with pytest.raises(InputError, match="the moves plan has 2 data steps; this run has 3"):
        smc_method.search(X, Y, settings)


def test_the_command_line_and_the_estimator_take_the_budget(tmp_path) -> None:
    csv = tmp_path / "s.csv"
    csv.write_text("x,y\n" + "".join(f"{a},{b}\n" for a, b in zip(X, Y, strict=True)))
    args = ["search", str(csv), "--json", str(tmp_path / "m.json"), "--quiet"]
    for bad, line in [
        (["--method", "smc", "--budget", "0"], "the budget must be a number of seconds above 0"),
        (["--method", "smc", "--budget", "-3"], "the budget must be a number of seconds above 0"),
        (["--method", "smc", "--budget", "soon"], "--budget must be a number of seconds above 0"),
        (["--budget", "60"], "--budget only applies with --method smc"),
        (["--method", "smc", "--moves-plan", "1-2"], "--moves-plan must be S:P pairs"),
    ]:
        refused = CliRunner().invoke(main, [*args, *bad])
        assert refused.exit_code == 2, refused.output
        assert len(refused.output.strip().splitlines()) == 1
        assert refused.output.startswith(f"Error: {line}")
    tiny = ["--particles", "4", "--data-steps", "3", "--structure-moves", "1"]
    ran = CliRunner().invoke(main, [*args, "--method", "smc", *tiny, "--budget", "3600"])
    assert ran.exit_code == 0, ran.output
    saved = json.loads((tmp_path / "m.json").read_text())["settings"]
    assert saved["budget"] == 3600.0 and saved["moves_plan"] == [[1, 10]] * 3
    assert AbcdRegressor(budget=30.0).get_params()["budget"] == 30.0
    found = abcd_cli.read_model(tmp_path / "m.json")
    assert found.settings["moves_plan"] == [[1, 10]] * 3


def with_budget(budget: float) -> SearchSettings:
    return SearchSettings(**{**_fields(SETTINGS), "budget": budget})


def _fields(settings: SearchSettings) -> dict[str, object]:
    return {name: getattr(settings, name) for name in settings.__dataclass_fields__}
