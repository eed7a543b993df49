"""``abcd update``: a saved model takes new observations, without a new search."""

from __future__ import annotations

import functools

import click


@click.command(short_help="Add new observations to a saved model without a new search.")
@click.argument("model_file", metavar="MODEL.json")
@click.argument("new_data", metavar="NEW.csv")
@click.option(
    "-o", "--output", required=True, metavar="OUT.json", help="Where to write the updated model."
)
@click.option(
    "--x",
    "x",
    metavar="COL",
    help="NEW.csv's column(s) holding the model's inputs, when named otherwise (name or number;"
    " several as a,b,c in the model's order).",
)
@click.option("--y", "y", metavar="COL", help="NEW.csv's column holding y, when named otherwise.")
@click.option(
    "--jobs",
    type=click.IntRange(0),
    default=0,
    show_default=True,
    help="Worker processes for a posterior's structures (0: one per core; 1: serial).",
)
@click.option("--quiet", is_flag=True, help="No progress lines.")
def update(
    model_file: str,
    new_data: str,
    output: str,
    x: str | None,
    y: str | None,
    jobs: int,
    quiet: bool,
) -> None:
    """Append the rows of NEW.csv to the model of MODEL.json (from `abcd search --json`) and
    write the model of all the points to OUT.json, without a new search: the structure's
    parameters are refitted from their values (with `--method posterior`, every structure is
    refitted and weighed again). NEW.csv holds the model's input and y columns by name.

    A warning says when the new points lie outside the old model's one-step 95% predictive
    band clearly more often than 5% of the time: the model may need a new search."""
    import abcd_cli
    from abcd_cli.cli.output import echo
    from abcd_cli.destinations import check_destinations
    from abcd_cli.files import is_standard_stream, shown
    from abcd_cli.found import read_model

    check_destinations({"MODEL.json": model_file, "NEW.csv": new_data}, {"-o": output})
    found = read_model(model_file)
    progress = None if quiet else functools.partial(echo, err=True)
    updated = abcd_cli.update(found, new_data, x=x, y=y, jobs=jobs, progress=progress)
    say = functools.partial(echo, err=is_standard_stream(output))
    model = updated.model
    say(f"{model.structure}   BIC {model.bic:.2f}   log likelihood {-model.nll:.2f}   n={model.n}")
    say(f"kernel: {model.kernel_text(digits=6)}")
    for note in updated.document["notes"][len(found.document.get("notes") or []) :]:
        say(f"note: {note}")
    updated.save(output)
    say(f"wrote {shown(output)}")
