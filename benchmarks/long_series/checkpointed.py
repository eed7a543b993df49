"""What the skc profiles (``bench_skc_level``, ``bench_skc_scale``) share: a long series'
search read back from its checkpoint, and their command line's ``--data`` and
``--checkpoint``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import abcd_cli
from abcd_cli.kernel_search.checkpoint import LevelState, load_state
from abcd_cli.kernel_search.greedy import Search
from abcd_cli.kernel_search.settings import SearchSettings


def checkpoint_settings(checkpoint: Path) -> SearchSettings:
    """The settings of the search that wrote ``checkpoint``."""
    raw = json.loads(checkpoint.read_text())["settings"]
    return SearchSettings(**{k: tuple(v) if k == "bases" else v for k, v in raw.items()})


def best_of_checkpoint(data: Path, checkpoint: Path) -> tuple[Search, LevelState | None]:
    """A search of the series in ``data`` with the checkpoint's settings (not resumed), and the
    checkpoint's state; None when it holds no best model of these data."""
    series = abcd_cli.load(str(data))
    settings = checkpoint_settings(checkpoint)
    search = Search(series.x, series.y, settings)
    state = load_state(checkpoint, settings, series.x, series.y)
    return search, (state if state is not None and state.best is not None else None)


def checkpoint_parser(description: str) -> argparse.ArgumentParser:
    """A command line with the required ``--data`` (the series' CSV) and ``--checkpoint`` (the
    checkpoint its search left)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--checkpoint", type=Path, required=True)
    return parser
