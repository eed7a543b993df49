"""A model's engine in its model file: the engine's name, its settings and its inducing inputs
in the user's units, enough to rebuild the same engine and the same posterior.

    "engine": {"name": "skc", "m": 200, "seed": 0, "jitter": 1e-08, ...,
               "inducing_x": [x_1, ..., x_m]}        (one list per row with several inputs)

The exact engine, the default, has no record (model files from before engines had one load as
exact). The inducing inputs are written as the data's own x values (the rows the engine drew),
so that reading them back and scaling them gives the same internal inputs to the last bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from abcd_cli.data.scaling import Scaling
from abcd_cli.engines import DEFAULT_ENGINE, get_engine
from abcd_cli.engines.base import Engine
from abcd_cli.errors import InputError


def is_default(engine: Engine) -> bool:
    """Whether the engine is the exact one, which a model file leaves unrecorded."""
    return engine.name == DEFAULT_ENGINE and not engine.settings()


def inducing_x(engine: Engine, scaling: Scaling, x: np.ndarray) -> np.ndarray | None:
    """The engine's inducing inputs for the data x, in the user's units (None: it has none):
    the rows of x it draws, else its fixed inputs scaled back."""
    rows = engine.inducing(scaling.x_in(x))
    if rows is not None:
        return x[rows]
    fixed = engine.fixed_inducing_inputs()
    if fixed is None:
        return None
    z = scaling.x_out(fixed if scaling.n_dims > 1 else fixed[:, 0])
    return np.asarray(z, dtype=float)


def engine_record(engine: Engine, inducing: np.ndarray | None) -> dict[str, Any]:
    """The model file's ``engine`` entry: name, settings and the inducing inputs (user units)."""
    record: dict[str, Any] = {"name": engine.name, **engine.settings()}
    if inducing is not None:
        record["inducing_x"] = np.asarray(inducing).tolist()
    return record


def read_engine(
    record: Any, scaling: Scaling, where: str = "model file"
) -> tuple[Engine, np.ndarray | None]:
    """The engine a model file's ``engine`` entry describes (the exact one when there is none)
    and its inducing inputs in the user's units; InputError led by ``where`` (the file) when
    the entry is not one. A model file's document is checked in full before
    (:func:`abcd_cli.model_file.check_model_document`); these checks guard a bare record."""
    if record is None:
        return get_engine(), None
    if not isinstance(record, dict) or not isinstance(record.get("name"), str):
        raise InputError(f"{where}: engine must be an object with a name")
    options = {k: v for k, v in record.items() if k not in ("name", "inducing_x")}
    try:
        engine = get_engine(record["name"], **options)
    except (TypeError, ValueError, OverflowError) as exc:
        raise InputError(f"{where}: engine: {exc}") from None
    if "inducing_x" not in record:
        return engine, None
    try:
        z = np.asarray(record["inducing_x"], dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{where}: engine: inducing_x must be numbers") from None
    one = scaling.n_dims == 1
    if z.ndim != (1 if one else 2) or z.shape[0] < 1 or (not one and z.shape[1] != scaling.n_dims):
        raise InputError(f"{where}: engine: inducing_x must hold rows of {scaling.n_dims} input(s)")
    if not np.all(np.isfinite(z)):
        raise InputError(f"{where}: engine: inducing_x must be finite numbers")
    try:
        engine.with_inducing_inputs(scaling.x_in(z))
    except ValueError as exc:
        raise InputError(f"{where}: engine: {exc}") from None
    return engine, z
