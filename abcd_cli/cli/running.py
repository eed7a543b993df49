"""Running a search from a command's options: progress lines, checkpoints and interrupts."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from typing import Any

import click

import abcd_cli
from abcd_cli.cli.errors import EXIT_INTERRUPTED, sigterm_as_interrupt
from abcd_cli.cli.options import settings_of
from abcd_cli.cli.progress import display
from abcd_cli.files import is_standard_stream
from abcd_cli.found import FoundModel
from abcd_cli.kernel_search.settings import SearchSettings


def default_checkpoint(data: str, out: str | None, settings: SearchSettings) -> str:
    """Beside the output (``OUT.ckpt.json``), else ``.STEM-DIGEST.abcd.ckpt.json`` in the
    current folder, DIGEST telling the data file's absolute path and the settings apart
    (``kernel_search.checkpoint_names``); either shortened to fit the file system."""
    from abcd_cli.kernel_search.checkpoint_names import (
        data_checkpoint,
        derived_extra,
        output_checkpoint,
    )

    extra = derived_extra(settings.seed, settings.seeds, settings.pool_size > 0)
    if out and not is_standard_stream(out):
        return str(output_checkpoint(out, extra))
    source = None if is_standard_stream(data) else data
    return str(data_checkpoint(source, settings.to_dict(), extra))


def prepare_search(
    opts: dict[str, Any], inputs: dict[str, str | None], outputs: dict[str, str | None]
) -> str:
    """The checkpoint of a command that searches (``--checkpoint``, else beside its first
    output), once ``check_destinations`` has accepted the command's inputs, outputs and
    checkpoint files, locked until the command ends (``checkpoint_lock``: another search on
    it is refused); with ``--resume`` and no checkpoint to resume from, a warning says so."""
    from abcd_cli.api import AbcdWarning, search_settings
    from abcd_cli.destinations import check_destinations
    from abcd_cli.kernel_search.checkpoint import checkpoint_paths
    from abcd_cli.kernel_search.checkpoint_lock import hold_checkpoints

    first = next((path for path in outputs.values() if path), None)
    settings = search_settings(settings_of(opts))
    checkpoint = opts["checkpoint"] or default_checkpoint(opts["data"], first, settings)
    paths = checkpoint_paths(checkpoint, settings)
    check_destinations(inputs, outputs, paths)
    click.get_current_context().with_resource(hold_checkpoints(paths))
    if opts["resume"] and not any(path.exists() for path in paths):
        warnings.warn(
            f"--resume: there is no checkpoint at {', '.join(map(str, paths))}; the search"
            " starts from the beginning",
            AbcdWarning,
            stacklevel=2,
        )
    return checkpoint


def run_search_command(
    opts: dict[str, Any], checkpoint: str, executor: Executor | None = None
) -> FoundModel:
    """Search DATA with the command's options (``--checkpoint`` overrides ``checkpoint``),
    progress on stderr unless ``--quiet`` (``cli.progress``: a live line on a terminal), on
    ``executor`` if given (else ``--jobs`` and
    ``--scheduler`` decide). An interrupt (Ctrl-C or SIGTERM) says where the
    state was saved and exits with code 130. The caller removes the checkpoints once its
    output is written (``FoundModel.discard_checkpoints``)."""
    events = display(sys.stderr, opts["quiet"])
    try:
        with sigterm_as_interrupt():
            where = (
                {"executor": executor}
                if executor is not None
                else {"jobs": opts["jobs"], "scheduler": opts["scheduler"]}
            )
            return abcd_cli.search(
                opts["data"],
                x=opts["x"],
                y=opts["y"],
                **where,
                on_event=events,
                checkpoint=opts["checkpoint"] or checkpoint,
                resume=opts["resume"],
                **settings_of(opts),
            )
    except abcd_cli.SearchInterrupted as stop:
        _close(events)
        if stop.saved:
            click.echo(
                "Interrupted. The search state after the last finished level is in"
                f" {', '.join(map(str, stop.saved))}; run the same command with --resume to"
                " continue.",
                err=True,
            )
        else:
            click.echo("Interrupted before the first level finished; nothing was saved.", err=True)
        raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
    except Exception:
        _close(events)  # the error's line comes next
        raise


def _close(events: object) -> None:
    """End the display's live line, if one is open, before a message of ours."""
    close = getattr(events, "close", None)
    if close is not None:
        close()


@contextmanager
def shared_executor(opts: dict[str, Any]) -> Iterator[Executor | None]:
    """With ``--scheduler``: one Dask executor for every search of the command (one cluster,
    started or reached once), shut down at the end, its tasks cancelled on an interrupt or an
    error. Without: None (each search makes its own process pool)."""
    if not opts.get("scheduler"):
        yield None
        return
    from abcd_cli.api import own_executor

    executor = own_executor(opts["jobs"], opts["scheduler"])
    finished = False
    try:
        yield executor
        finished = True
    finally:
        executor.shutdown(wait=finished, cancel_futures=not finished)
