"""Options shared by the commands that search: one decorator per group of options."""

from __future__ import annotations

import re
from typing import Any

import click

from abcd_cli.api import DEFAULTS
from abcd_cli.engines import engine_choices
from abcd_cli.errors import InputError
from abcd_cli.kernel_search.engine_choice import AUTO_THRESHOLD
from abcd_cli.kernel_search.grammar import BASES, LANGUAGES
from abcd_cli.kernel_search.methods import METHODS
from abcd_cli.kernel_search.screening import KEEP_PROBABILITY
from abcd_cli.kernel_search.settings import (
    BUDGET_FIELDS,
    MAX_DRAWS,
    MAX_SEED,
    MAX_SEED_TEXT,
    PRIOR_MEANS,
    REFINE_MIN,
    SMC_FIELDS,
    TABLE_SEARCHES,
)
from abcd_cli.kernels.additive import MAX_ORDER

LANGUAGE_NAMES = tuple(LANGUAGES)
#: The options that become SearchSettings fields, under the same names.
SETTING_NAMES = (
    "depth",
    "restarts",
    "seed",
    "seeds",
    "beam",
    "beam_levels",
    "language",
    "bases",
    "interpretable",
    "screen",
    "table_search",
    "screen_fits",
    "subset_size",
    "refine_size",
    "patience",
    "prior_mean",
    "max_order",
    "engine",
    "inducing",
    "final_polish",
    "buffer",
    "method",
    "pool",
)


#: The options of one method, each given only with it (None: the settings' own default).
METHOD_OPTIONS = {"pool": "posterior", **dict.fromkeys((*SMC_FIELDS, *BUDGET_FIELDS), "smc")}


def settings_of(opts: dict[str, Any]) -> dict[str, Any]:
    """The search settings among a command's options, as keywords of ``abcd_cli.search``
    (a method's own option, ``METHOD_OPTIONS``, only with that method: refused rather than
    ignored otherwise)."""
    settings = {name: opts[name] for name in (*SETTING_NAMES, *SMC_FIELDS, *BUDGET_FIELDS)}
    for name, method in METHOD_OPTIONS.items():
        if settings[name] is not None and opts["method"] != method:
            flag = "--" + name.replace("_", "-")
            raise InputError(f"{flag} only applies with --method {method}")
        if settings[name] is None:
            del settings[name]  # the settings' own default
    if "budget" in settings:
        settings["budget"] = budget_seconds(settings["budget"])
    if "moves_plan" in settings:
        settings["moves_plan"] = moves_plan(settings["moves_plan"])
    return settings


def budget_seconds(text: str) -> float:
    """--budget's value as seconds (SearchSettings checks that it is above 0); InputError when
    it is not a number."""
    try:
        return float(text)
    except ValueError:
        raise InputError(
            f"--budget must be a number of seconds above 0, not {_shown(text)}"
        ) from None


def moves_plan(text: str) -> list[tuple[int, int]]:
    """--moves-plan's value, "S:P,S:P,...", as (structure, parameter) moves per data step
    (SearchSettings checks the counts); InputError when it is not written so."""
    pairs = [part.strip() for part in text.split(",")]
    if not all(re.fullmatch(r"[0-9]{1,9}:[0-9]{1,9}", part) for part in pairs):
        raise InputError(
            f"--moves-plan must be S:P pairs (structure and parameter moves of each data step)"
            f" separated by commas, not {_shown(text)}"
        )
    return [(int(a), int(b)) for a, b in (part.split(":") for part in pairs)]


def _setting_options() -> list[Any]:
    """The options that become the SearchSettings (and --jobs and --scheduler, which do not
    change results),
    in the order --help lists them."""
    return [
        *_effort_options(),
        *_strategy_options(),
        *_sampler_options(),
        *_engine_options(),
        *_model_options(),
    ]


def _sampler_options() -> list[Any]:
    """The sampler's settings (``--method smc``), each a whole number."""
    helps = {
        "particles": ("N", 2, "particles"),
        "data_steps": ("N", 1, "nested steps in which the data are added"),
        "first_points": ("N", 1, "points of the first step"),
        "structure_moves": ("N", 0, "structure moves per particle and step"),
        "parameter_moves": ("N", 0, "parameter moves per particle and step"),
    }
    return [
        *(
            click.option(
                "--" + name.replace("_", "-"),
                type=click.IntRange(low, MAX_DRAWS if name == "particles" else None),
                default=None,
                metavar=metavar,
                help=f"With --method smc: the sampler's {what}"
                f" [default: {getattr(DEFAULTS, name)}].",
            )
            for name, (metavar, low, what) in helps.items()
        ),
        click.option(
            "--budget",
            metavar="SECONDS",
            default=None,
            help="With --method smc: finish the sampler within this many seconds, making fewer"
            " moves per data step when the steps so far project past it (never below one each)."
            " The plan it used is saved in the model file's settings (moves_plan) and gives the"
            " result again; it depends on the machine's speed.",
        ),
        click.option(
            "--moves-plan",
            metavar="S:P,...",
            default=None,
            help="With --method smc: the structure and parameter moves of each data step (as a"
            " budgeted run's model file records them), instead of --structure-moves and"
            " --parameter-moves.",
        ),
    ]


def _effort_options() -> list[Any]:
    """How much searching: levels, restarts, seeds, and where the fits run."""
    return [
        click.option(
            "--depth",
            type=click.IntRange(0, 50),
            default=DEFAULTS.depth,
            show_default=True,
            help="Levels of the greedy search.",
        ),
        click.option(
            "--restarts",
            type=click.IntRange(1, 100),
            default=DEFAULTS.restarts,
            show_default=True,
            help="Random starts per candidate model.",
        ),
        click.option(
            "--seed",
            metavar="INTEGER",
            default="0",
            show_default=True,
            callback=_seed,
            help="Seed of every random choice: one seed, one result.",
        ),
        click.option(
            "--seeds",
            type=click.IntRange(1, 20),
            default=DEFAULTS.seeds,
            show_default=True,
            help="Run this many searches (seeds SEED, SEED+1, ...) and keep the lowest BIC"
            " (with --method posterior: weigh their pools' structures together); the time"
            " grows in proportion.",
        ),
        click.option(
            "--jobs",
            type=click.IntRange(0, 512),
            default=0,
            show_default=True,
            help="Worker processes (0: one per core, 1: serial).",
        ),
        click.option(
            "--scheduler",
            metavar="local|ADDRESS",
            callback=_scheduler,
            help="Fit on Dask: 'local' starts a local cluster of --jobs workers; an address"
            " (tcp://host:8786) uses a running cluster. Needs pip install 'abcd-cli[dask]'.",
        ),
    ]


def _shown(value: str, limit: int = 60) -> str:
    """An option's value quoted for a message, shortened when long."""
    return repr(value if len(value) <= limit else value[: limit - 3] + "...")


def _seed(ctx: click.Context, param: click.Parameter, value: str) -> int:
    """--seed's value as an int from 0 to MAX_SEED; otherwise a usage error, as for the other
    options' values, that quotes the value shortened (numpy refuses negative seeds, and larger
    ones add nothing: ``kernel_search.settings.MAX_SEED``)."""
    text = str(value).strip()
    seed = int(text) if re.fullmatch(r"[+-]?[0-9]{1,60}", text) else None
    if seed is None or not 0 <= seed <= MAX_SEED:
        raise click.BadParameter(
            f"{_shown(str(value))} is not a whole number from 0 to {MAX_SEED_TEXT}."
        )
    return seed


def _scheduler(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """--scheduler's value: 'local' (in any case) or a well-formed scheduler address; a
    one-line error naming the value otherwise (whether the address answers is found out
    when connecting)."""
    if value is None:
        return None
    if value.strip().lower() == "local":
        return "local"
    from abcd_cli.execution.cluster import check_address

    check_address(value)
    return value


def _strategy_options() -> list[Any]:
    """How the search moves: its method, beam, model space, subsets and when to stop."""
    return [
        click.option(
            "--method",
            type=click.Choice(METHODS),
            default=DEFAULTS.method,
            show_default=True,
            help="'greedy': the one structure of lowest BIC (the original search);"
            " 'posterior': the --pool best structures of that search (of each of --seeds"
            " searches, jointly) weighed by their evidence, with draws of their parameters;"
            " forecasts and predictions come from their mixture; 'smc': structures and"
            " parameters sampled by sequential Monte Carlo (its options below).",
        ),
        click.option(
            "--pool",
            type=click.IntRange(1, 200),
            default=None,
            help="With --method posterior: the structures of lowest BIC that each search keeps"
            f" and are weighed [default: {DEFAULTS.pool}].",
        ),
        click.option(
            "--beam",
            type=click.IntRange(1, 20),
            default=DEFAULTS.beam,
            show_default=True,
            help="Models kept and expanded at each of the first --beam-levels levels (1: greedy).",
        ),
        click.option(
            "--beam-levels",
            type=click.IntRange(0, 50),
            default=DEFAULTS.beam_levels,
            show_default=True,
            help="Levels that keep --beam models; later levels keep the best one (0: all).",
        ),
        click.option(
            "--language",
            type=click.Choice(sorted(LANGUAGE_NAMES)),
            default=DEFAULTS.language,
            show_default=True,
            help="Space of models to search.",
        ),
        click.option(
            "--bases",
            metavar="K[,K...]",
            default=",".join(DEFAULTS.bases),
            show_default=True,
            help="Base kernels the abcd language adds, from " + ", ".join(BASES) + " (every"
            " model starts from white noise); e.g. SE,RQ, as the thesis searched tables of"
            " several inputs.",
        ),
        click.option(
            "--max-order",
            type=click.IntRange(1, MAX_ORDER),
            default=None,
            help="With --language additive: the highest order of interaction [default: the"
            f" number of inputs, at most {MAX_ORDER}].",
        ),
        click.option(
            "--interpretable",
            is_flag=True,
            help="Distribute products over sums during the search (ABCD-interpretability).",
        ),
        click.option(
            "--screen/--no-screen",
            default=DEFAULTS.screen,
            show_default=True,
            help="On a table of several inputs (language abcd): choose the inputs, interactions"
            " and orders to search by one fit of the additive GP first, and search only those"
            " (faster; measured less accurate on some tables: docs/findings.md).",
        ),
        click.option(
            "--table-search",
            type=click.Choice(TABLE_SEARCHES),
            default=DEFAULTS.table_search,
            show_default=True,
            help="How a table of several inputs (language abcd) is searched: 'grammar', the"
            " grammar's levels (restricted by --screen); 'coordinate', one fit of the additive"
            " GP chooses the inputs and interacting pairs, then each input's kernel and each"
            " pair's product are chosen by BIC one at a time (docs/usage.md).",
        ),
        click.option(
            "--screen-fits",
            type=click.IntRange(1, None),
            default=DEFAULTS.screen_fits,
            show_default=True,
            metavar="N",
            help="A table's screen (--screen or --table-search coordinate): with N > 1, the"
            " additive GP is also fitted on N random halves of the rows and an input is kept"
            f" when at least {KEEP_PROBABILITY:.0%} of those fits keep it; the notes state each"
            " input's and pair's"
            " share of the fits (docs/usage.md).",
        ),
        click.option(
            "--subset-size",
            type=click.IntRange(20, 100000),
            default=DEFAULTS.subset_size,
            show_default=True,
            help="Above this many points, optimise on a subset and refine on all.",
        ),
        click.option(
            "--refine-size",
            type=click.IntRange(20, 10**7),
            default=DEFAULTS.refine_size,
            help="Above this many points, refine on a subset of this size and fit on all the"
            " points only the models the next level expands [default: a tenth of the points,"
            f" at least {REFINE_MIN:,}].",
        ),
        click.option(
            "--patience",
            type=click.IntRange(0, 50),
            default=DEFAULTS.patience,
            show_default=True,
            help="Stop after this many levels without a better BIC (0: never).",
        ),
    ]


def _whole_number(ctx: click.Context, param: click.Parameter, value: str | None) -> int | None:
    """--inducing's value as an int; a one-line error (not click's usage text) otherwise."""
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise InputError(
            f"--inducing takes a whole number of inducing inputs, not {value!r}"
        ) from None


def _engine_options() -> list[Any]:
    """How likelihoods are computed: exactly, or bounded through inducing inputs."""
    return [
        click.option(
            "--engine",
            metavar="|".join(engine_choices()),
            default=DEFAULTS.engine,
            show_default=True,
            help="'exact': the full Gaussian process; 'skc': bounds through inducing inputs,"
            " for long series; 'statespace': the exact likelihood of one input by a Kalman"
            " filter where that is cheaper, for the series 'exact' takes;"
            f" 'auto': exact below {AUTO_THRESHOLD} points, skc from there.",
        ),
        click.option(
            "--inducing",
            metavar="M",
            callback=_whole_number,
            help="Inducing inputs of the skc engine (default: every point up to 500, 500 up"
            " to 64,000 points, then fewer, 400 at 100,000). More: tighter bounds, slower.",
        ),
        click.option(
            "--final-polish",
            type=click.IntRange(min=0),
            metavar="ITER",
            help="With the skc engine, L-BFGS-B iterations polishing the chosen model on all"
            " the data by the CGLB bound before the report, kept when its BIC is lower"
            " (default: 25; 0: none). Other engines do not polish.",
        ),
        click.option(
            "--buffer",
            type=click.IntRange(1, 20),
            default=DEFAULTS.buffer,
            show_default=True,
            help="With the skc engine, the most models each level expands: the beam and those"
            " whose BIC intervals overlap the best one's. Fewer: quicker levels when the"
            " intervals are wide.",
        ),
    ]


def _model_options() -> list[Any]:
    """What every model assumes: its prior mean."""
    return [
        click.option(
            "--prior-mean",
            type=click.Choice(PRIOR_MEANS),
            default=DEFAULTS.prior_mean,
            show_default=True,
            help="What the model expects before seeing data: the series' mean; zero (as the"
            " original system did; a constant component then carries the level); or 'constant', a"
            " level of unknown value estimated with each model.",
        ),
    ]


QUIET_OPTION = click.option("--quiet", is_flag=True, help="No progress lines on stderr.")
X_OPTION = click.option(
    "--x",
    "x",
    metavar="COL[,COL...]",
    help="Column holding time or the one input (name or 1-based number), or several inputs as"
    " a,b,c [default: with more than two columns, every column holding numbers or dates but y].",
)
Y_OPTION = click.option(
    "--y", "y", metavar="COL", help="Column holding the values (name or number)."
)


def _decorate(fn: Any, options: list[Any]) -> Any:
    """fn with the options applied so that --help lists them in this order."""
    for option in reversed(options):
        fn = option(fn)
    return fn


def search_options(fn: Any, data_required: bool = True) -> Any:
    """The options shared by every command that searches one series."""
    return _decorate(
        fn,
        [
            click.argument("data", metavar="DATA.csv", required=data_required),
            X_OPTION,
            Y_OPTION,
            *_setting_options(),
            click.option(
                "--checkpoint",
                metavar="PATH",
                help="Where to keep the search state (default: beside the output).",
            ),
            click.option("--resume", is_flag=True, help="Continue an interrupted search."),
            QUIET_OPTION,
        ],
    )


def batch_search_options(fn: Any) -> Any:
    """The search options of a batch over many series (each keeps its own checkpoint)."""
    return _decorate(fn, [*_setting_options(), QUIET_OPTION])
