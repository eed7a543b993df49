"""``abcd predict``: the predictive distribution of y at new x, from a saved model."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from abcd_cli.found import SEED_WEIGHTS

#: From this many models × rows on (a few seconds' work), the rows done go to stderr.
PROGRESS_ELEMENTS = 2_000_000
#: Output names whose suffix promises another format than the CSV text predict writes.
NOT_CSV = (".xlsx", ".xlsm", ".xls", ".parquet", ".json")


@click.command(short_help="Predict y at new x from a saved model.")
@click.argument("model_file", metavar="MODEL.json")
@click.argument("inputs", metavar="[X.csv]", required=False)
@click.option("-o", "--output", required=True, metavar="OUT.csv", help="Where to write the table.")
@click.option(
    "--ahead",
    type=click.IntRange(min=1),
    metavar="N",
    help="Instead of X.csv: the next N steps after the data, at its own spacing (dates stay"
    " dates: monthly data give the next N months). A model of one input only.",
)
@click.option(
    "--x",
    "x",
    metavar="COL",
    help="Column of X.csv holding x (name or number); a model of several inputs reads its"
    " columns by their names.",
)
@click.option(
    "--average-seeds",
    is_flag=True,
    help="MODEL.json from `abcd search --seeds K`: predict with the mixture of all K searches'"
    " models instead of the lowest-BIC one.",
)
@click.option(
    "--seed-weights",
    type=click.Choice(SEED_WEIGHTS),
    help="With --average-seeds: weigh each model by its evidence exp(-BIC/2) (the default), or"
    " all equally.",
)
def predict(
    model_file: str,
    inputs: str | None,
    output: str,
    ahead: int | None,
    x: str | None,
    average_seeds: bool,
    seed_weights: str | None,
) -> None:
    """Write the predictive mean, standard deviation and 2.5/10/50/90/97.5% quantiles of y at
    every x of X.csv (or, with --ahead N, at the next N steps after the data), in the data's
    units. MODEL.json comes from `abcd search --json`; one of `--method posterior` predicts
    with the mixture of its posterior. A model of several inputs reads them from the columns of
    X.csv with their names (in any order; other columns are ignored)."""
    from abcd_cli.ahead import future_inputs
    from abcd_cli.cli.output import echo
    from abcd_cli.data.frames import cell_texts
    from abcd_cli.data.reader import load_inputs
    from abcd_cli.data.table import capped
    from abcd_cli.destinations import check_destinations
    from abcd_cli.errors import InputError
    from abcd_cli.files import is_standard_stream, shown, write_output
    from abcd_cli.found import read_model
    from abcd_cli.prediction import predictive_table, to_csv

    check_destinations({"MODEL.json": model_file, "X.csv": inputs}, {"-o": output})
    if Path(output).suffix.lower() in NOT_CSV:
        raise InputError(
            f"-o {output}: abcd predict writes a CSV table; name the output .csv (or - for"
            " standard output)"
        )
    if seed_weights and not average_seeds:
        raise InputError("--seed-weights only applies with --average-seeds")
    if (inputs is None) == (ahead is None):
        raise InputError(
            "give X.csv (the new inputs) or --ahead N (the next N steps after the data), not both"
            if inputs is not None
            else "give X.csv (a file of new inputs) or --ahead N (the next N steps after the data)"
        )
    if ahead is not None and x is not None:
        raise InputError("--x chooses a column of X.csv; --ahead reads no X.csv")
    found = read_model(model_file)
    models, weights, mixed = found.predictive_models(
        average_seeds,
        seed_weights or "evidence",
        f"{model_file} holds one search's model; --average-seeds needs a file from"
        " 'abcd search --seeds K --json' with K > 1",
    )
    mixed = f"; {mixed}" if mixed else ""
    if x is not None and len(found.x_names) > 1:
        named = capped(list(map(repr, found.x_names)))
        raise InputError(
            f"--x chooses the column of a model of one input; this model reads its"
            f" {len(found.x_names)} inputs by their names ({named})"
        )
    if inputs is None:
        future = future_inputs(found, ahead or 0)
        values, columns, names = future.values[:, None], [cell_texts(future.given)], found.x_names
    else:
        values, columns, names, kinds = load_inputs(inputs, found.x_names, x)
        for d, (name, kind) in enumerate(zip(names, kinds, strict=True)):
            values[:, d] = found.checked_x(values[:, d], kind, f"{inputs}: column {name!r}", d)
    rows = values.shape[0]
    shown_progress = len(models) * rows >= PROGRESS_ELEMENTS
    table = predictive_table(
        models, values, weights, _progress(len(models)) if shown_progress else None
    )
    if not average_seeds:
        table = found.calibrated(table, values)
    write_output(output, to_csv(names, columns, table), "the table")
    echo(f"wrote {shown(output)} ({len(columns[0])} rows{mixed})", err=is_standard_stream(output))


def _progress(models: int) -> Callable[[int, int], None]:
    """A line on stderr each time another tenth of the rows is predicted."""
    said = [0]

    def say(done: int, total: int) -> None:
        tenth = 10 * done // total
        if tenth > said[0]:
            said[0] = tenth
            plural = "s" if models > 1 else ""
            click.echo(f"predict: {done:,} of {total:,} rows ({models} model{plural})", err=True)

    return say
