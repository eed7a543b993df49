"""A model's engine in its model file: the engine's name, its settings and its state (what it
carries from the search's fit to later conditioning, e.g. skc's inducing inputs), enough to
rebuild the same engine and the same posterior:

    "engine": {"name": ..., <its settings>, <its state's entries>}

The entries are the engine's own (``Engine.settings``, ``EngineState.record``,
``Engine.read_state``); this module only joins and splits them. The default engine with
nothing to record has no record (model files from before engines had one load as it).
"""

from __future__ import annotations

from typing import Any

from abcd_cli.data.scaling import Scaling
from abcd_cli.engines import DEFAULT_ENGINE, engine_class, get_engine
from abcd_cli.engines.base import Engine, EngineState
from abcd_cli.errors import InputError


def engine_record(engine: Engine, state: EngineState | None) -> dict[str, Any] | None:
    """The model file's ``engine`` entry: name, settings and the state's entries (user units);
    None for the default engine with no settings and no state, which files leave out."""
    record: dict[str, Any] = {"name": engine.name, **engine.settings()}
    if state is not None:
        record.update(state.record())
    return None if record == {"name": DEFAULT_ENGINE} else record


def read_engine(
    record: Any, scaling: Scaling, where: str = "model file"
) -> tuple[Engine, EngineState | None]:
    """The engine a model file's ``engine`` entry describes (the default one when there is
    none) and the state it carries; InputError led by ``where`` (the file) when the entry is
    not one. A model file's document is checked in full before
    (:func:`abcd_cli.model_file.check_model_document`); these checks guard a bare record."""
    if record is None:
        return get_engine(), None
    if not isinstance(record, dict) or not isinstance(record.get("name"), str):
        raise InputError(f"{where}: engine must be an object with a name")
    try:
        cls = engine_class(record["name"])
        options = {k: v for k, v in record.items() if k != "name" and k not in cls.state_keys}
        engine = cls(**options)
        state = cls.read_state(record, scaling.n_dims)
        engine.with_state(state, scaling)  # refuses a state it cannot condition through
    except (TypeError, ValueError, OverflowError) as exc:
        raise InputError(f"{where}: engine: {exc}") from None
    return engine, state
