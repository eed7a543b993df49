"""The search's state on disk: written atomically after every level, read back to resume.

A state belongs to one series (a fingerprint of x and y) and one set of settings; a state made
for others, or damaged, is refused with a message saying what to do.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from abcd_cli import __version__
from abcd_cli.errors import InputError
from abcd_cli.files import atomic_write
from abcd_cli.kernel_search.scoring import Scored
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels.text import parse_kernel


@dataclass
class LevelState:
    """What a search knows after a level; the rest follows from the seed."""

    level: int
    parents: list[Scored]
    best: Scored | None
    seen: set[str]
    trace: list[dict[str, object]]
    stale: int
    elapsed: float


def fingerprint(x: np.ndarray, y: np.ndarray) -> str:
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(x, dtype=float).tobytes())
    h.update(np.ascontiguousarray(y, dtype=float).tobytes())
    return h.hexdigest()[:16]


def _scored_dict(c: Scored) -> dict[str, object]:
    d: dict[str, object] = {"kernel": c.kernel.to_text(), "nll": c.nll, "bic": c.bic}
    if c.bic_low is not None:
        d["bic_low"] = c.bic_low
    return d


def _scored_from(d: dict) -> Scored:
    low = d.get("bic_low")
    return Scored(
        parse_kernel(d["kernel"]),
        float(d["nll"]),
        float(d["bic"]),
        None if low is None else float(low),
    )


def save_state(
    path: Path, state: LevelState, settings: SearchSettings, x: np.ndarray, y: np.ndarray
) -> None:
    """Write ``state`` to ``path`` atomically (a reader never sees half a file)."""
    doc = {
        "version": __version__,
        "settings": settings.to_dict(),
        "fingerprint": fingerprint(x, y),
        "level": state.level,
        "parents": [_scored_dict(p) for p in state.parents],
        "best": _scored_dict(state.best) if state.best else None,
        "seen": sorted(state.seen),
        "trace": state.trace,
        "stale": state.stale,
        "elapsed_seconds": state.elapsed,
    }
    atomic_write(path, json.dumps(doc))


def load_state(
    path: Path, settings: SearchSettings, x: np.ndarray, y: np.ndarray
) -> LevelState | None:
    """The state saved at ``path`` for these data and settings; None when there is no file;
    ``InputError`` when it cannot be used."""
    if not path.exists():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read checkpoint {path}: {exc}") from None
    if not isinstance(doc, dict):
        raise InputError(f"checkpoint {path} is not a search state; remove it")
    if doc.get("fingerprint") != fingerprint(x, y):
        raise InputError(f"checkpoint {path} was made for other data; remove it to start anew")
    if doc.get("settings") != settings.to_dict():
        raise InputError(
            f"checkpoint {path} was made with other settings; use the same options or remove it"
        )
    try:
        return LevelState(
            level=int(doc["level"]),
            parents=[_scored_from(p) for p in doc["parents"]],
            best=_scored_from(doc["best"]) if doc["best"] else None,
            seen={str(key) for key in doc["seen"]},
            trace=[dict(t) for t in doc["trace"]],
            stale=int(doc["stale"]),
            elapsed=float(doc["elapsed_seconds"]),
        )
    except (AttributeError, KeyError, TypeError, ValueError, InputError) as exc:
        raise InputError(
            f"checkpoint {path} is damaged ({type(exc).__name__}: {exc}); remove it to start anew"
        ) from None


def checkpoint_paths(checkpoint: str | Path, settings: SearchSettings) -> list[Path]:
    """Where each of the settings' searches keeps its state: the path itself for one seed,
    else one file per seed beside it (``NAME.seedK.json`` for ``NAME.json``)."""
    path = Path(checkpoint)
    if settings.seeds == 1:
        return [path]
    seeds = range(settings.seed, settings.seed + settings.seeds)
    return [path.with_name(f"{path.stem}.seed{k}{path.suffix}") for k in seeds]
