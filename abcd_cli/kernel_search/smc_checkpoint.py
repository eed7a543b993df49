"""The sampler's state on disk (``smc.SMCState``), written after every data step and read back by
``--resume``.

The file is a search checkpoint as ``checkpoint`` writes them: its header, the checksum of the
rest, the series' fingerprint and the settings, written atomically; a file made for other data or
settings, changed since, or holding values the sampler cannot have written is refused with the
same messages. It holds both halves' states (``smc_halves``), each as ``smc.SMCState`` has it,
after the same data step, with each data step's facts (``smc_trace.StepFacts``, for the
report's trace). Each particle is kept as its structure's text and its parameters'
values (JSON numbers read back exactly), so a resumed run goes on from exactly the state it
left.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from abcd_cli import __version__
from abcd_cli.files import write_output
from abcd_cli.kernel_search.checkpoint import (
    FORMAT,
    _content,
    _damaged,
    _list,
    _whole,
    content_checksum,
    fingerprint,
    refuse_foreign_checkpoint,
)
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernel_search.smc import SMCState
from abcd_cli.kernel_search.smc_halves import HalvesState, half_sizes
from abcd_cli.kernel_search.smc_trace import StepFacts
from abcd_cli.kernels import WN, Kernel, Sum
from abcd_cli.kernels.text import parse_kernel

#: What a sampler's checkpoint holds besides the common keys (``stage``'s value).
SAMPLER_STAGE = "sampler"


def save_sampler(
    path: Path,
    state: HalvesState,
    elapsed: float,
    settings: SearchSettings,
    x: np.ndarray,
    y: np.ndarray,
) -> None:
    """Write both halves' ``state`` (after ``elapsed`` seconds) to ``path`` atomically."""
    content = {
        "version": __version__,
        "settings": settings.to_dict(),
        "fingerprint": fingerprint(x, y),
        "stage": SAMPLER_STAGE,
        "done": state[0].done,
        "halves": [_state_dict(half) for half in state],
        "elapsed_seconds": elapsed,
    }
    doc = {"format": FORMAT, "checksum": content_checksum(content), **content}
    refuse_foreign_checkpoint(path)
    write_output(path, json.dumps(doc))


def _state_dict(state: SMCState) -> dict[str, Any]:
    return {
        "particles": [_particle_dict(k) for k in state.kernels],
        "log_weights": state.log_w.tolist(),
        "log_evidence": state.log_evidence,
        "following": state.following.tolist(),
        "pending": state.pending.tolist(),
        "step_scales": state.scales().tolist(),
        "moves": [list(moves) for moves in state.moves],
        "history": [facts.to_dict() for facts in state.history],
    }


def load_sampler(
    path: Path, settings: SearchSettings, steps: int, x: np.ndarray, y: np.ndarray
) -> tuple[HalvesState, float] | None:
    """Both halves' state saved at ``path`` for these data and settings (``steps`` data
    steps) and the seconds it had taken; None when there is no file; ``InputError`` when it
    cannot be used (as ``checkpoint.load_state``)."""
    content = _content(path, settings, x, y)
    if content is None:
        return None
    try:
        return _halves_of(content, settings, steps)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise _damaged(path, exc) from None


def _particle_dict(kernel: Kernel) -> dict[str, object]:
    tree, noise = kernel.operands
    return {
        "tree": tree.to_text(params=False),
        "values": tree.values().tolist(),
        "noise": noise.values().tolist(),
    }


def _particle(d: dict[str, Any]) -> Kernel:
    tree = parse_kernel(str(d["tree"]))
    values = [float(v) for v in _list(d, "values")]
    noise = [float(v) for v in _list(d, "noise")]
    if len(values) != tree.theta().size or len(noise) != 1:
        raise ValueError("a particle's values do not fit its structure")
    if not all(math.isfinite(v) for v in values + noise):
        raise ValueError("a particle's values must be finite")
    return Sum((tree.with_values(values), WN(tuple(noise))))


def _halves_of(
    doc: dict[str, Any], settings: SearchSettings, steps: int
) -> tuple[HalvesState, float]:
    """Both halves' states in a checkpoint's content (the settings' particles in all), checked;
    ValueError or TypeError naming the first bad field."""
    if doc.get("stage") != SAMPLER_STAGE:
        raise ValueError("it is not a sampler's")
    done = _whole(doc["done"], "done", 0, steps)
    halves = _list(doc, "halves")
    if len(halves) != 2:
        raise ValueError("the sampler keeps two halves")
    sizes = half_sizes(settings.particles)
    first, second = (
        _state_of(d, n, done, h + 1) for h, (d, n) in enumerate(zip(halves, sizes, strict=True))
    )
    if first.moves != second.moves:
        raise ValueError("the halves' moves differ")
    elapsed = float(doc["elapsed_seconds"])
    if not math.isfinite(elapsed) or elapsed < 0:
        raise ValueError("elapsed_seconds must be a number of at least 0")
    return (first, second), elapsed


def _state_of(doc: dict[str, Any], particles: int, done: int, half: int) -> SMCState:
    """One half's state, checked; ValueError or TypeError naming the first bad field."""
    kernels = [_particle(d) for d in _list(doc, "particles")]
    arrays = {
        k: np.array(_list(doc, k), dtype=float) for k in ("log_weights", "following", "pending")
    }
    if len(kernels) != particles or any(a.size != particles for a in arrays.values()):
        raise ValueError(f"half {half} of the sampler keeps {particles} particles")
    if np.any(np.isnan(np.concatenate(list(arrays.values())))):
        raise ValueError("a weight or likelihood is not a number")
    scales = np.array(_list(doc, "step_scales"), dtype=float)
    if scales.size != particles or not np.all(np.isfinite(scales) & (scales > 0)):
        raise ValueError("step_scales must hold a positive step for each particle")
    moves = _moves(doc["moves"], done)
    log_evidence = float(doc["log_evidence"])
    if math.isnan(log_evidence):
        raise ValueError("log_evidence must be a number")
    history = tuple(StepFacts.from_dict(d) for d in _list(doc, "history"))
    if len(history) != done:
        raise ValueError(f"history must hold one entry per data step done ({done})")
    return SMCState(
        done,
        kernels,
        arrays["log_weights"],
        log_evidence,
        arrays["following"],
        arrays["pending"],
        scales,
        moves,
        history,
    )


def _moves(value: Any, done: int) -> tuple[tuple[int, int], ...]:
    """Each done data step's (structure, parameter) moves, checked."""
    if not isinstance(value, list) or len(value) != done:
        raise ValueError(f"moves must hold a pair for each of the {done} data steps done")
    pairs = []
    for pair in value:
        if not isinstance(pair, list) or len(pair) != 2:
            raise ValueError("moves must hold pairs of whole numbers from 0")
        structure, parameter = (_whole(m, "moves", 0, 2**62) for m in pair)
        pairs.append((structure, parameter))
    return tuple(pairs)
