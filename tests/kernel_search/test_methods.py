"""The inference methods' registry: one place names the methods, and each name leads to a
module whose ``search`` runs it."""

from __future__ import annotations

import importlib

from abcd_cli import model_file
from abcd_cli.cli import options
from abcd_cli.kernel_search import settings
from abcd_cli.kernel_search.methods import METHODS, REGISTRY


def test_every_registered_method_has_one_entry_point():
    for name, module in REGISTRY.items():
        assert callable(importlib.import_module(module).search), name


def test_the_settings_the_cli_and_the_model_file_take_the_registrys_names():
    """The names were a tuple in ``settings`` beside the registry; now every reader takes
    the registry's."""
    assert tuple(REGISTRY) == METHODS
    assert settings.METHODS is METHODS
    assert options.METHODS is METHODS and model_file.METHODS is METHODS
