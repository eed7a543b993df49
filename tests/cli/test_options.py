"""The commands' options: every option that has a default shows it in ``--help``."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from abcd_cli.cli.main import main

#: click's mark of an option without a default (click 8.2 on; None before).
_UNSET = getattr(click.core, "UNSET", None)


def _options_with_defaults(command: click.Command) -> list[click.Option]:
    """The options of ``command`` (not flags) that have a default value."""
    return [
        p
        for p in command.params
        if isinstance(p, click.Option) and not p.is_flag and p.default not in (None, _UNSET)
    ]


@pytest.mark.parametrize("name", sorted(main.commands))
def test_every_default_is_shown_in_help(name: str) -> None:
    command = main.commands[name]
    hidden = [p.opts[-1] for p in _options_with_defaults(command) if not p.show_default]
    assert not hidden, f"abcd {name} --help hides the default of {hidden}"


@pytest.mark.parametrize("name", ["report", "search", "benchmark"])
def test_jobs_default_is_in_help(name: str) -> None:
    result = CliRunner().invoke(main, [name, "--help"])
    assert result.exit_code == 0
    start = result.output.index("\n  --jobs")  # the option's own entry, not a mention
    jobs = result.output[start : result.output.index("\n  --", start + 1)]
    assert "[default: 0;" in jobs
