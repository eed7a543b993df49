"""The search with a choice of engine: --engine and --inducing, auto's choice by size, the
buffer of models whose BIC intervals overlap, the progress display, resuming, and the SKC
search agreeing with the exact one on a 2,000-point series of known structure."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import abcd_cli
from abcd_cli.cli.main import main
from abcd_cli.cli.progress import CLEAR, LiveLine, PlainLines, display, live_text
from abcd_cli.engines.base import NLLBounds
from abcd_cli.engines.exact import ExactEngine
from abcd_cli.engines.sparse import SparseEngine
from abcd_cli.errors import InputError
from abcd_cli.kernel_search import engine_choice
from abcd_cli.kernel_search.buffer import keep
from abcd_cli.kernel_search.engine_choice import (
    AUTO_THRESHOLD,
    M_MAX,
    M_MIN,
    NM2_BUDGET,
    default_inducing,
    engine_name,
    resolve,
)
from abcd_cli.kernel_search.events import SearchEvent, as_lines, plain_line
from abcd_cli.kernel_search.greedy import Search
from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.records import LevelRecord
from abcd_cli.kernel_search.scoring import Scored
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.reporting.search_notes import WIDE_BIC, search_notes

X = np.linspace(0.0, 6.0, 60)
Y = np.sin(2.0 * X) + 0.1 * X + 0.2 * np.random.default_rng(5).standard_normal(60)
TINY = SearchSettings(depth=1, restarts=1, finalists=2, max_iter=30, screen_iter=10)


@pytest.fixture
def series_csv(tmp_path: Path) -> Path:
    path = tmp_path / "series.csv"
    path.write_text("x,y\n" + "".join(f"{a},{b}\n" for a, b in zip(X, Y, strict=True)))
    return path


def one_error_line(result) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    return lines[0]


# ----------------------------------------------------------------------------- options


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--engine", "fast"], "unknown engine 'fast' (choose from auto, exact, skc, statespace)"),
        (["--inducing", "many"], "--inducing takes a whole number"),
        (["--inducing", "0"], "inducing inputs must be a whole number of at least 1"),
        (["--inducing", "-5"], "not -5"),
    ],
)
def test_bad_engine_options_end_in_one_line(
    series_csv: Path, tmp_path: Path, args: list[str], needle: str
):
    for command in ("search", "report"):
        out = ["--json", str(tmp_path / "m.json")]
        out = out if command == "search" else ["-o", str(tmp_path / "r.json")]
        result = CliRunner().invoke(main, [command, str(series_csv), *out, *args, "--jobs", "1"])
        assert needle in one_error_line(result)


def test_every_searching_command_takes_the_engine_options():
    for command in ("search", "report", "benchmark"):
        text = CliRunner().invoke(main, [command, "--help"]).output
        assert "--engine" in text and "--inducing" in text and "--quiet" in text, command
        assert "--buffer" in text, command


def test_the_api_refuses_bad_engine_values(series_csv: Path):
    for bad in ({"engine": "fast"}, {"inducing": 0}, {"inducing": 2.5}, {"inducing": True}):
        with pytest.raises(InputError):
            abcd_cli.search(str(series_csv), depth=0, **bad)


def test_the_engine_used_is_recorded_and_skc_says_so(series_csv: Path, tmp_path: Path):
    out = tmp_path / "m.json"
    # one point left out: on the complete grid skc scores stationary kernels exactly
    # (``engines/levinson.py``), with no PCG products to record
    gapped = tmp_path / "gapped.csv"
    kept = np.arange(X.size) != 30
    rows = zip(X[kept], Y[kept], strict=True)
    gapped.write_text("x,y\n" + "".join(f"{a},{b}\n" for a, b in rows))
    args = ["search", str(gapped), "--depth", "1", "--restarts", "1", "--jobs", "1"]
    result = CliRunner().invoke(
        main, [*args, "--engine", "skc", "--inducing", "25", "--buffer", "2", "--json", str(out)]
    )
    assert result.exit_code == 0, result.output
    settings = json.loads(out.read_text())["settings"]
    assert (settings["engine"], settings["inducing"], settings["buffer"]) == ("skc", 25, 2)
    assert "note: likelihoods were bounded with 25 inducing inputs" in result.stdout
    trace = json.loads(out.read_text())["trace"]
    for level in trace:
        assert level["bic_low"] <= level["bic"] and level["bic_width"] >= 0.0
        assert level["evaluations"] >= level["full_data_evaluations"] > 0
        assert level["kept"] + level["pruned"] >= 1
        assert level["pcg_products"] > 0  # every level scores models on all the data

    found = abcd_cli.search(str(series_csv), depth=0, restarts=1)  # 60 points: auto is exact
    assert (found.settings["engine"], found.settings["inducing"]) == ("exact", None)


def test_more_inducing_inputs_than_points_means_every_point():
    settings, engine = resolve(SearchSettings(engine="skc", inducing=10_000), 60)
    assert settings.inducing == 60 and isinstance(engine, SparseEngine) and engine.m == 60


# ----------------------------------------------------------------------------- auto


def test_auto_is_exact_below_the_threshold_and_skc_from_it():
    assert engine_name("auto", 100) == "exact"
    assert engine_name("auto", AUTO_THRESHOLD - 1) == "exact"
    assert engine_name("auto", AUTO_THRESHOLD) == "skc"
    assert engine_name("auto", 8760) == "skc"
    assert engine_name("exact", 10**6) == "exact" and engine_name("skc", 10) == "skc"
    settings, engine = resolve(SearchSettings(), 100)
    assert settings.engine == "exact" and isinstance(engine, ExactEngine)


def test_auto_never_chooses_an_exact_fit_that_would_be_refused(monkeypatch):
    monkeypatch.setattr(engine_choice, "AUTO_THRESHOLD", 10**9)
    assert engine_name("auto", 3000) == "exact"
    assert engine_name("auto", 6000) == "skc"  # the exact engine refuses more than 5461


def test_the_default_m_grows_with_n_then_keeps_n_m2_within_its_budget():
    assert [default_inducing(n) for n in (1, 50, 200)] == [1, 50, 200]
    ms = [default_inducing(n) for n in (500, 1000, 10**4, 4 * 10**4, 10**5, 2 * 10**5, 10**7)]
    assert ms[0] == ms[1] == ms[2] == ms[3] == M_MAX
    assert all(a >= b for a, b in zip(ms, ms[1:], strict=False))  # never more for more points
    assert all(M_MIN <= m <= M_MAX for m in ms) and ms[-1] == M_MIN
    for n in (10**5, 2 * 10**5):
        m = default_inducing(n)
        assert n * m**2 <= NM2_BUDGET and n * (m + 10) ** 2 > NM2_BUDGET


def test_a_long_series_is_no_longer_refused():
    x = np.arange(8760.0) / 24.0
    y = np.sin(2 * np.pi * x) + 0.1 * np.random.default_rng(0).standard_normal(x.size)
    search = Search(x, y, SearchSettings())  # checks the size; fits nothing
    assert search.settings.engine == "skc"
    assert search.settings.inducing == default_inducing(8760)
    with pytest.raises(InputError, match="--engine skc"):
        Search(x, y, SearchSettings(engine="exact"))


# ----------------------------------------------------------------------------- buffer


def scored(low: float, high: float) -> Scored:
    return Scored(parse_kernel("WN"), high / 2.0, high, low)


def test_the_buffer_keeps_the_overlapping_intervals_and_prunes_the_rest():
    ranked = [scored(90, 100), scored(95, 104), scored(99.9, 130), scored(100, 101)]
    ranked.sort(key=lambda c: c.bic)  # by the upper end: 100, 101, 104, 130
    kept = keep(ranked, beam=1, size=5)
    # 101's interval starts at 100 = the best's upper end: no overlap; 104's and 130's do
    assert [c.bic for c in kept.models] == [100, 104, 130]
    assert kept.pruned == 1


def test_the_buffer_holds_at_most_size_but_always_the_beam():
    ranked = [scored(90.0 + i, 100.0 + i) for i in range(6)]  # all overlap the best
    assert [c.bic for c in keep(ranked, beam=1, size=3).models] == [100, 101, 102]
    assert keep(ranked, beam=1, size=3).pruned == 3
    apart = [scored(100.0 + 10 * i, 100.0 + 10 * i) for i in range(4)]  # no width: the beam
    assert [c.bic for c in keep(apart, beam=2, size=3).models] == [100, 110]
    assert [c.bic for c in keep(apart, beam=4, size=1).models] == [100, 110, 120, 130]
    assert keep([], beam=2, size=3).models == []


@dataclass(frozen=True)
class WideEngine(ExactEngine):
    """The exact engine with a pretend uncertainty of ±5 nats (±10 BIC) on every model."""

    def score(self, kernel, X, y, constant_mean=False, objective=None):
        exact = super().score(kernel, X, y, constant_mean, objective)
        return type(exact)(exact.low - 5.0, exact.high + 5.0)


def test_wide_intervals_widen_the_buffer():
    settings = SearchSettings(depth=2, restarts=1, beam=1, buffer=3, finalists=4, patience=0)
    narrow = run_search(X, Y, settings, engine=ExactEngine())
    wide = run_search(X, Y, settings, engine=WideEngine())
    assert all(level.kept == 1 and level.bic_width == 0.0 for level in narrow.trace)
    assert all(level.bic_width == pytest.approx(20.0) for level in wide.trace)
    assert narrow.trace[0].structure == wide.trace[0].structure
    assert any(level.kept > 1 for level in wide.trace)  # candidates within 20 BIC were kept
    assert all(level.kept <= 3 for level in wide.trace)


def test_too_few_inducing_inputs_are_named_in_one_note():
    result = run_search(X, Y, SearchSettings(depth=0, restarts=1, engine="skc", inducing=20))

    def notes_at(width: float) -> list[str]:
        nll = result.model.nll
        model = replace(result.model, nll_bounds=NLLBounds(nll - width / 2.0, nll))
        return [note for note in search_notes(replace(result, model=model)) if "--inducing" in note]

    wide = notes_at(WIDE_BIC + 0.5)
    assert len(wide) == 1 and f"{WIDE_BIC + 0.5:.1f} wide" in wide[0] and "20 inducing" in wide[0]
    assert "--inducing 40" in wide[0] and "\n" not in wide[0]
    assert notes_at(WIDE_BIC - 0.5) == []
    exact = run_search(X, Y, SearchSettings(depth=0, restarts=1, engine="exact"))
    assert search_notes(exact) == []


# ----------------------------------------------------------------------------- progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


LEVEL_1 = LevelRecord(
    1, 12, 1, 2, "SE + WN", "SE(...) + WN(...)", 12.5, 10.0, 2.5, 2, 4, elapsed_seconds=65.04
)
EVENTS = [
    SearchEvent("resumed", level=0),
    SearchEvent("stage", level=1, depth=3, stage="screen", total=2),
    SearchEvent("fit", level=1, depth=3, stage="screen", done=1, total=2, seconds=3.0),
    SearchEvent(
        "fit", level=1, depth=3, stage="refine", done=2, total=2, seconds=65, best=(10.0, 12.5)
    ),
    SearchEvent("level", level=1, depth=3, record=LEVEL_1),
]
LEVEL_LINE = (
    "level 1/3: 12 fitted (1 failed, 2 rejected); best SE + WN  BIC [10.00, 12.50]  [65.0s];"
    " 4 pruned"
)


def test_on_a_terminal_the_level_line_is_rewritten_in_place():
    stream = Terminal()
    show = display(stream)
    assert isinstance(show, LiveLine)
    for event in EVENTS:
        show(event)
    text = stream.getvalue()
    assert text.startswith("resumed after level 0\n")
    assert f"{CLEAR}level 1/3: screening 1/2  3s" in text
    assert f"{CLEAR}level 1/3: on all the data 2/2  1m05s  best BIC [10.00, 12.50]" in text
    assert text.endswith(f"{CLEAR}{LEVEL_LINE}\n")
    assert text.count("\n") == 2  # the live line never adds lines
    show(EVENTS[1])
    show.close()  # an interrupt mid-level: the live line is kept and ended
    assert stream.getvalue().endswith(live_text(EVENTS[1]) + "\n")
    show.close()
    assert stream.getvalue().count("\n") == 3


def test_elsewhere_only_plain_lines_and_quiet_says_nothing():
    stream = io.StringIO()
    show = display(stream)
    assert isinstance(show, PlainLines)
    for event in EVENTS:
        show(event)
    assert stream.getvalue() == f"resumed after level 0\n{LEVEL_LINE}\n"
    assert display(Terminal(), quiet=True) is None
    lines: list[str] = []
    for event in EVENTS:
        as_lines(lines.append)(SearchEvent(**{**event.__dict__, "seed": 4}))
    assert lines == ["seed 4: resumed after level 0", f"seed 4: {LEVEL_LINE}"]
    failed = SearchEvent("level", level=2, depth=3, record=LevelRecord(2, 5, 5, 0))
    assert plain_line(failed) == "level 2: every candidate failed"
    assert "best" not in live_text(EVENTS[1])


def test_the_search_reports_every_fit_and_each_level_line_ends_with_the_pruned(series_csv):
    events: list[SearchEvent] = []
    lines: list[str] = []
    abcd_cli.search(
        str(series_csv), depth=1, restarts=1, on_event=events.append, progress=lines.append
    )
    stages = [e for e in events if e.kind == "stage"]
    fits = [e for e in events if e.kind == "fit"]
    levels = [e for e in events if e.kind == "level"]
    assert [e.level for e in levels] == [0, 1] and len(lines) == 2
    assert all(
        line.endswith(f"; {e.record.pruned} pruned") for line, e in zip(lines, levels, strict=True)
    )
    assert sum(s.total for s in stages) == len(fits)
    assert all(1 <= f.done <= f.total for f in fits)
    assert all(e.best is not None for e in fits if e.level == 1)  # level 0's best is known


def test_quiet_and_plain_progress_on_the_command_line(series_csv: Path, tmp_path: Path):
    args = ["search", str(series_csv), "--depth", "1", "--restarts", "1", "--jobs", "1"]
    loud = CliRunner().invoke(main, args)
    assert loud.exit_code == 0, loud.output
    assert [line.split(":")[0] for line in loud.stderr.splitlines()] == ["level 0/1", "level 1/1"]
    assert CLEAR not in loud.stderr
    quiet = CliRunner().invoke(main, [*args, "--quiet"])
    assert quiet.exit_code == 0 and quiet.stderr == ""


# ----------------------------------------------------------------------------- resume


def test_a_resume_with_another_engine_is_refused(tmp_path: Path):
    ckpt = tmp_path / "state.json"
    first = Search(X, Y, TINY, checkpoint=ckpt)  # auto: exact at 60 points
    first.step()
    for other in (replace(TINY, engine="skc"), replace(TINY, engine="skc", inducing=30)):
        with pytest.raises(InputError, match="made with other settings"):
            run_search(X, Y, other, checkpoint=ckpt, resume=True)
    # auto resolved to exact, so naming exact resumes the same search
    resumed = run_search(X, Y, replace(TINY, engine="exact"), checkpoint=ckpt, resume=True)
    assert resumed.trace[0] == first.trace[0]


# ----------------------------------------------------------------------------- agreement


def test_on_2000_points_of_known_structure_skc_chooses_what_the_exact_search_chooses():
    """A linear trend plus a periodic part plus noise (fixed seed), searched two levels deep
    with the operators restricted: both engines end at the same structure, holding both parts.
    """
    rng = np.random.default_rng(2000)
    x = np.linspace(0.0, 20.0, 2000)
    y = 0.5 * x + np.sin(2 * np.pi * x) + 0.3 * rng.standard_normal(x.size)
    settings = SearchSettings(
        depth=2,
        restarts=2,
        beam=1,
        finalists=2,
        refine=1,
        refine_iter=20,
        screen_iter=15,
        max_iter=50,
        bases=("Lin", "Per", "WN"),
    )
    exact = run_search(x, y, replace(settings, engine="exact"))
    skc = run_search(x, y, settings)  # auto: skc at 2,000 points
    assert skc.settings.engine == "skc" and exact.settings.engine == "exact"
    assert skc.model.kernel.structure == exact.model.kernel.structure
    assert {b.symbol for b in skc.model.kernel.bases()} >= {"Lin", "Per"}
    assert skc.trace[-1].bic_width < WIDE_BIC


def _stages(settings: SearchSettings, n: int = 300) -> tuple[list[SearchEvent], object]:
    x = np.linspace(0.0, 12.0, n)
    y = np.sin(2.0 * x) + 0.1 * x + 0.2 * np.random.default_rng(7).standard_normal(n)
    events: list[SearchEvent] = []
    result = run_search(x, y, settings, events=events.append)
    return [e for e in events if e.kind == "stage"], result


def test_skc_refines_in_two_phases_and_finishes_only_what_the_next_level_expands():
    settings = SearchSettings(
        depth=1, restarts=2, engine="skc", inducing=40, subset_size=100, patience=0
    )
    stages, result = _stages(settings)
    for level in (0, 1):
        names = [(s.stage, s.total) for s in stages if s.level == level]
        refined = dict(names)["refine"]
        finished = dict(names)["finish"]
        assert [n for n, _ in names] == ["screen", "converge", "refine", "finish"]
        kept = result.trace[level].kept
        assert 1 <= finished <= min(refined, max(settings.beam, settings.buffer))
        assert finished >= min(kept, refined)  # here: as many converged as the next expands


def test_the_exact_engine_refines_in_one_phase():
    settings = SearchSettings(depth=1, restarts=2, engine="exact", subset_size=100)
    stages, _ = _stages(settings)
    assert "finish" not in {s.stage for s in stages}
    assert [s.stage for s in stages if s.level == 1] == ["screen", "converge", "refine"]


def _fits_by_size(settings: SearchSettings, n: int = 400):
    """Run a search recording each fit's stage-independent facts: (points, iterations)."""
    from abcd_cli.kernel_search.candidate import fit_candidate

    x = np.linspace(0.0, 12.0, n)
    y = np.sin(2.0 * x) + 0.1 * x + 0.2 * np.random.default_rng(7).standard_normal(n)
    sizes: list[tuple[int, int]] = []

    def recording(task):
        sizes.append((task.y.size, task.max_iter))
        return fit_candidate(task)

    events: list[SearchEvent] = []
    result = run_search(x, y, settings, fit_fn=recording, events=events.append)
    return sizes, [e for e in events if e.kind == "stage"], result


def test_above_refine_size_only_the_models_expanded_next_are_fitted_on_all_the_data():
    settings = SearchSettings(
        depth=1, restarts=2, engine="skc", inducing=40, subset_size=60, refine_size=150
    )
    sizes, stages, result = _fits_by_size(settings)
    assert {n for n, _ in sizes} == {60, 150, 400}  # subset, refinement subset, all
    on_all = [it for n, it in sizes if n == 400]
    assert set(on_all) == {settings.refine_iter - 15}  # only the finishing fits
    assert [it for n, it in sizes if n == 150] and {it for n, it in sizes if n == 150} == {
        settings.refine_iter
    }
    for level in (0, 1):
        names = dict((s.stage, s.total) for s in stages if s.level == level)
        assert 1 <= names["finish"] <= min(names["refine"], settings.buffer)
        assert result.trace[level].full_data_evaluations > 0
    # every reported score is on all the data
    assert result.model.n == 400
    assert any("refined on 150 points" in note for note in search_notes(result))
    # at or below refine_size the refinement is on all the data, as before
    sizes, _, _ = _fits_by_size(replace(settings, refine_size=400))
    assert {n for n, _ in sizes} == {60, 400}


def test_the_default_refinement_subset_is_a_tenth_of_the_points_and_at_least_2500():
    from abcd_cli.kernel_search.settings import REFINE_MIN

    default = SearchSettings()
    assert default.refine_size is None
    assert default.refine_points(2_000) == REFINE_MIN == 2_500  # not below: all the data
    assert default.refine_points(10_000) == 2_500
    assert default.refine_points(100_000) == 10_000
    assert SearchSettings(refine_size=400).refine_points(100_000) == 400
    with pytest.raises(InputError, match="refine_size"):
        SearchSettings(refine_size=10)


def test_when_every_finish_fails_the_other_refined_candidates_are_fitted_on_all_the_data():
    """Every fit of level 1's first "finish" stage is made to fail."""
    from abcd_cli.kernel_search.candidate import Candidate, fit_candidate

    settings = SearchSettings(
        depth=1, restarts=1, engine="skc", inducing=40, subset_size=60, refine_size=150
    )
    x = np.linspace(0.0, 12.0, 400)
    y = np.sin(2.0 * x) + 0.2 * np.random.default_rng(7).standard_normal(400)
    finishes: list[int] = []  # the size of each level-1 finish stage
    failed: list[str] = []

    def on_event(event: SearchEvent) -> None:
        if event.kind == "stage" and event.stage == "finish" and event.level == 1:
            finishes.append(event.total)

    def first_finish_fails(task):
        if task.y.size == 400 and len(finishes) == 1:
            failed.append(task.kernel.to_text(False))
            return Candidate(task.kernel, float("inf"), "failed", "made to fail")
        return fit_candidate(task)

    result = run_search(x, y, settings, fit_fn=first_finish_fails, events=on_event)
    assert len(finishes) == 2 and len(failed) == finishes[0]
    assert result.trace[1].structure is not None
    assert result.trace[1].structure not in failed
