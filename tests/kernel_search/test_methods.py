"""The inference methods' registry: one place names the methods, and each name leads to a
module whose ``search`` runs it."""

from __future__ import annotations

import importlib

import pytest

from abcd_cli import model_file
from abcd_cli.cli import options
from abcd_cli.errors import InputError
from abcd_cli.kernel_search import settings
from abcd_cli.kernel_search.methods import METHODS, REGISTRY


def test_every_registered_method_has_one_entry_point():
    for name, module in REGISTRY.items():
        assert callable(importlib.import_module(module).search), name


def test_the_settings_the_cli_and_the_model_file_take_the_registrys_names(monkeypatch):
    """The names were a tuple in ``settings`` beside the registry; now every reader takes
    the registry's, the settings and the model file as it is when they check a name (a
    method registered later counts)."""
    assert tuple(REGISTRY) == METHODS and options.METHODS is METHODS
    assert "smc" in METHODS
    with pytest.raises(InputError, match="unknown method 'later'"):
        settings.SearchSettings(method="later")
    monkeypatch.setitem(REGISTRY, "later", "abcd_cli.kernel_search.greedy")
    assert settings.SearchSettings(method="later").method == "later"
    model_file.SETTINGS.optional["method"].check("later", "settings.method")
