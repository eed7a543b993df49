"""A found model updated with new observations, without a new search (issue 50, "New data").

The new points are appended to the model's data (a series' rows sorted by x again) and the
internal units are those a search of all the points would use (``SearchData``). Then:

* a greedy model: its structure is refitted on all the points from its values
  (``kernel_search.refit``: the current values and jittered copies, seeded by the search's
  seed); with ``seeds`` > 1 each seed's model is refitted with its own seed, and the model
  stays the one of the seed the search chose;
* a posterior model: every structure of its pool is refitted so and weighed again
  (``weighing.weigh_pool``: its Laplace evidence and parameter draws on all the points); the
  most probable structure becomes the model, and the posterior's features are recomputed,
  and so is its band's calibration (``backtest.posterior_calibration``): it describes the
  posterior the file holds, and the new points give its backtest more origins.
* a sampler's model (method "smc"): the sampler is not run again; each structure its particles
  held (at its particle of largest weight) is refitted and weighed as a posterior's pool is, so
  the posterior is no longer the sampler's particles. The agreement of its two halves
  (``StructurePosterior.halves``) described the sampler's run on the search's points: it is not
  kept with the reweighed posterior, the search's note stating it is marked as of the search's
  points, before the update, and the update's note says why; the report then describes the
  posterior as weighed by Laplace evidence, not as the sampler's particles.

Before the refit the new points are checked against the old model, or the old posterior's
mixture (:mod:`abcd_cli.misfit`). The document keeps the search's trace and settings; its
model, data, BIC and likelihood are those of all the points, a note says how many points
were added and that no search was run, and ``updates`` records each update (its points,
source, the check and its seconds).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from abcd_cli import __version__
from abcd_cli.engines.base import Engine
from abcd_cli.errors import RunError
from abcd_cli.fitted import FittedSearch, posterior_features
from abcd_cli.kernel_search.backtest import posterior_calibration
from abcd_cli.kernel_search.engine_choice import resolve
from abcd_cli.kernel_search.posterior import StructurePosterior
from abcd_cli.kernel_search.refit import Refitted, refit
from abcd_cli.kernel_search.search_data import SearchData
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels import Kernel
from abcd_cli.misfit import Misfit, check_new_points
from abcd_cli.model import Model
from abcd_cli.observations import Observations

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Updated:
    """The updated model's document, and how the new points fared under the old model (None:
    they could not be checked)."""

    document: dict[str, Any]
    misfit: Misfit | None


def update_document(
    found: FittedSearch,
    new: Observations,
    executor: Executor,
    progress: Progress | None = None,
) -> Updated:
    """``found`` updated with the ``new`` observations (see the module docstring); the fits
    and the weighing run on ``executor``. RunError when no structure can be refitted."""
    started = time.perf_counter()
    say = progress or (lambda line: None)
    misfit = _checked(found, new)
    x, y = combined(found.model, new)
    settings, engine = resolve(search_settings(found), y.size)
    engine.check_size(y.size, settings.full_data_evaluations)
    data = SearchData.prepare(x, y, settings, found.model.x_names)
    user_kernels, each = _structures(found, settings)
    kernels = [data.scaling.kernel_in(k) for k in user_kernels]
    plural = "s" if len(kernels) > 1 else ""
    say(f"update: refitting {len(kernels)} structure{plural} on {data.n} points")
    refitted = refit(kernels, data, each, engine, executor)
    document = found.to_dict()
    stale = ("bic_interval", "log_likelihood_interval", "engine", "posterior", "seed_models")
    for key in (*stale, "calibration"):
        document.pop(key, None)
    notes = [_kept_note(found, k, r) for k, r in zip(kernels, refitted, strict=True)]
    if not found.posterior.is_single:
        model, posterior = _reweighed(found, refitted, data, settings, engine, executor, say)
        document["posterior"] = {
            **posterior.to_dict(),
            "features": posterior_features(model, posterior, found.x_names),
        }
        say("update: backtesting the posterior on the series' own past")
        document["calibration"] = posterior_calibration(
            model, posterior, settings, engine, executor, found.x_names
        ).to_dict()
        done = (
            f"each of the posterior's {len(posterior.structures)} structures was refitted on"
            f" all the points and weighed again; the most probable is {model.structure}, of"
            f" weight {posterior.weights[0]:.2f}"
        )
        if settings.method == "smc":
            searched = _searched(document, found)
            done += sampler_update_sentence(searched)
            document["notes"] = notes_before_update(document.get("notes", []), searched)
    else:
        model, seed_entries = _greedy(found, refitted, data, engine)
        if seed_entries:
            document["seed_models"] = seed_entries
        done = f"the parameters of {model.structure} were refitted on all the points"
    _write_model(document, model, settings, new)
    kept = [note for note in notes if note]
    _record(document, found, new, done, kept, misfit, time.perf_counter() - started)
    return Updated(document, misfit)


def _record(
    document: dict[str, Any],
    found: FittedSearch,
    new: Observations,
    done: str,
    kept: list[str],
    misfit: Misfit | None,
    seconds: float,
) -> None:
    """The update's notes (what was done, structures that kept their values, the misfit)
    and its entry in ``updates``."""
    updates = document.get("updates") or []
    searched = updates[0]["n_before"] if updates else found.n  # the points the trace is of
    plural = "s" if new.n > 1 else ""
    document["notes"] = [
        *document.get("notes", []),
        f"updated with {new.n} new point{plural} from {new.source} ({found.n} + {new.n} ="
        f" {found.n + new.n}) without a new search: {done}; the search's trace is of its"
        f" {searched} points",
        *kept,
        *([_misfit_note(misfit)] if misfit is not None and misfit.poor else []),
    ]
    document["updates"] = [
        *updates,
        {
            "source": new.source,
            "n_new": new.n,
            "n_before": found.n,
            "bic_before": found.bic,
            "structure_before": found.structure,
            "check": None if misfit is None else misfit.to_dict(),
            "elapsed_seconds": round(seconds, 3),
        },
    ]


def search_settings(found: FittedSearch) -> SearchSettings:
    """The search's settings from its document (fields it does not know are left out), with
    the prior mean its model has (a file may lack the setting)."""
    known = {f.name for f in fields(SearchSettings)}
    values = {key: value for key, value in found.settings.items() if key in known}
    if isinstance(values.get("bases"), list):
        values["bases"] = tuple(values["bases"])
    return SearchSettings(**{**values, "prior_mean": found.model.prior_mean})


def combined(model: Model, new: Observations) -> tuple[np.ndarray, np.ndarray]:
    """The model's data and the new rows: a series' sorted by x (stable: an x already there
    keeps its old rows first), several inputs' rows in order, the new ones last."""
    y = np.concatenate([model.y, new.y])
    if model.n_dims > 1:
        return np.vstack([model.X, new.X]), y
    x = np.concatenate([model.X[:, 0], new.X[:, 0]])
    order = np.argsort(x, kind="stable")
    return x[order], y[order]


def _checked(found: FittedSearch, new: Observations) -> Misfit | None:
    """The new points under the old model, or its posterior's mixture (None: the check
    failed numerically)."""
    models, weights = found.posterior_mixture()
    try:
        return check_new_points(models, weights, new.X, new.y)
    except (ArithmeticError, ValueError, np.linalg.LinAlgError):
        return None


def _structures(
    found: FittedSearch, settings: SearchSettings
) -> tuple[list[Kernel], list[SearchSettings]]:
    """The structures to refit, in their own user units, and each one's settings: the
    posterior's pool, every seed's model (each with its seed), or the model alone."""
    scaling = found.model.scaling
    if not found.posterior.is_single:
        kernels = [scaling.kernel_out(s.kernel) for s in found.posterior.structures]
        return kernels, [settings] * len(kernels)
    by_seed = found.seed_models
    if by_seed:
        kernels = [m.scaling.kernel_out(m.kernel) for m in by_seed.values()]
        return kernels, [replace(settings, seed=seed) for seed in by_seed]
    return [found.model.user_kernel], [settings]


def _greedy(
    found: FittedSearch, refitted: list[Refitted], data: SearchData, engine: Engine
) -> tuple[Model, list[dict[str, Any]]]:
    """The refitted model and, with several seeds, every seed's model (the model is the
    one of the seed whose structure it had; the lowest BIC should none have it)."""
    failed = next((r for r in refitted if r.scored is None), None)
    if failed is not None:
        raise RunError(
            f"the model could not be refitted on the {data.n} points: its refit"
            f" {failed.kept_values}, and it could not be scored at its values"
        )
    models = [data.model(r.scored, engine) for r in refitted if r.scored is not None]
    if len(models) == 1:
        return models[0], []
    chosen = found.model.kernel.to_text()
    old = list(found.seed_models.values())
    index = next(
        (i for i, m in enumerate(old) if m.kernel.to_text() == chosen),
        int(np.argmin([m.bic for m in models])),
    )
    entries = [
        {"seed": seed, **m.to_dict(with_data=False)}
        for seed, m in zip(found.seed_models, models, strict=True)
    ]
    return models[index], entries


def _reweighed(
    found: FittedSearch,
    refitted: list[Refitted],
    data: SearchData,
    settings: SearchSettings,
    engine: Engine,
    executor: Executor,
    say: Progress,
) -> tuple[Model, StructurePosterior]:
    """The posterior's pool refitted and weighed again on all the points, and the model of its
    most probable structure."""
    pool = sorted((r.scored for r in refitted if r.scored is not None), key=lambda s: s.bic)
    if not pool:
        raise RunError(f"no structure of the posterior could be refitted on the {data.n} points")

    def weighed(key: str, _: object, done: int, total: int) -> None:
        say(f"update: weighed {done}/{total} structures")

    posterior = data.weigh(pool, settings, engine, executor, on_weighed=weighed)
    best = posterior.best.kernel.to_text()
    chosen = next(s for s in pool if s.kernel.to_text() == best)
    return data.model(chosen, engine), posterior


def _write_model(
    document: dict[str, Any], model: Model, settings: SearchSettings, new: Observations
) -> None:
    """The model's fields and data in ``document``, with the rows dropped from both files
    and the settings the engine was resolved with for all the points."""
    fresh = model.to_dict()
    data = {**document["data"], **fresh.pop("data")}  # type: ignore[dict-item]
    data["n_dropped"] = int(document["data"].get("n_dropped", 0)) + new.n_dropped
    document.update(fresh)
    document["data"] = data
    document["settings"] = settings.to_dict()
    document["version"] = __version__


def _kept_note(found: FittedSearch, kernel: Kernel, refitted: Refitted) -> str:
    """A note when a structure's refit failed or was rejected: it kept its values, or, when
    even those could not be scored, was left out (of a posterior: a greedy model fails)."""
    if not refitted.kept_values:
        return ""
    structure = kernel.to_text(params=False, names=found.model.x_names)
    if refitted.scored is None:
        return (
            f"{structure} was left out: its refit {refitted.kept_values}, and it could not be"
            " scored at its values"
        )
    return f"{structure} kept its values: its refit {refitted.kept_values}"


#: How the search notes' statement of the sampler's halves begins (``search_notes``).
HALVES_NOTE = "two independent halves of the sampler"


def sampler_update_sentence(searched: int) -> str:
    """What an update does to a sampler's posterior (method "smc"), for the update's note."""
    return (
        f" (the sampler was not run again: each structure its particles held, at its particle"
        f" of largest weight, was refitted and weighed by its Laplace evidence as a weighed"
        f" pool is, so the posterior is no longer the sampler's particles, and the agreement of"
        f" its two halves, a fact of the sampler's run on the search's {searched}"
        f" points, is no longer kept with it)"
    )


def notes_before_update(notes: list[str], searched: int) -> list[str]:
    """The search ``notes`` with the sampler's halves' statement marked as describing the
    search's ``searched`` points, before any update (once: a later update finds it marked)."""
    before = f"before the update, on the search's {searched} points: "
    return [before + note if note.startswith(HALVES_NOTE) else note for note in notes]


def _searched(document: dict[str, Any], found: FittedSearch) -> int:
    """The points the search ran on (before its first update)."""
    updates = document.get("updates") or []
    return int(updates[0]["n_before"]) if updates else found.n


def _misfit_note(misfit: Misfit) -> str:
    return f"{misfit.sentence()}: the new data may need a new search"
