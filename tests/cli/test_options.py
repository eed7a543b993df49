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


def test_screen_fits_reach_the_model_file_and_a_bad_count_is_refused(tmp_path) -> None:
    import json

    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    x = rng.uniform(-2, 2, (50, 3))
    y = np.sin(x[:, 0]) + 0.5 * x[:, 1] + 0.1 * rng.normal(size=50)
    data = tmp_path / "t.csv"
    pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "c": x[:, 2], "y": y}).to_csv(data, index=False)
    args = ["search", str(data), "--y", "y", "--table-search", "coordinate", "--quiet"]
    bad = CliRunner().invoke(main, [*args, "--screen-fits", "0"])
    assert bad.exit_code == 2 and "--screen-fits" in bad.output
    out = tmp_path / "m.json"
    ran = CliRunner().invoke(
        main, [*args, "--screen-fits", "2", "--depth", "1", "--restarts", "1", "--json", str(out)]
    )
    assert ran.exit_code == 0, ran.output
    document = json.loads(out.read_text())
    assert document["settings"]["screen_fits"] == 2
    assert set(document["screen"]["resampled"]["input_probabilities"]) == {"a", "b", "c"}
