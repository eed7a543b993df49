"""The ways of getting an origin's particles that the calibration studies compare with the
product's (``backtest.warm_particles``: refitted warm, draws moved and widened by √(N/t)); the
product runs only that one (issue 62, part 1; docs/findings.md).

- "fixed": the full-data draws as they are (the fitted values where a structure has none),
  only conditioned on the points before the origin;
- "reweigh": refitted warm, then weighed again on the points before the origin (each
  structure's Laplace evidence and a chain of its own, ``SearchData.weigh``).

Each is an ``backtest.OriginParticles``, passed to ``backtest.run_backtest``.
"""

from __future__ import annotations

from abcd_cli.kernel_search.backtest import (
    Mixture,
    OriginParticles,
    Origins,
    draw_rows,
    warm_particles,
    warm_tasks,
)
from abcd_cli.kernel_search.candidate import fit_candidate
from abcd_cli.kernel_search.refit import scored_refit


def fixed_particles(context: Origins) -> list[list[Mixture]]:
    """Each origin's particles: every held structure's full-data draws (user units, moved to
    the origin's internal units), their structure's weight shared among them."""
    mixtures = []
    for data in context.datas:
        groups = []
        for row, weight in zip(context.user, context.weights, strict=True):
            mine = [data.scaling.kernel_in(k) for k in row[1:] or row]
            groups.append((mine, [float(weight) / len(mine)] * len(mine)))
        mixtures.append(groups)
    return mixtures


def reweighed_particles(context: Origins) -> list[list[Mixture]]:
    """Each origin's particles: the held structures refitted warm on its points, weighed again
    there, and ``draw_rows`` of each one's new draws (its fitted values when it has none), its
    new weight shared among them; one group per origin."""
    tasks = warm_tasks(context)
    results = list(context.executor.map(fit_candidate, tasks))
    k = len(context.user)
    mixtures = []
    for o, data in enumerate(context.datas):
        span = slice(o * k, (o + 1) * k)
        refits = (scored_refit(t, c, data) for t, c in zip(tasks[span], results[span], strict=True))
        pool = [r.scored for r in refits if r.scored is not None]
        again = data.weigh(pool, context.settings, context.engine, context.executor)
        kernels, weights = [], []
        for structure, weight in zip(again.structures, again.weights, strict=True):
            rows = draw_rows(structure.theta.shape[0])
            mine = [structure.kernel.with_theta(structure.theta[r]) for r in rows]
            mine = mine or [structure.kernel]
            kernels += mine
            weights += [float(weight) / len(mine)] * len(mine)
        mixtures.append([(kernels, weights)])
    return mixtures


#: The ways by name, the product's first.
WAYS: dict[str, OriginParticles] = {
    "warm": warm_particles,
    "fixed": fixed_particles,
    "reweigh": reweighed_particles,
}
#: The product's way.
WARM = "warm"
