"""The stages of one level: every new structure screened, the best of each family converged,
refined on the long series' data, and the ones the next level expands finished on all of it.

1. "screen": every candidate, screened restarts and a short optimisation on the search data
   (the subset on long series);
2. "converge": each family's best ``finalists`` by BIC, optimised to convergence there;
3. "refine", long series only: each family's best ``refine`` of those re-optimised on the
   refinement's data (all of it, or ``refine_points`` of it), each from the likeliest of its
   starts: its subset optimum, ``graft`` (the parent's values fitted on all the data, the
   subset's values for the new parameters), and with an engine built for long series the
   copies of both whose periods at a multiple of a periodogram peak are moved to it
   (``harmonic_starts``; measured on long series only, so the exact engine's published
   results stand);
4. "finish": on all the data, for the refined candidates the next level would expand, from
   where stage 3 left them (refined on a subset: or from ``graft`` of that fit, if likelier):
   ``refine_iter - SKC_FIRST_REFINE`` further iterations (``refine_iter`` when that is not
   positive). After a subset's refinement these are the only fits on all the data, and the
   level's only scores; refined on all the data by an engine built for long series, stage 3
   has ``SKC_FIRST_REFINE`` iterations and each finished candidate keeps the better of its two
   fits.

Stages 2 and 3 choose within each family (the children of one kept model), so a kept model's
children get what they would get in a greedy search, whatever the other families' children
score. Each stage's choice is also the rule by which its fits start early (``fitting.Ahead``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from abcd_cli.engines.base import Engine
from abcd_cli.kernel_search.buffer import keep
from abcd_cli.kernel_search.candidate import Candidate, FitTask, graft, harmonic_starts
from abcd_cli.kernel_search.fitting import Ahead, Fitter
from abcd_cli.kernel_search.scoring import Scored, best_per_family
from abcd_cli.kernel_search.search_data import SearchData
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels import Kernel

#: Long series: iterations every refined candidate gets on all the data before the models the
#: next level would expand are carried on to ``refine_iter``
#: (benchmarks/long_series/outputs/long_series_notes.md: the refinement is ~90% of a level at
#: N = 10⁴, and after 10-20 iterations the candidates are already in their final order).
SKC_FIRST_REFINE = 15


@dataclass
class LevelStages:
    """The stages of level ``level`` (0-based, the one being fitted) of a search."""

    data: SearchData
    settings: SearchSettings
    engine: Engine
    fitter: Fitter
    level: int

    def score(self, families: list[list[Kernel]]) -> tuple[list[Scored], dict[str, int]]:
        """Fit the ``families`` (the new children of each kept model) in stages; return the
        survivors with full-data scores, best first, and the counts of candidates, failed and
        rejected fits."""
        s, data = self.settings, self.data
        kernels = [k for family in families for k in family]
        family_of = [i for i, family in enumerate(families) for _ in family]
        full = data.subset is None
        small = "all" if full else "subset"
        on_subset = data.refine_on_subset  # stage 3 on a subset: stage 4 scores the level
        later = s.refine_iter - SKC_FIRST_REFINE
        long_series = self.engine.capabilities.long_series
        two_phase = not full and not on_subset and long_series and later > 0
        first_refine = SKC_FIRST_REFINE if two_phase else s.refine_iter

        def finalists(done: dict[int, Candidate]) -> list[int]:
            return self._best_per_family(done, family_of, s.finalists)

        def converge(j: int, screened: dict[int, Candidate]) -> FitTask:
            return self._task(screened[j].kernel, small, 1, s.max_iter)

        def refined(done: dict[int, Candidate]) -> list[int]:
            return self._best_per_family(done, family_of, s.refine)

        def refine(j: int, converged: dict[int, Candidate]) -> FitTask:
            fitted = converged[j].kernel
            grafted = graft(kernels[j], fitted)
            others = (grafted,) + tuple(
                h
                for k in ((fitted, grafted) if self.engine.capabilities.long_series else ())
                for h in harmonic_starts(k, data.full_summary)
            )
            return self._task(fitted, "refine", 1, first_refine, others)

        def expanded(done: dict[int, Candidate]) -> list[int]:
            return self._expanded(done, data.Y_refine.size)

        def finish(j: int, refined: dict[int, Candidate]) -> FitTask:
            fitted = refined[j].kernel
            # from a subset's optimum, the parent's full-data values may be the better start
            others = (graft(kernels[j], fitted),) if on_subset else ()
            return self._task(fitted, "all", 1, later if later > 0 else s.refine_iter, others)

        fit_all = self.fitter.fit_all
        screen = [self._task(k, small, s.restarts, s.screen_iter) for k in kernels]
        first = dict(
            enumerate(fit_all(screen, "screen", ahead=Ahead("converge", finalists, converge)))
        )
        counts = {
            "candidates": len(first),
            "failed": sum(r.status == "failed" for r in first.values()),
            "rejected": sum(r.status == "rejected" for r in first.values()),
        }
        chosen = finalists(first)
        after = None if full else Ahead("refine", refined, refine)
        tasks = [converge(j, first) for j in chosen]
        second = dict(zip(chosen, fit_all(tasks, "converge", chosen, after), strict=True))
        if not full:
            chosen = refined(second)
            after = Ahead("finish", expanded, finish) if two_phase or on_subset else None
            tasks = [refine(j, second) for j in chosen]
            second = dict(zip(chosen, fit_all(tasks, "refine", chosen, after), strict=True))
            if on_subset:
                second = self._finish_on_all(second, expanded(second), finish)
            elif two_phase:
                chosen = expanded(second)
                fits = fit_all([finish(j, second) for j in chosen], "finish", chosen)
                second.update(
                    {
                        j: fit if fit.status == "ok" and fit.nll <= second[j].nll else second[j]
                        for j, fit in zip(chosen, fits, strict=True)
                    }
                )
        self.fitter.cancel_ahead()
        scorer = data.scorer
        scored = [
            scorer.scored(r.kernel, r.nll, data.n, r.bounds)
            for r in second.values()
            if r.status == "ok"
        ]
        scored.sort(key=lambda c: c.bic)
        return scored, counts

    def _task(
        self, kernel: Kernel, on: str, restarts: int, max_iter: int, others: tuple = ()
    ) -> FitTask:
        return self.data.task(kernel, on, self.settings, self.engine, restarts, max_iter, others)

    def _best_per_family(
        self, results: dict[int, Candidate], family_of: list[int], count: int
    ) -> list[int]:
        """Positions of each family's best ``count`` fitted results, by BIC on the search data."""
        return best_per_family(self.data.scorer, results, family_of, count, self.data.Y_fit.size)

    def _finish_on_all(
        self,
        refined: dict[int, Candidate],
        chosen: list[int],
        finish: Callable[[int, dict[int, Candidate]], FitTask],
    ) -> dict[int, Candidate]:
        """Stage 4 after a subset's refinement: the ``chosen`` refined candidates fitted on
        all the data (their results, the level's only full-data fits); should none of them
        succeed, the other refined candidates are fitted too, so that a level has a model
        whenever one can be fitted."""
        done: dict[int, Candidate] = {}
        rest = [j for j in refined if j not in chosen and refined[j].status == "ok"]
        for group in (chosen, rest):
            if not group:
                continue
            fits = self.fitter.fit_all([finish(j, refined) for j in group], "finish", group)
            done.update(zip(group, fits, strict=True))
            if any(fit.status == "ok" for fit in done.values()):
                break
        return done

    def _expanded(self, refined: dict[int, Candidate], n: int) -> list[int]:
        """Stage 4's candidates: the refined ones (fitted on ``n`` points) the next level would
        expand, ranked by their intervals after stage 3 (``keep``)."""
        scorer = self.data.scorer
        scored = sorted(
            (
                (scorer.scored(r.kernel, r.nll, n, r.bounds), j)
                for j, r in refined.items()
                if r.status == "ok"
            ),
            key=lambda pair: (pair[0].bic, pair[1]),
        )
        expanded = keep(
            [c for c, _ in scored], self.settings.beam_at(self.level), self.settings.buffer
        )
        return [j for c, j in scored if any(c is k for k in expanded.models)]
