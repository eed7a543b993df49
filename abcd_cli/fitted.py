"""A search's fitted model with its document: the model layer of what the Python API returns.

:class:`FittedSearch` holds the fitted :class:`~abcd_cli.model.Model` and the search's document,
the JSON that ``abcd search --json`` writes: the model (kernel, BIC, parameters, internal units),
the data with their names, the trace, the settings and notes, and with ``seeds`` > 1 every
search's model (``seed_models``). From it one can predict, decompose the model into its
additive components (thesis §4.1, :mod:`abcd_cli.decompose`) and mix the seeds' models without
searching again. It imports no report module: the report's words for it (each component's
description, the mixture's) are :class:`abcd_cli.found.FoundModel`'s.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from abcd_cli.calibration import Calibration
from abcd_cli.data.dates import as_calendar_years
from abcd_cli.data.values import YEAR_RULE
from abcd_cli.engines.base import PosteriorError
from abcd_cli.errors import InputError
from abcd_cli.files import write_output
from abcd_cli.kernel_search.posterior import StructurePosterior
from abcd_cli.kernel_search.settings import check_seed
from abcd_cli.model import Model, Particles, particle_models, posterior_of, seed_models
from abcd_cli.model_file import check_model_document
from abcd_cli.prediction import evidence_weights

if TYPE_CHECKING:
    from abcd_cli.data.series import Series
    from abcd_cli.decompose.components import Decomposition
    from abcd_cli.kernel_search.records import SearchResult

#: How far past the data a report forecasts, as a fraction of the data's x range.
EXTRAPOLATE = 0.2
MAX_EXTRAPOLATE = 5.0
#: How the models of a ``seeds`` > 1 search are weighed when averaged (see abcd_cli.prediction).
SEED_WEIGHTS = ("evidence", "equal")

_Fitted = TypeVar("_Fitted", bound="FittedSearch")


@dataclass(frozen=True, eq=False)
class FittedSearch:
    """A fitted model and its search document; see the module docstring.

    ``origin`` is the model file it was read from (empty after a search); ``checkpoints`` the
    files holding the search's state, which :meth:`discard_checkpoints` removes;
    ``search_result`` the search's own result (None for a model read from a file)."""

    model: Model
    document: dict[str, Any] = field(repr=False)
    origin: str = ""
    checkpoints: tuple[Path, ...] = ()
    search_result: SearchResult | None = field(default=None, repr=False)
    _decompositions: dict[tuple[float, int], Decomposition] = field(
        default_factory=dict, repr=False, compare=False
    )

    # ------------------------------------------------------------------ building

    @classmethod
    def from_search(
        cls: type[_Fitted],
        series: Series,
        result: SearchResult,
        checkpoints: tuple[Path, ...] = (),
        notes: Sequence[str] = (),
        stopped_early: str = "",
    ) -> _Fitted:
        """From a search's ``SearchResult`` on ``series``: the document is the search's own
        (model, trace, settings, the ``notes`` and why it ``stopped_early`` in words) with the
        data's names, kind, source and rows dropped."""
        document = result.to_dict(notes, stopped_early)
        document["data"].update(
            {
                "x_name": series.x_name,
                "y_name": series.y_name,
                "x_kind": series.x_kind,
                "source": series.source,
                "n_dropped": series.n_dropped,
            }
        )
        if series.n_dims > 1:  # a model file of one input names it by x_name alone
            document["data"].update(
                {"x_names": list(series.x_names), "x_kinds": list(series.x_kinds)}
            )
        if not result.particles.is_single:
            document["posterior"]["features"] = posterior_features(
                result.model, result.particles, series.x_names
            )
        return cls(result.model, document, checkpoints=tuple(checkpoints), search_result=result)

    @classmethod
    def from_document(cls: type[_Fitted], document: dict[str, Any], origin: str = "") -> _Fitted:
        """From a search document (``to_dict`` output), checked first against the model file's
        schema (:mod:`abcd_cli.model_file`) and conditioned on its data: InputError with one
        line naming ``origin`` (the file) and the field when it is not a model to use."""
        where = f"model file {origin}" if origin else "model document"
        check_model_document(document, where)
        found = cls(Model.from_dict(document, where), document, origin=origin)
        try:
            found.model.posterior  # noqa: B018  (cached: predictions and reports need it)
        except PosteriorError as exc:
            raise InputError(
                f"{where}: the model cannot be conditioned on its data: {exc}"
            ) from None
        return found

    # ------------------------------------------------------------------ the model

    @property
    def bic(self) -> float:
        """BIC = 2·NLL + p·log n in the user's units (lower is better)."""
        return self.model.bic

    @property
    def kernel(self) -> str:
        """The kernel with its parameters in the user's units, as text."""
        return self.model.kernel_text()

    @property
    def structure(self) -> str:
        """The kernel without its parameters, e.g. ``SE + Per * Lin + WN`` (with several
        inputs, each named by its column: ``SE[weight] * Lin[year] + WN``)."""
        return self.model.structure

    @property
    def parameters(self) -> dict[str, float]:
        """Every parameter by its dotted name, in the user's units."""
        return {p["name"]: p["value"] for p in self.model.parameters()}

    @property
    def n(self) -> int:
        """Number of data points the model was fitted to."""
        return self.model.n

    @property
    def log_likelihood(self) -> float:
        return -self.model.nll

    # ------------------------------------------------------------------ the search

    @property
    def data(self) -> dict[str, Any]:
        return self.document.get("data") or {}

    @property
    def x_kind(self) -> str:
        """``"date"``, ``"year"`` (decimal years) or ``"number"``."""
        return str(self.data.get("x_kind", "number"))

    @property
    def x_name(self) -> str:
        return str(self.data.get("x_name", "x"))

    @property
    def x_names(self) -> list[str]:
        """The input columns' names: one for a time series, D for several inputs."""
        return [str(name) for name in self.data.get("x_names") or [self.x_name]]

    @property
    def x_kinds(self) -> list[str]:
        """Each input column's kind (see :attr:`x_kind`; a file that does not record them
        gives every input that one)."""
        kinds = self.data.get("x_kinds") or [self.x_kind] * len(self.x_names)
        return [str(kind) for kind in kinds]

    @property
    def y_name(self) -> str:
        return str(self.data.get("y_name", "y"))

    @property
    def source(self) -> str:
        """Where the data came from (a file name), else the model file, else ``"data"``."""
        return str(self.data.get("source") or self.origin or "data")

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self.document.get("settings") or {})

    @property
    def seed(self) -> int:
        """The search's (first) seed; 0 when unknown."""
        return int(self.settings.get("seed", 0))

    @property
    def trace(self) -> list[dict[str, Any]]:
        return list(self.document.get("trace") or [])

    @property
    def notes(self) -> list[str]:
        """The search's notes, and why it stopped early if it did."""
        stopped = self.document.get("stopped_early")
        return list(self.document.get("notes") or []) + ([stopped] if stopped else [])

    @property
    def elapsed_seconds(self) -> float:
        return float(self.document.get("elapsed_seconds", 0.0))

    @cached_property
    def posterior(self) -> StructurePosterior:
        """The weighted particles the method gave (``kernel_search.posterior``): the search's
        own record, or the model file's; the model alone (``is_single``) when it chose one."""
        if self.search_result is not None:
            return self.search_result.particles
        return posterior_of(self.document, self.model)

    @cached_property
    def calibration(self) -> Calibration | None:
        """With the method "posterior": its band calibrated on the series' own past (or why
        not: ``Calibration.reason``); None for a greedy search, or a file written before."""
        entry = self.document.get("calibration")
        return None if entry is None else Calibration.from_dict(entry)

    def calibrated(self, table: dict[str, np.ndarray], X: np.ndarray) -> dict[str, np.ndarray]:
        """The posterior's predictive ``table`` at inputs ``X`` (rows, D) widened past the
        data by its calibration (``Calibration.widen`` along the first input); as it is
        without one."""
        if self.calibration is None or not self.calibration.present:
            return table
        end = float(np.max(self.model.X[:, 0]))
        return self.calibration.widen(table, np.asarray(X, dtype=float)[:, 0], end)

    def posterior_mixture(self) -> Particles:
        """A model per particle of the posterior's structures that hold its weight, and their
        weights (``model.particle_models``; the model alone is its own particle), each
        conditioned once: predictions, the report and its figures share them."""
        return self._particles

    def particles(self) -> Particles | None:
        """The posterior's particles as :meth:`posterior_mixture` gives them, None for the
        model alone (what the report's forecast takes)."""
        return None if self.posterior.is_single else self._particles

    @cached_property
    def _particles(self) -> Particles:
        where = f"model file {self.origin}" if self.origin else "model document"
        return particle_models(self.model, self.posterior, where)

    @cached_property
    def seed_models(self) -> dict[int, Model]:
        """With ``seeds`` > 1: every search's model by seed; else {}."""
        return seed_models(self.document)

    # ------------------------------------------------------------------ components

    def decomposition(
        self, extrapolate: float = EXTRAPOLATE, seed: int | None = None
    ) -> Decomposition:
        """The model's ordered additive components with their statistics, computed once per
        (extrapolate, seed) (``seed``: of the model checks' simulations and, with several
        inputs none of which is time, of the cross-validation's shuffled folds; default the
        search's)."""
        # imported here: the decomposition's modules take a second to import, and every
        # command of the command line imports this module
        from abcd_cli.decompose.components import decompose
        from abcd_cli.decompose.facts import Axis

        if not (isinstance(extrapolate, int | float) and 0 <= extrapolate <= MAX_EXTRAPOLATE):
            raise InputError(
                "the forecast's length (extrapolate) must be a number from 0 to"
                f" {MAX_EXTRAPOLATE:g} times the data's range, not {extrapolate!r}"
            )
        key = (float(extrapolate), self.seed if seed is None else check_seed(seed))
        if key not in self._decompositions:
            axes = tuple(
                Axis(kind, name, self.y_name)
                for name, kind in zip(self.x_names, self.x_kinds, strict=True)
            )
            self._decompositions[key] = decompose(self.model, axes, key[0], seed=key[1])
        return self._decompositions[key]

    # ------------------------------------------------------------------ prediction

    def seed_mixture(
        self, weighting: str, one_search: str
    ) -> tuple[dict[int, Model], np.ndarray | None]:
        """The models of every seed, by seed, and their weights: ∝ exp(−BIC/2) ("evidence") or
        None for equal ones ("equal"). A model of one search raises ``InputError(one_search)``:
        there is nothing to mix."""
        if weighting not in SEED_WEIGHTS:
            raise InputError(f"unknown seed weighting {weighting!r}: choose evidence or equal")
        by_seed = self.seed_models
        if len(by_seed) < 2:
            raise InputError(one_search)
        if weighting == "equal":
            return by_seed, None
        return by_seed, evidence_weights([m.bic for m in by_seed.values()])

    def checked_x(self, x: np.ndarray, kind: str, what: str, d: int = 0) -> np.ndarray:
        """New values of ``kind`` for input ``d``, on the axis the model was fitted on. Refused
        (``InputError``) when their kind (dates or years vs plain numbers) is not that input's;
        ``what`` names them in the message (e.g. "X.csv: column 'date'"); a file that does not
        record the kind accepts either. Dates (``decimal_year``'s even axis) given to a model
        fitted to numbers written as years (kind "year", read as calendar fractions) become
        those numbers (``as_calendar_years``)."""
        trained = (self.data.get("x_kinds") or [self.data.get("x_kind")])[d] or kind
        if (trained == "number") != (kind == "number"):
            kinds = {True: "plain numbers", False: "dates or years"}
            name = self.x_names[d]
            advice = (
                f"give dates, or years in a column named {name!r} as the model's"
                if kind == "number"
                else f"give plain numbers in a column named {name!r} as the model's"
            )
            raise InputError(
                f"{what} holds {kinds[kind == 'number']} but the model was"
                f" fitted to {kinds[trained == 'number']}: {advice} ({YEAR_RULE})"
            )
        return as_calendar_years(x) if kind == "date" and trained == "year" else x

    # ------------------------------------------------------------------ output

    def to_dict(self) -> dict[str, Any]:
        """The search document, as ``abcd search --json`` writes it (a copy)."""
        return copy.deepcopy(self.document)

    def save(self, path: str | Path) -> Path:
        """Write :meth:`to_dict` as JSON to ``path`` atomically; returns the path."""
        write_output(path, json.dumps(self.document, indent=1), "the model")
        return Path(path)

    def discard_checkpoints(self) -> None:
        """Remove the files that held the search's state (after its output is safe); a file
        that is not a checkpoint (``kernel_search.checkpoint.is_checkpoint``) stays."""
        from abcd_cli.kernel_search.checkpoint import discard  # slow to import, seldom needed

        for path in self.checkpoints:
            discard(path)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.structure}  BIC {self.bic:.2f}  n={self.n}>"


def posterior_features(
    model: Model, posterior: StructurePosterior, names: Sequence[str]
) -> list[dict[str, Any]]:
    """The features of the posterior's particles with their probabilities
    (:mod:`abcd_cli.decompose.features`): kind, the inputs by name, and for a period or a
    change time its weighted median and central 95% interval, in the user's units."""
    from abcd_cli.decompose.features import features  # the decomposition's modules are slow

    pairs = [(k, w) for _, k, w in posterior.particles()]
    kernels = [model.scaling.kernel_out(k) for k, _ in pairs]
    X = model.X
    ranges = [(float(X[:, d].min()), float(X[:, d].max())) for d in range(X.shape[1])]
    out = []
    for f in features(kernels, [w for _, w in pairs], ranges):
        entry: dict[str, Any] = {
            "kind": f.kind,
            "inputs": [names[d] for d in f.inputs],
            "probability": f.probability,
        }
        if f.value is not None and f.interval is not None:
            entry.update({"value": f.value, "interval": list(f.interval)})
        out.append(entry)
    return out
