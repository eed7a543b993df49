"""Every caller runs the method the settings name through the registry, never a method's
module by name: a method registered under a name is the one ``api`` and ``batch`` run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import abcd_cli
from abcd_cli.batch import SeriesJob, search_series
from abcd_cli.kernel_search import methods
from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.settings import SearchSettings

X = np.linspace(0.0, 1.0, 12)
Y = np.sin(6.0 * X)


class Reached(Exception):
    """Raised by the stand-in method with the settings it was given."""


def search(x, y, settings, *rest, **named):
    """A method of this module's: it only says it was reached (registered by the tests)."""
    raise Reached(settings)


@pytest.fixture
def registered(monkeypatch):
    """This module registered as the method "greedy" (the default)."""
    monkeypatch.setitem(methods.REGISTRY, "greedy", __name__)


def test_run_takes_the_registered_module_of_the_settings_method(registered):
    with pytest.raises(Reached) as reached:
        run_search(X, Y, SearchSettings(depth=0, restarts=1, seed=3))
    assert reached.value.args[0].seed == 3


def test_the_api_runs_the_registered_method(registered, tmp_path: Path):
    csv = tmp_path / "s.csv"
    csv.write_text("x,y\n" + "".join(f"{a},{b}\n" for a, b in zip(X, Y, strict=True)))
    with pytest.raises(Reached):
        abcd_cli.search(str(csv), depth=0, restarts=1)


def test_a_batch_worker_runs_the_registered_method(registered, tmp_path: Path):
    job = SeriesJob("s", X, Y, SearchSettings(depth=0, restarts=1), str(tmp_path / "c.json"))
    with pytest.raises(Reached):
        search_series(job)
