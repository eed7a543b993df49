"""A fitted model: the kernel, the data it was fitted to, its scores, all in the user's units.

``Model.to_dict`` / ``Model.from_dict`` are the JSON form shared by ``abcd search --json``,
``abcd report`` and ``abcd predict``; the data travel with the model so a saved file is enough to
predict or report again. A model of another engine than the default exact one also records the
engine (``engine_record``: name, settings, the engine's state such as skc's inducing inputs) and
its interval of BIC and log likelihood; an exact model's file has neither (zero width), as
before engines had them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from abcd_cli.arrays import as_2d
from abcd_cli.data.checks import MAX_MAGNITUDE
from abcd_cli.data.scaling import Scaling
from abcd_cli.engine_record import engine_record, read_engine
from abcd_cli.engines import get_engine
from abcd_cli.engines.base import Engine, EngineState, NLLBounds, Posterior, PosteriorError
from abcd_cli.errors import InputError
from abcd_cli.kernel_search.posterior import StructurePosterior
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.algebra import count_params
from abcd_cli.kernels.text import parse_kernel


def bic(nll: float, n_params: int, n: int) -> float:
    """Bayesian information criterion, BIC = 2·NLL + p·log n (lower is better)."""
    return 2.0 * nll + n_params * math.log(n)


@dataclass(frozen=True)
class Model:
    """A kernel fitted to (x, y). ``kernel`` is in internal units, ``user_kernel`` in the user's.

    ``constant_mean``: the prior mean is a constant of unknown value (flat prior), integrated
    out; otherwise it is ``scaling.y_shift``. ``engine`` conditions the model on its data
    (the exact GP unless told otherwise). ``nll_bounds``: low ≤ −log p(y) ≤ high in the user's
    units as the search found them (None: see ``bounds``). ``engine_state``: what a model file
    recorded of the engine's state (skc's inducing inputs, in the user's units); the engine
    then conditions through it instead of choosing its own. ``x_names``: the input columns'
    names, which the kernel's text uses with several inputs (``SE[weight]``).

    ``x`` is kept as given, (N,) for one input or (N, D), and written so to the model file;
    ``X`` is it as (N, D) whatever D. The constructor refuses (ValueError) an x whose rows are
    not y's or whose columns are not the scaling's inputs."""

    kernel: Kernel
    scaling: Scaling
    x: np.ndarray
    y: np.ndarray
    nll: float  # −log p(y) in the user's units of y
    constant_mean: bool = False
    engine: Engine = field(default_factory=get_engine, compare=False, repr=False)
    nll_bounds: NLLBounds | None = field(default=None, compare=False)
    engine_state: EngineState | None = field(default=None, compare=False, repr=False)
    x_names: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        if not _inputs_fit(self.x, self.y, self.scaling.n_dims):
            raise ValueError(
                f"x must be (N,) or (N, D) with N = {np.size(self.y)} (y's points) and"
                f" D = {self.scaling.n_dims} (the scaling's inputs), not {np.shape(self.x)}"
            )

    @property
    def X(self) -> np.ndarray:
        """The inputs as (N, D), whatever D (a view of ``x`` when it holds floats)."""
        return as_2d(self.x)

    @property
    def n(self) -> int:
        return int(self.y.size)

    @property
    def n_dims(self) -> int:
        """Input dimensions: the columns of ``X``."""
        return int(self.X.shape[1])

    @cached_property
    def user_kernel(self) -> Kernel:
        return self.scaling.kernel_out(self.kernel)

    def kernel_text(self, digits: int | None = None) -> str:
        """The kernel in the user's units as text, its inputs named by their columns."""
        return self.user_kernel.to_text(digits=digits, names=self.x_names)

    @property
    def structure(self) -> str:
        """The kernel without its values, e.g. ``SE[weight] * Lin[year] + WN``."""
        return self.kernel.to_text(params=False, names=self.x_names)

    @property
    def prior_mean(self) -> str:
        """What the model expects before the data: "constant" (a level estimated with it),
        "data" (the training mean) or "zero"."""
        if self.constant_mean:
            return "constant"
        return "data" if self.scaling.y_shift != 0.0 else "zero"

    @property
    def n_params(self) -> int:
        return count_params(self.kernel)

    @property
    def bic(self) -> float:
        return bic(self.nll, self.n_params, self.n)

    @cached_property
    def bounds(self) -> NLLBounds:
        """low ≤ −log p(y) ≤ high in the user's units: ``nll_bounds`` when given, zero width
        at ``nll`` for an engine of exact likelihoods, else the engine's score on the data
        (the sparse engine's upper bound costs O(N²) time per conjugate-gradient step: a search
        passes its own)."""
        if self.nll_bounds is not None:
            return self.nll_bounds
        if self.engine.capabilities.exact_likelihood:
            return NLLBounds.exact(self.nll)
        sc, n_free = self.scaling, self.n - self.constant_mean
        b = self._engine.score(self.kernel, sc.x_in(self.X), sc.y_in(self.y), self.constant_mean)
        # the upper end stays the model's own nll (its BIC is the interval's upper end), though
        # the score's may be lower (skc's CGLB through the PCG vector)
        return NLLBounds(min(sc.nll_out(b.low, n_free), self.nll), self.nll)

    @property
    def bic_interval(self) -> tuple[float, float]:
        """[2·low + p·log n, 2·high + p·log n] from ``bounds`` (zero width when exact)."""
        b = self.bounds
        return bic(b.low, self.n_params, self.n), bic(b.high, self.n_params, self.n)

    @cached_property
    def _engine(self) -> Engine:
        """The engine, carrying the recorded state when there is one."""
        return self.engine.with_state(self.engine_state, self.scaling)

    @cached_property
    def posterior(self) -> Posterior:
        """The internal-unit kernel conditioned on the internal-unit data."""
        return self._engine.posterior(
            self.kernel, self.scaling.x_in(self.X), self.scaling.y_in(self.y), self.constant_mean
        )

    def predict(self, x_new: np.ndarray, noise: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Predictive mean and standard deviation of y (or of f, without noise) in user units."""
        mean, var = self.posterior.predict(self.scaling.x_in(x_new), noise=noise)
        return self.scaling.y_out(mean), self.scaling.y_scale * np.sqrt(var)

    def parameters(self) -> list[dict[str, object]]:
        """Every parameter with its dotted path, kernel and value in the user's units."""
        k = self.user_kernel
        return [
            {"name": name, "value": float(v)}
            for name, v in zip(k.param_names(), k.values(), strict=True)
        ]

    def to_dict(self, with_data: bool = True) -> dict[str, object]:
        d = {
            "kernel": self.kernel_text(),
            "structure": self.structure,
            "bic": self.bic,
            "log_likelihood": -self.nll,
            "n": self.n,
            "n_params": self.n_params,
            "parameters": self.parameters(),
            "internal": {
                "kernel": self.kernel.to_text(),
                "constant_mean": self.constant_mean,
                "scaling": self.scaling.to_dict(),
            },
        }
        state = self.engine_state
        if state is None:
            state = self.engine.state(self.x, self.scaling)
        record = engine_record(self.engine, state)
        if record is not None:
            low, high = self.bic_interval
            d["bic_interval"] = [low, high]
            d["log_likelihood_interval"] = [-self.bounds.high, -self.bounds.low]
            d["engine"] = record
        if with_data:
            d["data"] = {"x": self.x.tolist(), "y": self.y.tolist()}
            if self.n_dims > 1 and self.x_names:
                d["data"]["x_names"] = list(self.x_names)
        return d

    @classmethod
    def from_dict(cls, d: dict, where: str = "model file") -> Model:
        """Rebuild a model from ``to_dict`` output; InputError (its message led by ``where``)
        when the content is not a model. A model file's document is checked in full before
        (:func:`abcd_cli.model_file.check_model_document`); these checks guard a bare dict."""
        try:
            internal = d["internal"]
            scaling = Scaling.from_dict(internal["scaling"])
            kernel = parse_kernel(internal["kernel"])
            x = np.asarray(d["data"]["x"], dtype=float)
            y = np.asarray(d["data"]["y"], dtype=float)
            nll = -float(d["log_likelihood"])
            constant_mean = internal.get("constant_mean", False)
            interval = d.get("log_likelihood_interval")  # [low, high] of log p(y)
            bounds = _nll_bounds(interval)
            x_names = tuple(d["data"].get("x_names") or ())
        except (AttributeError, KeyError, IndexError, TypeError, ValueError, OverflowError) as exc:
            raise InputError(
                f"not a model file from 'abcd search --json': missing or bad {exc}"
            ) from None
        if not _data_fit(x, y, scaling, kernel) or not kernel.is_fitted:
            raise InputError(f"{where}: data or kernel parameters are incomplete")
        if not (np.all(np.abs(x) <= MAX_MAGNITUDE) and np.all(np.abs(y) <= MAX_MAGNITUDE)):
            raise InputError(f"{where}: data must be finite numbers within ±{MAX_MAGNITUDE:g}")
        if not isinstance(constant_mean, bool):
            raise InputError(f"{where}: constant_mean must be true or false")
        if x_names and (
            len(x_names) != scaling.n_dims or not all(isinstance(n, str) for n in x_names)
        ):
            raise InputError(f"{where}: x_names must hold one name per input column")
        engine, state = read_engine(d.get("engine"), scaling, where)
        check_conditionable(engine, y.size, where)
        return cls(
            kernel, scaling, x, y, nll, constant_mean, engine, bounds, state, x_names=x_names
        )


def check_conditionable(engine: Engine, n: int, where: str) -> None:
    """Refuse (``InputError`` led by ``where``) a model whose engine would not take its ``n``
    points: the engine's own size check, the one that refuses them to a search
    (``Engine.check_size``), priced at a default search's evaluations per level."""
    try:
        engine.check_size(n, SearchSettings().full_data_evaluations)
    except InputError as exc:
        raise InputError(
            f"{where}: its model of {n} points cannot be conditioned on its data by its engine"
            f" ({engine.name}): {exc}"
        ) from None


def _nll_bounds(interval: object) -> NLLBounds | None:
    """NLL bounds from a file's [low, high] interval of log p(y) (None when there is none)."""
    if interval is None:
        return None
    low, high = (float(v) for v in interval)  # type: ignore[attr-defined]
    if not low <= high:
        raise ValueError("log_likelihood_interval's low end above its high end")
    return NLLBounds(-high, -low)


def _data_fit(x: np.ndarray, y: np.ndarray, scaling: Scaling, kernel: Kernel) -> bool:
    """Whether x (N,) or (N, D) and y (N,) belong together, with the scaling's D columns and
    every kernel parameter on one of them."""
    dims = [dim for _, dim in kernel.param_specs()]
    return _inputs_fit(x, y, scaling.n_dims) and all(0 <= d < scaling.n_dims for d in dims)


def _inputs_fit(x: np.ndarray, y: np.ndarray, n_dims: int) -> bool:
    """Whether x is (N,) or (N, D) with D = ``n_dims``, for y (N,)."""
    X = as_2d(x)
    return X.ndim == 2 and np.ndim(y) == 1 and X.shape == (np.size(y), n_dims)


def seed_models(doc: dict, where: str = "model file") -> dict[int, Model]:
    """Every search's model from a document of ``abcd search --seeds K`` (K > 1), by seed in the
    file's order, each rebuilt on the document's data; {} when the document holds one search.
    InputError led by ``where`` when an entry is not one."""
    entries = doc.get("seed_models") or []
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise InputError(f"{where}: seed_models must be a list of models")
    models: dict[int, Model] = {}
    for i, entry in enumerate(entries):
        seed = entry.get("seed")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0 or seed in models:
            raise InputError(f"{where}: seed_models[{i}]: seed must be a new whole number")
        try:
            models[seed] = Model.from_dict({**entry, "data": doc.get("data")}, where)
        except InputError as exc:
            raise InputError(f"{where}: seed_models[{i}]: {exc}") from None
    return models


def posterior_of(doc: dict, model: Model) -> StructurePosterior:
    """The weighted particles of a model document (checked by the model file's schema
    before): its ``posterior``, or, in a file that holds none, ``model`` alone
    (``StructurePosterior.single``)."""
    entry = doc.get("posterior")
    if entry is None:
        return StructurePosterior.single(model.kernel, model.bic)
    return StructurePosterior.from_dict(entry)


def searches_of(doc: dict) -> int:
    """How many searches a document's search ran (``settings.seeds``; 1 when it says not):
    with ``--method posterior``, the searches whose pools its posterior weighed together."""
    seeds = (doc.get("settings") or {}).get("seeds", 1)
    return seeds if isinstance(seeds, int) and not isinstance(seeds, bool) and seeds > 1 else 1


#: The posterior's particles as conditioned models, and their weights (``particle_models``).
Particles = tuple[list[Model], np.ndarray]


def particle_models(
    model: Model, posterior: StructurePosterior, where: str = "model file"
) -> Particles:
    """A model per particle of ``posterior``'s structures that hold its weight (its kernel,
    on ``model``'s data, scaling and engine), each conditioned on the data, and the
    particles' weights, summing to one: the structures outside the smallest set holding
    1 − ``posterior.HELD_NEGLIGIBLE`` of the weight are left out, and each held structure
    gives ``posterior.HELD_DRAWS`` of its draws (``StructurePosterior.held``), the rest's
    weights divided by what they hold. InputError led by ``where`` naming the
    particle that cannot be conditioned. The model alone (``is_single``) is its own particle."""
    if posterior.is_single:
        return [model], np.ones(1)
    models, weights = [], []
    for (i, j), kernel, weight in posterior.held().particles():
        particle = replace(model, kernel=kernel, nll=math.nan, nll_bounds=None)
        try:
            with np.errstate(all="ignore"):  # a failure is the error below, not a warning
                particle.posterior  # noqa: B018  (cached: its predictions use it)
        except PosteriorError as exc:
            raise InputError(
                f"{where}: posterior.structures[{i}].theta[{j}]: the model cannot be"
                f" conditioned on its data: {exc}"
            ) from None
        models.append(particle)
        weights.append(weight)
    w = np.array(weights)
    return models, w / w.sum()
