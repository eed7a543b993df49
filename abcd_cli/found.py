"""A model found by a search, or read back from its file: what the Python API returns.

:class:`FoundModel` is a :class:`~abcd_cli.fitted.FittedSearch` (the fitted model, its search's
document, its decompositions; the model layer, which imports no report module) with the words
the report has for it: its additive components (the terms of the kernel's sum-of-products form,
thesis §4.1), each described by the report's noun phrase, and the description of a mixture of
the seeds' models. Those words come from :mod:`abcd_cli.reporting`, imported on first use.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from abcd_cli.errors import InputError
from abcd_cli.fitted import EXTRAPOLATE, MAX_EXTRAPOLATE, SEED_WEIGHTS, FittedSearch
from abcd_cli.model import Model
from abcd_cli.schema import load_json

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from abcd_cli.data.series import Series
    from abcd_cli.kernel_search.records import SearchResult

__all__ = [
    "EXTRAPOLATE",
    "MAX_EXTRAPOLATE",
    "SEED_WEIGHTS",
    "Component",
    "FoundModel",
    "read_model",
]


@dataclass(frozen=True)
class Component:
    """One additive component of the model, in report order, with its share of the data
    (thesis §4.1): ``share`` is the gain in R² from adding it, ``cumulative_share`` the R² of
    the components up to it, ``cv_mae`` the cross-validated MAE with it, in y's units;
    ``description`` is the report's heading for it ("possibly ..." for a weak cycle)."""

    index: int
    kernel: str
    structure: str
    description: str
    share: float
    cumulative_share: float
    cv_mae: float
    is_noise: bool


@dataclass(frozen=True, eq=False, repr=False)  # FittedSearch's short repr
class FoundModel(FittedSearch):
    """A fitted model and its search document (see :class:`~abcd_cli.fitted.FittedSearch`),
    with the search's notes, its components and seed mixture in words."""

    @classmethod
    def from_search(
        cls, series: Series, result: SearchResult, checkpoints: tuple[Path, ...] = ()
    ) -> FoundModel:
        """:meth:`FittedSearch.from_search` with the notes on the search and why it stopped
        early in words (:mod:`abcd_cli.reporting.search_notes`)."""
        from abcd_cli.reporting.search_notes import search_notes, stop_sentence

        words = search_notes(result), stop_sentence(result)
        return super().from_search(series, result, checkpoints, *words)  # type: ignore[return-value]

    @property
    def components(self) -> list[Component]:
        """The additive components in report order (computed on first use; any decomposition
        already made serves, as the components do not depend on its grid or checks' seed)."""
        # the report's modules are imported when the words are first asked for: they are slow
        from abcd_cli.reporting.component_text import section_phrases
        from abcd_cli.reporting.weak import headed, weak_reasons

        dec = next(iter(self._decompositions.values()), None) or self.decomposition()
        weak = weak_reasons(dec)
        return [
            Component(
                index=c.index,
                kernel=c.kernel.to_text(names=dec.names),
                structure=c.kernel.to_text(params=False, names=dec.names),
                description=headed(phrase, weak.get(c.index)),
                share=float(c.delta_r2),
                cumulative_share=float(c.cum_r2),
                cv_mae=float(c.cv_mae),
                is_noise=bool(c.is_noise),
            )
            for c, phrase in zip(dec.components, section_phrases(dec), strict=True)
        ]

    def plot(self, extrapolate: float = EXTRAPOLATE) -> Figure:
        """The report's forecast figure, a matplotlib Figure: the data, the fit and its
        forecast ``extrapolate`` × the data's range past it with the band (the posterior
        mixture's after ``method="posterior"``). A series only: a model of several inputs
        raises InputError."""
        if self.model.n_dims > 1:
            raise InputError(
                f"plot() draws a series; this model has {self.model.n_dims} inputs: use"
                " plot_components() for its components' figures"
            )
        from abcd_cli.reporting.notebook import forecast_plot  # slow, as in ``components``

        return forecast_plot(
            self.decomposition(extrapolate), self.document, self.posterior, self.particles()
        )

    def plot_components(
        self, extrapolate: float = EXTRAPOLATE, *, cumulative: bool = False
    ) -> list[Figure]:
        """The report's figure of each component, in report order, as matplotlib Figures: for
        a series the component alone (drawn ``extrapolate`` × the data's range past it), or
        with ``cumulative`` the sum of the components up to it against the data; for several
        inputs those the report draws (not noise, a constant or a component of three inputs
        or more; ``cumulative`` raises InputError)."""
        if cumulative and self.model.n_dims > 1:
            raise InputError("cumulative figures are drawn for a series, not several inputs")
        from abcd_cli.reporting.notebook import component_plots

        return component_plots(self.decomposition(extrapolate), cumulative)

    def _repr_markdown_(self) -> str:
        """The notebook's summary: structure, n, BIC and the components table."""
        from abcd_cli.reporting.notebook import summary_markdown

        return summary_markdown(self)

    def _repr_html_(self) -> str:
        """The notebook's summary as HTML, with the forecast figure of a series (:meth:`plot`)."""
        from abcd_cli.reporting.notebook import summary_html

        return summary_html(self, self.plot() if self.model.n_dims == 1 else None)

    def predictive_models(
        self, average_seeds: bool, weighting: str, one_search: str
    ) -> tuple[list[Model], np.ndarray | None, str]:
        """The models a prediction mixes, their weights (None: one model, or equal) and how
        ``predict``'s message names them: the seeds' models with ``average_seeds`` (see
        :meth:`mixture`), else the posterior's particles when the search made one, else the
        model alone (no words)."""
        if average_seeds:
            return self.mixture(weighting, one_search)
        posterior = self.posterior
        if posterior.is_single:
            return [self.model], None, ""
        models, weights = self.posterior_mixture()
        chosen = self.model.structure
        return (
            models,
            weights,
            f"the posterior's mixture of {posterior.structure_count} structures with their"
            " parameters' draws;"
            f" the most probable, {chosen}, has weight {posterior.weights[0]:.2f}"
            + self.calibration_words(),
        )

    def calibration_words(self) -> str:
        """What ``predict``'s message adds on the posterior's calibrated band ("" without
        one)."""
        c = self.calibration
        if c is None or not c.present:
            return ""
        return (
            f"; its band past the data widened {'/'.join(f'{f:.2f}' for f in c.factors)}"
            f" times by horizon, from {c.origins} forecasts of the series' own past"
        )

    def mixture(
        self, weighting: str, one_search: str
    ) -> tuple[list[Model], np.ndarray | None, str]:
        """The models of every seed, their weights and a description for ``predict``'s
        message: weights ∝ exp(−BIC/2) ("evidence") or None for equal ones ("equal").
        A model of one search raises ``InputError(one_search)``: there is nothing to mix."""
        from abcd_cli.reporting.forecast import seed_shares  # slow, as in ``components``

        by_seed, weights = self.seed_mixture(weighting, one_search)
        models = list(by_seed.values())
        text = f"the mixture of {len(models)} seeds' models"
        if weights is None:
            return models, None, text + ", equally weighted"
        return (
            models,
            weights,
            text + f" weighted by evidence: {seed_shares(list(by_seed), weights)}",
        )


def read_model(path: str | Path) -> FoundModel:
    """The model saved by ``abcd search --json`` (or :meth:`FoundModel.save`) at ``path``;
    InputError with a one-line message when the file is missing, unreadable, nested too deeply
    or not a model (see :meth:`FoundModel.from_document`)."""
    document = load_json(path, "model file")
    if not isinstance(document, dict):
        raise InputError(f"model file {path} is not a model saved by 'abcd search --json'")
    return FoundModel.from_document(document, origin=str(path))
