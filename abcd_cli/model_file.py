"""What a model file may hold: the schema of the document ``abcd search --json`` writes
(``SearchResult.to_dict`` with the data's names from ``FoundModel.from_search``), checked
before anything is built from a file.

:data:`MODEL_SCHEMA` declares each field's shape (:mod:`abcd_cli.schema`);
:func:`check_model_document` applies it, then the checks that compare fields: the data's and
the scaling's number of input columns, x and y of the same length (``n`` too), the kernel
text (its nesting, every parameter a finite number, positive where it must be, on an input the
data have), the engine's inducing inputs, and the data in internal units. Fields that older
files lack stay optional. Numbers a computation reads are limited as the CSV reader limits
data (:data:`~abcd_cli.data.checks.MAX_MAGNITUDE`): squares and products must stay finite.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from abcd_cli.calibration import calibration_problem
from abcd_cli.data.checks import MAX_MAGNITUDE, MIN_MAGNITUDE
from abcd_cli.data.series import X_KINDS
from abcd_cli.engines import engine_choices, engine_class, engine_names
from abcd_cli.errors import InputError
from abcd_cli.kernel_search.agreement import HALVES_SCHEMA
from abcd_cli.kernel_search.grammar import BASES, LANGUAGES
from abcd_cli.kernel_search.methods import REGISTRY
from abcd_cli.kernel_search.screening import SCREEN_SCHEMA
from abcd_cli.kernel_search.settings import (
    MAX_DRAWS,
    MAY_BE_NONE,
    PRIOR_MEANS,
    TABLE_SEARCHES,
    WHOLE_RANGES,
)
from abcd_cli.kernel_search.smc_trace import STEP_SCHEMA, check_steps
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.algebra import count_params
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import bic
from abcd_cli.schema import (
    Anything,
    Bool,
    Choice,
    Either,
    List,
    Nullable,
    Number,
    Numbers,
    Obj,
    Rows,
    Text,
    Whole,
    check,
    join,
    refuse,
    shown,
)

#: The fewest rows a model file's data may have (a report of one point fails).
MIN_ROWS = 2
#: How deeply a kernel's text may nest parentheses (a search of depth 10 nests a dozen).
KERNEL_DEPTH = 50
#: How far from the scaling's shift the data may lie, in units of its scale. The search's
#: scaling puts x within √n of its mean; y too, or, with a zero prior mean, within the 10¹²
#: of its spread that the CSV reader allows (``MIN_RELATIVE_Y_SPREAD``), times √(2n).
INTERNAL_LIMIT = 1e16

#: A data value (x, y, a shift), limited as the CSV reader limits data.
DATUM = Number(magnitude=MAX_MAGNITUDE)
#: A scale of the internal units, or a positive kernel parameter in them.
SCALE = Number(min=MIN_MAGNITUDE, max=MAX_MAGNITUDE)
#: A number that is only shown (a BIC, a parameter in the user's units).
FINITE = Number()
COUNT = Whole(min=0)

SCALING = Obj(
    required={
        "x_shift": Either(DATUM, Numbers(DATUM, min_len=1)),
        "x_scale": Either(SCALE, Numbers(SCALE, min_len=1)),
        "y_shift": DATUM,
        "y_scale": SCALE,
    },
    noun="an object with x_shift, x_scale, y_shift and y_scale",
)
#: The engine's name from the registry; its other entries are its own (``Engine.record_fields``
#: and its state's ``state_keys``): see check_model_document.
ENGINE = Obj(required={"name": Choice(live=engine_names)}, noun="an object with a name")
#: The fields of a model (``Model.to_dict``), in a document and in each of ``seed_models``.
MODEL_FIELDS = {
    "internal": Obj(
        required={"kernel": Text(), "scaling": SCALING},
        optional={"constant_mean": Bool()},
    ),
    "log_likelihood": DATUM,
}
MODEL_OPTIONAL = {
    "kernel": Text(),
    "structure": Text(),
    "bic": FINITE,
    "n_params": COUNT,
    "parameters": List(Obj(required={"name": Text(), "value": FINITE})),
    "bic_interval": List(FINITE, 2, 2),
    "log_likelihood_interval": List(DATUM, 2, 2),
    "engine": Nullable(ENGINE),
}
DATA = Obj(
    required={"x": Anything(), "y": Numbers(DATUM, min_len=MIN_ROWS)},  # x: by the scaling
    optional={
        "x_names": List(Text()),
        "x_kinds": List(Choice(*X_KINDS)),
        "x_name": Text(),
        "y_name": Text(),
        "x_kind": Choice(*X_KINDS),
        "source": Text(),
        "n_dropped": COUNT,
    },
)
#: The search's settings as ``SearchSettings`` checks them; all optional (older files lack
#: some), others allowed (the report shows each as text).
SETTINGS = Obj(
    optional={
        **{
            name: Nullable(Whole(min=low, max=high))
            if name in MAY_BE_NONE
            else Whole(min=low, max=high)
            for name, (low, high) in WHOLE_RANGES.items()
        },
        "seed": COUNT,
        "language": Choice(*LANGUAGES),
        "interpretable": Bool(),
        "bases": List(Choice(*BASES), min_len=1),
        "prior_mean": Choice(*PRIOR_MEANS),
        "engine": Choice(live=engine_choices),
        "inducing": Nullable(Whole(min=1)),
        "method": Choice(live=REGISTRY.keys),
        "screen": Bool(),
        "table_search": Choice(*TABLE_SEARCHES),
        "budget": Number(above=0),
        "moves_plan": List(List(COUNT, min_len=2, max_len=2), min_len=1),
    },
)
#: One level of the search's trace (the report's appendix shows level, structure, BIC and
#: candidates); a level whose every candidate failed has no structure and no BIC.
TRACE_LEVEL = Obj(
    required={"level": COUNT},
    optional={
        "structure": Nullable(Text()),
        "kernel": Nullable(Text()),
        "bic": Nullable(FINITE),
        "bic_low": Nullable(FINITE),
        "bic_width": Nullable(Number(min=0)),
        "elapsed_seconds": Number(min=0),
        "finalists": List(
            Obj(
                required={"structure": Text(), "bic_low": FINITE, "bic": FINITE},
                noun="an object with structure, bic_low and bic",
            )
        ),
        **{
            key: COUNT
            for key in (
                "candidates",
                "failed",
                "rejected",
                "kept",
                "pruned",
                "evaluations",
                "full_data_evaluations",
                "pcg_products",
            )
        },
    },
    noun="an object with a level",
    nouns="objects with a level",
)
#: One structure of the posterior (``kernel_search.posterior.Weighed`` with its weight); its
#: ``theta`` (rows of the optimiser's coordinates, one per draw) is checked against the kernel.
WEIGHED = Obj(
    required={
        "kernel": Text(),
        "weight": Number(min=0, max=1),
        "bic": Nullable(FINITE),  # None: a method that scores no BIC
        "log_evidence": Nullable(FINITE),
        "theta": Anything(),
        "acceptance": Nullable(Number(min=0, max=1)),  # None: drawn by no Metropolis chain
        "floored": COUNT,
        "failure": Text(),
    },
    optional={"draw_weights": Numbers(Number(min=0))},  # one per row of theta (--method smc)
    noun="a weighed structure",
    nouns="weighed structures",
)
#: The posterior over structures of ``--method posterior`` (``StructurePosterior.to_dict``,
#: with its features in words and numbers, which nothing reads back).
POSTERIOR = Obj(
    required={"structures": List(WEIGHED, min_len=1)},
    optional={
        "prior": Obj(optional={"structures": Text(), "parameters": Text()}),
        "draws": Whole(min=0, max=MAX_DRAWS),
        # probabilities are sums of weights: files of 0.1.0 wrote one as 1 + 4e-15
        "features": List(
            Obj(required={"kind": Text(), "probability": Number(min=0, max=1 + 1e-9)})
        ),
        "halves": HALVES_SCHEMA,  # the sampler's two halves' disagreement (--method smc)
        "steps": List(STEP_SCHEMA),  # the sampler's trace by data step (--method smc)
    },
)
#: How far, relative to its size, a model's BIC may lie from the one its likelihood gives.
BIC_TOLERANCE = 1e-9
#: How far the weights of the posterior's structures may sum from one (they were rounded).
WEIGHT_SUM_TOLERANCE = 1e-6
MODEL_SCHEMA = Obj(
    required={**MODEL_FIELDS, "data": DATA},
    optional={
        **MODEL_OPTIONAL,
        "n": Whole(min=MIN_ROWS),
        "trace": List(TRACE_LEVEL),
        "settings": SETTINGS,
        "notes": List(Text()),
        "stopped_early": Nullable(Text()),
        "version": Text(),
        "elapsed_seconds": Number(min=0, max=MAX_MAGNITUDE),
        "seed_models": List(Obj(noun="a model", nouns="models")),  # each: SEED_MODEL
        "posterior": POSTERIOR,
        "calibration": Obj(noun="a calibration"),  # its fields: calibration_problem
        "screen": SCREEN_SCHEMA,  # a table's screen (``screening.Screen.to_dict``)
    },
    noun="a model saved by 'abcd search --json'",
)
#: One of several searches' models (``abcd search --seeds K``), rebuilt on the document's data.
SEED_MODEL = Obj(required={**MODEL_FIELDS, "seed": COUNT}, optional=MODEL_OPTIONAL)


def check_model_document(document: Any, where: str) -> None:
    """Raise :class:`InputError` "``where``: ``field`` ..." (one line) unless ``document``
    is a model document that every part of the program can read: :data:`MODEL_SCHEMA` and the
    checks between fields (see the module docstring)."""
    if is_report(document):
        raise InputError(
            f"{where} is a report (as 'abcd report -o NAME.json' and 'abcd benchmark' write),"
            " not a model file: use the file that 'abcd search DATA --json MODEL.json' or"
            " 'abcd report DATA -o OUT --json MODEL.json' writes"
        )
    check(document, MODEL_SCHEMA, where)
    width = _width(document, where)
    x, y = _check_data(document, width, where)
    _check_model(document, x, y, width, where)
    _check_seed_models(document, x, y, width, where)
    if "posterior" in document:
        _check_posterior(document["posterior"], document["internal"]["kernel"], width, where)
    if "calibration" in document:
        if "posterior" not in document:
            refuse(where, "calibration", "belongs to a posterior, and the file holds none")
        problem = calibration_problem(document["calibration"])
        if problem:
            refuse(where, "calibration", problem)


def is_report(document: Any) -> bool:
    """Whether ``document`` is a JSON report (:mod:`abcd_cli.reporting.json_view`: the
    model under ``model``, beside the report's ``summary`` and ``table``) and not a model."""
    return (
        isinstance(document, dict)
        and "internal" not in document
        and isinstance(document.get("model"), dict)
        and {"summary", "table"} <= document.keys()
    )


def _check_data(document: dict[str, Any], width: int, where: str) -> tuple[np.ndarray, np.ndarray]:
    """The data's x and y: x a list of numbers for one input, of rows of ``width`` numbers
    for several, as many as y (and as ``n``), with one name and kind per input column."""
    data = document["data"]
    one = width == 1
    check(
        data["x"],
        Numbers(DATUM, MIN_ROWS) if one else Rows(DATUM, width, MIN_ROWS),
        where,
        "data.x",
    )
    x, y = np.array(data["x"], dtype=float), np.array(data["y"], dtype=float)
    if x.shape[0] != y.size:
        refuse(
            where, "data.y", f"must hold one value per row of data.x ({x.shape[0]}), not {y.size}"
        )
    if document.get("n", y.size) != y.size:
        refuse(
            where, "n", f"must be the number of rows of the data ({y.size}), not {document['n']}"
        )
    for key, noun in (("x_names", "name"), ("x_kinds", "kind")):
        listed = data.get(key)
        if (listed is not None or (key == "x_names" and not one)) and len(listed or ()) != width:
            problem = f"one {noun} per input column ({width}), not {shown(listed)}"
            refuse(where, f"data.{key}", f"must hold {problem}")
    return x, y


def _check_seed_models(
    document: dict[str, Any], x: np.ndarray, y: np.ndarray, width: int, where: str
) -> None:
    """Each of ``seed_models``: a new seed, and a model of the document's data."""
    seen: set[int] = set()
    for i, entry in enumerate(document.get("seed_models", [])):
        seed = entry.get("seed")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0 or seed in seen:
            again = "; it repeats an earlier one" if seed in seen else ""
            refuse(
                where,
                f"seed_models[{i}]:",
                f"seed must be a new whole number of at least 0, not {shown(seed)}{again}",
            )
        seen.add(seed)
        entry_where = f"{where}: seed_models[{i}]: not a model"
        check(entry, SEED_MODEL, entry_where)
        if _width(entry, entry_where) != width:
            refuse(entry_where, "internal.scaling", f"must have the data's {width} input column(s)")
        _check_model(entry, x, y, width, entry_where)


def _check_posterior(posterior: dict[str, Any], chosen: str, width: int, where: str) -> None:
    """Each structure's kernel, and its draws of theta: rows of its parameters' number, each
    giving values a kernel may hold; the weights summing to one, most probable first, the first
    the model's own kernel (``chosen``, internal units)."""
    entries = posterior["structures"]
    weights = [float(e["weight"]) for e in entries]
    if any(later > earlier for earlier, later in zip(weights, weights[1:], strict=False)):
        refuse(where, "posterior.structures", "must be listed most probable first")
    if entries[0]["kernel"] != chosen:
        refuse(
            where,
            "posterior.structures[0].kernel",
            "must be the model's own kernel (internal.kernel), the most probable structure",
        )
    every_failed = all(entry["failure"] for entry in entries)
    for i, entry in enumerate(entries):
        path = f"posterior.structures[{i}]"
        if entry["failure"] and entry["weight"] > 0 and not every_failed:
            refuse(
                where,
                f"{path}.weight",
                f"must be 0 for a structure whose weighing failed ({shown(entry['failure'])}),"
                f" not {shown(entry['weight'])}",
            )
        kernel = _check_kernel(entry["kernel"], width, where, f"{path}.kernel")
        theta_path = f"{path}.theta"
        if kernel.n_params == 0 or not entry["theta"]:
            if entry["theta"] != []:
                refuse(where, theta_path, "must be an empty list for a kernel without parameters")
            continue
        check(entry["theta"], Rows(FINITE, kernel.n_params), where, theta_path)
        own = entry.get("draw_weights")  # draws of weights of their own: as many as them
        draws = posterior.get("draws") if own is None else len(own)
        if draws is not None and len(entry["theta"]) != draws:
            refuse(
                where,
                theta_path,
                f"must hold one row per draw (posterior.draws: {draws}) or none,"
                f" not {len(entry['theta'])}",
            )
        for j, row in enumerate(entry["theta"]):
            with np.errstate(over="ignore"):
                drawn = kernel.with_theta(np.array(row, dtype=float))
            _check_values(drawn, width, where, f"{theta_path}[{j}]")
    total = sum(weights)
    if abs(total - 1.0) > WEIGHT_SUM_TOLERANCE:
        refuse(where, "posterior.structures", f"must have weights summing to one, not {total!r}")
    halves = posterior.get("halves")  # kinds group structures: their TV cannot be larger
    if halves and halves["kinds_tv"] > halves["structures_tv"] + WEIGHT_SUM_TOLERANCE:
        refuse(where, "posterior.halves.kinds_tv", "must be at most structures_tv")
    check_steps(posterior.get("steps", []), where)


def _width(model: dict[str, Any], where: str) -> int:
    """The number of input columns of a model's scaling (x_shift and x_scale agreeing)."""
    scaling = model["internal"]["scaling"]
    shift, scale = (np.atleast_1d(scaling[key]) for key in ("x_shift", "x_scale"))
    if shift.size != scale.size:
        refuse(
            where,
            "internal.scaling.x_scale",
            f"must hold one number per input column, as x_shift does ({shift.size}),"
            f" not {shown(scaling['x_scale'])}",
        )
    return int(shift.size)


def _check_model(
    model: dict[str, Any], x: np.ndarray, y: np.ndarray, width: int, where: str
) -> None:
    """A model's kernel, likelihood interval, BIC, engine and scaling against the data."""
    kernel = _check_kernel(model["internal"]["kernel"], width, where, "internal.kernel")
    _check_bic(model, kernel, y.size, where)
    interval = model.get("log_likelihood_interval")
    if interval is not None and not interval[0] <= interval[1]:
        refuse(
            where,
            "log_likelihood_interval",
            f"must be [low, high] with low ≤ high, not [{interval[0]!r}, {interval[1]!r}]",
        )
    scaling = model["internal"]["scaling"]
    _check_internal(x, scaling["x_shift"], scaling["x_scale"], where, "data.x", "x")
    _check_internal(y, scaling["y_shift"], scaling["y_scale"], where, "data.y", "y")
    engine = model.get("engine")
    if engine is not None:
        _check_engine(engine, scaling, width, where, "engine")


def _check_bic(model: dict[str, Any], kernel: Kernel, n: int, where: str) -> None:
    """The model's ``bic``, when it has one, is 2·NLL + p·log n of its ``log_likelihood``
    (NLL = −log_likelihood, p the kernel's parameters), to ``BIC_TOLERANCE`` of its size:
    what reads the model (the seeds' evidence weights) computes it from the likelihood."""
    if "bic" not in model:
        return
    expected = bic(-float(model["log_likelihood"]), count_params(kernel), n)
    if abs(model["bic"] - expected) > BIC_TOLERANCE * max(1.0, abs(expected)):
        refuse(
            where,
            "bic",
            f"must be 2·(−log_likelihood) + parameters·log n = {expected!r} for its"
            f" log_likelihood {model['log_likelihood']!r}, not {model['bic']!r}",
        )


def _check_kernel(text: str, width: int, where: str, path: str) -> Kernel:
    """The kernel text: nested at most KERNEL_DEPTH deep, readable, every parameter a finite
    number (a scale where it must be positive) acting on one of the data's inputs; the
    kernel read."""
    depth = deepest = 0
    for char in text:
        depth += (char == "(") - (char == ")")
        deepest = max(deepest, depth)
    if deepest > KERNEL_DEPTH:
        refuse(where, path, f"must nest parentheses at most {KERNEL_DEPTH} deep, not {deepest}")
    try:
        kernel = parse_kernel(text)
    except InputError as exc:
        refuse(where, path, f"must be a kernel written by 'abcd search': {exc}")
    _check_values(kernel, width, where, path)
    return kernel


def _check_values(kernel: Kernel, width: int, where: str, path: str) -> None:
    """Every parameter a finite number (a scale where it must be positive) acting on one of
    the data's inputs."""
    names = kernel.param_names()
    for name, value, (spec, dim) in zip(names, kernel.values(), kernel.param_specs(), strict=True):
        number = SCALE if spec.positive else DATUM
        if not number.accepts(np.array([value]))[0]:
            refuse(where, f"{path} parameter {name}", f"must be {number.what}, not {shown(value)}")
        if not 0 <= dim < width:
            refuse(
                where,
                f"{path} parameter {name}",
                f"must act on one of the data's {width} input column(s), not on input {dim}",
            )


def _check_internal(
    values: np.ndarray, shift: Any, scale: Any, where: str, path: str, axis: str
) -> None:
    """The data within ±INTERNAL_LIMIT of the shift in units of the scale (per column)."""
    reach = np.abs(values - np.asarray(shift, dtype=float)) / np.asarray(scale, dtype=float)
    if reach.size and float(np.max(reach)) > INTERNAL_LIMIT:
        at = np.unravel_index(int(np.argmax(reach)), reach.shape)
        field = path + "".join(f"[{i}]" for i in at)
        refuse(
            where,
            f"internal.scaling.{axis}_shift and {axis}_scale",
            f"must put {path} within ±{INTERNAL_LIMIT:g} in internal units"
            f" (({axis} - {axis}_shift) / {axis}_scale), not {field} at {float(np.max(reach)):.3g}",
        )


def _check_engine(
    engine: dict[str, Any], scaling: dict[str, Any], width: int, where: str, path: str
) -> None:
    """The engine's entries are its own settings (of its specs, ``Engine.record_fields``) and
    its state's (``state_keys``); those holding inputs (``state_inputs``) rows of the data's
    width, within the internal limit as the data are."""
    cls = engine_class(engine["name"])
    for key, value in engine.items():
        key_path = join(path, key)
        if key in cls.record_fields:
            check(value, cls.record_fields[key], where, key_path)
        elif key in cls.state_inputs:
            z_spec = Numbers(DATUM, 1) if width == 1 else Rows(DATUM, width, 1)
            check(value, z_spec, where, key_path)
            z = np.array(value, dtype=float)
            _check_internal(z, scaling["x_shift"], scaling["x_scale"], where, key_path, "x")
        elif key != "name" and key not in cls.state_keys:
            refuse(where, key_path, f"is not a setting of the {engine['name']} engine")
