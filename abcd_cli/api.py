"""The Python API: load a series, search for its model, predict, report, update.

>>> import abcd_cli
>>> found = abcd_cli.search("airline.csv", depth=4)          # or a DataFrame, or (x, y)
>>> found.structure, found.bic, found.kernel
>>> abcd_cli.predict(found, [1961.0, 1961.5])                # a DataFrame: mean, sd, quantiles
>>> abcd_cli.report(found, "airline.pdf")                    # or .html / .json; no path: a dict
>>> abcd_cli.update(found, "airline-1961.csv")               # new rows, no new search

The ``abcd`` command line is a thin layer over these functions. Problems with the input raise
:class:`~abcd_cli.errors.InputError`, failures while running :class:`~abcd_cli.errors.RunError`
(both one-line messages); oddities that were fixed (rows dropped, rows sorted, a prior mean far
from the data) are issued as :class:`AbcdWarning` when a search starts.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from abcd_cli.errors import InputError, RunError
from abcd_cli.found import FoundModel, read_model
from abcd_cli.kernel_search.settings import SearchSettings

if TYPE_CHECKING:  # pandas and the CSV reader are imported when data are loaded
    import pandas as pd

    from abcd_cli.data.reader import Series
    from abcd_cli.kernel_search.events import SearchEvent
    from abcd_cli.kernel_search.records import SearchResult

#: The settings a search uses when none are given (those of the command line too).
DEFAULTS = SearchSettings()
#: Report formats, by file suffix.
REPORT_FORMATS = ("pdf", "html", "json")

Progress = Callable[[str], None]


class AbcdWarning(UserWarning):
    """Something about the data or the settings that the user should know; the search goes on."""


class SearchInterrupted(KeyboardInterrupt):
    """A search stopped by Ctrl-C (or SIGTERM, where the caller turns it into one). ``saved``
    lists the checkpoint files holding the state after the last finished level: the same call
    with ``resume=True`` continues from them."""

    def __init__(self, saved: list[Path]) -> None:
        super().__init__()
        self.saved = saved


# ----------------------------------------------------------------------------- load


def load(source: Any = None, x: Any = None, y: Any = None, *, name: str | None = None) -> Series:
    """The validated series of a CSV file, a DataFrame, or arrays.

    * ``load("data.csv", x=None, y=None)``: the CSV rules of :mod:`abcd_cli.data.reader`
      (``x``/``y`` choose columns by name or 1-based number; ``x`` may list several inputs,
      ``x=["a", "b"]`` or ``x="a,b"``; without it, a table of more than two columns has every
      column holding numbers or dates but y as an input).
    * ``load(frame, x=None, y=None)``: a pandas DataFrame (or Series), columns chosen as for a
      CSV; a datetime column (or index) becomes decimal years, as dates in a CSV do.
    * ``load(x=xs, y=ys)`` or ``load((xs, ys))``: arrays of numbers (x may hold datetimes);
      ``load(y=ys)`` takes x = 0, 1, ..., n-1.

    ``name`` names the data in messages and reports (default: the path, ``DataFrame`` or
    ``arrays``). Every problem raises :class:`InputError`; fixed oddities are in ``.warnings``.
    """
    import pandas as pd

    from abcd_cli.data import reader
    from abcd_cli.data.frames import series_from_arrays, series_from_frame

    if isinstance(source, reader.Series):
        return source
    if isinstance(source, str | os.PathLike):
        series = reader.load_series(source, x=_columns(x), y=_column(y))
        return series if name is None else replace(series, source=name)
    if isinstance(source, pd.DataFrame | pd.Series):
        return series_from_frame(source, _columns(x), _column(y), source=name or "DataFrame")
    if isinstance(source, tuple | list) and len(source) == 2 and x is None and y is None:
        x, y = source
    elif source is not None:
        raise TypeError(
            "load() takes a CSV path, a pandas DataFrame or an (x, y) pair of arrays, not"
            f" {type(source).__name__}"
        )
    if y is None:
        raise TypeError("load() needs a CSV path, a DataFrame, or y values (y=...)")
    return series_from_arrays(x, y, source=name or "arrays")


def _column(key: Any) -> str | None:
    """A column choice as the reader takes it (a name or a 1-based number, as text)."""
    if key is None or isinstance(key, str):
        return key
    if isinstance(key, int):
        return str(key)
    raise TypeError("with a CSV file or DataFrame, x and y name columns (a name or a number)")


def _columns(keys: Any) -> str | list[str] | None:
    """The input columns as the reader takes them: one choice, or a list of several."""
    if isinstance(keys, list | tuple):
        return [str(_column(key)) for key in keys]
    return _column(keys)


# ----------------------------------------------------------------------------- search


def search(
    data: Any = None,
    *,
    depth: int = DEFAULTS.depth,
    seed: int = DEFAULTS.seed,
    jobs: int | None = 1,
    scheduler: str | None = None,
    executor: Any = None,
    engine: str = DEFAULTS.engine,
    inducing: int | None = DEFAULTS.inducing,
    progress: Progress | bool | None = None,
    on_event: Callable[[SearchEvent], None] | None = None,
    checkpoint: str | Path | None = None,
    resume: bool = False,
    x: Any = None,
    y: Any = None,
    **settings: Any,
) -> FoundModel:
    """Search for the kernel that best explains the data by BIC; returns a :class:`FoundModel`.

    ``data`` is a :class:`Series` or anything :func:`load` takes (``x``/``y`` choose its
    columns; without ``data``, ``x`` and ``y`` are the arrays themselves, as ``load(x=xs,
    y=ys)``). Every field of :class:`~abcd_cli.kernel_search.settings.SearchSettings` is a keyword
    (``restarts``, ``seeds``, ``beam``, ``language``, ``bases`` as a tuple or ``"SE,RQ"``,
    ``prior_mean``, ...) with the command line's defaults; one seed gives one result, whatever
    the executor.

    ``jobs``: worker processes (1: serial, 0 or None: one per core). ``scheduler``: run the
    fits on Dask, ``"local"`` (a local cluster of ``jobs`` workers) or the address of a running
    scheduler (``"tcp://host:8786"``). Or pass as ``executor`` a ``distributed.Client`` or any
    ``concurrent.futures.Executor`` whose ``map`` returns results; it is used as it is and not
    shut down. A lost cluster raises :class:`~abcd_cli.execution.dask.ClusterError` (a
    ``RunError``) and keeps the checkpoint.

    ``method="posterior"``: weigh the search's ``pool`` (20) structures of lowest BIC by their
    evidence and draw their parameters (:mod:`abcd_cli.kernel_search.posterior`); the model is
    then the most probable structure, ``FoundModel.posterior`` holds them all, and ``predict``
    and ``report`` forecast with their mixture. With ``seeds`` > 1, the distinct structures of
    all the searches' pools are weighed together (:mod:`abcd_cli.kernel_search.joint`).

    ``engine``: ``"exact"`` (the full GP), ``"skc"`` (bounds on the likelihood through
    ``inducing`` inputs; None: a number chosen by the series' length), ``"statespace"`` (the
    exact likelihood of one input by a Kalman filter where cheaper) or ``"auto"`` (exact for
    short series, skc for long ones; see :mod:`abcd_cli.kernel_search.engine_choice`).

    ``progress``: a function called with one line per level (True: print them on stderr; in a
    Jupyter notebook, the command line's live progress in one output updated in place:
    :mod:`abcd_cli.notebook_progress`); ``on_event``: one called with every ``SearchEvent`` (each
    fit, each level's end), for a display of one's own. ``checkpoint``: a file where the state
    is saved after every level (one per seed with ``seeds`` > 1); ``resume=True`` continues from
    it. The files stay (:meth:`FoundModel.discard_checkpoints`); Ctrl-C raises
    :class:`SearchInterrupted`. A checkpoint of other data is refused rather than overwritten,
    and so is one that another search holds while it runs (``checkpoint_lock``).
    """
    from abcd_cli.destinations import check_destinations
    from abcd_cli.kernel_search.checkpoint import checkpoint_paths, refuse_other_data
    from abcd_cli.kernel_search.checkpoint_lock import hold_checkpoints
    from abcd_cli.notebook_progress import notebook_reporters

    progress, on_event = notebook_reporters(progress, on_event)
    options = search_settings(
        dict(settings, depth=depth, seed=seed, engine=engine, inducing=inducing)
    )
    series = load_warned(data, options, x=x, y=y)
    paths = checkpoint_paths(checkpoint, options) if checkpoint is not None else []
    check_destinations({"data": _file_of(data)}, {}, paths)
    if executor is not None and (jobs != 1 or scheduler):
        raise TypeError("search() takes jobs and scheduler, or an executor, not both")
    with hold_checkpoints(paths):
        if not resume:
            refuse_other_data(paths, series.x, series.y)
        where = (jobs, scheduler, executor)
        result = _run(series, options, where, checkpoint, paths, progress, on_event, resume)
    return FoundModel.from_search(series, result, tuple(paths))


def _run(
    series: Series,
    options: SearchSettings,
    where: tuple[int | None, str | None, Any],
    checkpoint: str | Path | None,
    paths: list[Path],
    progress: Progress | bool | None,
    on_event: Callable[[SearchEvent], None] | None,
    resume: bool,
) -> SearchResult:
    """``settings.method`` run (``infer.run_search``) on the executor ``where`` = (jobs,
    scheduler, executor) gives (as ``search`` takes them; one it made is shut down at the
    end); an interrupt or a lost cluster says which checkpoints hold the state."""
    from abcd_cli.kernel_search.infer import run_search

    jobs, scheduler, executor = where
    owned = own_executor(jobs, scheduler) if executor is None else None
    used = owned or _as_executor(executor)  # a Client's wrapper: cancels, never closes it
    interrupted = False
    try:
        return run_search(
            series.x,
            series.y,
            options,
            used,
            _progress(progress),
            checkpoint,
            resume=resume,
            events=on_event,
            x_names=series.x_names,
        )
    except KeyboardInterrupt:
        interrupted = True
        raise SearchInterrupted([p for p in paths if p.exists()]) from None
    except RunError as exc:
        raise _with_checkpoints(exc, paths) from None
    finally:
        if used is not executor:
            used.shutdown(wait=not interrupted, cancel_futures=interrupted)


def _file_of(source: Any) -> str | None:
    """The path of a file the API was given to read (None: data in memory)."""
    return str(source) if isinstance(source, str | os.PathLike) else None


def load_warned(
    data: Any, settings: SearchSettings, x: Any = None, y: Any = None, prefix: str = ""
) -> Series:
    """``load(data)`` for a search: refused when it has more inputs than a search takes
    (``data.inputs.check_input_count``), else issuing as :class:`AbcdWarning` (each behind
    ``prefix``) what was fixed in the data and a prior mean far from them."""
    from abcd_cli.data.inputs import check_input_count
    from abcd_cli.kernel_search.settings import prior_mean_warning

    series = load(data, x=x, y=y)
    check_input_count(series.n_dims, series.source)
    far = prior_mean_warning(series.y, settings)
    for text in [*series.warnings, *([far] if far else [])]:
        warnings.warn(prefix + text, AbcdWarning, stacklevel=3)
    return series


def search_settings(values: dict[str, Any]) -> SearchSettings:
    """SearchSettings from keywords; a TypeError names an unknown one."""
    known = {f.name for f in fields(SearchSettings)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise TypeError(
            f"search() got an unknown setting {unknown[0]!r}; settings: {', '.join(sorted(known))}"
        )
    bases = values.get("bases")
    if isinstance(bases, str):  # "SE,RQ", as on the command line
        values["bases"] = tuple(name.strip() for name in bases.split(",") if name.strip())
    elif isinstance(bases, list):
        values["bases"] = tuple(bases)
    return SearchSettings(**values)


def own_executor(jobs: int | None, scheduler: str | None = None) -> Executor:
    from abcd_cli.execution.pool import make_executor
    from abcd_cli.kernel_search.candidate import lost_candidate

    return make_executor(jobs, on_lost=lost_candidate, scheduler=scheduler)


def _as_executor(executor: Any) -> Executor:
    """A ``distributed.Client`` made an executor of results; any other executor as it is."""
    from abcd_cli.execution.dask import as_executor
    from abcd_cli.kernel_search.candidate import lost_candidate

    return as_executor(executor, on_lost=lost_candidate)


def _with_checkpoints(exc: RunError, paths: list[Path]) -> RunError:
    """A lost cluster's error, saying where the finished levels are kept."""
    from abcd_cli.execution.dask import ClusterError

    if not isinstance(exc, ClusterError) or not paths:
        return exc
    saved = [str(p) for p in paths if p.exists()]
    if not saved:
        return ClusterError(f"{exc.message}; no level had finished, nothing was saved")
    return ClusterError(
        f"{exc.message}; the finished levels are in {', '.join(saved)}:"
        " resume to continue (--resume; resume=True in Python)"
    )


def _progress(progress: Progress | bool | None) -> Progress | None:
    if progress is True:
        return lambda line: print(line, file=sys.stderr, flush=True)
    return progress or None


# ----------------------------------------------------------------------------- predict


def predict(
    model: FoundModel | str | Path,
    x: Any = None,
    *,
    ahead: int | None = None,
    average_seeds: bool = False,
    seed_weights: str = "evidence",
) -> pd.DataFrame:
    """The predictive distribution of y at each x, noise included, in the data's units: a
    DataFrame of the inputs (as given), ``mean``, ``sd`` and the 2.5/10/50/90/97.5% quantiles
    (``q2.5`` ... ``q97.5``), the table ``abcd predict`` writes.

    ``model``: a :class:`FoundModel` or the path of a model file. ``x``: a DataFrame holding
    the model's input columns by name (in any order; other columns are ignored) or, for a model
    of one input, its values: numbers (decimal years for dated data) or datetimes. Or, instead
    of ``x``, ``ahead=N``: the N steps after the data at its own spacing (a model of one input;
    dates stay dates, monthly data give the next N months: :mod:`abcd_cli.ahead`).
    ``average_seeds``: with a ``seeds`` > 1 search, the mixture of every seed's model, weighted
    by evidence exp(−BIC/2) or ``"equal"``ly. A model of ``method="posterior"`` predicts with
    the mixture of its posterior's particles, its band past the data widened by its calibration
    on the series' own past (:mod:`abcd_cli.calibration`). ``df.attrs["mixture"]`` says which
    mixture.
    """
    import numpy as np
    import pandas as pd

    from abcd_cli.data.checks import check_given_inputs
    from abcd_cli.data.frames import decimal_years, is_datetime_like
    from abcd_cli.prediction import predictive_table

    found = as_found_model(model)
    if (x is None) == (ahead is None):
        raise TypeError("predict() takes the new inputs x, or ahead=N for the next N steps")
    if ahead is not None:
        from abcd_cli.ahead import future_inputs

        future = future_inputs(found, ahead)
        x = pd.DataFrame({found.x_names[0]: future.given})
    given = _given_inputs(found, x)
    columns = []
    for d, (name, (what, column)) in enumerate(given.items()):
        if is_datetime_like(column):
            values = found.checked_x(decimal_years(column), "date", what, d)
        else:
            try:
                values = pd.to_numeric(pd.Series(column), errors="raise").to_numpy(float)
            except (TypeError, ValueError) as exc:
                raise InputError(f"x: column {name!r} must hold numbers or dates: {exc}") from None
        check_given_inputs(values, name, "x")
        columns.append(values)
    models, weights, text = found.predictive_models(
        average_seeds,
        seed_weights,
        "the model comes from one search; average_seeds needs a search with seeds > 1",
    )
    X = np.column_stack(columns)
    table = predictive_table(models, X, weights)
    if not average_seeds:
        table = found.calibrated(table, X)
    frame = pd.DataFrame({name: column for name, (_, column) in given.items()} | table)
    frame.attrs["mixture"] = text
    return frame


def _given_inputs(found: FoundModel, x: Any) -> dict[str, tuple[str, Any]]:
    """Each input of the model by name: how messages call it and its values as given, from a
    DataFrame's columns of those names, or, with one input, from ``x`` itself."""
    import pandas as pd

    from abcd_cli.data.table import capped

    names = found.x_names
    if isinstance(x, pd.DataFrame):
        labels = [str(label) for label in x.columns]
        for name in names:
            if labels.count(name) != 1:
                raise InputError(
                    f"x has no column {name!r}, an input of the model (its columns: {labels})"
                )
        return {
            name: (f"column {name!r}", x.iloc[:, labels.index(name)].to_numpy()) for name in names
        }
    if len(names) > 1:
        raise TypeError(
            "a model of several inputs predicts at a DataFrame holding its input columns"
            f" ({capped(list(map(repr, names)))})"
        )
    values = x.to_numpy() if isinstance(x, pd.Series | pd.Index) else x
    values = pd.Series(values).to_numpy() if pd.api.types.is_list_like(values) else [values]
    return {names[0]: ("x", values)}


def as_found_model(model: FoundModel | str | Path) -> FoundModel:
    """A :class:`FoundModel` as it is, or read from its file."""
    if isinstance(model, FoundModel):
        return model
    if isinstance(model, str | os.PathLike):
        return read_model(model)
    raise TypeError(f"expected a search result or a model file, not {type(model).__name__}")


# ----------------------------------------------------------------------------- update


def update(
    model: FoundModel | str | Path,
    data: Any,
    x: Any = None,
    y: Any = None,
    *,
    jobs: int | None = 1,
    progress: Progress | bool | None = None,
) -> FoundModel:
    """The model updated with new observations, without a new search: a :class:`FoundModel`
    of all the points (:mod:`abcd_cli.model_update`).

    ``model``: a :class:`FoundModel` or the path of a model file. ``data``: the new rows, a CSV
    path, a DataFrame, a Series from :func:`load` or an ``(x, y)`` pair of arrays, holding the
    model's input and y columns by name (``x``/``y`` name other columns of a file or frame).
    A greedy model's structure is refitted on all the points from its values; a posterior's
    structures are each refitted and weighed again. When the new points fall outside the old
    model's one-step 95% predictive band clearly more often than 5% (:mod:`abcd_cli.misfit`),
    an :class:`AbcdWarning` advises a new search. ``jobs``: worker processes for a posterior's
    or several seeds' structures (1: serial, 0 or None: one per core); ``progress`` as for
    :func:`search`.
    """
    from abcd_cli.misfit import misfit_warning
    from abcd_cli.model_update import update_document
    from abcd_cli.observations import read_observations

    found = as_found_model(model)
    new = read_observations(found, data, x, y)
    for note in new.notes:
        warnings.warn(f"{new.source}: {note}", AbcdWarning, stacklevel=2)
    several = not found.posterior.is_single or len(found.seed_models) > 1
    executor = own_executor(jobs if several else 1)
    interrupted = False
    try:
        updated = update_document(found, new, executor, _progress(progress))
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        executor.shutdown(wait=not interrupted, cancel_futures=interrupted)
    warning = misfit_warning(updated.misfit)
    if warning is not None:
        warnings.warn(warning, AbcdWarning, stacklevel=2)
    return FoundModel.from_document(updated.document)
