"""The posterior over the structures of several searches (``--method posterior --seeds K``).

One greedy search's pool descends from one path, so its structures agree where the data are
silent, and seeds whose paths differ state different findings with probability 1.00 (issues
52/53: benchmarks/studies/outputs/report_certainty.md). With K seeds the posterior is taken
over the structures of all K searches instead:

1. the searches run as ``--seeds K`` runs them (seeds SEED, ..., SEED + K − 1, each with its
   checkpoint, ``greedy.run_searches``), each keeping its pool of ``pool`` structures fitted on
   all the data, and none weighing it;
2. the pools are joined (``joint_pool``): structures of equal canonical form
   (``kernels.algebra.structure_key``, by which a search dedupes its candidates) count once, at
   their fit of lowest BIC, and every distinct structure is kept, so at most K × ``pool``. The
   union rather than its ``pool`` best: a structure of a little higher BIC may carry more
   evidence, and the alternatives one path lacks are what the union is for; the weighing, the
   price of each structure kept, costs less than the searches that found them (10-56 s of
   runs of 143-973 s: benchmarks/studies/outputs/report_certainty_seeds3.md);
3. the joint pool is weighed once, as one search's pool is (``weighing.weigh_pool`` on the
   searches' executor, each structure's random numbers from SEED and the structure),
   checkpointed structure by structure in a file of its own (``checkpoint.save_weighing``), so
   one SEED and K give one posterior, serial or on a pool, in one run or resumed.

The result's model is the most probable structure at the fit the joint pool kept, with the
trace of the search that made that fit; every search's own model (its lowest BIC) stays in
``seed_models`` as with ``--seeds K``. An engine whose likelihood depends on the seed (skc, by
its inducing inputs) weighs every structure with seed SEED's; each structure keeps the BIC its
own search gave, and the model its search's engine.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from abcd_cli.kernel_search.checkpoint import WeighingState, load_weighing, save_weighing
from abcd_cli.kernel_search.events import Events, SearchEvent
from abcd_cli.kernel_search.posterior import StructurePosterior, Weighed
from abcd_cli.kernel_search.records import SearchResult
from abcd_cli.kernel_search.scoring import Scored
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels.algebra import structure_key

if TYPE_CHECKING:
    from abcd_cli.kernel_search.greedy import Search


def joint_pool(pools: Sequence[Sequence[Scored]]) -> tuple[list[Scored], list[int]]:
    """The distinct structures of ``pools`` (one per search, in seed order), each once at its
    fit of lowest BIC (the earlier search's among equals), lowest BIC first (in the searches'
    order among equals); and for each, the position of the search its fit comes from."""
    best: dict[str, tuple[Scored, int]] = {}
    for i, pool in enumerate(pools):
        for scored in pool:
            key = structure_key(scored.kernel)
            if key not in best or scored.bic < best[key][0].bic:
                best[key] = (scored, i)
    joined = sorted(best.values(), key=lambda pair: pair[0].bic)  # stable: first seen first
    return [scored for scored, _ in joined], [i for _, i in joined]


class JointWeighing:
    """The posterior over the pools of ``searches`` (finished, with their ``results``, in seed
    order), weighed on the first one's executor and checkpointed at ``checkpoint``; ``emit``
    gets the weighing's events, without a seed."""

    def __init__(
        self,
        searches: Sequence[Search],
        results: Sequence[SearchResult],
        settings: SearchSettings,
        checkpoint: Path | None,
        emit: Events | None,
    ):
        self.searches, self.results = list(searches), list(results)
        first = self.searches[0]
        # the engine and m the searches resolved, with the first seed and the number of seeds
        self.settings = replace(first.settings, seed=settings.seed, seeds=settings.seeds)
        self.pool, self.origins = joint_pool([s.pool for s in self.searches])
        self.checkpoint = checkpoint
        self.emit = emit
        self.state = WeighingState()
        self.started = time.perf_counter()

    def restore(self) -> bool:
        """Load the weighing's checkpoint if there is one for these data, settings and pools
        (a structure whose worker died is weighed again)."""
        if self.checkpoint is None:
            return False
        data = self.searches[0].data
        state = load_weighing(self.checkpoint, self.settings, data.x, data.y, self.pool)
        if state is None:
            return False
        kept = {key: w for key, w in state.weighed.items() if not w.lost}
        self.state = WeighingState(kept, state.elapsed)
        return True

    def run(self, resume: bool = False) -> SearchResult:
        """Weigh the joint pool (after restoring the checkpoint when ``resume``) and return
        the result: see the module docstring."""
        if resume:
            self.restore()
        posterior = self._weigh()
        text = posterior.best.kernel.to_text()
        chosen = next(i for i, c in enumerate(self.pool) if c.kernel.to_text() == text)
        origin = self.searches[self.origins[chosen]]
        own = self.results[self.origins[chosen]]
        return replace(
            own,
            model=origin.data.model(self.pool[chosen], origin.engine),
            settings=replace(own.settings, seed=self.settings.seed, seeds=self.settings.seeds),
            elapsed_seconds=sum(r.elapsed_seconds for r in self.results) + self.state.elapsed,
            seed_models=[r.model for r in self.results],
            posterior=posterior,
            trace_seed=self.settings.seed + self.origins[chosen],
        )

    def _weigh(self) -> StructurePosterior:
        """Weigh the structures not yet weighed, saving the state after each."""
        first = self.searches[0]
        data, total = first.data, len(self.pool)
        self.started = time.perf_counter()
        self._event("stage", stage="weigh", total=total)

        def on_weighed(key: str, weighed: Weighed, done: int, total: int) -> None:
            self.state.weighed[key] = weighed
            self._count_time()
            self._save()
            self._event("fit", stage="weigh", done=done, total=total)

        posterior = data.weigh(
            self.pool, self.settings, first.engine, first.fitter.executor, self.state.weighed,
            on_weighed,
        )  # fmt: skip
        self._count_time()
        best = posterior.best
        chosen = (data.text(best.kernel, params=False), float(posterior.weights[0]))
        self._event("posterior", total=total, chosen=chosen)
        return posterior

    def _count_time(self) -> None:
        now = time.perf_counter()
        self.state.elapsed += now - self.started
        self.started = now

    def _save(self) -> None:
        if self.checkpoint is not None:
            data = self.searches[0].data
            save_weighing(self.checkpoint, self.state, self.settings, data.x, data.y)

    def _event(self, kind: str, **fields: object) -> None:
        if self.emit is not None:
            self.emit(
                SearchEvent(
                    kind,
                    depth=self.settings.depth,
                    seconds=self.state.elapsed,
                    **fields,  # type: ignore[arg-type]
                )
            )
