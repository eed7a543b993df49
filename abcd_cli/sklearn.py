"""A scikit-learn regressor over the search: :class:`AbcdRegressor`.

>>> from abcd_cli.sklearn import AbcdRegressor
>>> regressor = AbcdRegressor(depth=2, restarts=3, random_state=0).fit(X, y)  # X: (n, d)
>>> regressor.kernel_, regressor.bic_, regressor.score(X_test, y_test)
>>> mean, sd = regressor.predict(X_test, return_std=True)

``fit`` runs :func:`abcd_cli.search` with X's columns as the inputs (named by a DataFrame's
columns, else ``x0``, ``x1``, ...) and keeps the :class:`~abcd_cli.found.FoundModel`;
``predict`` is :func:`abcd_cli.predict`'s mean and sd (noise included; with
``method="posterior"``, of the posterior's mixture). X and y are checked as scikit-learn
checks them (numbers only, no missing values, at least ``MIN_POINTS`` rows); what abcd itself
refuses in the data or the settings raises ValueError. A column of one value is left out of
the search (an :class:`~abcd_cli.api.AbcdWarning` says so), as the loader leaves it out of a
table. scikit-learn is not a dependency of abcd: this module needs it installed.
"""

from __future__ import annotations

import warnings
from dataclasses import fields
from typing import Any

import numpy as np
import pandas as pd

try:
    from sklearn.base import BaseEstimator, RegressorMixin
    from sklearn.utils.validation import check_is_fitted
except ImportError as exc:  # pragma: no cover - scikit-learn is in the dev extra only
    raise ImportError("abcd_cli.sklearn needs scikit-learn: pip install scikit-learn") from exc
try:
    from sklearn.utils.validation import validate_data
except ImportError:  # pragma: no cover - scikit-learn < 1.6 has the method instead

    def validate_data(estimator: Any, /, *args: Any, **kwargs: Any) -> Any:
        return estimator._validate_data(*args, **kwargs)


from abcd_cli import api
from abcd_cli.api import DEFAULTS, AbcdWarning
from abcd_cli.data.cells import clean_name
from abcd_cli.data.checks import MIN_POINTS
from abcd_cli.errors import InputError
from abcd_cli.kernel_search.settings import SearchSettings


class AbcdRegressor(RegressorMixin, BaseEstimator):
    """The kernel structure search as a scikit-learn regressor.

    Every parameter but two is the :func:`abcd_cli.search` keyword of the same name, with its
    default (see :class:`~abcd_cli.kernel_search.settings.SearchSettings`); scikit-learn's names
    stand for the other two: ``random_state`` is the search's ``seed`` (a whole number: the
    search is deterministic for each), ``n_jobs`` its worker processes (None or 1: serial, the
    default; -1 or 0: one per core).

    Fitted attributes: ``model_`` (the :class:`~abcd_cli.found.FoundModel`), ``kernel_`` (its
    kernel as text, inputs named by column), ``structure_``, ``bic_``, ``n_features_in_``,
    ``feature_names_in_`` (X a DataFrame of named columns) and ``used_columns_`` (the indices
    of the columns the model reads: those its kernel, or any structure its predictions mix,
    has a base kernel on).
    """

    def __init__(
        self,
        *,
        depth: int = DEFAULTS.depth,
        restarts: int = DEFAULTS.restarts,
        random_state: int = DEFAULTS.seed,
        seeds: int = DEFAULTS.seeds,
        method: str = DEFAULTS.method,
        n_jobs: int | None = None,
        scheduler: str | None = None,
        beam: int = DEFAULTS.beam,
        beam_levels: int = DEFAULTS.beam_levels,
        language: str = DEFAULTS.language,
        interpretable: bool = DEFAULTS.interpretable,
        screen: bool = DEFAULTS.screen,
        table_search: str = DEFAULTS.table_search,
        screen_fits: int = DEFAULTS.screen_fits,
        bases: tuple[str, ...] | str = DEFAULTS.bases,
        subset_size: int = DEFAULTS.subset_size,
        refine_size: int | None = DEFAULTS.refine_size,
        finalists: int = DEFAULTS.finalists,
        refine: int = DEFAULTS.refine,
        patience: int = DEFAULTS.patience,
        prior_mean: str = DEFAULTS.prior_mean,
        polish: int = DEFAULTS.polish,
        screen_iter: int = DEFAULTS.screen_iter,
        max_iter: int = DEFAULTS.max_iter,
        refine_iter: int = DEFAULTS.refine_iter,
        max_order: int | None = DEFAULTS.max_order,
        engine: str = DEFAULTS.engine,
        inducing: int | None = DEFAULTS.inducing,
        buffer: int = DEFAULTS.buffer,
        pool: int = DEFAULTS.pool,
        draws: int = DEFAULTS.draws,
        particles: int = DEFAULTS.particles,
        data_steps: int = DEFAULTS.data_steps,
        first_points: int = DEFAULTS.first_points,
        structure_moves: int = DEFAULTS.structure_moves,
        parameter_moves: int = DEFAULTS.parameter_moves,
        budget: float | None = DEFAULTS.budget,
        moves_plan: tuple[tuple[int, int], ...] | None = DEFAULTS.moves_plan,
        final_polish: int | None = DEFAULTS.final_polish,
    ) -> None:
        self.depth = depth
        self.restarts = restarts
        self.random_state = random_state
        self.seeds = seeds
        self.method = method
        self.n_jobs = n_jobs
        self.scheduler = scheduler
        self.beam = beam
        self.beam_levels = beam_levels
        self.language = language
        self.interpretable = interpretable
        self.screen = screen
        self.table_search = table_search
        self.screen_fits = screen_fits
        self.bases = bases
        self.subset_size = subset_size
        self.refine_size = refine_size
        self.finalists = finalists
        self.refine = refine
        self.patience = patience
        self.prior_mean = prior_mean
        self.polish = polish
        self.screen_iter = screen_iter
        self.max_iter = max_iter
        self.refine_iter = refine_iter
        self.max_order = max_order
        self.engine = engine
        self.inducing = inducing
        self.buffer = buffer
        self.pool = pool
        self.draws = draws
        self.particles = particles
        self.data_steps = data_steps
        self.first_points = first_points
        self.structure_moves = structure_moves
        self.parameter_moves = parameter_moves
        self.budget = budget
        self.moves_plan = moves_plan
        self.final_polish = final_polish

    def fit(self, X: Any, y: Any) -> AbcdRegressor:
        """Search for the model of y given the columns of X, an (n, d) array or DataFrame;
        returns the estimator itself, fitted."""
        y_label = getattr(y, "name", None)
        X, y = validate_data(
            self, X, y, dtype=np.float64, y_numeric=True, ensure_min_samples=MIN_POINTS
        )
        names = _input_names(getattr(self, "feature_names_in_", None), X.shape[1])
        used = _used_columns(X, names)
        frame = pd.DataFrame({names[d]: X[:, d] for d in used})
        y_name = _y_name(y_label, list(frame.columns))
        frame[y_name] = y
        if len(used) == 1:  # rows in x's order, as the loader would sort them (without a note)
            frame = frame.sort_values(names[used[0]], kind="stable", ignore_index=True)
        settings = {name: getattr(self, name) for name in _SETTINGS}
        try:
            found = api.search(
                frame,
                x=list(frame.columns[:-1]),
                y=y_name,
                seed=self.random_state,
                jobs=_jobs(self.n_jobs),
                scheduler=self.scheduler,
                **settings,
            )
        except InputError as exc:
            raise ValueError(str(exc)) from exc
        self.model_ = found
        self._searched_columns = np.asarray(used, dtype=np.intp)
        self.used_columns_ = self._searched_columns[_read_inputs(found)]
        self.kernel_ = found.kernel
        self.structure_ = found.structure
        self.bic_ = found.bic
        return self

    def predict(
        self, X: Any, return_std: bool = False
    ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """The predictive mean of y at each row of X, an (n,) array; with ``return_std``, the
        pair (mean, sd), sd that of a new observation (noise included), as
        :func:`abcd_cli.predict` gives them."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        frame = pd.DataFrame(X[:, self._searched_columns], columns=self.model_.x_names)
        try:
            table = api.predict(self.model_, frame)
        except InputError as exc:
            raise ValueError(str(exc)) from exc
        mean = table["mean"].to_numpy(dtype=np.float64)
        if return_std:
            return mean, table["sd"].to_numpy(dtype=np.float64)
        return mean


#: The parameters passed on to the search as its settings: every field of SearchSettings but
#: the seed (``random_state``).
_SETTINGS = tuple(f.name for f in fields(SearchSettings) if f.name != "seed")


def _jobs(n_jobs: Any) -> int:
    """scikit-learn's ``n_jobs`` as the search's ``jobs``: None or 1 serial, -1 (or 0) one
    process per core, n > 1 that many."""
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int | np.integer) or n_jobs < -1:
        raise ValueError(
            f"n_jobs must be None, -1 (one process per core) or a whole number of at least 1,"
            f" not {n_jobs!r}"
        )
    return 0 if n_jobs == -1 else int(n_jobs)


def _read_inputs(found: Any) -> list[int]:
    """The model's inputs (positions in its ``x_names``) that its kernel, or any model its
    predictions mix, reads (:func:`~abcd_cli.decompose.input_terms.term_inputs`)."""
    from abcd_cli.decompose.input_terms import term_inputs

    models, _, _ = found.predictive_models(False, "evidence", "")
    return sorted({d for model in models for d in term_inputs(model.kernel)})


def _input_names(feature_names: np.ndarray | None, d: int) -> list[str]:
    """The inputs' names: a DataFrame's column names when each stays itself and distinct as
    the loader reads names (on one line, ignoring case), else ``x0`` ... ``x{d-1}``."""
    if feature_names is not None:
        names = [str(name) for name in feature_names]
        folded = {name.lower() for name in names}
        if all(name and clean_name(name) == name for name in names) and len(folded) == d:
            return names
    return [f"x{i}" for i in range(d)]


def _y_name(label: Any, inputs: list[str]) -> str:
    """y's column name: its own (a named pandas Series) or ``y``, made unlike every input's."""
    name = label if isinstance(label, str) and label and clean_name(label) == label else "y"
    taken = {n.lower() for n in inputs}
    while name.lower() in taken:
        name += "_"
    return name


def _used_columns(X: np.ndarray, names: list[str]) -> list[int]:
    """The columns holding more than one value (every column when none does: the search then
    says why); an AbcdWarning names those left out."""
    varying = [d for d in range(X.shape[1]) if np.ptp(X[:, d]) > 0]
    if not varying:
        return list(range(X.shape[1]))
    left = [repr(names[d]) for d in range(X.shape[1]) if d not in varying]
    if left:
        plural = "s" if len(left) > 1 else ""
        message = f"left out column{plural} {', '.join(left)} with a single value"
        warnings.warn(message, AbcdWarning, stacklevel=3)
    return varying
